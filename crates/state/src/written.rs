//! A state file's scalars as helmfile reads them. helmfile decodes a state into typed Go
//! structs: a release's string fields (`version`, `set[].value`, `labels`, `needs`…)
//! keep the scalar's text as written, so `version: 1.10` asks for chart version "1.10"
//! and `set: [{name: tag, value: 1.10}]` passes `--set tag=1.10`. capstan decodes the
//! state as untyped YAML, where that scalar is the number 1.1: [`read_as_written`] puts
//! the written text back at those fields.
//!
//! A release's inline `values:` are untyped in helmfile too, so there `tag: 1.10` does
//! become 1.1: [`read_as_written`] reports each such number as a [`ValueTrap`] for the
//! commands that warn about value traps.

use crate::merge::Tree;
use capstan_value::{Segment, Str, Value};
use capstan_yaml::Generation;

/// A number in a release's inline values that Helm will print differently than it is
/// written (`1.10` → `1.1`, `010` → `8`).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueTrap {
    /// The release's name.
    pub release: String,
    /// The path in the values (`image.tag`).
    pub path: capstan_value::Path,
    /// As written.
    pub written: String,
    /// As Helm prints it.
    pub printed: String,
    /// 1-based line and column, in the part's text as [`read_as_written`] gives it, in
    /// the state file once loaded; `None` where the part was rendered from a template
    /// (its lines are not the file's).
    pub at: Option<(u32, u32)>,
}

impl ValueTrap {
    /// The trap as the value commands report it, `file` being the state file.
    pub fn trap(&self, file: &str) -> capstan_values::provenance::Trap {
        let place = match self.at {
            Some((line, column)) => format!("{file}:{line}:{column}"),
            None => format!("{file} (release {} values)", self.release),
        };
        capstan_values::provenance::Trap {
            path: self.path.clone(),
            message: format!(
                "{place}: {} is read as a number and prints as {}; quote it to keep it as written",
                self.written, self.printed
            ),
        }
    }
}

/// What a path of the state document is to this reader.
#[derive(Clone, Copy, PartialEq)]
enum Want {
    /// Nothing below is read here.
    No,
    /// On the way to a field read here.
    Descend,
    /// A string field of a release spec.
    Text,
    /// Inside a release's inline values.
    Inline,
}

/// Release spec fields helmfile reads as strings.
const TEXT_FIELDS: &[&str] = &[
    "name",
    "namespace",
    "chart",
    "version",
    "kubeContext",
    "condition",
    "installedTemplate",
    "missingFileHandler",
    "kubeVersion",
    "postRenderer",
];

/// Release spec fields that are lists of strings.
const TEXT_LISTS: &[&str] = &["needs", "apiVersions", "postRendererArgs"];

fn key(s: &Segment) -> Option<&str> {
    match s {
        Segment::Key(k) => Some(k),
        Segment::Index(_) => None,
    }
}

/// `path` relative to a release spec.
fn in_release(rel: &[Segment]) -> Want {
    let Some((first, rest)) = rel.split_first() else {
        return Want::Descend;
    };
    let Some(field) = key(first) else {
        return Want::No;
    };
    match (field, rest) {
        (f, []) if TEXT_FIELDS.contains(&f) => Want::Text,
        (f, []) if TEXT_LISTS.contains(&f) || f == "labels" => Want::Descend,
        (f, [Segment::Index(_)]) if TEXT_LISTS.contains(&f) => Want::Text,
        ("labels", [Segment::Key(_)]) => Want::Text,
        ("set" | "setString", []) | ("set" | "setString", [Segment::Index(_)]) => Want::Descend,
        ("set" | "setString", [Segment::Index(_), Segment::Key(k)]) => match &**k {
            "name" | "value" | "file" => Want::Text,
            "values" => Want::Descend,
            _ => Want::No,
        },
        ("set" | "setString", [Segment::Index(_), Segment::Key(k), Segment::Index(_)])
            if &**k == "values" =>
        {
            Want::Text
        }
        ("values", []) | ("values", [Segment::Index(_)]) => Want::Descend,
        ("values", [Segment::Index(_), ..]) => Want::Inline,
        _ => Want::No,
    }
}

