//! The `yaml` suite: `yaml-decode.jsonl` and `yaml-encode.jsonl` (format:
//! `../shared/conformance/yaml/README.md`).

use crate::report::CaseResult;
use crate::tree::{from_value, normalize, to_value};
use capstan_yaml::{
    decode_helm, decode_helm_direct, decode_helmfile, encode_helm, encode_helmfile, stringify_keys,
};
use serde_json::Value as J;
use std::path::Path;

/// `Ok(tree)` or `Err(message)`, as the corpus records an outcome.
type Outcome = Result<J, String>;

fn outcome(r: Result<capstan_value::Value, impl ToString>) -> Outcome {
    r.map(|v| normalize(&from_value(&v)))
        .map_err(|e| e.to_string())
}

fn expected_outcome(case: &J, tree_key: &str, error_key: &str) -> Option<Outcome> {
    if let Some(t) = case.get(tree_key) {
        return Some(Ok(normalize(t)));
    }
    case.get(error_key)
        .and_then(J::as_str)
        .map(|e| Err(e.to_string()))
}

fn show(o: &Outcome) -> String {
    match o {
        Ok(t) => format!("tree {t}"),
        Err(e) => format!("error {e:?}"),
    }
}

fn check(id: &str, what: &str, expected: &Outcome, actual: &Outcome) -> Option<CaseResult> {
    if expected == actual {
        return None;
    }
    let e = show(expected);
    let a = show(actual);
    Some(CaseResult::fail(
        id,
        format!("{what}: expected {} got {}", clip(&e), clip(&a)),
        format!("--- expected {what}\n{e}\n--- actual {what}\n{a}"),
    ))
}

fn clip(s: &str) -> String {
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s.to_string()
    }
}

fn decode_case(case: &J) -> CaseResult {
    let id = case["id"].as_str().unwrap_or("?").to_string();
    let text = case["yaml"].as_str().unwrap_or("");
    let helm = case["dialect"].as_str() == Some("helm");
    let actual = if helm {
        outcome(decode_helm(text))
    } else {
        outcome(decode_helmfile(text))
    };

    if case.get("nondeterministic").and_then(J::as_bool) == Some(true) {
        let options: Vec<Outcome> = case["one_of"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| expected_outcome(o, "tree", "error"))
            .collect();
        if !options.contains(&actual) {
            return CaseResult::fail(
                &id,
                format!(
                    "none of {} outcomes: got {}",
                    options.len(),
                    clip(&show(&actual))
                ),
                show(&actual),
            );
        }
    } else if let Some(expected) = expected_outcome(case, "tree", "error") {
        if let Some(f) = check(&id, "decode", &expected, &actual) {
            return f;
        }
    }

    if helm && (case.get("direct_tree").is_some() || case.get("direct_error").is_some()) {
        let direct = outcome(decode_helm_direct(text));
        if let Some(expected) = expected_outcome(case, "direct_tree", "direct_error") {
            if let Some(f) = check(&id, "direct decode", &expected, &direct) {
                return f;
            }
        }
    }

    if !helm {
        if let Ok(v) = decode_helmfile(text) {
            let cast = stringify_keys(&v).map(|_| ()).map_err(|e| e.to_string());
            let allowed: Vec<String> = match (case.get("cast_error"), case.get("cast_error_one_of"))
            {
                (Some(e), _) => e.as_str().map(String::from).into_iter().collect(),
                (None, Some(list)) => list
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.as_str().map(String::from))
                    .collect(),
                _ => Vec::new(),
            };
            match cast {
                Ok(()) if !allowed.is_empty() => {
                    return CaseResult::fail(
                        &id,
                        format!("cast: expected error {:?}, got success", allowed[0]),
                        "",
                    )
                }
                Err(e) if !allowed.contains(&e) => {
                    return CaseResult::fail(
                        &id,
                        format!("cast: expected {allowed:?} got error {e:?}"),
                        "",
                    )
                }
                _ => {}
            }
        }
    }
    CaseResult::pass(id)
}

fn encode_case(case: &J) -> CaseResult {
    let id = case["id"].as_str().unwrap_or("?").to_string();
    let value = match to_value(&case["tree"]) {
        Ok(v) => v,
        Err(e) => return CaseResult::fail(&id, format!("cannot build input: {e}"), ""),
    };
    let helm = case["dialect"].as_str() == Some("helm");
    let actual = if helm {
        encode_helm(&value)
    } else {
        encode_helmfile(&value)
    }
    .map_err(|e| e.to_string());
    let expected: Vec<Result<String, String>> =
        if case.get("nondeterministic").and_then(J::as_bool) == Some(true) {
            case["one_of"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(expected_text)
                .collect()
        } else {
            expected_text(case).into_iter().collect()
        };
    if expected.contains(&actual) {
        return CaseResult::pass(id);
    }
    let (e, a) = match (expected.first(), &actual) {
        (Some(Ok(e)), Ok(a)) => return CaseResult::compare(id, "output", e, a),
        (e, a) => (format!("{e:?}"), format!("{a:?}")),
    };
    CaseResult::fail(
        &id,
        format!("expected {} got {}", clip(&e), clip(&a)),
        format!("{e}\n{a}"),
    )
}

fn expected_text(case: &J) -> Option<Result<String, String>> {
    if let Some(o) = case.get("output").and_then(J::as_str) {
        return Some(Ok(o.to_string()));
    }
    case.get("error")
        .and_then(J::as_str)
        .map(|e| Err(e.to_string()))
}

/// Runs every case of the decode and encode files found under `dir` (or the one file
/// named).
pub fn run(path: &Path) -> Result<Vec<CaseResult>, String> {
    let files: Vec<std::path::PathBuf> = if path.is_dir() {
        ["yaml-decode.jsonl", "yaml-encode.jsonl"]
            .iter()
            .map(|f| path.join(f))
            .filter(|p| p.exists())
            .collect()
    } else {
        vec![path.to_path_buf()]
    };
    let mut results = Vec::new();
    for file in files {
        for case in crate::read_jsonl(&file)? {
            let id = case["id"].as_str().unwrap_or("");
            let r = if id.starts_with("yaml/encode/") {
                encode_case(&case)
            } else {
                decode_case(&case)
            };
            results.push(r);
        }
    }
    Ok(results)
}
