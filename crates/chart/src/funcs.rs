//! Helm's template functions on top of sprig (`toYaml`, `toYamlPretty`, `fromYaml`,
//! `fromYamlArray`, `toJson`, `fromJson`, `fromJsonArray`, `include`, `tpl`, `required`,
//! `fail`) and `helm_templates`, the template set configured as Helm's engine
//! (`missingkey=zero`, root template `gotpl`).

use capstan_gotmpl::register as reg;
use capstan_gotmpl::{FuncError, FuncMap, FuncResult, MissingKey, Templates, Ty};
use capstan_sprig::strval;
use capstan_value::json::{from_json, json_kind, to_json, JsonStyle};
use capstan_value::Value;
use capstan_yaml::{decode_helm_direct, decode_helm_value, encode_helm, encode_helmfile};
use std::sync::Arc;

/// Helm's limit on nested `include`s of one template.
const MAX_INCLUDE_DEPTH: usize = 1000;

/// One running `include` of a name, counted in the template set's `include_nesting`
/// until dropped.
struct IncludeNesting<'a> {
    counts: &'a std::sync::Mutex<std::collections::HashMap<String, usize>>,
    name: String,
}

impl<'a> IncludeNesting<'a> {
    /// Helm's check: the call that would nest a name more than [`MAX_INCLUDE_DEPTH`] + 1
    /// deep fails with Helm's message.
    fn enter(
        counts: &'a std::sync::Mutex<std::collections::HashMap<String, usize>>,
        name: &str,
    ) -> FuncResult<Self> {
        let mut m = counts
            .lock()
            .map_err(|_| FuncError::from("include: a render thread failed"))?;
        let n = m.entry(name.to_string()).or_insert(0);
        if *n > MAX_INCLUDE_DEPTH {
            return Err(format!(
                "rendering template has a nested reference name: {name}: unable to execute template"
            )
            .into());
        }
        *n += 1;
        Ok(IncludeNesting {
            counts,
            name: name.to_string(),
        })
    }
}

impl Drop for IncludeNesting<'_> {
    fn drop(&mut self) {
        if let Ok(mut m) = self.counts.lock() {
            if let Some(n) = m.get_mut(&self.name) {
                *n = n.saturating_sub(1);
            }
        }
    }
}

/// Helm's markers around `required`/`fail` messages (removed when Helm prints them).
fn warn_wrap(msg: &str) -> FuncError {
    format!("HELM_ERR_START{msg}HELM_ERR_END").into()
}

fn trimmed(s: String) -> String {
    s.strip_suffix('\n').map(String::from).unwrap_or(s)
}

fn map_with_error(err: String) -> Value {
    let mut m = std::collections::BTreeMap::new();
    m.insert("Error".into(), Value::from(err));
    Value::map_from(m)
}