/// The release spec a path is under (`releases[i]`, `templates.NAME`) and the rest.
fn spec_of(path: &[Segment]) -> Option<(usize, &[Segment])> {
    match path {
        [Segment::Key(k), Segment::Index(_), ..] if &**k == "releases" => Some((2, &path[2..])),
        [Segment::Key(k), Segment::Key(_), ..] if &**k == "templates" => Some((2, &path[2..])),
        _ => None,
    }
}

fn want(path: &[Segment]) -> Want {
    match path {
        [] => Want::Descend,
        [Segment::Key(k)] if &**k == "releases" || &**k == "templates" => Want::Descend,
        _ => spec_of(path).map_or(Want::No, |(_, rel)| in_release(rel)),
    }
}

/// Whether the decoded tree holds a value that the written text may change: a string
/// field that decoded as a float or a bool, or a float or large integer in inline
/// values; an integer counts only when the text holds a form other than decimal
/// (`010`, `0x1f`, `1_000`, `+5`: `ints_written_otherwise`).
fn worth_reading(v: &Value, path: &mut Vec<Segment>, ints_written_otherwise: bool) -> bool {
    let here = want(path);
    let descend = here != Want::No && here != Want::Text;
    match v {
        Value::Map(m) if descend => m.read().iter().any(|(k, child)| {
            path.push(Segment::Key(k.clone()));
            let found = worth_reading(child, path, ints_written_otherwise);
            path.pop();
            found
        }),
        Value::List(l) if descend => l.items.iter().enumerate().any(|(i, child)| {
            path.push(Segment::Index(i));
            let found = worth_reading(child, path, ints_written_otherwise);
            path.pop();
            found
        }),
        _ if here != Want::Text && here != Want::Inline => false,
        Value::Int(n) | Value::Int64(n) => {
            ints_written_otherwise || (here == Want::Inline && n.unsigned_abs() >= 1_000_000)
        }
        Value::Uint64(_) | Value::Float64(_) | Value::Float32(_) | Value::Bool(_) => true,
        _ => false,
    }
}

/// Whether `text` may write an integer in another form than decimal: a `0` starting a
/// number and followed by a digit or a base letter, a `_` after a digit, a `+` before
/// one. (A cheap look at the bytes: a false alarm only costs reading the text again.)
fn ints_written_otherwise(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len()).any(|i| {
        let prev = if i == 0 { b' ' } else { b[i - 1] };
        let next = b.get(i + 1).copied().unwrap_or(b' ');
        match b[i] {
            b'0' => {
                !prev.is_ascii_alphanumeric()
                    && prev != b'.'
                    && (next.is_ascii_digit() || b"xXoObB".contains(&next))
            }
            b'_' => prev.is_ascii_digit(),
            b'+' => next.is_ascii_digit(),
            _ => false,
        }
    })
}

/// Replaces the value at `path` (which exists) with `text`.
fn put(t: &mut Tree, path: &[Segment], text: &str) {
    let Some((Segment::Key(first), rest)) = path.split_first() else {
        return;
    };
    let Some(mut cur) = t.get_mut(first) else {
        return;
    };
    for seg in rest {
        let next = match seg {
            Segment::Key(k) => cur.map_entries_mut().and_then(|m| m.get_mut(k)),
            Segment::Index(i) => cur.list_items_mut().and_then(|l| l.get_mut(*i)),
        };
        let Some(next) = next else { return };
        cur = next;
    }
    if !matches!(
        cur,
        Value::String(_) | Value::Nil | Value::Map(_) | Value::List(_)
    ) {
        *cur = Value::String(Str::from(text));
    }
}

