//! The `gotemplate` suite (format: `../shared/conformance/gotemplate/README.md`): each
//! case's data is decoded with its parser, the template is rendered with the engine
//! configured as the case's `set` says (`plain`, `helm`, `helmfile`), and the output or
//! the error text is compared exactly.

use crate::report::CaseResult;
use capstan_chart::{helm_funcs, helm_templates};
use capstan_gotmpl::{FuncMap, Templates};
use capstan_state::{helmfile_funcs, helmfile_templates};
use capstan_value::Value;
use capstan_yaml::{decode_helm, decode_helmfile, stringify_keys};
use serde_json::Value as J;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Decodes a case's data with the parser it names (`helm` or `helmfile`).
pub fn parse_data(text: &str, parser: &str) -> Result<Value, String> {
    if parser == "helmfile" {
        let v = decode_helmfile(text).map_err(|e| e.to_string())?;
        stringify_keys(&v).map_err(|e| e.to_string())
    } else {
        decode_helm(text).map_err(|e| e.to_string())
    }
}

fn data(case: &J) -> Result<Value, String> {
    parse_data(
        case["data_yaml"].as_str().unwrap_or(""),
        case["data_parser"].as_str().unwrap_or("helm"),
    )
}

/// A compiled case: the data in, the output (or error) out.
type Render = Box<dyn Fn(&Value) -> Result<String, String>>;

/// A renderer for `template`, parsed once, configured as the case's `set` configures
/// Go's engine: `helm` (root `gotpl`, `missingkey=zero`, template `tpl`, `<no value>`
/// removed), `helmfile` (`stringTemplate`, `missingkey=error`) or `plain`.
pub fn engine(set: &str, template: &str) -> Result<Render, String> {
    match set {
        "helm" => {
            static FUNCS: OnceLock<Arc<FuncMap>> = OnceLock::new();
            let mut t = helm_templates(FUNCS.get_or_init(|| Arc::new(helm_funcs())).clone());
            t.parse("tpl", template)?;
            Ok(Box::new(move |data| {
                let out = t.execute("tpl", data).map_err(|e| e.to_string())?;
                Ok(if out.contains("<no value>") {
                    out.replace("<no value>", "")
                } else {
                    out
                })
            }))
        }
        "helmfile" => {
            static FUNCS: OnceLock<Arc<FuncMap>> = OnceLock::new();
            let mut t =
                helmfile_templates(FUNCS.get_or_init(|| Arc::new(helmfile_funcs())).clone());
            t.parse("stringTemplate", template)?;
            Ok(Box::new(move |data| {
                t.execute("stringTemplate", data).map_err(|e| e.to_string())
            }))
        }
        _ => {
            let mut t = Templates::new(FuncMap::new());
            t.parse("tpl", template)?;
            Ok(Box::new(move |data| {
                t.execute("tpl", data).map_err(|e| e.to_string())
            }))
        }
    }
}

/// Renders one case the way its `set` configures Go's engine.
fn render(set: &str, template: &str, data: &Value) -> Result<String, String> {
    engine(set, template)?(data)
}

fn run_case(case: &J) -> CaseResult {
    let id = case["id"].as_str().unwrap_or("?").to_string();
    let template = case["template"].as_str().unwrap_or("");
    let set = case["set"].as_str().unwrap_or("plain");
    let data = match data(case) {
        Ok(d) => d,
        Err(e) => return CaseResult::fail(id, format!("data does not decode: {e}"), ""),
    };
    let actual = render(set, template, &data);
    if case.get("check").and_then(J::as_str) == Some("shape") {
        let shape = case["shape"].as_str().unwrap_or("");
        return match (&actual, regex::Regex::new(shape)) {
            (Ok(out), Ok(re)) if re.is_match(out) => CaseResult::pass(id),
            (Ok(out), Ok(_)) => {
                CaseResult::fail(id, format!("output {out:?} does not match /{shape}/"), "")
            }
            (Err(e), _) => CaseResult::fail(
                id,
                format!("expected output of shape /{shape}/, got error {e:?}"),
                "",
            ),
            (_, Err(e)) => CaseResult::fail(id, format!("bad shape regex: {e}"), ""),
        };
    }
    match (
        case.get("output").and_then(J::as_str),
        case.get("error").and_then(J::as_str),
        &actual,
    ) {
        (Some(expected), _, Ok(out)) => CaseResult::compare(id, "output", expected, out),
        (Some(expected), _, Err(e)) => CaseResult::fail(
            id,
            format!("expected output {:?}, got error {e:?}", clip(expected)),
            e.clone(),
        ),
        (None, Some(expected), Err(e)) => CaseResult::compare(id, "error", expected, e),
        (None, Some(expected), Ok(out)) => CaseResult::fail(
            id,
            format!("expected error {expected:?}, got output {:?}", clip(out)),
            out.clone(),
        ),
        _ => CaseResult::fail(id, "case has neither output nor error", ""),
    }
}

fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

/// Runs every `*.jsonl` file under `path` (or the one file named).
pub fn run(path: &Path) -> Result<Vec<CaseResult>, String> {
    // The environment the oracle ran with.
    std::env::set_var("TZ", "UTC");
    std::env::set_var("CONFORMANCE_ENV", "fixed-value");
    std::env::remove_var("CONFORMANCE_UNSET");
    let mut files: Vec<std::path::PathBuf> = if path.is_dir() {
        std::fs::read_dir(path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect()
    } else {
        vec![path.to_path_buf()]
    };
    files.sort();
    let mut results = Vec::new();
    for f in files {
        for case in crate::read_jsonl(&f)? {
            results.push(run_case(&case));
        }
    }
    Ok(results)
}
