//! Fuzzes the Secret masker of `diff`/`apply` (issue 28): for any document, what
//! `mask_secrets` returns must decode (after its comment lines) to a value in which every
//! `data`/`stringData` value of every Secret, wherever it sits, is a mask (`REDACTED`,
//! `--------`, `++++++++` with a size, or `(hidden)`), or be a note that the document was
//! hidden. Seed it with Secrets in every layout (block, flow, JSON, lists, block scalars).
#![no_main]

use capstan_value::Value;
use libfuzzer_sys::fuzz_target;

fn check(v: &Value) {
    match v {
        Value::Map(m) => {
            let m = m.snapshot();
            let secret = matches!(m.get("kind"), Some(Value::String(k)) if &**k == "Secret");
            for (k, x) in &m {
                if secret && (&**k == "data" || &**k == "stringData") {
                    match x {
                        Value::Map(fields) => {
                            for (_, f) in fields.snapshot() {
                                let Value::String(s) = f else {
                                    panic!("an unmasked value: {f:?}");
                                };
                                assert!(
                                    ["REDACTED # (", "-------- # (", "++++++++ # ("]
                                        .iter()
                                        .any(|p| s.starts_with(p)),
                                    "an unmasked value: {s:?}"
                                );
                            }
                        }
                        Value::Nil => {}
                        Value::String(s) => assert_eq!(&**s, "(hidden)"),
                        other => panic!("an unmasked field: {other:?}"),
                    }
                } else {
                    check(x);
                }
            }
        }
        Value::List(l) => l.items.iter().for_each(check),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (mine, theirs) = text.split_once("\n---\n").unwrap_or((text, ""));
    for removed in [false, true] {
        let masked = capstan_helm::manifest_diff::mask_secrets(mine, Some(theirs), removed);
        if masked == mine {
            // Nothing was masked: then the document holds no Secret with values.
            if let Ok(v) = capstan_yaml::decode_helm(mine) {
                check(&v);
            }
            continue;
        }
        if masked.starts_with("# (") && masked.lines().count() == 1 {
            continue;
        }
        let v = capstan_yaml::decode_helm(&masked).expect("the masked document decodes");
        check(&v);
    }
});
