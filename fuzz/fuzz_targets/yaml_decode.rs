//! Fuzzes the YAML decoders (both dialects), the span builder and the encoders on the
//! decoded values: none may panic or hang on any input. And the manifest-head fast path
//! against the full decode: where it answers, the full decode must agree.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(v) = capstan_yaml::decode_helm(text) {
        let _ = capstan_yaml::encode_helm(&v);
    }
    let _ = capstan_yaml::decode_helm_direct(text);
    if let Ok(v) = capstan_yaml::decode_helmfile(text) {
        let _ = capstan_yaml::encode_helmfile(&v);
        let _ = capstan_yaml::stringify_keys(&v);
    }
    let _ = capstan_yaml::spans(text, capstan_yaml::Generation::V3);
    let _ = capstan_yaml::number_traps(text);
    if let Some(head) = capstan_yaml::manifest_head(text) {
        let full = capstan_yaml::decode_helm_value(text).expect("the fast path accepted what the decoder refuses");
        let string_at = |v: Option<capstan_value::Value>| match v {
            Some(capstan_value::Value::String(s)) => Some(s.to_string()),
            None => None,
            Some(other) => panic!("the fast path read a string where the decoder has {other:?}"),
        };
        assert_eq!(string_at(full.get("kind")).unwrap_or_default(), head.kind);
        let hook = full
            .get("metadata")
            .and_then(|m| m.get("annotations"))
            .and_then(|a| a.get("helm.sh/hook"));
        assert_eq!(string_at(hook), head.hook);
    }
});
