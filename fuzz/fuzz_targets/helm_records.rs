//! Fuzzes what capstan reads back from helm and the cluster: `helm version` output, a
//! deployed manifest split into resources and diffed against another (with `--context`
//! and Secret redaction), a release record as helm stores it, and user values compared
//! leaf by leaf. Any input must give a result or an error, never a panic.
#![no_main]

use capstan_helm::manifest_diff::{diff, parse, DiffStyle};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = capstan_helm::HelmVersion::parse(&text);
    let (old, new) = match text.split_once("\n===\n") {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => (text.to_string(), text.replace('1', "2")),
    };
    let a = parse(&old, "ns");
    let b = parse(&new, "ns");
    for context in [None, Some(0), Some(3)] {
        let simple = context == Some(0);
        let _ = diff(&a, &b, &DiffStyle { context, show_secrets: false, suppress_kinds: vec!["Secret".into()], color: true, simple });
    }
    let _ = a.iter().filter(|r| r.is_test_hook()).count();
    let _ = capstan_helm::kube::decode_release(&text);
    if let (Ok(x), Ok(y)) = (
        serde_json::from_str::<serde_json::Value>(&old),
        serde_json::from_str::<serde_json::Value>(&new),
    ) {
        let _ = capstan_helm::values_diff::values_diff(&x, &y, &Default::default(), false);
    }
});
