//! Go's `fmt` printing of values: `%v` (`map[a:1]`, `[1 2]`) and the Go-syntax form
//! `%#v` used in YAML and conversion error messages (`[]interface {}{1, 2}`).

use crate::Value;
use capstan_gocompat::quote::{go_quote, go_quote_bytes};
use capstan_gocompat::strconv::format_float;

/// The order in which Go's `fmt` sorts interface keys of different types in this build.
/// Go compares the types' runtime addresses, so this is a fixed guess, applied only when
/// a map mixes key types.
pub fn kind_order(v: &Value) -> u8 {
    match v {
        Value::Nil => 0,
        Value::String(_) => 1,
        Value::Int(_) => 2,
        Value::Int64(_) => 3,
        Value::Uint64(_) => 4,
        Value::Float64(_) | Value::Float32(_) => 5,
        Value::Bool(_) => 6,
        _ => 7,
    }
}

fn cmp_keys(a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) | (Value::Int64(x), Value::Int64(y)) => x.cmp(y),
        (Value::Uint64(x), Value::Uint64(y)) => x.cmp(y),
        (Value::Float64(x), Value::Float64(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => kind_order(a).cmp(&kind_order(b)),
    }
}

/// Appends `%v` of `v`; `top` is false inside collections (nil maps print `map[]`).
pub(crate) fn write_v(out: &mut String, v: &Value, top: bool) {
    crate::stack::grow(|| write_v_here(out, v, top))
}

fn write_v_here(out: &mut String, v: &Value, _top: bool) {
    match v {
        Value::Nil => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) | Value::Int64(i) => out.push_str(&i.to_string()),
        Value::Uint64(u) => out.push_str(&u.to_string()),
        Value::Float64(f) => out.push_str(&format_float(*f, 'g', -1, 64)),
        Value::Float32(f) => out.push_str(&format_float(*f as f64, 'g', -1, 32)),
        Value::String(s) => out.push_str(s),
        Value::RawString(b) => out.push_str(&String::from_utf8_lossy(b)),
        Value::Bytes(b) => {
            out.push('[');
            for (i, x) in b.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(&x.to_string());
            }
            out.push(']');
        }
        Value::Time(t) => out.push_str(&t.to_string()),
        Value::List(l) => {
            out.push('[');
            for (i, x) in l.items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_v(out, x, false);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, x)) in m.read().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_v(out, x, false);
            }
            out.push(']');
        }
        Value::AnyMap(m) => {
            let mut entries: Vec<&(Value, Value)> = m.entries.iter().collect();
            entries.sort_by(|a, b| cmp_keys(&a.0, &b.0));
            out.push_str("map[");
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_v(out, k, false);
                out.push(':');
                write_v(out, x, false);
            }
            out.push(']');
        }
        Value::Host(h) => match (h.display(), h.fields()) {
            (Some(s), _) => out.push_str(&s),
            (None, Some(fields)) => {
                out.push('{');
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    write_v(out, &f.value, false);
                }
                out.push('}');
            }
            (None, None) => {
                out.push('&');
                out.push_str(h.type_name());
            }
        },
    }
}

/// Go's `%#v` (Go-syntax) rendering, as used in error messages.
pub fn go_syntax(v: &Value) -> String {
    crate::cycles::assert_acyclic(v);
    let mut out = String::new();
    write_sharp_v(&mut out, v, true);
    out
}

fn write_sharp_v(out: &mut String, v: &Value, iface: bool) {
    crate::stack::grow(|| write_sharp_v_here(out, v, iface))
}

fn write_sharp_v_here(out: &mut String, v: &Value, iface: bool) {
    match v {
        Value::Nil => out.push_str(if iface { "<nil>" } else { "interface {}(nil)" }),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Int64(i) => out.push_str(&i.to_string()),
        Value::Uint64(u) => out.push_str(&format!("0x{:x}", u)),
        Value::Float64(f) => out.push_str(&format_float(*f, 'g', -1, 64)),
        Value::Float32(f) => out.push_str(&format_float(*f as f64, 'g', -1, 32)),
        Value::String(s) => out.push_str(&go_quote(s)),
        Value::RawString(b) => out.push_str(&go_quote_bytes(b)),
        Value::Bytes(b) => {
            out.push_str("[]byte{");
            for (i, x) in b.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&format!("0x{:x}", x));
            }
            out.push('}');
        }
        Value::Time(t) => out.push_str(&go_quote_bytes(t.to_string().as_bytes())),
        Value::List(l) => {
            out.push_str(&v.type_name());
            if l.nil {
                out.push_str("(nil)");
                return;
            }
            out.push('{');
            for (i, x) in l.items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_sharp_v(out, x, false);
            }
            out.push('}');
        }
        Value::Map(m) => {
            out.push_str(&v.type_name());
            if m.nil {
                out.push_str("(nil)");
                return;
            }
            out.push('{');
            for (i, (k, x)) in m.read().iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&go_quote(k));
                out.push(':');
                write_sharp_v(out, x, false);
            }
            out.push('}');
        }
        Value::AnyMap(m) => {
            let mut entries: Vec<&(Value, Value)> = m.entries.iter().collect();
            entries.sort_by(|a, b| cmp_keys(&a.0, &b.0));
            out.push_str("map[interface {}]interface {}{");
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_sharp_v(out, k, false);
                out.push(':');
                write_sharp_v(out, x, false);
            }
            out.push('}');
        }
        Value::Host(h) => match h.fields() {
            Some(fields) => {
                out.push_str(h.type_name());
                out.push('{');
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(f.name);
                    out.push(':');
                    write_sharp_v(out, &f.value, false);
                }
                out.push('}');
            }
            None => {
                out.push('&');
                out.push_str(h.type_name());
                out.push_str("{}");
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AnyMap;
    use std::sync::Arc;

    #[test]
    fn sharp_v_forms() {
        let l = Value::list_from(vec![Value::Int(1), Value::Int(2)]);
        assert_eq!(go_syntax(&l), "[]interface {}{1, 2}");
        let m = Value::AnyMap(Arc::new(AnyMap {
            entries: vec![("a".into(), Value::Int(1))],
        }));
        assert_eq!(go_syntax(&m), "map[interface {}]interface {}{\"a\":1}");
        assert_eq!(
            go_syntax(&Value::Uint64(9223372036854775808)),
            "0x8000000000000000"
        );
        assert_eq!(go_syntax(&Value::Nil), "<nil>");
    }
}
