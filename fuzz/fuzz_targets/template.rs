//! Fuzzes the template engine: parse any text, and execute what parses against a small
//! data tree with a step budget. Neither may panic or hang.
#![no_main]

use capstan_gotmpl::{FuncMap, Templates};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut set = Templates::new(FuncMap::new());
    set.step_limit = Some(10_000);
    set.value_limit = Some(1 << 20);
    if set.parse("tpl", text).is_err() {
        return;
    }
    let values = capstan_yaml::decode_helm("a: 1\nb: [x, y]\nc: {d: true}\n")
        .unwrap_or(capstan_value::Value::Nil);
    let _ = set.execute("tpl", &values);
});
