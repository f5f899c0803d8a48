//! Reading a packaged chart (`.tgz`) safely, as Helm's archive loader does: the first
//! path segment (the chart's folder) is dropped, absolute paths and entries escaping the
//! chart are refused, and the decompressed size is capped (whole chart and per file), so
//! a decompression bomb stops early instead of filling memory.

use crate::model::{ChartFile, LoadError};

/// Helm's limit on a packaged chart, decompressed (100 MiB).
pub const MAX_CHART_SIZE: u64 = 100 * 1024 * 1024;
pub use crate::fs::MAX_FILE_SIZE;

/// The files of a gzipped tar archive, named inside the chart.
pub fn read_archive(data: &[u8]) -> Result<Vec<ChartFile>, LoadError> {
    read_archive_limited(data, MAX_CHART_SIZE, MAX_FILE_SIZE)
}

/// [`read_archive`] with explicit limits (for tests).
pub(crate) fn read_archive_limited(
    data: &[u8],
    max_total: u64,
    max_file: u64,
) -> Result<Vec<ChartFile>, LoadError> {
    if data.len() < 2 || data[0] != 0x1f || data[1] != 0x8b {
        return Err(LoadError::new(
            "file does not appear to be a gzipped archive",
        ));
    }
    let gz = flate2::read::GzDecoder::new(data);
    let mut archive = tar::Archive::new(gz);
    let entries = archive
        .entries()
        .map_err(|e| LoadError::new(format!("reading chart archive: {e}")))?;
    let mut files = Vec::new();
    let mut total: u64 = 0;
    for entry in entries {
        let mut entry = entry.map_err(|e| LoadError::new(format!("reading chart archive: {e}")))?;
        let kind = entry.header().entry_type();
        if kind.is_dir() || kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
            continue;
        }
        let raw = String::from_utf8_lossy(&entry.path_bytes()).replace('\\', "/");
        if !kind.is_file() {
            return Err(LoadError::new(format!(
                "chart archive entry {raw:?} is not a regular file"
            )));
        }
        if raw.starts_with('/') {
            return Err(LoadError::new("chart illegally contains absolute paths"));
        }
        let inner = match raw.split_once('/') {
            Some((_, rest)) => rest.to_string(),
            None => continue,
        };
        let name = capstan_sprig::path_clean(&inner);
        if name == ".." || name.starts_with("../") {
            return Err(LoadError::new(
                "chart illegally references parent directory",
            ));
        }
        if name.is_empty() || name == "." {
            continue;
        }
        let buf = capstan_source::read_capped(&mut entry, max_file)
            .map_err(|e| LoadError::new(format!("reading chart archive: {e}")))?
            .ok_or_else(|| {
                LoadError::new(format!(
                    "decompressed chart file {raw:?} is larger than the maximum file size {max_file}"
                ))
            })?;
        let read = buf.len() as u64;
        total += read;
        if total > max_total {
            return Err(LoadError::new(format!(
                "decompressed chart is larger than the maximum size {max_total}"
            )));
        }
        files.push(ChartFile {
            name,
            data: buf.into(),
        });
    }
    if files.is_empty() {
        return Err(LoadError::new("no files in chart archive"));
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tgz(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::default());
            let mut b = tar::Builder::new(gz);
            for (name, data) in entries {
                let mut h = tar::Header::new_gnu();
                h.set_size(data.len() as u64);
                h.set_mode(0o644);
                h.set_entry_type(tar::EntryType::Regular);
                // Written raw so that unsafe names reach the reader as they would from a hostile archive.
                let bytes = name.as_bytes();
                h.as_old_mut().name[..bytes.len()].copy_from_slice(bytes);
                h.set_cksum();
                b.append(&h, *data).unwrap();
            }
            b.into_inner().unwrap().finish().unwrap();
        }
        out
    }

    #[test]
    fn strips_the_chart_folder() {
        let files = read_archive(&tgz(&[
            ("c/Chart.yaml", b"name: c"),
            ("c/templates/a.yaml", b"x"),
        ]))
        .unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["Chart.yaml", "templates/a.yaml"]);
    }

    #[test]
    fn refuses_entries_outside_the_chart() {
        let e = read_archive(&tgz(&[("c/../../etc/passwd", b"x")])).unwrap_err();
        assert_eq!(e.message, "chart illegally references parent directory");
        let e = read_archive(&tgz(&[("/etc/passwd", b"x")])).unwrap_err();
        assert_eq!(e.message, "chart illegally contains absolute paths");
    }

    #[test]
    fn refuses_decompression_bombs() {
        let zeros = vec![0u8; 64 * 1024];
        let data = tgz(&[("c/a", &zeros), ("c/b", &zeros)]);
        assert!(data.len() < 4096, "compresses well: {}", data.len());
        let e = read_archive_limited(&data, 100 * 1024, 50 * 1024).unwrap_err();
        assert!(
            e.message
                .contains("larger than the maximum file size 51200"),
            "{}",
            e.message
        );
        let e = read_archive_limited(&data, 100 * 1024, 80 * 1024).unwrap_err();
        assert_eq!(
            e.message,
            "decompressed chart is larger than the maximum size 102400"
        );
    }

    #[test]
    fn refuses_non_gzip() {
        assert!(read_archive(b"not a tarball").is_err());
    }
}
