//! The `helm-values` suite: each case is a chart plus `helm template` inputs; capstan's
//! in-process `helm template` must produce the same `.Values` (text and Go types) and the
//! same output, or the same error.
//!
//! The vectors came from Helm's Go source (main, August 2026) with a stubbed cluster
//! (Kubernetes v1.36.0). Where a vector's output or error disagrees with capstan, the
//! real Helm v4.3.1 binary (`../shared/kube/install-helm.sh`) is the judge when it is
//! installed: the case passes when capstan prints exactly what the binary prints, and the
//! disagreement between the vector and the binary is reported as a note.

use crate::report::CaseResult;
use crate::strvals_suite::types;
use capstan_chart::{template, TemplateOptions};
use capstan_value::Value;
use capstan_values::UserValues;
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::path::Path;

fn strings(j: &J, key: &str) -> Vec<String> {
    j.get(key)
        .and_then(J::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn options(inputs: &J) -> TemplateOptions {
    let release = &inputs["release"];
    TemplateOptions {
        release_name: release["name"].as_str().unwrap_or("").to_string(),
        namespace: release["namespace"].as_str().unwrap_or("").to_string(),
        values: UserValues {
            files: strings(inputs, "values_files"),
            set_json: strings(inputs, "set_json"),
            set: strings(inputs, "set"),
            set_string: strings(inputs, "set_string"),
            set_file: strings(inputs, "set_file"),
            set_literal: strings(inputs, "set_literal"),
        },
        include_crds: inputs["include_crds"].as_bool().unwrap_or(false),
        is_upgrade: inputs["is_upgrade"].as_bool().unwrap_or(false),
        skip_tests: inputs["skip_tests"].as_bool().unwrap_or(false),
        no_hooks: false,
        keep_documents: false,
        kube_version: inputs["kube_version"].as_str().unwrap_or("").to_string(),
        api_versions: strings(inputs, "api_versions"),
        cluster: None,
        skip_schema_validation: inputs["skip_schema_validation"].as_bool().unwrap_or(false),
        overlay: Default::default(),
        extra_dependencies: Vec::new(),
        dependency_builder: None,
        post_renderer: None,
        patches: Default::default(),
        chart_cache: None,
    }
}

pub(crate) fn run_case(dir: &Path, id: String) -> CaseResult {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let Some(inputs) = read("inputs.json").and_then(|t| serde_json::from_str::<J>(&t).ok()) else {
        return CaseResult::fail(id, "unreadable inputs.json", "");
    };
    let result = template(&dir.join("chart"), dir, &options(&inputs));
    let verdict = judge(id.clone(), &result, &read);
    if verdict.passed() {
        return verdict;
    }
    // The vector and capstan disagree: the real binary decides.
    let ours = match &result {
        Ok(r) => Ok(r.manifest.clone()),
        Err(e) => Err(e.to_string()),
    };
    match real_helm(dir, &inputs) {
        Some((helm, real)) if real == ours => {
            eprintln!(
                "note {id}: the vector disagrees with the real {helm}; capstan prints what the binary prints"
            );
            CaseResult::pass(id)
        }
        _ => verdict,
    }
}

/// `helm template` of a case by the real helm binary: its version and its output, or its
/// error (from the `Error: ` line on, without the prefix). `None` when no helm is installed.
fn real_helm(dir: &Path, inputs: &J) -> Option<(String, Result<String, String>)> {
    let helm = crate::real_charts::find_helm().ok()?;
    let version = std::process::Command::new(&helm)
        .args(["version", "--short"])
        .output()
        .map(|o| format!("helm {}", String::from_utf8_lossy(&o.stdout).trim()))
        .unwrap_or_else(|_| "helm".into());
    let release = &inputs["release"];
    let mut args: Vec<String> = vec![
        "template".into(),
        release["name"].as_str().unwrap_or("").into(),
        "./chart".into(),
        "-n".into(),
        release["namespace"].as_str().unwrap_or("").into(),
    ];
    for (key, flag) in [
        ("values_files", "-f"),
        ("set_json", "--set-json"),
        ("set", "--set"),
        ("set_string", "--set-string"),
        ("set_file", "--set-file"),
        ("set_literal", "--set-literal"),
        ("api_versions", "--api-versions"),
    ] {
        for v in strings(inputs, key) {
            args.push(flag.into());
            args.push(v);
        }
    }
    for (key, flag) in [
        ("include_crds", "--include-crds"),
        ("is_upgrade", "--is-upgrade"),
        ("skip_tests", "--skip-tests"),
        ("skip_schema_validation", "--skip-schema-validation"),
    ] {
        if inputs[key].as_bool().unwrap_or(false) {
            args.push(flag.into());
        }
    }
    if let Some(v) = inputs["kube_version"].as_str().filter(|v| !v.is_empty()) {
        args.push("--kube-version".into());
        args.push(v.into());
    }
    let home = std::env::temp_dir().join(format!("capstan-helm-values-{}", std::process::id()));
    let out = std::process::Command::new(helm)
        .args(&args)
        .current_dir(dir)
        .env("HELM_CACHE_HOME", home.join("cache"))
        .env("HELM_CONFIG_HOME", home.join("config"))
        .env("HELM_DATA_HOME", home.join("data"))
        .env_remove("HELM_DEBUG")
        .output()
        .ok()?;
    let _ = std::fs::remove_dir_all(&home);
    if out.status.success() {
        return Some((
            version,
            Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        ));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let at = stderr.find("Error: ")?;
    Some((
        version,
        Err(stderr[at + "Error: ".len()..].trim_end().to_string()),
    ))
}

/// The case judged against its vector.
fn judge(
    id: String,
    result: &Result<capstan_chart::template::Rendered, capstan_chart::TemplateError>,
    read: &dyn Fn(&str) -> Option<String>,
) -> CaseResult {
    match (result, read("expected/error.txt")) {
        (Err(e), Some(want)) => CaseResult::compare(id, "error", &want, &format!("{e}\n")),
        (Err(e), None) => CaseResult::fail(id, format!("unexpected error: {e}"), ""),
        (Ok(_), Some(want)) => CaseResult::fail(id, format!("expected error {want:?}"), ""),
        (Ok(r), None) => {
            let values = Value::map_from(r.values.clone());
            let text = if values.as_map().is_some_and(|m| m.is_empty()) {
                "{}\n".to_string()
            } else {
                capstan_yaml::encode_helmfile(&values).unwrap_or_else(|e| e.to_string())
            };
            let want = read("expected/values.yaml").unwrap_or_default();
            if want != text {
                return CaseResult::compare(id, "values.yaml", &want, &text);
            }
            let mut got_types = BTreeMap::new();
            types(&values, "", &mut got_types);
            let want_types: BTreeMap<String, String> = read("expected/values.types.json")
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or_default();
            if got_types != want_types {
                return CaseResult::fail(
                    id,
                    format!("types: expected {want_types:?} got {got_types:?}"),
                    "",
                );
            }
            let want = read("expected/manifest.yaml").unwrap_or_default();
            CaseResult::compare(id, "manifest", &want, &r.manifest)
        }
    }
}

pub fn run(path: &Path) -> Result<Vec<CaseResult>, String> {
    Ok(crate::dir_ids(path)?
        .into_iter()
        .map(|id| run_case(&path.join(&id), id))
        .collect())
}
