//! Archives as go-getter unpacks a remote source whose path ends in an archive suffix
//! (`.tar.gz`/`.tgz`, `.tar.bz2`/`.tbz2`, `.tar.xz`/`.txz`, `.tar`, `.zip`, or the
//! `?archive=` query): extracted into a directory, safely. Entries that would leave the
//! directory (absolute paths, `..`), links and special files are refused, and the
//! decompressed size and the number of entries are capped, so a hostile server cannot
//! write outside the cache or fill the disk.

use crate::FetchError;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The most an archive may unpack to.
pub const MAX_UNPACKED: u64 = 256 * 1024 * 1024;
/// The most entries an archive may hold.
pub const MAX_ENTRIES: usize = 100_000;

/// The archive formats go-getter unpacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchiveKind {
    /// `.tar`.
    Tar,
    /// `.tar.gz`, `.tgz`.
    TarGz,
    /// `.tar.bz2`, `.tbz2`.
    TarBz2,
    /// `.tar.xz`, `.txz`.
    TarXz,
    /// `.zip`.
    Zip,
}

impl ArchiveKind {
    fn from_name(name: &str) -> Option<ArchiveKind> {
        Some(match name {
            "tar" => ArchiveKind::Tar,
            "tar.gz" | "tgz" => ArchiveKind::TarGz,
            "tar.bz2" | "tbz2" => ArchiveKind::TarBz2,
            "tar.xz" | "txz" => ArchiveKind::TarXz,
            "zip" => ArchiveKind::Zip,
            _ => return None,
        })
    }
}

/// The archive a source path names: the `archive=` query parameter (go-getter's
/// override), else the path's suffix.
pub(crate) fn archive_kind(path: &str, query: &str) -> Option<ArchiveKind> {
    for p in query.split('&') {
        if let Some(name) = p.strip_prefix("archive=") {
            return ArchiveKind::from_name(name);
        }
    }
    let lower = path.to_ascii_lowercase();
    [
        "tar.gz", "tgz", "tar.bz2", "tbz2", "tar.xz", "txz", "tar", "zip",
    ]
    .into_iter()
    .find(|ext| lower.ends_with(&format!(".{ext}")))
    .and_then(ArchiveKind::from_name)
}

/// `query` without go-getter's `archive=` parameter (not sent to the server).
pub(crate) fn without_archive_param(query: &str) -> String {
    query
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("archive="))
        .collect::<Vec<_>>()
        .join("&")
}

/// The path an entry is written to, or why it may not be.
fn safe_path(dest: &Path, name: &str) -> Result<Option<PathBuf>, FetchError> {
    let mut out = dest.to_path_buf();
    let mut any = false;
    for c in Path::new(name).components() {
        match c {
            Component::Normal(part) => {
                out.push(part);
                any = true;
            }
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(FetchError(format!(
                    "archive entry {name:?} would be written outside its directory"
                )))
            }
        }
    }
    Ok(any.then_some(out))
}

/// Counts what an archive unpacks, refusing it past the caps.
struct Budget {
    bytes: u64,
    entries: usize,
}

impl Budget {
    fn entry(&mut self) -> Result<(), FetchError> {
        self.entries += 1;
        if self.entries > MAX_ENTRIES {
            return Err(FetchError(format!(
                "archive has more than {MAX_ENTRIES} entries"
            )));
        }
        Ok(())
    }

    /// Copies one entry's contents, within the size cap.
    fn read(&mut self, r: &mut dyn Read) -> Result<Vec<u8>, FetchError> {
        let left = MAX_UNPACKED.saturating_sub(self.bytes);
        let data = capstan_source::read_capped(r, left)
            .map_err(|e| FetchError(format!("reading the archive: {e}")))?
            .ok_or_else(|| {
                FetchError(format!(
                    "archive unpacks to more than {} MiB",
                    MAX_UNPACKED >> 20
                ))
            })?;
        self.bytes += data.len() as u64;
        Ok(data)
    }
}

fn write_file(path: &Path, data: &[u8]) -> Result<(), FetchError> {
    if let Some(parent) = path.parent() {
        create_private_dir(parent)?;
    }
    crate::write_private(path, data)
}

fn create_private_dir(dir: &Path) -> Result<(), FetchError> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
        .map_err(|e| FetchError(format!("mkdir {}: {e}", dir.display())))
}

