//! Defaults, emptiness, JSON and environment functions: `default`, `empty`, `coalesce`,
//! `all`, `any`, `compact`, `ternary`, `fail`, `toJson` family, `fromJson`, `deepCopy`,
//! `env`, `expandenv`.

use crate::{reg, regv};
use capstan_gotmpl::{FuncMap, FuncResult, Ty};
use capstan_value::json::{from_json, to_json, JsonStyle};
use capstan_value::Value;

/// sprig's `empty`: nil, false, 0, "" and empty collections are empty.
pub fn empty(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::Host(h) if matches!(h.kind(), "map" | "slice" | "invalid") => !v.is_truthy(),
        Value::Time(_) | Value::Host(_) => false,
        other => !other.is_truthy(),
    }
}

fn json(v: &Value, escape_html: bool, indent: Option<&str>) -> FuncResult<String> {
    Ok(to_json(
        v,
        JsonStyle {
            escape_html,
            indent,
        },
    )?)
}

/// Go's `os.ExpandEnv`.
pub(crate) fn expand_env(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' && i + 1 < b.len() {
            let rest = &s[i + 1..];
            let (name, used) = if let Some(r) = rest.strip_prefix('{') {
                match r.find('}') {
                    Some(end) => (&r[..end], end + 2),
                    None => {
                        // Go: bad syntax, "${" eaten.
                        i += 2;
                        continue;
                    }
                }
            } else if rest.starts_with(|c: char| {
                c == '*'
                    || c == '#'
                    || c == '$'
                    || c == '@'
                    || c == '!'
                    || c == '?'
                    || c == '-'
                    || c.is_ascii_digit()
            }) {
                (&rest[..1], 1)
            } else {
                let n = rest
                    .bytes()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    .count();
                if n == 0 {
                    out.push('$');
                    i += 1;
                    continue;
                }
                (&rest[..n], n)
            };
            out.push_str(&std::env::var(name).unwrap_or_default());
            i += 1 + used;
            continue;
        }
        let ch = s[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

pub fn register(m: &mut FuncMap) {
    regv(m, "default", &[Ty::Any], Ty::Any, |a| {
        if a.len() < 2 || empty(&a[1]) {
            return Ok(a[0].clone());
        }
        Ok(a[1].clone())
    });
    reg(m, "empty", &[Ty::Any], |a| Ok(Value::Bool(empty(&a[0]))));
    regv(m, "coalesce", &[], Ty::Any, |a| {
        Ok(a.iter().find(|v| !empty(v)).cloned().unwrap_or(Value::Nil))
    });
    regv(m, "all", &[], Ty::Any, |a| {
        Ok(Value::Bool(a.iter().all(|v| !empty(v))))
    });
    regv(m, "any", &[], Ty::Any, |a| {
        Ok(Value::Bool(a.iter().any(|v| !empty(v))))
    });
    reg(m, "ternary", &[Ty::Any, Ty::Any, Ty::Bool], |a| {
        Ok(if a[2].is_truthy() {
            a[0].clone()
        } else {
            a[1].clone()
        })
    });
    reg(m, "fail", &[Ty::String], |a| {
        Err(crate::convert::strval(&a[0]).into())
    });
    for name in ["deepCopy", "mustDeepCopy"] {
        reg(m, name, &[Ty::Any], |a| match &a[0] {
            // copystructure reflects on a nil interface and panics.
            Value::Nil => Err("reflect: call of reflect.Value.Type on zero Value".into()),
            v => Ok(v.deep_copy()),
        });
    }
    reg(m, "toJson", &[Ty::Any], |a| {
        Ok(Value::from(json(&a[0], true, None).unwrap_or_default()))
    });
    reg(m, "mustToJson", &[Ty::Any], |a| {
        json(&a[0], true, None).map(Value::from)
    });
    reg(m, "toPrettyJson", &[Ty::Any], |a| {
        Ok(Value::from(
            json(&a[0], true, Some("  ")).unwrap_or_default(),
        ))
    });
    reg(m, "mustToPrettyJson", &[Ty::Any], |a| {
        json(&a[0], true, Some("  ")).map(Value::from)
    });
    // Unlike `toJson`, sprig's `toRawJson` panics on an error: the call fails.
    reg(m, "toRawJson", &[Ty::Any], |a| {
        json(&a[0], false, None).map(Value::from)
    });
    reg(m, "mustToRawJson", &[Ty::Any], |a| {
        json(&a[0], false, None).map(Value::from)
    });
    reg(m, "fromJson", &[Ty::String], |a| {
        Ok(from_json(&crate::convert::strval(&a[0])).unwrap_or(Value::Nil))
    });
    reg(m, "mustFromJson", &[Ty::String], |a| {
        Ok(from_json(&crate::convert::strval(&a[0]))?)
    });
    reg(m, "env", &[Ty::String], |a| {
        Ok(Value::from(
            std::env::var(crate::convert::strval(&a[0])).unwrap_or_default(),
        ))
    });
    reg(m, "expandenv", &[Ty::String], |a| {
        Ok(Value::from(expand_env(&crate::convert::strval(&a[0]))))
    });
}
