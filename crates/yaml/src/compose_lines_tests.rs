//! Tests of the line reader: it must build exactly what libyaml's events build, on
//! every conformance vector, every YAML file of the real-world charts and generated
//! documents (valid and not).

use super::compose_lines;
use crate::compose::{compose_events, Generation};
use crate::test_files::shared;

/// `text` as the composer sees it (compose_first adds a final line break).
fn both(text: &str) -> Option<(String, String)> {
    let mut t = text.to_string();
    if !t.is_empty() && !t.ends_with(['\n', '\r']) {
        t.push('\n');
    }
    let fast = compose_lines(&t)?;
    let slow = compose_events(&t, Generation::V2);
    Some((format!("{fast:?}"), format!("{slow:?}")))
}

/// Compares the line reader with libyaml on `text`; counts what the reader took.
fn check(text: &str, taken: &mut usize) {
    if let Some((fast, slow)) = both(text) {
        *taken += 1;
        assert_eq!(
            fast,
            format!(
                "{}",
                slow.strip_prefix("Ok(Some(")
                    .and_then(|s| s.strip_suffix("))"))
                    .unwrap_or(&slow)
            ),
            "the line reader and libyaml differ on:\n{text}"
        );
    }
}

#[test]
fn multi_line_plain_and_single_quoted_values_are_read_by_lines() {
    let docs = [
        "---\na:\n  description: spec defines the\n    specification of\n\n    rules.\n  type: object\n",
        "# c\n--- # start\nk: 'Container name: required for volumes,\n  optional for env vars'\nx: 'a ''b''\n\n   c  '\n",
        "s:\n- a: one\n    two\n  b: 'x\n    y'\n",
        "a: one\n  two\nb: 'x\n    y'\n",
        "d: \"a\\n b\"\ne: \"x \\\n   y\n\n   z\\t\\\"\\\\\"\n",
        // Deeper comment lines after a value (commented-out examples) end it.
        "extra: null\n  # - apiVersion: v1\n  #   kind: ConfigMap\n\nport: 3000\n    # port: 4181\nb: x\n  y\n\n  # z\nc: 1\n",
    ];
    for text in docs {
        let mut taken = 0;
        check(text, &mut taken);
        assert_eq!(taken, 1, "not read by lines:\n{text}");
    }
}

#[test]
fn equals_libyaml_on_the_conformance_vectors_and_real_chart_files() {
    let vectors = std::fs::read_to_string(shared().join("conformance/yaml/yaml-decode.jsonl"))
        .expect("../shared/conformance/yaml/yaml-decode.jsonl");
    let mut taken = 0;
    let mut total = 0;
    for line in vectors.lines() {
        let v = capstan_value::json::from_json(line).expect("a JSON line");
        if let Some(capstan_value::Value::String(text)) = v.get("yaml") {
            total += 1;
            check(&text, &mut taken);
            // Every prefix of its lines: documents that end early.
            let lines: Vec<&str> = text.split('\n').collect();
            for n in 1..lines.len() {
                check(&lines[..n].join("\n"), &mut taken);
            }
        }
    }
    assert!(
        total > 1000 && taken > 300,
        "{taken} of {total} vectors read by lines"
    );
    let files = crate::test_files::yaml_files(&shared().join("realworld/charts"));
    let mut taken_files = 0;
    for f in &files {
        if let Ok(text) = std::fs::read_to_string(f) {
            // Templates are not YAML until rendered; what is YAML is compared.
            check(&text, &mut taken_files);
        }
    }
    assert!(
        taken_files > 300,
        "{taken_files} of {} chart files read by lines",
        files.len()
    );
}

