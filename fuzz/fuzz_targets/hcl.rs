//! Fuzzes the HCL parser, evaluator and helmfile's loader: any file (alone, and as the
//! second of two) must give values or an error, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = capstan_hcl::render(&[("a.hcl".into(), text.into())]);
    let _ = capstan_hcl::render(&[
        (
            "base.hcl".into(),
            "values {\n  a = 1\n  m = { x = \"y\" }\n}\n".into(),
        ),
        ("b.hcl".into(), text.into()),
    ]);
});
