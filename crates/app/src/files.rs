//! Writing a command's output files (`template --output-dir`, `write-values`, `fetch`)
//! all together: into temporary siblings first, then renamed, so a failure leaves nothing
//! half-written.

use crate::Failure;
use std::path::{Path, PathBuf};

/// Writes `files` (paths relative to `root`) all together.
///
/// Staged files are private (0600: values may hold secrets) and removed on a signal; in
/// place, a file is readable by others (0644) unless `private`. A path listed twice (one
/// state file loaded twice, two releases writing one file) ends with the last content,
/// as writing them one after the other would.
pub fn write_all<T: AsRef<[u8]>>(
    root: &Path,
    files: &[(String, T)],
    private: bool,
) -> Result<(), Failure> {
    let last_index: std::collections::HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (p.as_str(), i))
        .collect();
    let last: Vec<&(String, T)> = files
        .iter()
        .enumerate()
        .filter(|(i, (p, _))| last_index.get(p.as_str()) == Some(i))
        .map(|(_, f)| f)
        .collect();
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let cleanup = |staged: &[(PathBuf, PathBuf)]| {
        for (tmp, _) in staged {
            let _ = std::fs::remove_file(tmp);
            capstan_state::host::unregister_staged(tmp);
        }
    };
    for (path, text) in last {
        let target = root.join(path);
        if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Err(e) = std::fs::create_dir_all(dir) {
                cleanup(&staged);
                return Err(format!("mkdir {}: {e}", dir.display()).into());
            }
        }
        let tmp = target.with_extension(format!(
            "{}.capstan-tmp",
            target.extension().and_then(|e| e.to_str()).unwrap_or("")
        ));
        capstan_state::host::register_staged(&tmp);
        if let Err(e) = write_private_file(&tmp, text.as_ref()) {
            let _ = std::fs::remove_file(&tmp);
            capstan_state::host::unregister_staged(&tmp);
            cleanup(&staged);
            return Err(format!("write {}: {e}", tmp.display()).into());
        }
        staged.push((tmp, target));
    }
    for (i, (tmp, target)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, target) {
            cleanup(&staged[i..]);
            return Err(format!("rename {}: {e}", target.display()).into());
        }
        capstan_state::host::unregister_staged(tmp);
        if !private {
            set_mode(target, 0o644);
        }
    }
    Ok(())
}

/// Creates (or truncates) `path` readable by its owner only, then writes `data`.
fn write_private_file(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path)?;
    set_mode(path, 0o600);
    f.write_all(data)
}

fn set_mode(path: &Path, mode: u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
}