/// Helm's function map: sprig without `env`/`expandenv`, plus Helm's own.
pub fn helm_funcs() -> FuncMap {
    let mut m = capstan_sprig::funcs_without_env();
    register_durations(&mut m);
    reg(&mut m, "toToml", &[Ty::Any], |_, a| {
        Ok(Value::from(
            crate::toml::encode(&a[0]).unwrap_or_else(|e| e.0),
        ))
    });
    reg(&mut m, "mustToToml", &[Ty::Any], |_, a| {
        crate::toml::encode(&a[0])
            .map(Value::from)
            .map_err(|e| FuncError::Message(e.0))
    });
    reg(&mut m, "fromToml", &[Ty::String], |_, a| {
        Ok(crate::toml::decode(&strval(&a[0])).unwrap_or_else(|e| map_with_error(e.0)))
    });
    // `helm template` has no cluster: Helm's placeholder returns an empty map.
    reg(
        &mut m,
        "lookup",
        &[Ty::String, Ty::String, Ty::String, Ty::String],
        |_, _| Ok(Value::empty_map()),
    );
    // Helm disables DNS lookups by default.
    reg(&mut m, "getHostByName", &[Ty::String], |_, _| {
        Ok(Value::from(""))
    });
    reg(&mut m, "toYaml", &[Ty::Any], |_, a| {
        Ok(Value::from(
            encode_helm(&a[0]).map(trimmed).unwrap_or_default(),
        ))
    });
    reg(&mut m, "mustToYaml", &[Ty::Any], |_, a| {
        Ok(encode_helm(&a[0])
            .map(|s| Value::from(trimmed(s)))
            .map_err(|e| e.to_string())?)
    });
    reg(&mut m, "toYamlPretty", &[Ty::Any], |_, a| {
        Ok(Value::from(
            encode_helmfile(&a[0]).map(trimmed).unwrap_or_default(),
        ))
    });
    reg(&mut m, "fromYaml", &[Ty::String], |_, a| {
        Ok(decode_helm_direct(&strval(&a[0])).unwrap_or_else(|e| map_with_error(e.to_string())))
    });
    reg(&mut m, "fromYamlArray", &[Ty::String], |_, a| {
        Ok(match decode_helm_value(&strval(&a[0])) {
            Ok(v @ Value::List(_)) => v,
            Ok(Value::Nil) => Value::list_from(Vec::new()),
            Ok(other) => Value::list_from(vec![Value::from(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type []interface {{}}",
                json_kind(&other)
            ))]),
            Err(e) => Value::list_from(vec![Value::from(e.to_string())]),
        })
    });
    reg(&mut m, "toJson", &[Ty::Any], |_, a| {
        Ok(Value::from(
            to_json(
                &a[0],
                JsonStyle {
                    escape_html: true,
                    indent: None,
                },
            )
            .unwrap_or_default(),
        ))
    });
    reg(&mut m, "mustToJson", &[Ty::Any], |_, a| {
        Ok(to_json(
            &a[0],
            JsonStyle {
                escape_html: true,
                indent: None,
            },
        )
        .map(Value::from)?)
    });
    reg(&mut m, "fromJson", &[Ty::String], |_, a| {
        Ok(match from_json(&strval(&a[0])) {
            Ok(v @ Value::Map(_)) => v,
            Ok(Value::Nil) => Value::empty_map(),
            Ok(other) => map_with_error(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                json_kind(&other)
            )),
            Err(e) => map_with_error(e.to_string()),
        })
    });
    reg(&mut m, "fromJsonArray", &[Ty::String], |_, a| {
        Ok(match from_json(&strval(&a[0])) {
            Ok(v @ Value::List(_)) => v,
            Ok(Value::Nil) => Value::list_from(Vec::new()),
            Ok(other) => Value::list_from(vec![Value::from(format!(
                "json: cannot unmarshal {} into Go value of type []interface {{}}",
                json_kind(&other)
            ))]),
            Err(e) => Value::list_from(vec![Value::from(e.to_string())]),
        })
    });
    reg(
        &mut m,
        "required",
        &[Ty::String, Ty::Any],
        |_, a| match &a[1] {
            Value::Nil => Err(warn_wrap(&strval(&a[0]))),
            Value::String(s) if s.is_empty() => Err(warn_wrap(&strval(&a[0]))),
            v => Ok(v.clone()),
        },
    );
    reg(&mut m, "fail", &[Ty::String], |_, a| {
        Err(warn_wrap(&strval(&a[0])))
    });
    reg(&mut m, "include", &[Ty::String, Ty::Any], |ctx, a| {
        let name = strval(&a[0]);
        let _nesting = IncludeNesting::enter(&ctx.templates.include_nesting, &name)?;
        capstan_gotmpl::include(ctx, &name, &a[1], usize::MAX)
    });
    reg(&mut m, "tpl", &[Ty::String, Ty::Any], |ctx, a| {
        let text = strval(&a[0]);
        let mut set = ctx.templates.clone();
        let name = if set.root_name.is_empty() {
            "tpl".to_string()
        } else {
            set.root_name.clone()
        };
        let quoted = capstan_gocompat::quote::go_quote(&text);
        // Go's `t.New(name).Parse(text)` then `Execute`: the text's own tree runs, even
        // an empty one that leaves the set's older `name` in place.
        let tree = set
            .parse_tree(&name, &text)
            .map_err(|e| format!("cannot parse template {quoted}: {e}"))?;
        let mut out = String::new();
        set.execute_tree_into(&name, &tree, &a[1], &mut out, ctx.depth + 1)
            .map_err(|e| format!("error during tpl function execution for {quoted}: {e}"))?;
        Ok(Value::from(out.replace("<no value>", "")))
    });
    m
}

/// An empty template set configured like Helm's engine: root `gotpl`,
/// `missingkey=zero`, Helm's functions. Output should have `<no value>` removed.
pub fn helm_templates(funcs: Arc<FuncMap>) -> Templates {
    let mut t = Templates::with_funcs(funcs);
    t.missing_key = MissingKey::Zero;
    t.root_name = "gotpl".into();
    t
}

/// Helm's `toDuration`: a Go duration string, a number of seconds (as a number or a
/// numeric string).
fn to_duration(v: &Value) -> FuncResult<i64> {
    use capstan_gocompat::time::parse_duration;
    let secs = |f: f64| (f * 1e9) as i64;
    match v {
        Value::String(s) => Ok(parse_duration(s).or_else(|_| {
            capstan_gocompat::strconv::parse_float(s, 64)
                .map(secs)
                .map_err(|_| {
                    format!(
                        "could not parse duration {}",
                        capstan_gocompat::quote::go_quote(s)
                    )
                })
        })?),
        Value::Int(i) | Value::Int64(i) => Ok(i.saturating_mul(1_000_000_000)),
        Value::Uint64(u) => Ok((*u as i64).saturating_mul(1_000_000_000)),
        Value::Float64(f) => Ok(secs(*f)),
        Value::Float32(f) => Ok(secs(*f as f64)),
        _ => Err("invalid duration".into()),
    }
}

