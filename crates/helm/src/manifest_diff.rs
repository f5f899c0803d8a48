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
//! around each change and prints `...` for the rest; Secret values (found in the parsed
//! document, wherever a Secret is) are shown only as their size unless `show_secrets`.

use capstan_value::Value;
use similar::{ChangeTag, TextDiff};

/// One resource of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// `NAMESPACE, NAME, KIND (GROUP)`.
    pub key: String,
    /// Its kind.
    pub kind: String,
    /// The document's text (with its `# Source:` line).
    pub content: String,
    /// Its `helm.sh/hook` annotation (empty when it is no hook).
    pub hook: String,
}

impl Resource {
    /// A test hook, which helm-diff leaves out unless `--include-tests`: the annotation
    /// is exactly `test` or `test-success`.
    pub fn is_test_hook(&self) -> bool {
        matches!(self.hook.as_str(), "test" | "test-success")
    }
}

/// How a diff is shown.
#[derive(Clone, Debug, Default)]
pub struct DiffStyle {
    /// Lines of context around each change; `None`: the whole resource.
    pub context: Option<usize>,
    /// Secrets' values shown (else hidden as helm-diff hides them).
    pub show_secrets: bool,
    /// Kinds whose changes are not shown (`--suppress`).
    pub suppress_kinds: Vec<String>,
    /// Colored output.
    pub color: bool,
    /// helm-diff's `--output simple`: one line per resource that changes and a plan line
    /// counting them, no content.
    pub simple: bool,
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
        let hook = text(meta.get("annotations").and_then(|a| a.get("helm.sh/hook")));
        out.push(Resource {
            key: format!("{ns}, {name}, {kind} ({group})"),
            kind,
            content,
            hook,
        });
    }
    out
}

/// `content` as it may be shown: every Secret in it (the document itself, an item of a
/// `List`, a Secret nested in any other object) with each `data`/`stringData` value
/// replaced by its size, as helm-diff shows them. Secrets are found in the parsed
/// document, never by lines, so no layout (flow maps, block scalars, lists) shows a
/// value; the masked document is printed again as YAML under its comment lines. `other`
/// is the same resource on the other side: a value equal there is `REDACTED`, a changed
/// one `--------` (old) or `++++++++` (new). A document that does not parse is hidden
/// whole (whether it holds a Secret cannot be known).
pub fn mask_secrets(content: &str, other: Option<&str>, removed: bool) -> String {
    // (Decoded every time: `kind: "\u0053ecret"` names a Secret no text search finds.)
    let Ok(v) = capstan_yaml::decode_helm(content) else {
        return format!(
            "# (a document that does not parse: {} bytes hidden)\n",
            content.len()
        );
    };
    if !holds_secret(&v) {
        return content.to_string();
    }
    let theirs = other
        .and_then(|o| capstan_yaml::decode_helm(o).ok())
        .unwrap_or(Value::Nil);
    let masked = mask_value(&v, &theirs, removed);
    // The leading comment lines (`# Source: …`) stay; a "line" holding another YAML
    // line break (`\r`, U+0085, U+2028/9) is more than a comment and is dropped.
    let mut out: String = content
        .lines()
        .take_while(|l| l.trim_start().starts_with('#') || l.trim().is_empty())
        .filter(|l| !l.contains(['\r', '\u{85}', '\u{2028}', '\u{2029}']))
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    match capstan_yaml::encode_helm(&masked) {
        Ok(text) => out.push_str(&text),
        Err(_) => out.push_str("# (a Secret that cannot be printed: hidden)\n"),
    }
    out
}

/// Whether `v` is, or holds anywhere, an object of kind `Secret`.
fn holds_secret(v: &Value) -> bool {
    capstan_value::stack::grow(|| match v {
        Value::Map(m) => {
            matches!(m.get("kind"), Some(Value::String(k)) if &*k == "Secret")
                || m.read().values().any(holds_secret)
        }
        Value::List(l) => l.items.iter().any(holds_secret),
        _ => false,
    })
}

/// `v` with the values of every Secret in it masked (see [`mask_secrets`]); `other` is
/// what stands at the same place on the other side.
fn mask_value(v: &Value, other: &Value, removed: bool) -> Value {
    capstan_value::stack::grow(|| match v {
        Value::Map(m) => {
            let m = m.snapshot();
            let secret = matches!(m.get("kind"), Some(Value::String(k)) if &**k == "Secret");
            let out = m
                .iter()
                .map(|(k, x)| {
                    let theirs = other.get(k).unwrap_or(Value::Nil);
                    let field = &**k;
                    let x = if secret && (field == "data" || field == "stringData") {
                        mask_fields(x, &theirs, field == "data", removed)
                    } else {
                        mask_value(x, &theirs, removed)
                    };
                    (k.clone(), x)
                })
                .collect();
            Value::map_from(out)
        }
        Value::List(l) => {
            let theirs = match other {
                Value::List(o) => o.items.clone(),
                _ => Vec::new(),
            };
            Value::list_from(
                l.items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| mask_value(x, theirs.get(i).unwrap_or(&Value::Nil), removed))
                    .collect(),
            )
        }
        other => other.clone(),
    })
}

