//! What `init` and `version` check about the helm installation: the helm binary and its
//! version (helmfile's minimum and recommendation), and the helm plugins helmfile's `init`
//! installs, each with whether capstan needs it. The `helm plugin install` argv comes from
//! here; running it (and asking first) is the command's job.

use crate::version::HelmVersion;
use capstan_state::StateError;
use std::path::{Path, PathBuf};

/// The oldest helm helmfile v1.7 works with (its `HelmRequiredVersion`).
pub const REQUIRED_HELM: (u64, u64, u64) = (3, 18, 6);
/// The helm helmfile recommends installing.
pub const RECOMMENDED_HELM: &str = "v4.1.0";
/// Where helm's own install script lives (what helmfile's `init` downloads and runs).
pub const HELM_INSTALL_SCRIPT: &str =
    "https://raw.githubusercontent.com/helm/helm/main/scripts/get-helm-3";

/// A helm plugin helmfile's `init` checks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plugin {
    /// The name in its `plugin.yaml`.
    pub name: &'static str,
    /// The version helmfile installs (and the lowest it accepts).
    pub version: &'static str,
    /// Where `helm plugin install` gets it.
    pub repo: &'static str,
    /// Why capstan does not need it (`None`: capstan's helm uses it).
    pub not_needed: Option<&'static str>,
}

/// helmfile v1.7's list, in its order.
pub const PLUGINS: &[Plugin] = &[
    Plugin {
        name: "diff",
        version: "v3.15.1",
        repo: "https://github.com/databus23/helm-diff",
        not_needed: Some("capstan diffs natively; only `diff`/`apply --diff-plugin` use it"),
    },
    Plugin {
        name: "secrets",
        version: "v4.7.4",
        repo: "https://github.com/jkroepke/helm-secrets",
        not_needed: Some("capstan decrypts sops files itself"),
    },
    Plugin {
        name: "s3",
        version: "v0.16.3",
        repo: "https://github.com/hypnoglow/helm-s3.git",
        not_needed: None,
    },
    Plugin {
        name: "helm-git",
        version: "v1.3.0",
        repo: "https://github.com/aslafy-z/helm-git.git",
        not_needed: None,
    },
    Plugin {
        name: "unittest",
        version: "v1.0.3",
        repo: "https://github.com/helm-unittest/helm-unittest",
        not_needed: None,
    },
];

/// The helm binary's `helm version --short` text and its parsed version; an error says
/// why it could not run (not found, failed).
pub fn detect(binary: &str, cwd: &Path) -> Result<(String, HelmVersion), StateError> {
    let out = std::process::Command::new(binary)
        .args(["version", "--short"])
        .current_dir(cwd)
        .output()
        .map_err(|e| format!("error determining helm version: exec: {binary:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "error determining helm version: {}",
            String::from_utf8_lossy(&out.stderr).trim_end()
        )
        .into());
    }
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let version =
        HelmVersion::parse(&text).map_err(|e| format!("error determining helm version: {e}"))?;
    Ok((text, version))
}

/// helm's plugins directory (`helm env HELM_PLUGINS`).
pub fn plugins_dir(binary: &str, cwd: &Path) -> Result<PathBuf, StateError> {
    let out = std::process::Command::new(binary)
        .args(["env", "HELM_PLUGINS"])
        .current_dir(cwd)
        .output()
        .map_err(|e| format!("helm env HELM_PLUGINS: {e}"))?;
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || dir.is_empty() {
        return Err(format!(
            "helm env HELM_PLUGINS: {}",
            String::from_utf8_lossy(&out.stderr).trim_end()
        )
        .into());
    }
    Ok(PathBuf::from(dir))
}

/// The version of the plugin named `name` installed under `dir` (each plugin's directory
/// holds a `plugin.yaml` with its `name` and `version`), or `None`.
pub fn installed_version(dir: &Path, name: &str) -> Option<HelmVersion> {
    let entries = std::fs::read_dir(dir).ok()?;
    for entry in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path().join("plugin.yaml")) else {
            continue;
        };
        let Ok(doc) = capstan_yaml::decode_helm(&text) else {
            continue;
        };
        let field = |k: &str| doc.get(k).and_then(|v| v.as_str().map(str::to_string));
        if field("name").as_deref() == Some(name) {
            let version = doc
                .get("version")
                .map(|v| capstan_state::scalar_text(&v))
                .unwrap_or_default();
            return Some(HelmVersion::parse(&version).unwrap_or(HelmVersion::new(0, 0, 0)));
        }
    }
    None
}

/// `helm plugin install REPO --version VERSION`, as helmfile's `AddPlugin`.
pub fn install_args(p: &Plugin) -> Vec<String> {
    ["plugin", "install", p.repo, "--version", p.version]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// `helm plugin update NAME`, as helmfile's `UpdatePlugin`.
pub fn update_args(p: &Plugin) -> Vec<String> {
    ["plugin", "update", p.name]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Whether `v` is at least the plugin's version.
pub fn recent_enough(p: &Plugin, v: &HelmVersion) -> bool {
    match HelmVersion::parse(p.version).ok().and_then(|w| w.triple) {
        Some((a, b, c)) => v.at_least(a, b, c),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugins_are_found_by_the_name_in_their_plugin_yaml() {
        let dir = std::env::temp_dir().join(format!("capstan-plugins-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("helm-diff")).unwrap();
        std::fs::write(
            dir.join("helm-diff/plugin.yaml"),
            "name: diff\nversion: 3.9.0\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.join("other")).unwrap();
        let found = installed_version(&dir, "diff");
        let missing = installed_version(&dir, "s3");
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(found, Some(HelmVersion::new(3, 9, 0)));
        assert_eq!(missing, None);
        assert!(!recent_enough(&PLUGINS[0], &HelmVersion::new(3, 9, 0)));
        assert!(recent_enough(&PLUGINS[0], &HelmVersion::new(3, 15, 1)));
        assert_eq!(
            install_args(&PLUGINS[2]),
            [
                "plugin",
                "install",
                "https://github.com/hypnoglow/helm-s3.git",
                "--version",
                "v0.16.3"
            ]
        );
    }
}