/// A small deterministic generator (xorshift) of block-style documents, valid and
/// not: keys plain and quoted, scalars of every kind the reader takes, collections
/// nested and indentless, comments and blank lines, indentation off by one.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn chance(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
    fn scalar(&mut self) -> String {
        self.pick(&[
            "a",
            "1",
            "1.10",
            "true",
            "no",
            "~",
            "null",
            "\"q\"",
            "\"\"",
            "'s''t'",
            "''",
            "a b",
            "a #c",
            "x:y",
            "http://h:1/p",
            "-1",
            "-x",
            "[]",
            "{}",
            "a:",
            "a: b",
            "\"a\\n\"",
            "'un",
            "&x a",
            "*x",
            "!!str 1",
            "[a]",
            "{a: 1}",
            "[a, b]",
            "[ \"x\", 'y' ]",
            "[1,2,]",
            "[ ]",
            "[a b]",
            "[-1]",
            "[a:b]",
            "[\"a\" ,b] #c",
            "[a]#c",
            "[.5, x/y, a-b+c]",
            "{ }",
            "{  } # c",
            "{ a}",
            ">",
            "|",
            "|-",
            "|+",
            "|2",
            "- a",
            "? a",
            "@",
            "`x`",
            "a  ",
            "\"a\" #c",
            "\"a\"#c",
            "a#b",
            "<<",
            "0o10",
            ".inf",
            "2001-12-14",
            "caf\u{e9}",
            "a # \u{2019}s",
            "\"\u{e9}\"",
            "[\u{e9}]",
            "a\u{2028}b",
            "a\u{85}",
            "a\n   b",
            "a b\n      c  d \n",
            "a\n\n   b c",
            "a\n  \n     b\n\n",
            "a\n b",
            "a\nb",
            "a\n  b: c",
            "a\n  b:",
            "a\n  #c",
            "a\n    b #c",
            "a\n    - b",
            "a\n    [b]",
            "a\n    'b'",
            "a\n    b\u{e9}",
            "'a\n    b'",
            "'a \n\n   b '",
            "'x''\n   y'''",
            "'a\n b' #c",
            "'a\n   b'x",
            "'a\n'",
            "'a\nb'",
            "'a: b\n    c # d'",
            "'a\n    b\n   c\n      '",
            "'\n   '",
            "'a\n   ---\n   b'",
            "'a\n   \u{e9}'",
            "\"a\\n b\"",
            "\"a\n   b\\nc\"",
            "\"a \\\n    b\"",
            "\"a\\\n\n    b\"",
            "\"x\\t\\\"y\\\\\"",
            "\"a\\/b\"",
            "\"a\\u00e9\"",
            "\"a\n b\"",
            "\"a\n    b\" #c",
            "\"a\n    b\"x",
            "\"\\\\\n   \"",
            "\"a\\ b\"",
            "\"a  \n\n    b  \"",
            "\"a\\n\" # c",
            "\"a\\\\\\n\"",
        ])
        .to_string()
    }
    fn key(&mut self) -> String {
        self.pick(&[
            "k",
            "key",
            "a b",
            "\"q\"",
            "'s'",
            "k.x/y",
            "-k",
            "<<",
            "1",
            "true",
            "k ",
            "k#x",
            "k\u{e9}",
            "\"\u{e9}\"",
            "\"a\\\"b\"",
            "?",
            "",
        ])
        .to_string()
    }
    fn doc(&mut self) -> String {
        let mut out = String::new();
        let lines = 1 + self.next() % 14;
        let mut indents = vec![0usize];
        for _ in 0..lines {
            let mut indent = *indents.last().unwrap_or(&0);
            if self.chance(3) && indents.len() > 1 {
                indents.pop();
                indent = *indents.last().unwrap_or(&0);
            }
            if self.chance(12) {
                indent += 1;
            }
            if self.chance(9) {
                out.push_str(self.pick(&[
                    "",
                    "  ",
                    "# c",
                    "  # c",
                    "    ",
                    "# \u{2019}",
                    "# \u{2028}x",
                    "---",
                    "--- # c",
                    "---  ",
                    "--- a",
                    "--- |",
                    "---#c",
                    "----",
                    " ---",
                    "...",
                ]));
                out.push('\n');
                continue;
            }
            let pad = " ".repeat(indent);
            let dash = self.chance(3);
            let lead = if dash {
                format!("{pad}{}", self.pick(&["- ", "-  ", "-"]))
            } else {
                pad.clone()
            };
            let body = if dash && self.chance(2) {
                self.scalar()
            } else if self.chance(3) {
                let k = self.key();
                indents.push(indent + if self.chance(2) { 2 } else { 0 });
                format!("{k}:")
            } else {
                let (k, v) = (self.key(), self.scalar());
                format!("{k}: {v}")
            };
            out.push_str(&format!("{lead}{body}\n"));
            if body.ends_with('|') || body.ends_with("|-") || body.ends_with("|+") {
                for _ in 0..self.next() % 4 {
                    let deeper = " ".repeat(
                        indent
                            + self.pick(&["1", "2", "4", "0"]).len()
                            + (self.next() % 3) as usize,
                    );
                    out.push_str(&format!(
                        "{deeper}{}\n",
                        self.pick(&[
                            "text",
                            "",
                            "  more",
                            "# not",
                            "a: b",
                            "t\u{e9}xt",
                            "a\u{2029}b"
                        ])
                    ));
                }
            }
        }
        if self.chance(4) {
            out.pop();
        }
        out
    }
}

#[test]
fn equals_libyaml_on_generated_documents() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut taken = 0;
    for _ in 0..60_000 {
        let d = g.doc();
        check(&d, &mut taken);
    }
    assert!(
        taken > 2_000,
        "only {taken} generated documents read by lines"
    );
}
