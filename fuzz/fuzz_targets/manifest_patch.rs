//! Fuzzes the manifest rewriting that follows rendering: the kyaml-style round trip
//! (parse, annotate, emit, split back) of post-rendering, and helmfile's strategic
//! merge / JSON patches. Input: rendered manifests, a `\0`, then a patch document (a
//! list of patches) — any input must give a result or an error, never panic, and a
//! round trip without a post-renderer change must give back every document.
#![no_main]

use capstan_chart::patch::{apply, Patches};
use capstan_chart::postrender::{annotate_and_merge, split_and_deannotate};
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (manifests, patch) = text.split_once('\0').unwrap_or((text, ""));
    let files = BTreeMap::from([("c/templates/a.yaml".to_string(), manifests.to_string())]);
    if let Ok(merged) = annotate_and_merge(&files) {
        let split = split_and_deannotate(&merged).expect("our own stream must split back");
        assert!(split.keys().all(|k| k == "c/templates/a.yaml"), "{split:?}");
    }
    if let Ok(v) = capstan_yaml::decode_helmfile_value(patch) {
        let list = match v {
            capstan_value::Value::List(l) => l.items.clone(),
            other => vec![other],
        };
        let _ = apply(
            &files,
            "c",
            &Patches {
                strategic: list.clone(),
                json: list,
                force_namespace: "ns".into(),
                manifests: false,
            },
        );
    }
});
