//! The `hcl` and `env-merge` suites (helmfile environment values): each case is a set of
//! input files plus an `order.json` (HCL) or `spec.json` (merge); capstan's environment
//! loader must give the same values, leaf for leaf with Go types
//! (`expected_types.tsv`), or the same error text.

use crate::report::CaseResult;
use capstan_gocompat::quote::go_quote;
use capstan_state::host::OsHost;
use capstan_state::load::{load_env_values, Overrides, Settings};
use capstan_state::merge::Tree;
use capstan_state::render::Renderer;
use capstan_value::{Str, Value};
use serde_json::Value as J;
use std::path::Path;
use std::sync::Arc;

/// One line per leaf: `path<TAB>Go type<TAB>value`, as the corpus writes them.
pub fn types_tsv(v: &Value) -> String {
    let mut lines = Vec::new();
    leaves(v, "", &mut lines);
    lines.sort();
    lines.join("\n")
}

fn leaves(v: &Value, path: &str, out: &mut Vec<String>) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        Value::Map(m) if !m.is_empty() || path.is_empty() => {
            for (k, x) in m.read().iter() {
                leaves(x, &join(k), out);
            }
        }
        Value::List(l) if !l.items.is_empty() => {
            for (i, x) in l.items.iter().enumerate() {
                leaves(x, &format!("{path}[{i}]"), out);
            }
        }
        Value::Map(_) => out.push(format!("{path}\tmap\t{{}}")),
        Value::List(_) => out.push(format!("{path}\tlist\t[]")),
        Value::Nil => out.push(format!("{path}\tnull\tnull")),
        Value::String(s) => out.push(format!("{path}\tstring\t{}", go_quote(s))),
        other => out.push(format!("{path}\t{}\t{other}", other.type_name())),
    }
}

fn plaintext_secrets(r: &Renderer, path: &str) -> Result<String, capstan_state::StateError> {
    r.read(path)
}

fn settings(dir: &Path, env: &str) -> Settings {
    Settings {
        env: env.to_string(),
        secrets: plaintext_secrets,
        ..Settings::new(Arc::new(OsHost::new(dir)), dir)
    }
}

/// A JSON value as helmfile's YAML decoder reads the same text.
fn yaml_value(j: &J) -> Result<Value, String> {
    let text = serde_json::to_string(j).map_err(|e| e.to_string())?;
    capstan_yaml::decode_helmfile_value(&text).map_err(|e| e.to_string())
}

fn values_list(spec: &J, key: &str) -> Result<Vec<Value>, String> {
    spec.get(key)
        .and_then(J::as_array)
        .map(|a| a.iter().map(yaml_value).collect())
        .unwrap_or(Ok(Vec::new()))
}

fn strings(spec: &J, key: &str) -> Vec<String> {
    spec.get(key)
        .and_then(J::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn compute_merge(dir: &Path, spec: &J) -> Result<Value, String> {
    let env_name = spec.get("env").and_then(J::as_str).unwrap_or("default");
    let s = settings(dir, env_name);
    let mut env_spec = Tree::new();
    env_spec.insert(
        Str::from("values"),
        Value::list_from(values_list(spec, "values")?),
    );
    env_spec.insert(
        Str::from("secrets"),
        Value::list_from(values_list(spec, "secrets")?),
    );
    if let Some(st) = spec.get("strategy").and_then(J::as_str) {
        env_spec.insert(Str::from("mergeStrategy"), Value::from(st));
    }
    if let Some(m) = spec.get("missing_file_handler").and_then(J::as_str) {
        env_spec.insert(Str::from("missingFileHandler"), Value::from(m));
    }
    let mut envs = Tree::new();
    envs.insert(Str::from(env_name), Value::map_from(env_spec));
    let mut doc = Tree::new();
    doc.insert(Str::from("environments"), Value::map_from(envs));
    doc.insert(
        Str::from("values"),
        Value::list_from(values_list(spec, "defaults")?),
    );
    let overrides = Overrides {
        entries: strings(spec, "cli_files")
            .into_iter()
            .map(Value::from)
            .collect(),
        set: strings(spec, "cli_set"),
        set_string: strings(spec, "cli_set_string"),
        base: ".".into(),
    };
    let overrode = overrides.environment(&s).map_err(|e| e.to_string())?;
    let mut warnings = Vec::new();
    let env = load_env_values(
        &s,
        "helmfile.yaml",
        &doc,
        ".",
        None,
        overrode.as_ref(),
        &mut warnings,
    )
    .map_err(|e| e.to_string())?;
    Ok(Value::map_from(env.merged_values()))
}

// The case runner hands each case its parsed `Vec`.
#[allow(clippy::ptr_arg)]
fn compute_hcl(dir: &Path, order: &Vec<String>) -> Result<Value, String> {
    let s = settings(dir, "default");
    let renderer = s.renderer(".");
    let files = order
        .iter()
        .map(|f| renderer.read(f).map(|t| (f.clone(), t)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    (s.hcl)(&files)
        .map(Value::map_from)
        .map_err(|e| e.to_string())
}

fn check(id: String, dir: &Path, result: Result<Value, String>) -> CaseResult {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    if let Some(panic) = read("expected_panic.txt") {
        return match result {
            Err(e) if e.starts_with("panic: ") => {
                CaseResult::compare(id, "panic", panic.trim_end(), e.trim_end())
            }
            Err(e) => CaseResult::fail(
                id,
                format!("expected a panic ({}), got error: {e}", panic.trim_end()),
                "",
            ),
            Ok(_) => CaseResult::fail(id, format!("expected a panic ({})", panic.trim_end()), ""),
        };
    }
    match (result, read("expected_error.txt")) {
        (Err(e), Some(want)) => {
            CaseResult::compare(id, "error", want.strip_suffix('\n').unwrap_or(&want), &e)
        }
        (Err(e), None) => CaseResult::fail(id, format!("unexpected error: {e}"), ""),
        (Ok(_), Some(want)) => CaseResult::fail(id, format!("expected error {want:?}"), ""),
        (Ok(v), None) => {
            let want = read("expected_types.tsv").unwrap_or_default();
            let mut want_lines: Vec<&str> = want.lines().collect();
            want_lines.sort();
            CaseResult::compare(id, "types", &want_lines.join("\n"), &types_tsv(&v))
        }
    }
}

fn case_dirs(path: &Path) -> Result<Vec<(String, std::path::PathBuf)>, String> {
    Ok(crate::dir_ids(path)?
        .into_iter()
        .map(|id| {
            let dir = path.join(&id);
            (id, dir)
        })
        .collect())
}

/// Runs every case directory: reads its input file as `T`, computes, compares.
fn run_cases<T: serde::de::DeserializeOwned>(
    path: &Path,
    input: &str,
    compute: fn(&Path, &T) -> Result<Value, String>,
) -> Result<Vec<CaseResult>, String> {
    Ok(case_dirs(path)?
        .into_iter()
        .map(|(id, dir)| {
            let parsed = std::fs::read_to_string(dir.join(input))
                .ok()
                .and_then(|t| serde_json::from_str::<T>(&t).ok());
            match parsed {
                None => CaseResult::fail(id, format!("unreadable {input}"), ""),
                Some(x) => {
                    let r = compute(&dir, &x);
                    check(id, &dir, r)
                }
            }
        })
        .collect())
}

pub fn run_merge(path: &Path) -> Result<Vec<CaseResult>, String> {
    run_cases::<J>(path, "spec.json", compute_merge)
}

pub fn run_hcl(path: &Path) -> Result<Vec<CaseResult>, String> {
    run_cases::<Vec<String>>(path, "order.json", compute_hcl)
}
