//! Fuzzes the `values.schema.json` checker (issue 28): the input is a schema and a JSON
//! values document separated by a NUL byte. Whatever they hold (reference cycles through
//! `$ref`, `allOf`/`anyOf`/`oneOf`/`not`, references that double the work at each level,
//! deep nesting, bad pointers and anchors) the check must end with a report or an error,
//! never a panic, an overflow or a run past libFuzzer's timeout.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (schema, values) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b"{}"[..]),
    };
    let Ok(values) = capstan_value::json::from_json(&String::from_utf8_lossy(values)) else {
        return;
    };
    let Some(values) = values.as_map().map(|m| m.snapshot()) else {
        return;
    };
    let _ = capstan_chart::schema::schema_report(schema, &values);
});
