//! Files that may hold secrets: written 0600 beside their target and renamed, SSH keys
//! for git in private files, all removed on a signal ([`remove_private_files`]); the
//! cache's lock file.

use crate::FetchError;
use std::path::{Path, PathBuf};

/// A private file holding a `sshkey=` private key while git runs; removed when dropped
/// (and by [`remove_private_files`] on a signal).
pub(crate) struct SshKeyFile(pub(crate) PathBuf);

impl SshKeyFile {
    pub(crate) fn write(next_to: &Path, encoded: &str) -> Result<SshKeyFile, FetchError> {
        use base64::Engine;
        let engines = [
            base64::engine::general_purpose::STANDARD,
            base64::engine::general_purpose::URL_SAFE,
        ];
        let key = engines
            .iter()
            .find_map(|e| e.decode(encoded.trim()).ok())
            .ok_or_else(|| FetchError("sshkey: not base64-encoded".into()))?;
        let path = beside(next_to, &format!("sshkey-{}", unpredictable_suffix()));
        register_private(&path);
        write_private(&path, &key).inspect_err(|_| forget_private(&path))?;
        Ok(SshKeyFile(path))
    }
}

impl Drop for SshKeyFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        forget_private(&self.0);
    }
}

/// `path` with `.suffix` added to its last component (never replacing what follows a
/// dot already there: cache keys such as `repo_git.ref=v1` hold dots).
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(suffix);
    path.with_file_name(name)
}

/// A suffix for temporary names no other process can guess (64 random bits from the
/// operating system), so no one can create the name first to make a write fail or to
/// steer it. Every temporary file or directory is also made exclusively (never an
/// existing one reused).
pub fn unpredictable_suffix() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::getrandom(&mut bytes).is_err() {
        // No randomness source: the standard library's per-process random hash keys.
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        bytes = h.finish().to_le_bytes();
    }
    capstan_gocompat::hex::encode(&bytes)
}

/// Files holding secrets while a fetch runs.
static PRIVATE_FILES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn register_private(p: &Path) {
    if let Ok(mut v) = PRIVATE_FILES.lock() {
        v.push(p.to_path_buf());
    }
}

fn forget_private(p: &Path) {
    if let Ok(mut v) = PRIVATE_FILES.lock() {
        v.retain(|f| f != p);
    }
}

/// Removes every file holding a secret for a running fetch (for signal handlers).
pub fn remove_private_files() {
    if let Ok(mut v) = PRIVATE_FILES.lock() {
        for f in v.drain(..) {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// An exclusive lock on a cache entry (`ENTRY.lock` beside it), held while it is
/// fetched: concurrent runs wait, then find the entry complete.
pub(crate) struct CacheLock(#[allow(dead_code)] std::fs::File);

impl CacheLock {
    pub(crate) fn acquire(entry: &Path) -> Result<CacheLock, FetchError> {
        let parent = entry.parent().unwrap_or(entry);
        std::fs::create_dir_all(parent)
            .map_err(|e| FetchError(format!("mkdir {}: {e}", parent.display())))?;
        let path = beside(entry, "lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| FetchError(format!("locking {}: {e}", path.display())))?;
        file.lock()
            .map_err(|e| FetchError(format!("locking {}: {e}", path.display())))?;
        Ok(CacheLock(file))
    }
}

/// `%XX` escapes decoded (an invalid escape stays as it is, as Go's lenient readers do).
pub fn percent_decode(s: &str) -> Vec<u8> {
    percent_encoding::percent_decode_str(s).collect()
}

/// Writes a fetched file with owner-only permissions.
pub(crate) fn write_private(file: &Path, data: &[u8]) -> Result<(), FetchError> {
    if let Some(dir) = file.parent() {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        b.create(dir)
            .map_err(|e| FetchError(format!("mkdir {}: {e}", dir.display())))?;
    }
    let tmp = beside(file, &format!("capstan-partial-{}", unpredictable_suffix()));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let written = opts
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, data))
        .and_then(|_| std::fs::rename(&tmp, file));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        FetchError(format!("write {}: {e}", file.display()))
    })
}
