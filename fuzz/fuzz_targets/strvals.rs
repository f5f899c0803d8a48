//! Fuzzes the `--set` family parser: any argument, every flag kind, must give a value or
//! an error, never a panic.
#![no_main]

use capstan_values::strvals::{parse_into, Flag};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let reader = |p: &str| {
        if p.len() < 8 {
            Ok(p.as_bytes().to_vec())
        } else {
            Err(capstan_values::ReadError(format!("open {p}: no such file or directory")))
        }
    };
    for flag in [
        Flag::Set,
        Flag::SetString,
        Flag::SetJson,
        Flag::SetFile,
        Flag::SetLiteral,
    ] {
        let mut m = std::collections::BTreeMap::new();
        let _ = parse_into(text, flag, &mut m, Some(&reader));
        let _ = parse_into(text, flag, &mut m, Some(&reader));
    }
});
