//! `helmfile deps`: the repository charts of a state resolved to exact versions by
//! `helm dependency update` of a throwaway chart depending on all of them, written as
//! helmfile's lock file (`version`, `dependencies` with name, repository and version,
//! helm's `digest` and `generated`).

use crate::ops::Helm;
use capstan_state::load::Settings;
use capstan_state::StateError;
use capstan_value::{Str, Value};

pub use capstan_state::lockfile::lock_path;

fn scalar(s: &str) -> String {
    capstan_yaml::encode_helmfile(&Value::from(s))
        .map(|t| t.trim_end().to_string())
        .unwrap_or_else(|_| format!("{s:?}"))
}

/// Resolves `wanted` (chart name, repository URL, version constraint) and returns the
/// lock file's text.
pub fn resolve(
    helm: &dyn Helm,
    _settings: &Settings,
    wanted: &[(String, String, String)],
) -> Result<String, StateError> {
    let private = capstan_state::host::PrivateDir::new()
        .map_err(|e| format!("a temporary directory: {e}"))?;
    let dir = private.path();
    let result = (|| {
        let mut chart =
            String::from("apiVersion: v2\nname: helmfile-deps\nversion: 1.0.0\ndependencies:\n");
        for (name, repo, version) in wanted {
            chart.push_str(&format!(
                "- name: {}\n  repository: {}\n  version: {}\n",
                scalar(name),
                scalar(repo),
                scalar(version)
            ));
        }
        std::fs::write(dir.join("Chart.yaml"), chart).map_err(|e| e.to_string())?;
        helm.update_deps(&dir.display().to_string())
            .map_err(|e| format!("unable to update deps: {}", e.message))?;
        let lock = std::fs::read_to_string(dir.join("Chart.lock"))
            .map_err(|e| format!("unable to update deps: Chart.lock: {e}"))?;
        let v =
            capstan_yaml::decode_helmfile_value(&lock).map_err(|e| format!("Chart.lock: {e}"))?;
        let text = |k: &str| match v.get(k) {
            Some(Value::String(s)) => s.to_string(),
            Some(other) => capstan_yaml::encode_helmfile(&other)
                .map(|t| t.trim_end().to_string())
                .unwrap_or_default(),
            None => String::new(),
        };
        let mut out = format!(
            "version: {}\ndependencies:\n",
            scalar(env!("CARGO_PKG_VERSION"))
        );
        if let Some(Value::List(deps)) = v.get("dependencies") {
            for d in &deps.items {
                let field = |k: &str| match d.get(k) {
                    Some(Value::String(s)) => s.to_string(),
                    _ => String::new(),
                };
                out.push_str(&format!(
                    "- name: {}\n  repository: {}\n  version: {}\n",
                    scalar(&field("name")),
                    scalar(&field("repository")),
                    scalar(&field("version"))
                ));
            }
        }
        out.push_str(&format!("digest: {}\n", scalar(&text("digest"))));
        let generated = match v.get("generated") {
            Some(Value::Time(_)) | Some(Value::String(_)) => {
                let m = Value::map_from(
                    [(
                        Str::from("generated"),
                        v.get("generated").unwrap_or(Value::Nil),
                    )]
                    .into_iter()
                    .collect(),
                );
                capstan_yaml::encode_helmfile(&m).unwrap_or_default()
            }
            _ => String::new(),
        };
        out.push_str(&generated);
        Ok(out)
    })();
    result
}