fn go_round(d: i64, m: i64) -> i64 {
    if m <= 0 {
        return d;
    }
    let mut r = d % m;
    if d < 0 {
        r = -r;
        if r + r < m {
            return d + r;
        }
        return d - m + r;
    }
    if r + r < m {
        return d - r;
    }
    d + (m - r)
}

/// Helm's `duration*` helpers.
pub(crate) fn register_durations(m: &mut FuncMap) {
    use capstan_gocompat::time::format_duration;
    let unit = |d: i64, per: f64| (d / per as i64) as f64 + (d % per as i64) as f64 / per;
    reg(m, "durationSeconds", &[Ty::Any], move |_, a| {
        Ok(Value::Float64(
            to_duration(&a[0]).map(|d| unit(d, 1e9)).unwrap_or(0.0),
        ))
    });
    reg(m, "durationMinutes", &[Ty::Any], move |_, a| {
        Ok(Value::Float64(
            to_duration(&a[0]).map(|d| unit(d, 60e9)).unwrap_or(0.0),
        ))
    });
    reg(m, "durationHours", &[Ty::Any], move |_, a| {
        Ok(Value::Float64(
            to_duration(&a[0]).map(|d| unit(d, 3600e9)).unwrap_or(0.0),
        ))
    });
    reg(m, "durationDays", &[Ty::Any], move |_, a| {
        Ok(Value::Float64(
            to_duration(&a[0])
                .map(|d| unit(d, 3600e9) / 24.0)
                .unwrap_or(0.0),
        ))
    });
    reg(m, "durationWeeks", &[Ty::Any], move |_, a| {
        Ok(Value::Float64(
            to_duration(&a[0])
                .map(|d| unit(d, 3600e9) / 168.0)
                .unwrap_or(0.0),
        ))
    });
    reg(m, "durationMilliseconds", &[Ty::Any], |_, a| {
        Ok(Value::Int64(
            to_duration(&a[0]).map(|d| d / 1_000_000).unwrap_or(0),
        ))
    });
    reg(m, "durationMicroseconds", &[Ty::Any], |_, a| {
        Ok(Value::Int64(
            to_duration(&a[0]).map(|d| d / 1_000).unwrap_or(0),
        ))
    });
    reg(m, "durationNanoseconds", &[Ty::Any], |_, a| {
        Ok(Value::Int64(to_duration(&a[0]).unwrap_or(0)))
    });
    reg(m, "mustToDuration", &[Ty::Any], |_, a| {
        to_duration(&a[0]).map(|d| Value::from(format_duration(d)))
    });
    reg(m, "durationRoundTo", &[Ty::Any, Ty::Any], |_, a| {
        let d = to_duration(&a[0]).unwrap_or(0);
        Ok(Value::from(match to_duration(&a[1]) {
            Ok(m) => format_duration(go_round(d, m)),
            Err(_) => format_duration(d),
        }))
    });
    reg(m, "durationTruncateTo", &[Ty::Any, Ty::Any], |_, a| {
        let d = to_duration(&a[0]).unwrap_or(0);
        Ok(Value::from(match to_duration(&a[1]) {
            Ok(m) if m > 0 => format_duration(d - d % m),
            _ => format_duration(d),
        }))
    });
}

#[cfg(test)]
mod function_list {
    /// Helm v4's engine adds these to sprig (pkg/engine/funcs.go `funcMap` and the
    /// late-bound `include`, `tpl`, `required`, `lookup`); each was also checked against
    /// the real Helm v4.1.4 binary (a template naming it parses). `mustToToml` is in
    /// Helm's main branch after 4.1.
    const HELM_EXTRAS: &[&str] = &[
        "toToml",
        "mustToToml",
        "fromToml",
        "toYaml",
        "mustToYaml",
        "toYamlPretty",
        "fromYaml",
        "fromYamlArray",
        "toJson",
        "mustToJson",
        "fromJson",
        "fromJsonArray",
        "include",
        "tpl",
        "required",
        "lookup",
    ];

    #[test]
    fn every_helm_function_is_registered_and_env_is_not() {
        let m = super::helm_funcs();
        let missing: Vec<&str> = capstan_sprig::TXT_FUNC_MAP_NAMES
            .iter()
            .chain(HELM_EXTRAS)
            .copied()
            .filter(|n| !["env", "expandenv"].contains(n) && !m.contains_key(*n))
            .collect();
        assert!(
            missing.is_empty(),
            "missing from Helm's function map: {missing:?}"
        );
        assert!(!m.contains_key("env") && !m.contains_key("expandenv"));
    }
}
