//! Why a release changes: its user-supplied values as helm recorded them for the deployed
//! release against the ones capstan computes now, leaf by leaf (`a.b`; lists compared
//! whole), each changed leaf with the file:line:col (or flag) its new value comes from.
//!
//! ```text
//! apps, a: values that change:
//!   greeting: "hi" → "bonjour"   (helmfile.yaml.gotmpl:10:15, values file)
//! ```

use capstan_value::Value;
use serde_json::Value as J;
use std::collections::BTreeMap;

/// A capstan value as JSON (numbers as floats, as helm's YAML reading makes them).
pub fn to_json(v: &Value) -> J {
    match v {
        Value::Nil => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) | Value::Int64(i) => number(*i as f64),
        Value::Uint64(u) => number(*u as f64),
        Value::Float64(f) => number(*f),
        Value::Float32(f) => number(f64::from(*f)),
        Value::String(s) => J::String(s.to_string()),
        Value::List(l) => J::Array(l.items.iter().map(to_json).collect()),
        Value::Map(m) => J::Object(
            m.read()
                .iter()
                .map(|(k, x)| (k.to_string(), to_json(x)))
                .collect(),
        ),
        other => J::String(capstan_value::printf::sprint(std::slice::from_ref(other))),
    }
}

fn number(f: f64) -> J {
    serde_json::Number::from_f64(f)
        .map(J::Number)
        .unwrap_or(J::Null)
}

/// Numbers as floats, so `2` and `2.0` compare equal.
fn normalized(v: &J) -> J {
    match v {
        J::Number(n) => n.as_f64().map(number).unwrap_or(J::Null),
        J::Array(a) => J::Array(a.iter().map(normalized).collect()),
        J::Object(o) => J::Object(o.iter().map(|(k, x)| (k.clone(), normalized(x))).collect()),
        other => other.clone(),
    }
}

fn leaves(v: &J, path: &str, out: &mut BTreeMap<String, J>) {
    match v {
        J::Object(o) if !o.is_empty() => {
            for (k, x) in o {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                leaves(x, &p, out);
            }
        }
        other if !path.is_empty() => {
            out.insert(path.to_string(), normalized(other));
        }
        _ => {}
    }
}

/// Whole numbers without a fraction, as Go's YAML and JSON print them.
fn integral(v: &J) -> J {
    match v {
        J::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => J::Number((f as i64).into()),
            _ => v.clone(),
        },
        J::Array(a) => J::Array(a.iter().map(integral).collect()),
        J::Object(o) => J::Object(o.iter().map(|(k, x)| (k.clone(), integral(x))).collect()),
        other => other.clone(),
    }
}

fn shown(v: Option<&J>) -> String {
    match v {
        None => "(none)".into(),
        Some(x) => integral(x).to_string(),
    }
}

/// The leaves that differ, one line each (`  path: old → new   (origin)`). Unless
/// `show_secrets`, a leaf set by a decrypted secrets file, or whose old or new value
/// shows a secret this process decrypted (carried there by any template), is printed
/// as `(secret) → (secret)`.
pub fn values_diff(
    old: &J,
    new: &J,
    origins: &BTreeMap<String, String>,
    show_secrets: bool,
) -> Vec<String> {
    let mut a = BTreeMap::new();
    let mut b = BTreeMap::new();
    leaves(old, "", &mut a);
    leaves(new, "", &mut b);
    let mut paths: Vec<&String> = a.keys().chain(b.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut out = Vec::new();
    for p in paths {
        let (x, y) = (a.get(p), b.get(p));
        if x == y {
            continue;
        }
        let origin = match (y, origins.get(p)) {
            (Some(_), Some(o)) => format!("   ({o})"),
            _ => String::new(),
        };
        let (before, after) = (shown(x), shown(y));
        let secret = origins
            .get(p)
            .is_some_and(|o| o.contains(capstan_state::release_values::DECRYPTED))
            || capstan_state::known_secrets::shows_secret(&before)
            || capstan_state::known_secrets::shows_secret(&after);
        let hidden = capstan_state::known_secrets::HIDDEN;
        let (before, after) = if secret && !show_secrets {
            let mark = |v: Option<&J>| {
                if v.is_some() {
                    hidden.to_string()
                } else {
                    "(none)".into()
                }
            };
            (mark(x), mark(y))
        } else {
            (before, after)
        };
        out.push(format!("  {p}: {before} → {after}{origin}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_added_removed_with_origins() {
        let old: J =
            serde_json::from_str(r#"{"greeting":"hi","replicas":2,"old":{"x":1},"list":[1,2]}"#)
                .unwrap();
        let new: J = serde_json::from_str(
            r#"{"greeting":"bonjour","replicas":2.0,"list":[1,2,3],"image":{"tag":"1.10"}}"#,
        )
        .unwrap();
        let origins: BTreeMap<String, String> = [(
            "greeting".to_string(),
            "helmfile.yaml:9:15 (values file)".to_string(),
        )]
        .into();
        let lines = values_diff(&old, &new, &origins, false);
        assert_eq!(
            lines,
            [
                "  greeting: \"hi\" → \"bonjour\"   (helmfile.yaml:9:15 (values file))",
                "  image.tag: (none) → \"1.10\"",
                "  list: [1,2] → [1,2,3]",
                "  old.x: 1 → (none)",
            ]
        );
    }
}
