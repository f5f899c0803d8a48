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
/// `folder` is the folder the user named (relative to `cwd`, or absolute): every file
/// must lie inside it, and no symbolic link below it may lead the writes out of it.
pub fn write_all<T: AsRef<[u8]>>(
    cwd: &Path,
    folder: &str,
    files: &[(String, T)],
    private: bool,
) -> Result<(), Failure> {
    let top = absolute(&cwd.join(folder));
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
        let full = absolute(&cwd.join(path));
        let Ok(rel) = full.strip_prefix(&top) else {
            cleanup(&staged);
            return Err(format!("{path}: outside the output folder {folder:?}").into());
        };
        let target = match dir_inside(&top, rel.parent().unwrap_or(Path::new(""))) {
            Ok(real) => real.join(rel.file_name().unwrap_or_default()),
            Err(e) => {
                cleanup(&staged);
                return Err(e.into());
            }
        };
        let tmp = target.with_extension(format!(
            "{}.capstan-tmp",
            target.extension().and_then(|e| e.to_str()).unwrap_or("")
        ));
        // Whatever is at the staging name (a link someone left there) is replaced, not
        // written through.
        let _ = std::fs::remove_file(&tmp);
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

/// The folder `rel` below `root`, made where missing, with every link resolved: an
/// error when an existing part of it (a symbolic link) leads out of `root`, before
/// anything is made there. `root` itself is the caller's choice and is not judged.
pub fn dir_inside(root: &Path, rel: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(root).map_err(|e| format!("mkdir {}: {e}", root.display()))?;
    let top = std::fs::canonicalize(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let mut cur = top.clone();
    for part in rel.components() {
        match part {
            std::path::Component::Normal(name) => cur.push(name),
            std::path::Component::CurDir => continue,
            _ => {
                return Err(format!(
                    "{}: not a folder inside {}",
                    rel.display(),
                    root.display()
                ))
            }
        }
        match std::fs::canonicalize(&cur) {
            Ok(real) if real.starts_with(&top) && real.is_dir() => cur = real,
            Ok(real) if real.starts_with(&top) => {
                return Err(format!("mkdir {}: not a directory", cur.display()))
            }
            Ok(_) => {
                return Err(format!(
                    "{} leads out of {} (a symbolic link): nothing is written through it",
                    cur.display(),
                    root.display()
                ))
            }
            Err(_) => {
                // Not there, or a dangling link: made new (a link is never followed).
                if std::fs::symlink_metadata(&cur).is_ok() {
                    return Err(format!(
                        "{} is a symbolic link leading nowhere inside {}: nothing is written through it",
                        cur.display(),
                        root.display()
                    ));
                }
                std::fs::create_dir(&cur).map_err(|e| format!("mkdir {}: {e}", cur.display()))?;
            }
        }
    }
    Ok(cur)
}

/// Creates `path` (which must not exist) readable by its owner only, then writes `data`.
fn write_private_file(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
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

/// The deepest folder holding the working folder `cwd` and every one of `paths`
/// (relative to `cwd`, or absolute): for files each state names relative to its own
/// folder.
pub fn common_folder<T>(cwd: &Path, paths: &[(String, T)]) -> String {
    let mut common: Option<PathBuf> = Some(absolute(cwd));
    for (p, _) in paths {
        let full = absolute(&cwd.join(p));
        let dir = full.parent().map(Path::to_path_buf).unwrap_or_default();
        common = Some(match common {
            None => dir,
            Some(c) => c
                .components()
                .zip(dir.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common
        .unwrap_or_else(|| cwd.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// `p` made absolute (against the process's working folder) and cleaned as Go cleans it.
fn absolute(p: &Path) -> PathBuf {
    capstan_state::host::clean(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}
