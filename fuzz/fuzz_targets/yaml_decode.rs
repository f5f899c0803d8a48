//! Fuzzes the YAML decoders (both dialects), the span builder and the encoders on the
//! decoded values: none may panic or hang on any input (the manifest-head readers are
//! checked against the full decode by the `manifest_head` target).
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
    // (The manifest-head readers against the full decode: the manifest_head target.)
    let _ = capstan_yaml::manifest_head(text);
});
