//! The `helm-values` suite: each case is a chart plus `helm template` inputs; capstan's
//! in-process `helm template` must produce the same `.Values` (text and Go types) and the
//! same output, or the same error.

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
        kube_version: inputs["kube_version"].as_str().unwrap_or("").to_string(),
        api_versions: strings(inputs, "api_versions"),
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
    match (result, read("expected/error.txt")) {
        (Err(e), Some(want)) => CaseResult::compare(id, "error", &want, &format!("{e}\n")),
        (Err(e), None) => CaseResult::fail(id, format!("unexpected error: {e}"), ""),
        (Ok(_), Some(want)) => CaseResult::fail(id, format!("expected error {want:?}"), ""),
        (Ok(r), None) => {
            let values = Value::map_from(r.values);
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