/// A Secret's `data` (base64: sizes of the decoded bytes) or `stringData` with every
/// value replaced by helm-diff's mark and size; anything that is not a map is hidden
/// whole.
fn mask_fields(fields: &Value, other: &Value, base64: bool, removed: bool) -> Value {
    let bytes = |x: &Value| -> Vec<u8> {
        let s = match x {
            Value::String(s) => s.to_string(),
            Value::Nil => String::new(),
            other => other.to_string(),
        };
        if base64 {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(s.trim())
                .unwrap_or_else(|_| s.into_bytes())
        } else {
            s.into_bytes()
        }
    };
    let Value::Map(m) = fields else {
        return match fields {
            Value::Nil => Value::Nil,
            _ => Value::from("(hidden)"),
        };
    };
    let out = m
        .snapshot()
        .iter()
        .map(|(k, x)| {
            let mine = bytes(x);
            let same = other.get(k).is_some_and(|o| bytes(&o) == mine);
            let mark = if same {
                "REDACTED"
            } else if removed {
                "--------"
            } else {
                "++++++++"
            };
            (
                k.clone(),
                Value::from(format!("{mark} # ({} bytes)", mine.len())),
            )
        })
        .collect();
    Value::map_from(out)
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
    // (added, changed, removed) for `--output simple`'s plan line.
    let mut plan = (0, 0, 0);
    for key in keys {
        let before = old.iter().find(|r| r.key == key);
        let after = new.iter().find(|r| r.key == key);
        let kind = before.or(after).map(|r| r.kind.as_str()).unwrap_or("");
        let shown = |r: Option<&Resource>, other: Option<&Resource>, removed: bool| -> String {
            match r {
                None => String::new(),
                Some(r) if style.show_secrets => r.content.clone(),
                Some(r) => mask_secrets(&r.content, other.map(|o| o.content.as_str()), removed),
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
        if style.simple {
            let (code, what) = match (before, after) {
                (None, _) => {
                    plan.0 += 1;
                    ("32", "to be added.")
                }
                (_, None) => {
                    plan.2 += 1;
                    ("31", "to be removed.")
                }
                _ => {
                    plan.1 += 1;
                    ("33", "to be changed.")
                }
            };
            out.push_str(&paint(style.color, code, &format!("{key} {what}")));
            out.push('\n');
            continue;
        }
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
    if style.simple {
        out.push_str(&format!(
            "Plan: {} to add, {} to change, {} to destroy.\n",
            plan.0, plan.1, plan.2
        ));
    }
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n---\n# Source: c/templates/d.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: other\nspec:\n  replicas: 1\n";

    #[test]
    fn simple_output_lists_changes_and_the_plan() {
        let new = OLD
            .replace("replicas: 1", "replicas: 2")
            .replace("name: a\n", "name: b\n");
        let style = DiffStyle {
            simple: true,
            ..DiffStyle::default()
        };
        let (text, changed) = diff(&parse(OLD, "apps"), &parse(&new, "apps"), &style);
        assert!(changed);
        assert_eq!(
            text,
            "other, web, Deployment (apps) to be changed.\n\
             apps, a, ConfigMap (v1) to be removed.\n\
             apps, b, ConfigMap (v1) to be added.\n\
             Plan: 1 to add, 1 to change, 1 to destroy.\n"
        );
        let (text, changed) = diff(&parse(OLD, "apps"), &parse(OLD, "apps"), &style);
        assert!(!changed);
        assert_eq!(text, "Plan: 0 to add, 0 to change, 0 to destroy.\n");
    }

    #[test]
    fn test_hooks_are_known_by_their_annotation() {
        let doc = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    helm.sh/hook: test\n";
        let rs = parse(doc, "apps");
        assert!(rs[0].is_test_hook());
        let rs = parse(&doc.replace("hook: test", "hook: pre-install"), "apps");
        assert!(!rs[0].is_test_hook());
        assert_eq!(rs[0].hook, "pre-install");
    }

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

    /// Issue 28, item 4: a Secret's values never show, whatever the layout: block and
    /// flow maps, a multi-line PEM under `stringData: |`, a Secret inside a `List` or
    /// nested in another object, JSON documents, quoted kinds, keys in any order; on
    /// either side of a change, added or removed.
    #[test]
    fn secret_values_never_show_in_any_layout() {
        use base64::Engine as _;
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nQUxMU0VDUkVUUEVNU0VDUkVU\n-----END PRIVATE KEY-----";
        type Layout = Box<dyn Fn(&str, &str) -> String>;
        let layouts: Vec<Layout> = vec![
            Box::new(|k, v| {
                format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  {k}: {v}\n")
            }),
            Box::new(|k, v| {
                format!("apiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\ndata: {{{k}: {v}, other: b3RoZXI=}}\n")
            }),
            Box::new(|k, v| {
                format!("data:\n  {k}: \"{v}\"\nkind: \"Secret\"\napiVersion: v1\nmetadata:\n  name: s\n")
            }),
            Box::new(|k, v| {
                format!("{{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {{\"name\": \"s\"}}, \"data\": {{\"{k}\": \"{v}\"}}}}\n")
            }),
            Box::new(|k, v| {
                format!("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n  data:\n    {k}: {v}\n")
            }),
            Box::new(|k, v| {
                format!("apiVersion: example.com/v1\nkind: Wrapper\nmetadata:\n  name: w\nspec:\n  template:\n    kind: Secret\n    data:\n      {k}: {v}\n")
            }),
            Box::new(|k, v| {
                format!("apiVersion: v1\nkind: \"\\u0053ecret\"\nmetadata:\n  name: s\ndata:\n  {k}: {v}\n")
            }),
            Box::new(|k, v| {
                format!("# Source: c/templates/s.yaml\n# a comment\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  # the key\n  {k}: >-\n    {v}\n")
            }),
            // A "comment line" that other YAML line breaks make into more (found by the
            // secret_mask fuzz target).
            Box::new(|k, v| {
                format!("# c\rkind: Secret\r\u{85}data: {{{k}: {v}}}\napiVersion: v1\nmetadata:\n  name: s\n")
            }),
            Box::new(|k, v| {
                format!("#\u{2028}{{\"kind\": \"Secret\", \"data\": {{\"{k}\": \"{v}\"}}}}\n")
            }),
        ];
        let string_layouts: Vec<Layout> = vec![
            Box::new(|k, v| {
                format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  {k}: |\n{}\n", v.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n"))
            }),
            Box::new(|k, v| {
                format!(
                    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData: {{{k}: {}}}\n",
                    serde_json::to_string(v).unwrap_or_default()
                )
            }),
            Box::new(|k, v| {
                format!("apiVersion: v1\nkind: List\nitems:\n- kind: Secret\n  metadata: {{name: s}}\n  stringData:\n    {k}: |-\n{}\n", v.lines().map(|l| format!("      {l}")).collect::<Vec<_>>().join("\n"))
            }),
        ];
        let secrets = ["s3cr3t-password", "hunter2hunter2", pem];
        let mut checked = 0;
        for secret in secrets {
            let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
            let one_line = !secret.contains('\n');
            for key in ["password", "tls.key", "\"quoted key\""] {
                let mut docs: Vec<String> = Vec::new();
                docs.extend(layouts.iter().map(|l| l(key, &b64)));
                if one_line {
                    docs.extend(layouts.iter().map(|l| l(key, secret)));
                }
                docs.extend(string_layouts.iter().map(|l| l(key, secret)));
                for doc in docs {
                    let old = parse(&doc, "ns");
                    let changed_doc = doc.replace(&b64, "Y2hhbmdlZA==").replace(secret, "changed");
                    for (a, b) in [
                        (old.clone(), parse(&changed_doc, "ns")),
                        (parse(&changed_doc, "ns"), old.clone()),
                        (Vec::new(), old.clone()),
                        (old.clone(), Vec::new()),
                    ] {
                        let (text, _) = diff(&a, &b, &DiffStyle::default());
                        for shown in [secret, b64.as_str()]
                            .iter()
                            .chain(secret.lines().collect::<Vec<_>>().iter())
                        {
                            if shown.len() > 8 {
                                assert!(
                                    !text.contains(shown),
                                    "{shown:?} shown for\n{doc}\n---\n{text}"
                                );
                            }
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 200, "{checked}");
        // --show-secrets shows them.
        let doc = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  p: {}\n",
            "s3cr3t-password"
        );
        let (text, _) = diff(
            &[],
            &parse(&doc, "ns"),
            &DiffStyle {
                show_secrets: true,
                ..DiffStyle::default()
            },
        );
        assert!(text.contains("s3cr3t-password"), "{text}");
    }
}
