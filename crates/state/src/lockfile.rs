//! helmfile's lock file (`helmfile deps` writes it): beside `helmfile.yaml` as
//! `helmfile.lock` (`NAME.lock` for `NAME.yaml(.gotmpl)`), the versions the repository
//! charts of the state resolved to. When it exists, a release whose chart is
//! `REPO/NAME` of a repository it lists uses the locked version.

use crate::host::Host;
use crate::merge::Tree;
use crate::release::Release;
use crate::spec::{list_of, str_of};
use crate::StateError;
use std::path::Path;

/// The lock file of a state file.
pub fn lock_path(state_file: &str) -> String {
    let (dir, base) = match state_file.rsplit_once('/') {
        Some((d, b)) => (format!("{d}/"), b),
        None => (String::new(), state_file),
    };
    let stem = base
        .strip_suffix(".gotmpl")
        .unwrap_or(base)
        .trim_end_matches(".yaml")
        .trim_end_matches(".yml");
    format!("{dir}{stem}.lock")
}

/// Pins the releases' chart versions to the lock file's, when there is one.
pub(crate) fn apply_lock(
    host: &dyn Host,
    state_file: &str,
    doc: &Tree,
    releases: &mut [Release],
) -> Result<(), StateError> {
    let path = lock_path(state_file);
    let Ok(bytes) = host.read_file(Path::new(&path)) else {
        return Ok(());
    };
    let text = String::from_utf8_lossy(&bytes);
    let lock = capstan_yaml::decode_helmfile_value(&text).map_err(|e| format!("{path}: {e}"))?;
    let lock: Tree = lock.as_map().map(|m| m.snapshot()).unwrap_or_default();
    let deps: Vec<Tree> = list_of(&lock, "dependencies")
        .iter()
        .filter_map(|d| d.as_map().map(|m| m.snapshot()))
        .collect();
    let repos: Vec<Tree> = list_of(doc, "repositories")
        .iter()
        .filter_map(|r| r.as_map().map(|m| m.snapshot()))
        .collect();
    for r in releases.iter_mut() {
        let Some((repo, name)) = r.chart.split_once('/') else {
            continue;
        };
        let Some(url) = repos
            .iter()
            .find(|t| str_of(t, "name") == repo)
            .map(|t| str_of(t, "url"))
        else {
            continue;
        };
        if let Some(d) = deps
            .iter()
            .find(|d| str_of(d, "name") == name && str_of(d, "repository") == url)
        {
            let v = str_of(d, "version");
            if !v.is_empty() {
                r.version = v;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_file_names() {
        assert_eq!(lock_path("helmfile.yaml"), "helmfile.lock");
        assert_eq!(lock_path("helmfile.yaml.gotmpl"), "helmfile.lock");
        assert_eq!(lock_path("helmfile.d/apps.yaml"), "helmfile.d/apps.lock");
    }
}
