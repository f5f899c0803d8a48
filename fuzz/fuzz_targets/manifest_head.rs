//! Fuzzes the manifest-head readers (line by line, then the parser's events) against the
//! full decode: where a head is given, the document must decode, and its `kind` and
//! `metadata.annotations["helm.sh/hook"]` must be the strings the head says. Seed it with
//! rendered manifests (any `capstan template` output, split at `---`) so that the fuzzer
//! starts inside the block-style subset the line reader takes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(head) = capstan_yaml::manifest_head(text) else {
        return;
    };
    let full = capstan_yaml::decode_helm_value(text)
        .expect("a head was read from what the decoder refuses");
    let string_at = |v: Option<capstan_value::Value>| match v {
        Some(capstan_value::Value::String(s)) => Some(s.to_string()),
        None => None,
        Some(other) => panic!("the head reader read a string where the decoder has {other:?}"),
    };
    assert_eq!(string_at(full.get("kind")).unwrap_or_default(), head.kind);
    let hook = full
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get("helm.sh/hook"));
    assert_eq!(string_at(hook), head.hook);
});
