//! The secret values this process has decrypted, so that what capstan prints about
//! values (a values diff, an error quoting a line) can hide them wherever they turn up,
//! whichever template or layer carried them there. Only texts of at least
//! [`MIN_LEN`] characters are kept: shorter ones (`true`, `1`) would hide everything.

use capstan_value::Value;
use std::sync::Mutex;

/// The shortest secret text hidden.
pub const MIN_LEN: usize = 4;

/// What replaces a secret in printed text.
pub const HIDDEN: &str = "(secret)";

static KNOWN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Remembers every scalar of `v` (a decrypted document) as a secret text.
pub fn remember(v: &Value) {
    let mut found = Vec::new();
    collect(v, &mut found);
    let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    for s in found {
        if s.chars().count() >= MIN_LEN && !known.contains(&s) {
            known.push(s);
        }
    }
    // Longest first: a secret holding another is hidden whole.
    known.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

/// Remembers one secret text (a value fetched with `ref+…`).
pub fn remember_text(s: &str) {
    remember(&Value::from(s));
}

fn collect(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Map(m) => m.read().values().for_each(|x| collect(x, out)),
        Value::List(l) => l.items.iter().for_each(|x| collect(x, out)),
        Value::Nil => {}
        Value::String(s) => {
            out.push(s.to_string());
            // A multi-line secret (a key) also shows line by line.
            out.extend(s.lines().map(str::to_string));
        }
        other => out.push(other.to_string()),
    }
}

/// Whether `text` shows a remembered secret.
pub fn shows_secret(text: &str) -> bool {
    let known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    known.iter().any(|s| text.contains(s.as_str()))
}

/// `text` with every remembered secret replaced by [`HIDDEN`].
pub fn hide(text: &str) -> String {
    let known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    let mut out = text.to_string();
    for s in known.iter() {
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), HIDDEN);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_secrets_are_hidden_longest_first() {
        let doc = capstan_value::json::from_json(
            r#"{"db":{"pass":"s3cr3t-pw","long":"s3cr3t-pw-and-more"},"n":12345,"x":"ab"}"#,
        )
        .unwrap();
        remember(&doc);
        assert!(shows_secret("url: postgres://u:s3cr3t-pw@h"));
        assert_eq!(hide("a s3cr3t-pw-and-more b"), "a (secret) b");
        assert_eq!(hide("port 12345"), "port (secret)");
        assert_eq!(hide("ab stays"), "ab stays");
    }
}
