//! cty's encoding functions: `csvdecode`, `jsondecode`/`jsonencode`,
//! `yamldecode`/`yamlencode` (go-cty-yaml's layout).

use crate::funcs::base::{st, FResult, Fail};
use crate::number::{Number, LITERAL_PREC};
use crate::value::{Type, Value};
use std::collections::BTreeMap;

pub(crate) fn csvdecode(a: &[Value]) -> FResult {
    let text = st(&a[0]);
    let mut rows: Vec<Vec<String>> = Vec::new();
    for line in text.lines() {
        rows.push(parse_csv_line(line));
    }
    let Some(header) = rows.first().cloned() else {
        return Err(Fail::Call("missing header line".into()));
    };
    let mut out = Vec::new();
    for (i, r) in rows.iter().enumerate().skip(1) {
        if r.len() != header.len() {
            return Err(Fail::Call(format!(
                "record on line {}: wrong number of fields",
                i + 1
            )));
        }
        let m: BTreeMap<String, Value> = header
            .iter()
            .zip(r)
            .map(|(h, v)| (h.clone(), Value::string(v.clone())))
            .collect();
        out.push(Value::Object(m));
    }
    let t = out.first().map(Value::ty).unwrap_or(Type::Dynamic);
    Ok(Value::List(t, out))
}

fn parse_csv_line(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A capstan value from decoded JSON or YAML, as cty reads it.
fn from_native(v: &capstan_value::Value) -> Value {
    use capstan_value::Value as V;
    match v {
        V::Nil => Value::null(),
        V::Bool(b) => Value::Bool(*b),
        V::Int(i) | V::Int64(i) => {
            Value::Number(Number::parse(&i.to_string(), LITERAL_PREC).unwrap_or_else(Number::zero))
        }
        V::Uint64(u) => {
            Value::Number(Number::parse(&u.to_string(), LITERAL_PREC).unwrap_or_else(Number::zero))
        }
        V::Float64(f) => Value::Number(
            Number::parse(
                &capstan_gocompat::strconv::format_float(*f, 'g', -1, 64),
                LITERAL_PREC,
            )
            .or_else(|| Number::from_f64(*f))
            .unwrap_or_else(Number::zero),
        ),
        V::Float32(f) => Value::Number(Number::from_f64(*f as f64).unwrap_or_else(Number::zero)),
        V::String(s) => Value::string(s.to_string()),
        V::List(l) => Value::Tuple(l.items.iter().map(from_native).collect()),
        V::Map(m) => Value::Object(
            m.read()
                .iter()
                .map(|(k, x)| (k.to_string(), from_native(x)))
                .collect(),
        ),
        V::AnyMap(m) => Value::Object(
            m.entries
                .iter()
                .map(|(k, x)| (k.to_string(), from_native(x)))
                .collect(),
        ),
        other => Value::string(other.to_string()),
    }
}

pub(crate) fn jsondecode(s: &str) -> FResult {
    let v = capstan_value::json::from_json(s).map_err(|e| {
        Fail::Call(e.to_string().replace(
            "looking for beginning of object key string",
            "looking for beginning of value",
        ))
    })?;
    Ok(from_native(&v))
}

/// cty's JSON encoding: sorted keys, numbers as `Text('f', -1)`, HTML-safe strings.
pub(crate) fn json_encode(v: &Value, out: &mut String) {
    match v {
        Value::Null(_) => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.text()),
        Value::String(s) => capstan_gocompat::json::quote_string(out, s, true),
        Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_encode(x, out);
            }
            out.push(']');
        }
        Value::Map(_, m) | Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                capstan_gocompat::json::quote_string(out, k, true);
                out.push(':');
                json_encode(x, out);
            }
            out.push('}');
        }
    }
}

pub(crate) fn yamldecode(s: &str) -> FResult {
    let v = capstan_yaml::decode_helm_direct(s).map_err(|e| Fail::Call(e.to_string()))?;
    Ok(from_native(&v))
}

fn yaml_scalar(v: &Value) -> String {
    match v {
        Value::Null(_) => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.text(),
        Value::String(s) => capstan_gocompat::quote::go_quote(s),
        _ => String::new(),
    }
}

/// go-cty-yaml's encoding: keys and strings double-quoted, multi-line strings as
/// literal blocks, block collections, sequences not indented under their key.
pub(crate) fn yamlencode(v: &Value) -> String {
    let mut out = String::new();
    yaml_node(v, 0, &mut out, true);
    out
}

fn yaml_node(v: &Value, indent: usize, out: &mut String, top: bool) {
    let pad = " ".repeat(indent);
    match v {
        Value::Map(_, m) | Value::Object(m) if !m.is_empty() => {
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 || top {
                    out.push_str(&pad);
                }
                out.push_str(&capstan_gocompat::quote::go_quote(k));
                out.push(':');
                yaml_child(x, indent, out, true);
            }
        }
        Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items) if !items.is_empty() => {
            for (i, x) in items.iter().enumerate() {
                if i > 0 || top {
                    out.push_str(&pad);
                }
                out.push('-');
                yaml_child(x, indent, out, false);
            }
        }
        Value::Map(..) | Value::Object(_) => out.push_str("{}\n"),
        Value::List(..) | Value::Set(..) | Value::Tuple(_) => out.push_str("[]\n"),
        Value::String(s) if s.contains('\n') => {
            let chomp = if s.ends_with('\n') { "" } else { "-" };
            out.push_str(&format!("|{chomp}\n"));
            for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
                out.push_str(&" ".repeat(indent + 2));
                out.push_str(line);
                out.push('\n');
            }
        }
        other => {
            out.push_str(&yaml_scalar(other));
            out.push('\n');
        }
    }
}

fn yaml_child(x: &Value, indent: usize, out: &mut String, in_map: bool) {
    let nonempty_coll = matches!(x, Value::Map(_, m) | Value::Object(m) if !m.is_empty())
        || matches!(x, Value::List(_, v) | Value::Set(_, v) | Value::Tuple(v) if !v.is_empty());
    if nonempty_coll {
        let is_seq = x.elements().is_some();
        if in_map {
            out.push('\n');
            let child_indent = if is_seq { indent } else { indent + 2 };
            yaml_node(x, child_indent, out, true);
        } else {
            out.push(' ');
            yaml_node(x, indent + 2, out, false);
        }
    } else {
        out.push(' ');
        yaml_node(x, indent, out, false);
    }
}
