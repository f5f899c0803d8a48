//! Where chart files are read from: the disk ([`OsFs`]) or anything a caller provides
//! (helmfile's `Host` in `crates/state`, memory in tests); a chart file's bytes, read
//! with the chart or on first use ([`FileData`]); Helm's limit on a file's size.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Helm's limit on one file of a chart (5 MiB).
pub const MAX_FILE_SIZE: u64 = 5 * 1024 * 1024;

/// Helm refuses any chart file over [`MAX_FILE_SIZE`], naming it by its base name.
pub(crate) fn check_file_size(path: &Path, len: u64) -> Result<(), String> {
    if len <= MAX_FILE_SIZE {
        return Ok(());
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Err(format!(
        "chart file {} is larger than the maximum file size {MAX_FILE_SIZE}",
        capstan_gocompat::quote::go_quote(&name)
    ))
}

/// A chart file's bytes: read with the chart, or (a file of a chart folder that only
/// some renders read: `crds/`, what `.Files` offers) read on first use. Helm reads every
/// file when it loads a chart; kube-prometheus-stack's 4.7 MB of CRDs are read by none
/// of its default renders. A file read later was opened when the chart was loaded (so an
/// unreadable file fails the load, as in Helm) and its size checked then and again.
#[derive(Clone, Debug)]
pub enum FileData {
    /// Read with the chart (or given by a caller).
    Read(Arc<[u8]>),
    /// Read on first use, once for every copy of the chart.
    Later(Arc<LaterFile>),
}

/// A chart file read on first use.
#[derive(Debug)]
pub struct LaterFile {
    path: PathBuf,
    bytes: OnceLock<Result<Arc<[u8]>, String>>,
}

impl FileData {
    /// A file of the disk at `path`, read on first use.
    pub fn later(path: PathBuf) -> FileData {
        FileData::Later(Arc::new(LaterFile {
            path,
            bytes: OnceLock::new(),
        }))
    }

    /// The bytes, read now if they were left for later (the error names the file).
    pub fn get(&self) -> Result<&Arc<[u8]>, String> {
        match self {
            FileData::Read(bytes) => Ok(bytes),
            FileData::Later(file) => file
                .bytes
                .get_or_init(|| {
                    let data = OsFs
                        .read_shared(&file.path)
                        .map_err(|e| format!("{}: {e}", file.path.display()))?;
                    check_file_size(&file.path, data.len() as u64)?;
                    Ok(data)
                })
                .as_ref()
                .map_err(Clone::clone),
        }
    }

    /// The bytes when they are in memory already (a test's look: nothing else asks).
    #[cfg(test)]
    pub(crate) fn read_already(&self) -> Option<&Arc<[u8]>> {
        match self {
            FileData::Read(bytes) => Some(bytes),
            FileData::Later(file) => file.bytes.get().and_then(|r| r.as_ref().ok()),
        }
    }
}

impl From<Arc<[u8]>> for FileData {
    fn from(bytes: Arc<[u8]>) -> FileData {
        FileData::Read(bytes)
    }
}

impl From<Vec<u8>> for FileData {
    fn from(bytes: Vec<u8>) -> FileData {
        FileData::Read(bytes.into())
    }
}

/// Read access to chart directories, packaged charts and values files.
pub trait ChartFs: Send + Sync {
    /// The bytes of a file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// The bytes of a file, to be shared (a chart's files are handed to every render).
    fn read_shared(&self, path: &Path) -> io::Result<std::sync::Arc<[u8]>> {
        self.read(path).map(Into::into)
    }
    /// A file opened now (so that an unreadable one fails now) to be read on first use,
    /// with its size; `None` to read it now instead (the default).
    fn open_later(&self, _path: &Path) -> io::Result<Option<(FileData, u64)>> {
        Ok(None)
    }
    /// The entries of a directory: name, and whether it is a directory (symlinks
    /// followed), sorted by name.
    fn read_dir(&self, path: &Path) -> io::Result<Vec<(String, bool)>>;
    /// Whether `path` is a file (symlinks followed).
    fn is_file(&self, path: &Path) -> bool;
    /// Whether `path` is a directory (symlinks followed).
    fn is_dir(&self, path: &Path) -> bool;
}

/// The local filesystem.
#[derive(Clone, Copy, Debug, Default)]
pub struct OsFs;

impl ChartFs for OsFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    /// Read straight into the shared buffer: a chart's megabytes are written to memory
    /// once, not read into a vector and copied.
    fn read_shared(&self, path: &Path) -> io::Result<std::sync::Arc<[u8]>> {
        use std::io::Read;
        let mut file = std::fs::File::open(path)?;
        let len = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
        // A file that is not what its size says (growing, or a special file): read whole.
        let whole = |mut file: std::fs::File| -> io::Result<std::sync::Arc<[u8]>> {
            let mut data = Vec::new();
            file.read_to_end(&mut data)?;
            Ok(data.into())
        };
        if len == 0 || len > 64 << 20 {
            return whole(file);
        }
        let mut data: std::sync::Arc<[u8]> = std::iter::repeat_n(0u8, len).collect();
        let Some(buf) = std::sync::Arc::get_mut(&mut data) else {
            return whole(std::fs::File::open(path)?);
        };
        let mut filled = 0;
        while filled < len {
            match file.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let mut probe = [0u8; 1];
        if filled < len || file.read(&mut probe)? != 0 {
            return whole(std::fs::File::open(path)?);
        }
        Ok(data)
    }

    /// Regular files only: anything else (a pipe, a device) is read now.
    fn open_later(&self, path: &Path) -> io::Result<Option<(FileData, u64)>> {
        let meta = std::fs::File::open(path)?.metadata()?;
        if !meta.is_file() {
            return Ok(None);
        }
        Ok(Some((FileData::later(path.to_path_buf()), meta.len())))
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<(String, bool)>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(path)? {
            let e = e?;
            // The directory entry knows its type; only symlinks need a stat to follow them.
            let is_dir = match e.file_type() {
                Ok(t) if t.is_symlink() => std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir()),
                Ok(t) => t.is_dir(),
                Err(_) => false,
            };
            out.push((e.file_name().to_string_lossy().into_owned(), is_dir));
        }
        out.sort();
        Ok(out)
    }

    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }
}
