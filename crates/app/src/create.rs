//! `capstan create [DIR]`: helmfile's project scaffold — `helmfile.yaml` (helm defaults
//! and commented examples of repositories, environments and releases),
//! `environments/default.yaml` and an empty `values/` kept by `.gitkeep`. An existing file
//! is an error unless `--force`; nothing is written outside DIR.

use crate::Failure;
use std::path::Path;

/// What `create` is asked for.
#[derive(Clone, Debug, Default)]
pub struct CreateRequest {
    /// The project directory (created when missing), relative to the working directory.
    pub dir: String,
    /// Overwrite files that exist.
    pub force: bool,
}

const HELMFILE_YAML: &str = r#"# The releases of this project, as helmfile (and capstan) read them.
# Reference: https://helmfile.readthedocs.io/

# Settings every release starts from.
helmDefaults:
  createNamespace: true
  wait: true
  timeout: 300

# # Chart repositories the releases use.
# repositories:
#   - name: bitnami
#     url: https://charts.bitnami.com/bitnami

# # One entry per environment (`capstan -e staging apply`); each one's values are
# # `.Values` in this file and in values templates.
# environments:
#   default:
#     values:
#       - environments/default.yaml
#   staging:
#     values:
#       - environments/staging.yaml

# # The releases.
# releases:
#   - name: my-app
#     namespace: my-app
#     chart: bitnami/nginx
#     version: ~18.0.0
#     values:
#       - values/my-app.yaml
"#;

const DEFAULT_ENV_YAML: &str = r#"# Values of the default environment: `.Values` in helmfile.yaml, for example
# replicaCount: 1
"#;

/// Creates the scaffold in `args.dir` (relative to `cwd`); each file written is logged.
pub fn run(args: &CreateRequest, cwd: &Path, log: &mut String) -> Result<(), Failure> {
    let root = cwd.join(&args.dir);
    let files: [(&str, &str); 3] = [
        ("helmfile.yaml", HELMFILE_YAML),
        ("environments/default.yaml", DEFAULT_ENV_YAML),
        ("values/.gitkeep", ""),
    ];
    let shown = |rel: &str| {
        if args.dir == "." {
            rel.to_string()
        } else {
            format!("{}/{rel}", args.dir.trim_end_matches('/'))
        }
    };
    // Check every file first: an existing one stops the command before anything is written.
    if !args.force {
        for (rel, _) in &files {
            if root.join(rel).exists() {
                return Err(
                    format!("{} already exists, use --force to overwrite", shown(rel)).into(),
                );
            }
        }
    }
    // Every folder is checked (no link leading out of the project) before any file is
    // written.
    let mut targets = Vec::new();
    for (rel, content) in &files {
        let rel = Path::new(rel);
        let dir = crate::files::dir_inside(&root, rel.parent().unwrap_or(Path::new("")))
            .map_err(|e| format!("failed to create directory: {e}"))?;
        targets.push((rel, dir.join(rel.file_name().unwrap_or_default()), content));
    }
    for (rel, path, content) in targets {
        let shown_rel = shown(&rel.to_string_lossy());
        // A link at the file's own name is replaced, never written through.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            std::fs::remove_file(&path).map_err(|e| format!("failed to write {shown_rel}: {e}"))?;
        }
        std::fs::write(&path, content).map_err(|e| format!("failed to write {shown_rel}: {e}"))?;
        logln!(log, "created {shown_rel}");
    }
    logln!(
        log,
        "\ncapstan project created in {}\n\nNext steps:\n  cd {}\n  # Edit helmfile.yaml to add your releases\n  capstan apply",
        args.dir,
        args.dir
    );
    Ok(())
}
