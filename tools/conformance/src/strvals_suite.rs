//! The `strvals` suite (`../shared/conformance/helm/strvals.jsonl`; format in the
//! folder's README): each case applies its flag arguments, in order, to a values map
//! (optionally seeded from `base_yaml`), and compares the result and every leaf's Go type,
//! or the error text.

use crate::report::CaseResult;
use capstan_value::Value;
use capstan_values::strvals::{parse_into, Flag};
use capstan_yaml::decode_helm;
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::path::Path;

fn flag(name: &str) -> Option<Flag> {
    Some(match name {
        "set" => Flag::Set,
        "set-string" => Flag::SetString,
        "set-json" => Flag::SetJson,
        "set-file" => Flag::SetFile,
        "set-literal" => Flag::SetLiteral,
        _ => return None,
    })
}

fn escape_key(k: &str) -> String {
    let mut out = String::new();
    for c in k.chars() {
        if matches!(c, '.' | '[' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// path → Go type of every leaf, in the corpus' notation.
pub(crate) fn types(v: &Value, path: &str, out: &mut BTreeMap<String, String>) {
    match v {
        Value::Map(m) if !m.is_empty() => {
            for (k, x) in m.read().iter() {
                let p = if path.is_empty() {
                    escape_key(k)
                } else {
                    format!("{path}.{}", escape_key(k))
                };
                types(x, &p, out);
            }
        }
        Value::List(l) if !l.items.is_empty() => {
            for (i, x) in l.items.iter().enumerate() {
                types(x, &format!("{path}[{i}]"), out);
            }
        }
        _ if path.is_empty() => {}
        other => {
            let t = match other {
                Value::Nil => "nil".to_string(),
                Value::Map(_) => "map".to_string(),
                Value::List(_) => "list".to_string(),
                x => x.type_name(),
            };
            out.insert(path.to_string(), t);
        }
    }
}

/// The value as JSON with every number as a float, for comparison.
fn to_json(v: &Value) -> J {
    match v {
        Value::Nil => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) | Value::Int64(i) => serde_json::json!(*i as f64),
        Value::Uint64(u) => serde_json::json!(*u as f64),
        Value::Float64(f) => serde_json::json!(*f),
        Value::String(s) => J::String(s.to_string()),
        Value::List(l) => J::Array(l.items.iter().map(to_json).collect()),
        Value::Map(m) => J::Object(
            m.read()
                .iter()
                .map(|(k, x)| (k.to_string(), to_json(x)))
                .collect(),
        ),
        other => J::String(other.to_string()),
    }
}

fn floats(j: &J) -> J {
    match j {
        J::Number(n) => serde_json::json!(n.as_f64().unwrap_or(0.0)),
        J::Array(a) => J::Array(a.iter().map(floats).collect()),
        J::Object(o) => J::Object(o.iter().map(|(k, v)| (k.clone(), floats(v))).collect()),
        other => other.clone(),
    }
}

/// Applies a case's arguments like Helm's `MergeValues` does for one flag kind.
fn apply(case: &J) -> Result<Value, String> {
    let f = flag(case["flag"].as_str().unwrap_or("")).ok_or("unknown flag")?;
    let mut base = match case.get("base_yaml").and_then(J::as_str) {
        Some(y) => decode_helm(y)
            .map_err(|e| e.to_string())?
            .as_map()
            .map(|m| m.snapshot())
            .unwrap_or_default(),
        None => BTreeMap::new(),
    };
    let files: BTreeMap<String, String> = case
        .get("files")
        .and_then(J::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    let reader = |path: &str| {
        files
            .get(path)
            .map(|t| t.clone().into_bytes())
            .ok_or_else(|| {
                capstan_values::ReadError(format!("open {path}: no such file or directory"))
            })
    };
    for e in case["exprs"].as_array().into_iter().flatten() {
        let expr = e.as_str().unwrap_or("");
        if f == Flag::SetJson && expr.trim().starts_with('{') {
            capstan_values::merge_set_json(expr, &mut base).map_err(|e| e.to_string())?;
            continue;
        }
        parse_into(expr, f, &mut base, Some(&reader)).map_err(|e| e.to_string())?;
    }
    Ok(Value::map_from(base))
}

fn run_case(case: &J) -> CaseResult {
    let id = case["id"].as_str().unwrap_or("?").to_string();
    match (apply(case), case.get("error").and_then(J::as_str)) {
        (Err(e), Some(expected)) => CaseResult::compare(id, "error", expected, &e),
        (Err(e), None) => CaseResult::fail(id, format!("unexpected error {e:?}"), ""),
        (Ok(v), Some(expected)) => {
            CaseResult::fail(id, format!("expected error {expected:?}, got {v}"), "")
        }
        (Ok(v), None) => {
            let got = to_json(&v);
            let want = floats(&case["result_json"]);
            if got != want {
                return CaseResult::fail(id, format!("result: expected {want} got {got}"), "");
            }
            let mut t = BTreeMap::new();
            types(&v, "", &mut t);
            let want_types: BTreeMap<String, String> = case["types"]
                .as_object()
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                        .collect()
                })
                .unwrap_or_default();
            if t != want_types {
                return CaseResult::fail(
                    id,
                    format!("types: expected {want_types:?} got {t:?}"),
                    "",
                );
            }
            CaseResult::pass(id)
        }
    }
}

pub fn run(path: &Path) -> Result<Vec<CaseResult>, String> {
    Ok(crate::read_jsonl(path)?.iter().map(run_case).collect())
}