/// Unpacks `data` into `dest` (created, private).
pub fn unpack(kind: ArchiveKind, data: &[u8], dest: &Path) -> Result<(), FetchError> {
    create_private_dir(dest)?;
    let mut budget = Budget {
        bytes: 0,
        entries: 0,
    };
    let bad = |e: &dyn std::fmt::Display| FetchError(format!("reading the archive: {e}"));
    match kind {
        ArchiveKind::Zip => {
            let mut zip = zip::ZipArchive::new(std::io::Cursor::new(data)).map_err(|e| bad(&e))?;
            for i in 0..zip.len() {
                budget.entry()?;
                let mut f = zip.by_index(i).map_err(|e| bad(&e))?;
                let name = f.name().to_string();
                if f.is_symlink() {
                    return Err(FetchError(format!(
                        "archive entry {name:?} is a link: refused"
                    )));
                }
                let Some(path) = safe_path(dest, &name)? else {
                    continue;
                };
                if f.is_dir() {
                    create_private_dir(&path)?;
                    continue;
                }
                let bytes = budget.read(&mut f)?;
                write_file(&path, &bytes)?;
            }
        }
        tar_kind => {
            let reader: Box<dyn Read> = match tar_kind {
                ArchiveKind::Tar => Box::new(data),
                ArchiveKind::TarGz => Box::new(flate2::read::GzDecoder::new(data)),
                ArchiveKind::TarBz2 => Box::new(bzip2_rs::DecoderReader::new(data)),
                ArchiveKind::TarXz => {
                    // Power-of-two growth: the buffer never passes the cap.
                    let mut out = Vec::with_capacity(64 * 1024);
                    let mut input = std::io::BufReader::new(data);
                    let mut limited = LimitedWriter {
                        out: &mut out,
                        left: MAX_UNPACKED,
                    };
                    lzma_rs::xz_decompress(&mut input, &mut limited)
                        .map_err(|e| FetchError(format!("reading the archive: {e:?}")))?;
                    Box::new(std::io::Cursor::new(out))
                }
                ArchiveKind::Zip => unreachable!("handled above"),
            };
            let mut archive = tar::Archive::new(reader);
            for entry in archive.entries().map_err(|e| bad(&e))? {
                budget.entry()?;
                let mut entry = entry.map_err(|e| bad(&e))?;
                let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
                let kind = entry.header().entry_type();
                if kind.is_dir() {
                    if let Some(path) = safe_path(dest, &name)? {
                        create_private_dir(&path)?;
                    }
                    continue;
                }
                if kind.is_pax_global_extensions()
                    || kind.is_pax_local_extensions()
                    || kind.is_gnu_longname()
                    || kind.is_gnu_longlink()
                {
                    continue;
                }
                if !kind.is_file() {
                    return Err(FetchError(format!(
                        "archive entry {name:?} is not a regular file (links and devices are refused)"
                    )));
                }
                let Some(path) = safe_path(dest, &name)? else {
                    continue;
                };
                let bytes = budget.read(&mut entry)?;
                write_file(&path, &bytes)?;
            }
        }
    }
    Ok(())
}

/// A writer that fails once more than `left` bytes came (the xz decoder writes all it
/// decodes).
struct LimitedWriter<'a> {
    out: &'a mut Vec<u8>,
    left: u64,
}

impl std::io::Write for LimitedWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() as u64 > self.left {
            return Err(std::io::Error::other(format!(
                "archive unpacks to more than {} MiB",
                MAX_UNPACKED >> 20
            )));
        }
        self.left -= buf.len() as u64;
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tar_gz(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, data) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_entry_type(tar::EntryType::Regular);
            // Raw name bytes, so that `../` names can be written for the test.
            h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
            h.set_cksum();
            b.append(&h, *data).expect("append");
        }
        let raw = b.into_inner().expect("tar");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &raw).expect("gzip");
        gz.finish().expect("gzip")
    }

    fn tempdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("capstan-unpack-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn kinds_come_from_the_suffix_or_the_query() {
        assert_eq!(archive_kind("a/b.TGZ", ""), Some(ArchiveKind::TarGz));
        assert_eq!(archive_kind("a/b.tar.xz", ""), Some(ArchiveKind::TarXz));
        assert_eq!(archive_kind("a/b.zip", ""), Some(ArchiveKind::Zip));
        assert_eq!(
            archive_kind("a/b", "x=1&archive=tbz2"),
            Some(ArchiveKind::TarBz2)
        );
        assert_eq!(archive_kind("a/values.yaml", ""), None);
        assert_eq!(without_archive_param("archive=zip&ref=1"), "ref=1");
    }

    #[test]
    fn files_unpack_and_escapes_are_refused() {
        let d = tempdir("ok");
        let data = tar_gz(&[("env/staging.yaml", b"a: 1\n"), ("./top.yaml", b"b: 2\n")]);
        unpack(ArchiveKind::TarGz, &data, &d).expect("unpacks");
        assert_eq!(
            std::fs::read(d.join("env/staging.yaml")).expect("read"),
            b"a: 1\n"
        );
        assert_eq!(std::fs::read(d.join("top.yaml")).expect("read"), b"b: 2\n");
        let bad = tempdir("escape");
        let data = tar_gz(&[("../../escaped.yaml", b"x: 1\n")]);
        let err = unpack(ArchiveKind::TarGz, &data, &bad).expect_err("refused");
        assert!(err.0.contains("outside its directory"), "{err}");
        assert!(!bad.join("../../escaped.yaml").exists());
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_dir_all(&bad);
    }
}
