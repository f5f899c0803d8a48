//! The conformance runner: reads the Go-generated vectors under `../shared/conformance`
//! (and `../shared/peer`), runs capstan on each case and reports per case.
//!
//! Every suite is listed in [`SUITES`]. A suite whose feature is not built yet still
//! enumerates its cases and reports each as failed with the reason, so nothing is ever
//! skipped silently. The ratchet lists (`passing/<suite>.txt`) name the cases known to
//! pass; `cargo test` fails if one of them regresses.

#![warn(missing_docs)]

pub mod bench;
pub(crate) mod e2e_suite;
mod env_suite;
mod gotemplate_suite;
pub(crate) mod helm_values_suite;
mod helmfile_helm_suite;
mod helmfile_real;
mod helmfile_real_cases;
mod helmfile_real_v17_cases;
pub mod real_charts;
pub mod report;
mod strvals_suite;
pub mod tree;
mod yaml_suite;

use report::Report;
use serde_json::Value as J;
use std::path::{Path, PathBuf};

/// Suite names, in the order of the project's issues.
pub const SUITES: &[&str] = &[
    "yaml",
    "gotemplate",
    "strvals",
    "helm-values",
    "hcl",
    "env-merge",
    "helmfile-e2e",
    "real-charts",
    "helmfile-helm",
    "helmfile-real",
];

/// Where each suite's data lives, relative to the `shared` folder.
pub fn default_path(suite: &str) -> Option<&'static str> {
    Some(match suite {
        "yaml" => "conformance/yaml",
        "gotemplate" => "conformance/gotemplate",
        "strvals" => "conformance/helm/strvals.jsonl",
        "helm-values" => "conformance/helm/values",
        "hcl" => "conformance/helmfile-env/hcl",
        "env-merge" => "conformance/helmfile-env/merge",
        "helmfile-e2e" => "peer/helmfile-e2e",
        "real-charts" => "realworld",
        "helmfile-helm" => "peer/helmfile-helm",
        "helmfile-real" => "peer/helmfile-bin",
        _ => return None,
    })
}

/// Reads a JSON-lines file.
pub fn read_jsonl(path: &Path) -> Result<Vec<J>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let mut de = serde_json::Deserializer::from_str(l);
            de.disable_recursion_limit();
            serde::Deserialize::deserialize(&mut de)
                .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// The sorted names of the case directories under `path`.
pub(crate) fn dir_ids(path: &Path) -> Result<Vec<String>, String> {
    let mut ids: Vec<String> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    Ok(ids)
}

/// Runs one suite over the data at `path`, on a thread with a large stack (some vectors
/// nest thousands of levels deep).
pub fn run_suite(suite: &str, path: &Path) -> Result<Report, String> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, || run_suite_here(suite, path))
            .map_err(|e| e.to_string())?
            .join()
            .map_err(|_| format!("suite {suite} panicked"))?
    })
}

fn run_suite_here(suite: &str, path: &Path) -> Result<Report, String> {
    if !path.exists() {
        return Err(format!("{}: no such file or directory", path.display()));
    }
    let results = match suite {
        "yaml" => yaml_suite::run(path)?,
        "gotemplate" => gotemplate_suite::run(path)?,
        "strvals" => strvals_suite::run(path)?,
        "helm-values" => helm_values_suite::run(path)?,
        "hcl" => env_suite::run_hcl(path)?,
        "env-merge" => env_suite::run_merge(path)?,
        "helmfile-e2e" => e2e_suite::run(path)?,
        "real-charts" => real_charts::run(path)?,
        "helmfile-helm" => helmfile_helm_suite::run(path)?,
        "helmfile-real" => helmfile_real::run(path)?,
        other => {
            return Err(format!(
                "unknown suite {other:?}; suites: {}",
                SUITES.join(", ")
            ))
        }
    };
    Ok(Report { results })
}

/// The ratchet file of a suite.
pub fn passing_file(suite: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("passing")
        .join(format!("{suite}.txt"))
}

/// The case ids recorded as passing for a suite.
pub fn read_passing(suite: &str) -> Vec<String> {
    std::fs::read_to_string(passing_file(suite))
        .map(|t| {
            t.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// Adds the newly passing ids of a report to the suite's ratchet file (it only grows).
/// Returns how many were added.
pub fn update_passing(suite: &str, report: &Report) -> Result<usize, String> {
    let mut ids: std::collections::BTreeSet<String> = read_passing(suite).into_iter().collect();
    let before = ids.len();
    ids.extend(
        report
            .results
            .iter()
            .filter(|r| r.passed())
            .map(|r| r.id.clone()),
    );
    let text: String = ids.iter().map(|i| format!("{i}\n")).collect();
    std::fs::write(passing_file(suite), text).map_err(|e| e.to_string())?;
    Ok(ids.len() - before)
}
