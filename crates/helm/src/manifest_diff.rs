//! capstan's own diff of a release (no helm-diff plugin): the manifest helm recorded for
//! the deployed release (`helm get manifest`) against the one capstan renders, resource by
//! resource, printed as helm-diff prints it:
//!
//! ```text
//! apps, web, Deployment (apps) has changed:
//!   # Source: web/templates/deployment.yaml
//! ...
//! -   replicas: 1
//! +   replicas: 2
//! ```
//!
//! Resources are keyed `NAMESPACE, NAME, KIND (GROUP)` (the release's namespace when a
//! resource names none); lines are compared with a line diff; `--context N` keeps N lines
//! around each change and prints `...` for the rest; Secret values are shown only as their
//! size unless `show_secrets`.

use capstan_value::Value;
use similar::{ChangeTag, TextDiff};

/// One resource of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// `NAMESPACE, NAME, KIND (GROUP)`.
    pub key: String,
    pub kind: String,
    /// The document's text (with its `# Source:` line).
    pub content: String,
}

/// How a diff is shown.
#[derive(Clone, Debug, Default)]
pub struct DiffStyle {
    /// Lines of context around each change; `None`: the whole resource.
    pub context: Option<usize>,
    pub show_secrets: bool,
    /// Kinds whose changes are not shown (`--suppress`).
    pub suppress_kinds: Vec<String>,
    pub color: bool,
}

/// Splits a manifest (`---` separated documents) into resources; empty documents are
/// skipped.
pub fn parse(manifest: &str, default_namespace: &str) -> Vec<Resource> {
    let mut docs: Vec<String> = Vec::new();
    let mut cur = String::new();
    for line in manifest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            docs.push(std::mem::take(&mut cur));
        } else {
            cur.push_str(line);
        }
    }
    docs.push(cur);
    let mut out = Vec::new();
    for doc in docs {
        let body: String = doc
            .lines()
            .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
            .collect();
        if body.trim().is_empty() {
            continue;
        }
        let v = capstan_yaml::decode_helm(&doc).unwrap_or(Value::Nil);
        let text = |v: Option<Value>| match v {
            Some(Value::String(s)) => s.to_string(),
            _ => String::new(),
        };
        let api = text(v.get("apiVersion"));
        let kind = text(v.get("kind"));
        let meta = v.get("metadata").unwrap_or(Value::Nil);
        let name = text(meta.get("name"));
        let mut ns = text(meta.get("namespace"));
        if ns.is_empty() {
            ns = default_namespace.to_string();
        }
        let group = match api.rsplit_once('/') {
            Some((g, _)) => g.to_string(),
            None => api.clone(),
        };
        let mut content = doc.trim_end_matches('\n').to_string();
        content.push('\n');
        out.push(Resource {
            key: format!("{ns}, {name}, {kind} ({group})"),
            kind,
            content,
        });
    }
    out
}