/// Puts the written text back at the release specs' string fields of `t` (decoded from
/// `text`) and returns the number traps of their inline values, lines relative to
/// `text`.
pub(crate) fn read_as_written(text: &str, t: &mut Tree) -> Vec<ValueTrap> {
    let root = Value::map_from(t.clone());
    if !worth_reading(&root, &mut Vec::new(), ints_written_otherwise(text)) {
        return Vec::new();
    }
    // The text decoded once already: reading it again cannot fail.
    let Ok(scalars) = capstan_yaml::written_scalars(text, Generation::V3, &|p| want(p) != Want::No)
    else {
        return Vec::new();
    };
    let mut traps = Vec::new();
    for s in scalars {
        match want(&s.path.0) {
            Want::Text if s.plain => put(t, &s.path.0, &s.text),
            Want::Inline if s.plain && is_release(&s.path.0) => {
                let Some(printed) = capstan_yaml::printed_number(Generation::V3, &s.text) else {
                    continue;
                };
                traps.push(ValueTrap {
                    release: spec_release_name(t, &s.path.0[..2]),
                    // Past the spec, `values` and the entry's index.
                    path: capstan_value::Path(s.path.0[4..].to_vec()),
                    written: s.text,
                    printed,
                    at: Some((s.span.start.line, s.span.start.column)),
                });
            }
            _ => {}
        }
    }
    traps
}

/// Whether a path is under `releases:` (a template's values are reported through the
/// releases that merge it in).
fn is_release(path: &[Segment]) -> bool {
    matches!(path.first(), Some(Segment::Key(k)) if &**k == "releases")
}

/// The `name` of the release spec at `spec` (`releases[i]`).
fn spec_release_name(t: &Tree, spec: &[Segment]) -> String {
    match spec {
        [Segment::Key(k), Segment::Index(i)] if &**k == "releases" => match t.get("releases") {
            Some(Value::List(l)) => l
                .items
                .get(*i)
                .and_then(|r| r.as_map())
                .map(|m| crate::spec::str_of(&m.snapshot(), "name"))
                .unwrap_or_default(),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (String, Vec<String>) {
        let mut t = capstan_yaml::decode_helmfile(text)
            .expect("parses")
            .as_map()
            .expect("a map")
            .snapshot();
        let traps = read_as_written(text, &mut t);
        (
            capstan_yaml::encode_helmfile(&Value::map_from(t)).expect("encodes"),
            traps
                .iter()
                .map(|x| format!("{}: {}", x.path, x.trap("f.yaml").message))
                .collect(),
        )
    }

    #[test]
    fn string_fields_keep_their_text_and_inline_numbers_are_traps() {
        let (doc, traps) = read(
            "templates:\n  d: &d\n    version: 2.0\nreleases:\n- name: web\n  <<: *d\n  chart: ./c\n  labels: {tier: 1.10}\n  set:\n  - name: tag\n    value: 1.10\n  - name: n\n    values: [010, x]\n  values:\n  - image: {tag: 1.10}\n    n: 3\n    q: \"1.10\"\n  - other.yaml\n",
        );
        assert!(doc.contains("version: \"2.0\""), "{doc}");
        assert!(doc.contains("tier: \"1.10\""), "{doc}");
        assert!(doc.contains("value: \"1.10\""), "{doc}");
        assert!(doc.contains("- \"010\""), "{doc}");
        // Inline values stay as helmfile reads them.
        assert!(doc.contains("tag: 1.1\n"), "{doc}");
        assert_eq!(
            traps,
            vec![
                "image.tag: f.yaml:15:18: 1.10 is read as a number and prints as 1.1; quote it to keep it as written"
            ]
        );
    }

    #[test]
    fn integers_written_otherwise_are_found_without_a_float_in_sight() {
        let (_, traps) =
            read("releases:\n- name: a\n  values:\n  - {mode: 0755, n: 3, big: 2000000}\n");
        assert_eq!(traps.len(), 2, "{traps:?}");
        assert!(
            traps[0].starts_with("mode: f.yaml:4:12: 0755 is read as a number and prints as 493"),
            "{traps:?}"
        );
        assert!(
            traps[1].starts_with("big: f.yaml:4:29: 2000000"),
            "{traps:?}"
        );
        assert!(ints_written_otherwise("a: 0x1f") && ints_written_otherwise("a: 1_000"));
        assert!(!ints_written_otherwise("name: app-10\nport: 8001\n"));
    }

    #[test]
    fn nothing_to_do_reads_nothing() {
        let (doc, traps) = read("releases:\n- name: a\n  chart: ./c\n  values:\n  - {q: x}\n");
        assert!(traps.is_empty());
        assert!(doc.contains("name: a"));
    }
}
