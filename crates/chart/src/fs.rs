//! Where chart files are read from: the disk ([`OsFs`]) or anything a caller provides
//! (helmfile's `Host` in `crates/state`, memory in tests).

use std::io;
use std::path::Path;

/// Read access to chart directories, packaged charts and values files.
pub trait ChartFs: Send + Sync {
    /// The bytes of a file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
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
