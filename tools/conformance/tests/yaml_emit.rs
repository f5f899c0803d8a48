//! The `toYaml`/`toYamlPretty` cases of `gotemplate/yaml-emit.jsonl`, run straight through
//! the encoders (the full template cases come with the template engine): the case's data
//! is decoded with its parser and encoded with Helm's or helmfile's encoder.

use capstan_conformance::read_jsonl;
use capstan_yaml::{decode_helm, decode_helmfile, encode_helm, encode_helmfile, stringify_keys};
use std::path::PathBuf;

#[test]
fn to_yaml_cases_match_go() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/gotemplate/yaml-emit.jsonl");
    let cases = read_jsonl(&file).expect("yaml-emit.jsonl is readable");
    let (mut run, mut failures) = (0, Vec::new());
    for case in &cases {
        let template = case["template"].as_str().unwrap_or("");
        let (pretty, whole) = match template {
            "{{ toYaml . }}" => (false, true),
            "{{ toYaml .v }}" => (false, false),
            "{{ toYamlPretty . }}" => (true, true),
            _ => continue,
        };
        let Some(expected) = case["output"].as_str() else {
            continue;
        };
        let data_yaml = case["data_yaml"].as_str().unwrap_or("");
        let data = if case["data_parser"] == "helm" {
            decode_helm(data_yaml).expect("helm data decodes")
        } else {
            stringify_keys(&decode_helmfile(data_yaml).expect("helmfile data decodes"))
                .expect("string keys")
        };
        let value = if whole {
            data
        } else {
            data.get("v").unwrap_or(capstan_value::Value::Nil)
        };
        let helm_set = case["set"] == "helm";
        let actual = if helm_set && !pretty {
            encode_helm(&value)
                .map(|s| s.strip_suffix('\n').unwrap_or(&s).to_string())
                .unwrap_or_default()
        } else if helm_set {
            encode_helmfile(&value)
                .map(|s| s.strip_suffix('\n').unwrap_or(&s).to_string())
                .unwrap_or_default()
        } else {
            encode_helmfile(&value).unwrap_or_default()
        };
        run += 1;
        if actual != expected {
            failures.push(format!(
                "{}: expected {expected:?} got {actual:?}",
                case["id"]
            ));
        }
    }
    assert!(run > 300, "only {run} toYaml cases found");
    assert!(
        failures.is_empty(),
        "{} of {run} toYaml cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
