//! How `--explain` output looks: the text lines (`path = value  <- origin (layer)`, then
//! what it overrode) and the JSON form, for `values --explain`, `chart values --explain`
//! and `print-env --explain`. Values from a secrets layer are hidden unless asked for.
//!
//! JSON schema (`-o json`), one object per leaf:
//! `{"path": "a.b", "value": V, "origin": "file:line:col" | "--set a.b=1" | null,
//!   "layer": "-f" | "chart defaults" | "environment values" | ... | null,
//!   "overrides": [{"origin": ..., "layer": ..., "value": V}, ...],
//!   "through": ["values.yaml.gotmpl:1 (.Values.domain)", "env/prod.yaml:1:1 (environment values)"]}`
//! (`through` is the chain behind a value a values template wrote; empty otherwise)
//! (`origin` and `layer` are null when no layer set the leaf directly: import-values,
//! globals). A hidden secret's `value` is the string `(secret)`: a value set by a
//! secrets layer (environment `secrets:`, a release's decrypted `secrets:` file) or
//! written by a template that read one.
//!
//! `print-env --compare A B -o json`, one object per state file:
//! `{"file": F, "environments": [A, B], "same": N, "differences": [{"path": "a.b",
//!   "values": [LEAF_IN_A | null, LEAF_IN_B | null]}, ...]}` (each LEAF as above; null where
//! that environment does not set the value).

use capstan_state::envvals::Tier;
use capstan_value::json::{to_json, JsonError, JsonStyle};
use capstan_value::{Str, Value};
use capstan_values::provenance::{Contribution, Explained};
use std::collections::BTreeMap;

/// Whether a layer holds decrypted secrets: the environment's `secrets:`, or a
/// release's secrets file (`secrets.yaml (decrypted)`).
fn is_secret(c: &Contribution) -> bool {
    c.kind == Tier::Secrets.kind() || c.origin.contains(capstan_state::release_values::DECRYPTED)
}

/// Whether a step of a template's chain (`envsec.yaml:1:1 (environment secrets)`) read a
/// secret.
fn step_is_secret(step: &str) -> bool {
    step.ends_with(&format!("({})", Tier::Secrets.kind()))
        || step.contains(capstan_state::release_values::DECRYPTED)
}

/// What a value shows as: the value, or `(secret)` when it came from a secrets layer, a
/// template wrote it from one (`through`), or it shows a secret this process decrypted
/// (`postgres://u:{{ .Values.dbpass }}@db`), and `show_secrets` is off.
fn shown(
    value: &Value,
    from: Option<&Contribution>,
    through: &[String],
    show_secrets: bool,
) -> Value {
    let secret = from.is_some_and(is_secret)
        || through.iter().any(|s| step_is_secret(s))
        || capstan_state::known_secrets::shows_secret(&json_text(value));
    if secret && !show_secrets {
        Value::from("(secret)")
    } else {
        value.clone()
    }
}

fn json_text(v: &Value) -> String {
    to_json(
        v,
        JsonStyle {
            escape_html: false,
            indent: None,
        },
    )
    .unwrap_or_else(|_| v.to_string())
}

/// A leaf's final value as explain prints it (JSON text, or `"(secret)"`).
pub(crate) fn shown_value(e: &Explained, show_secrets: bool) -> String {
    json_text(&shown(
        &e.value,
        e.winner.as_ref(),
        &e.through,
        show_secrets,
    ))
}

/// An overridden layer's value as explain prints it.
pub(crate) fn contribution_value(c: &Contribution, show_secrets: bool) -> String {
    json_text(&shown(&c.value, Some(c), &[], show_secrets))
}

/// One line per leaf, then one per value it overrode.
pub(crate) fn text(explained: &[Explained], show_secrets: bool) -> String {
    let mut out = String::new();
    for e in explained {
        out.push_str(&format!(
            "{} = {}  {}\n",
            e.path,
            shown_value(e, show_secrets),
            origin_text(e)
        ));
        for o in &e.overridden {
            out.push_str(&format!(
                "    overrides {} = {} ({})\n",
                o.origin,
                contribution_value(o, show_secrets),
                o.kind
            ));
        }
    }
    out
}

/// The leaves as JSON values (the schema above).
pub(crate) fn json(explained: &[Explained], show_secrets: bool) -> Value {
    Value::list_from(
        explained
            .iter()
            .map(|e| leaf_json(e, show_secrets))
            .collect(),
    )
}

/// A JSON object from its pairs.
fn object(pairs: Vec<(&str, Value)>) -> Value {
    Value::map_from(
        pairs
            .into_iter()
            .map(|(k, v)| (Str::from(k), v))
            .collect::<BTreeMap<_, _>>(),
    )
}

/// One leaf as JSON (the schema above).
pub(crate) fn leaf_json(e: &Explained, show_secrets: bool) -> Value {
    let opt = |s: Option<&String>| s.map_or(Value::Nil, |s| Value::from(s.as_str()));
    let overrides = e
        .overridden
        .iter()
        .map(|o| {
            object(vec![
                ("origin", Value::from(o.origin.as_str())),
                ("layer", Value::from(o.kind.as_str())),
                ("value", shown(&o.value, Some(o), &[], show_secrets)),
            ])
        })
        .collect();
    object(vec![
        ("path", Value::from(e.path.to_string())),
        (
            "value",
            shown(&e.value, e.winner.as_ref(), &e.through, show_secrets),
        ),
        ("origin", opt(e.winner.as_ref().map(|w| &w.origin))),
        ("layer", opt(e.winner.as_ref().map(|w| &w.kind))),
        ("overrides", Value::list_from(overrides)),
        (
            "through",
            Value::list_from(e.through.iter().map(|t| Value::from(t.as_str())).collect()),
        ),
    ])
}

/// Where a leaf's value comes from, as the text output shows it: `<- ORIGIN (LAYER)`,
/// then the chain behind a template-written value.
pub(crate) fn origin_text(e: &Explained) -> String {
    let mut out = match &e.winner {
        Some(w) => format!("<- {} ({})", w.origin, w.kind),
        None => "<- computed (import-values or globals)".to_string(),
    };
    for step in &e.through {
        out.push_str(&format!(" <- {step}"));
    }
    out
}

/// `value` as indented JSON text with a final newline.
pub(crate) fn to_json_text(value: &Value) -> Result<String, JsonError> {
    to_json(
        value,
        JsonStyle {
            escape_html: false,
            indent: Some("  "),
        },
    )
    .map(|t| t + "\n")
}
