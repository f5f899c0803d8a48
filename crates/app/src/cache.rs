//! `cache info` and `cache cleanup`: helmfile's cache of remote files and charts.

use crate::Failure;
use std::path::PathBuf;

/// The cache directory (`HELMFILE_CACHE_HOME`, else the user's cache directory).
pub fn dir() -> PathBuf {
    capstan_fetch::cache_dir(&|k| std::env::var(k).ok())
}

/// The names of the entries in the cache, sorted.
pub fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Removes the cache directory: whether it existed.
pub fn cleanup(dir: &std::path::Path) -> Result<bool, Failure> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("removing {}: {e}", dir.display()).into()),
    }
}