/// A Secret's `data`/`stringData` values replaced by their size, as helm-diff shows them;
/// `other` is the same Secret on the other side (values equal there are marked so).
fn redact_secret(content: &str, other: Option<&str>, removed: bool) -> String {
    let values = |text: &str| -> Vec<(String, Vec<u8>)> {
        let v = capstan_yaml::decode_helm(text).unwrap_or(Value::Nil);
        let mut out = Vec::new();
        for field in ["data", "stringData"] {
            if let Some(Value::Map(m)) = v.get(field) {
                for (k, x) in m.read().iter() {
                    let s = match x {
                        Value::String(s) => s.to_string(),
                        other => format!("{other:?}"),
                    };
                    // `data` holds base64: helm-diff counts the decoded bytes.
                    let bytes = if field == "data" {
                        use base64::Engine as _;
                        base64::engine::general_purpose::STANDARD
                            .decode(s.trim())
                            .unwrap_or_else(|_| s.clone().into_bytes())
                    } else {
                        s.into_bytes()
                    };
                    out.push((k.to_string(), bytes));
                }
            }
        }
        out
    };
    let mine = values(content);
    let theirs = other.map(values).unwrap_or_default();
    let mut out = String::new();
    let mut in_data = false;
    for line in content.lines() {
        let indented = line.starts_with(' ');
        if !indented {
            in_data = line == "data:" || line == "stringData:";
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if in_data {
            let field_line = line.trim_start();
            if let Some((k, _)) = field_line.split_once(':') {
                let indent = &line[..line.len() - field_line.len()];
                let mine_value = mine.iter().find(|(f, _)| f == k).map(|(_, v)| v);
                let size = mine_value.map(Vec::len).unwrap_or(0);
                let same = mine_value.is_some()
                    && theirs.iter().any(|(f, v)| f == k && Some(v) == mine_value);
                let mark = if same {
                    "REDACTED"
                } else if removed {
                    "--------"
                } else {
                    "++++++++"
                };
                out.push_str(&format!("{indent}{k}: '{mark} # ({size} bytes)'\n"));
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn paint(color: bool, code: &str, text: &str) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// The diff of two manifests as helm-diff prints it, and whether anything changed.
pub fn diff(old: &[Resource], new: &[Resource], style: &DiffStyle) -> (String, bool) {
    // helm-diff's order: the old resources by key (changed ones in place, removed ones
    // after them), then the added ones by key.
    let mut old_keys: Vec<&str> = old.iter().map(|r| r.key.as_str()).collect();
    old_keys.sort();
    let mut new_keys: Vec<&str> = new.iter().map(|r| r.key.as_str()).collect();
    new_keys.sort();
    let mut keys: Vec<&str> = old_keys
        .iter()
        .copied()
        .filter(|k| new_keys.contains(k))
        .collect();
    keys.extend(old_keys.iter().copied().filter(|k| !new_keys.contains(k)));
    keys.extend(new_keys.iter().copied().filter(|k| !old_keys.contains(k)));
    keys.dedup();
    let mut out = String::new();
    let mut changed = false;
    for key in keys {
        let before = old.iter().find(|r| r.key == key);
        let after = new.iter().find(|r| r.key == key);
        let kind = before.or(after).map(|r| r.kind.as_str()).unwrap_or("");
        let secret = kind == "Secret" && !style.show_secrets;
        let shown = |r: Option<&Resource>, other: Option<&Resource>, removed: bool| -> String {
            match r {
                None => String::new(),
                Some(r) if secret => {
                    redact_secret(&r.content, other.map(|o| o.content.as_str()), removed)
                }
                Some(r) => r.content.clone(),
            }
        };
        let a = shown(before, after, true);
        let b = shown(after, before, false);
        let (title, code) = match (before, after) {
            (None, Some(_)) => ("has been added:", "33"),
            (Some(_), None) => ("has been removed:", "33"),
            _ if before.map(|r| &r.content) == after.map(|r| &r.content) => continue,
            _ => ("has changed:", "33"),
        };
        changed = true;
        out.push_str(&paint(style.color, code, &format!("{key} {title}")));
        out.push('\n');
        if style.suppress_kinds.iter().any(|k| k == kind) {
            out.push_str(&format!(
                "+ Changes suppressed on sensitive content of type {kind}\n"
            ));
            continue;
        }
        let d = TextDiff::from_lines(&a, &b);
        let records: Vec<(ChangeTag, String)> = d
            .iter_all_changes()
            .map(|c| (c.tag(), c.value().trim_end_matches('\n').to_string()))
            .collect();
        // Distance of each line to the nearest change, for `--context` (two passes).
        let mut distance = vec![usize::MAX; records.len()];
        let mut last: Option<usize> = None;
        for (i, (t, _)) in records.iter().enumerate() {
            if *t != ChangeTag::Equal {
                last = Some(i);
            }
            if let Some(l) = last {
                distance[i] = i - l;
            }
        }
        let mut next: Option<usize> = None;
        for i in (0..records.len()).rev() {
            if records[i].0 != ChangeTag::Equal {
                next = Some(i);
            }
            if let Some(n) = next {
                distance[i] = distance[i].min(n - i);
            }
        }
        let far = |i: usize| distance[i];
        let mut omitting = false;
        for (i, (tag, line)) in records.iter().enumerate() {
            if let Some(ctx) = style.context {
                if far(i) > ctx {
                    if !omitting {
                        out.push_str("...\n");
                        omitting = true;
                    }
                    continue;
                }
                omitting = false;
            }
            match tag {
                ChangeTag::Equal => out.push_str(&format!("  {line}\n")),
                ChangeTag::Delete => {
                    out.push_str(&paint(style.color, "31", &format!("- {line}")));
                    out.push('\n');
                }
                ChangeTag::Insert => {
                    out.push_str(&paint(style.color, "32", &format!("+ {line}")));
                    out.push('\n');
                }
            }
        }
        out.push('\n');
    }
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n---\n# Source: c/templates/d.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: other\nspec:\n  replicas: 1\n";

    #[test]
    fn keys_name_namespace_kind_and_group() {
        let rs = parse(OLD, "apps");
        let keys: Vec<&str> = rs.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(
            keys,
            ["apps, a, ConfigMap (v1)", "other, web, Deployment (apps)"]
        );
    }

    #[test]
    fn changed_added_removed_and_unchanged() {
        let new = OLD
            .replace("replicas: 1", "replicas: 2")
            .replace("name: a\n", "name: b\n");
        let (text, changed) = diff(
            &parse(OLD, "apps"),
            &parse(&new, "apps"),
            &DiffStyle::default(),
        );
        assert!(changed);
        assert!(
            text.contains("apps, a, ConfigMap (v1) has been removed:\n"),
            "{text}"
        );
        assert!(
            text.contains("apps, b, ConfigMap (v1) has been added:\n+ # Source:"),
            "{text}"
        );
        assert!(
            text.contains(
                "other, web, Deployment (apps) has changed:\n  # Source: c/templates/d.yaml\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("-   replicas: 1\n+   replicas: 2\n"),
            "{text}"
        );
        // helm-diff's order: changed (old keys), then removed, then added.
        let at = |s: &str| text.find(s).unwrap_or(usize::MAX);
        assert!(
            at("has changed:") < at("has been removed:")
                && at("has been removed:") < at("has been added:"),
            "{text}"
        );
        let (same, changed) = diff(
            &parse(OLD, "apps"),
            &parse(OLD, "apps"),
            &DiffStyle::default(),
        );
        assert!(!changed && same.is_empty());
    }

    #[test]
    fn context_and_secrets() {
        let old = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: aGVsbG8=\n  user: YQ==\n";
        let new = old.replace("aGVsbG8=", "d29ybGQ=");
        let (text, _) = diff(
            &parse(old, "ns"),
            &parse(&new, "ns"),
            &DiffStyle {
                context: Some(0),
                ..DiffStyle::default()
            },
        );
        assert!(
            !text.contains("aGVsbG8") && !text.contains("d29ybGQ"),
            "{text}"
        );
        assert!(
            text.contains("-   password: '-------- # (5 bytes)'"),
            "{text}"
        );
        assert!(
            text.contains("+   password: '++++++++ # (5 bytes)'"),
            "{text}"
        );
        assert!(text.contains("...\n"), "{text}");
    }
}
