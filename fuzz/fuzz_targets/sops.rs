//! Fuzzes the sops document readers (YAML with comments, JSON, dotenv, binary) and the
//! metadata/age parsing: any file must decrypt or fail with an error, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The YAML parser's own panics are caught by capstan (they become errors) with a
    // quiet panic hook that delegates to libfuzzer's for any other panic.
    // A fixed identity (not a real secret): decryption fails, parsing is exercised.
    let ids = capstan_secrets::Identity::parse_all("");
    for name in ["s.yaml", "s.json", "s.env", "s.bin"] {
        let _ = capstan_secrets::decrypt(name, data, &ids);
    }
    let _ = capstan_secrets::age::decrypt(data, &ids);
});
