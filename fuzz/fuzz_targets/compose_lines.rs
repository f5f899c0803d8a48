//! Fuzzes the line composer against libyaml: wherever `yaml::compose_lines` takes a
//! document (block-style YAML), its nodes and marks must be those libyaml's events give;
//! neither may panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut text = text.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    assert!(
        capstan_yaml::compose_lines_agrees(&text),
        "the line composer and libyaml differ on {text:?}"
    );
});
