//! The corpus' typed-tree JSON format (`{"t":"float64","v":"1e+06"}`, `{"t":"map[string]interface {}","m":{…}}`)
//! converted to and from `Value`, so results can be compared type for type.

use base64::Engine;
use capstan_gocompat::strconv::{format_float, parse_float};
use capstan_gocompat::time::parse_yaml_timestamp;
use capstan_value::{AnyMap, Elem, List, Map, Str, Value};
use serde_json::{json, Map as JMap, Value as J};
use std::collections::BTreeMap;
use std::sync::Arc;

fn float_from(s: &str, bits: u32) -> Result<f64, String> {
    match s {
        "+Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        _ => parse_float(s, bits).map_err(|e| e.to_string()),
    }
}

fn raw_bytes(j: &J) -> Option<Vec<u8>> {
    if j.get("enc").and_then(J::as_str) != Some("base64") {
        return None;
    }
    base64::engine::general_purpose::STANDARD
        .decode(j.get("v")?.as_str()?)
        .ok()
}

fn leaf_str(j: &J) -> Result<String, String> {
    let v = j.get("v").and_then(J::as_str).ok_or("leaf without v")?;
    if j.get("enc").and_then(J::as_str) == Some("base64") {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(v)
            .map_err(|e| e.to_string())?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    Ok(v.to_string())
}

fn elem_of(t: &str) -> Elem {
    match t {
        "string" => Elem::String,
        "int" => Elem::Int,
        "int64" => Elem::Int64,
        "float64" => Elem::Float64,
        "bool" => Elem::Bool,
        _ => Elem::Any,
    }
}

/// Builds the Go value a typed tree describes.
pub fn to_value(j: &J) -> Result<Value, String> {
    let t = j.get("t").and_then(J::as_str).ok_or("node without t")?;
    let nil = j.get("nil").and_then(J::as_bool).unwrap_or(false);
    Ok(match t {
        "<nil>" => Value::Nil,
        "string" => match raw_bytes(j) {
            Some(b) => match String::from_utf8(b) {
                Ok(s) => Value::from(s),
                Err(e) => Value::RawString(e.into_bytes().into()),
            },
            None => Value::from(leaf_str(j)?),
        },
        "bool" => Value::Bool(leaf_str(j)? == "true"),
        "int" => Value::Int(leaf_str(j)?.parse().map_err(|e| format!("{e}"))?),
        "int64" => Value::Int64(leaf_str(j)?.parse().map_err(|e| format!("{e}"))?),
        "uint64" => Value::Uint64(leaf_str(j)?.parse().map_err(|e| format!("{e}"))?),
        "float64" => Value::Float64(float_from(&leaf_str(j)?, 64)?),
        "float32" => Value::Float32(float_from(&leaf_str(j)?, 32)? as f32),
        "time.Time" => {
            let s = leaf_str(j)?;
            Value::Time(Arc::new(
                parse_yaml_timestamp(&s).ok_or_else(|| format!("bad time {s}"))?,
            ))
        }
        "[]uint8" => {
            let v = j.get("v").and_then(J::as_str).unwrap_or("");
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(v)
                .map_err(|e| e.to_string())?;
            Value::Bytes(bytes.into())
        }
        t if t.starts_with("map[string]") => {
            let mut entries = BTreeMap::new();
            if let Some(m) = j.get("m").and_then(J::as_object) {
                for (k, v) in m {
                    entries.insert(Str::from(k.as_str()), to_value(v)?);
                }
            }
            let nil = nil || j.get("m").is_some_and(J::is_null);
            Value::Map(Arc::new(Map::new(
                elem_of(&t["map[string]".len()..]),
                nil,
                entries,
            )))
        }
        t if t.starts_with("[]") => {
            let mut items = Vec::new();
            if let Some(l) = j.get("l").and_then(J::as_array) {
                for v in l {
                    items.push(to_value(v)?);
                }
            }
            let nil = nil || j.get("l").is_some_and(J::is_null);
            Value::List(Arc::new(List {
                elem: elem_of(&t[2..]),
                nil,
                items,
                spare: 0,
            }))
        }
        "map[interface {}]interface {}" => {
            let mut entries = Vec::new();
            for pair in j.get("kv").and_then(J::as_array).into_iter().flatten() {
                let p = pair.as_array().ok_or("kv pair is not an array")?;
                entries.push((to_value(&p[0])?, to_value(&p[1])?));
            }
            Value::AnyMap(Arc::new(AnyMap { entries }))
        }
        other => return Err(format!("unknown type {other}")),
    })
}

fn leaf(t: &str, v: String) -> J {
    json!({"t": t, "v": v})
}

/// Describes a value as a typed tree (the form the corpus records).
pub fn from_value(v: &Value) -> J {
    match v {
        Value::Nil => leaf("<nil>", "<nil>".into()),
        Value::Bool(b) => leaf("bool", b.to_string()),
        Value::Int(i) => leaf("int", i.to_string()),
        Value::Int64(i) => leaf("int64", i.to_string()),
        Value::Uint64(u) => leaf("uint64", u.to_string()),
        Value::Float64(f) => leaf("float64", format_float(*f, 'g', -1, 64)),
        Value::Float32(f) => leaf("float32", format_float(*f as f64, 'g', -1, 32)),
        Value::String(s) => leaf("string", s.to_string()),
        Value::RawString(b) => {
            json!({"t": "string", "v": base64::engine::general_purpose::STANDARD.encode(b), "enc": "base64"})
        }
        Value::Time(t) => leaf("time.Time", t.rfc3339_nano()),
        Value::Bytes(b) => leaf(
            "[]uint8",
            base64::engine::general_purpose::STANDARD.encode(b),
        ),
        Value::List(l) => {
            let items: Vec<J> = l.items.iter().map(from_value).collect();
            json!({"t": v.type_name(), "l": if l.nil { J::Null } else { J::Array(items) }})
        }
        Value::Map(m) => {
            let mut o = JMap::new();
            for (k, x) in m.read().iter() {
                o.insert(k.to_string(), from_value(x));
            }
            json!({"t": v.type_name(), "m": if m.nil { J::Null } else { J::Object(o) }})
        }
        Value::AnyMap(m) => {
            let mut pairs: Vec<(String, J)> = m
                .entries
                .iter()
                .map(|(k, x)| {
                    let kt = from_value(k);
                    (kt.to_string(), json!([kt, from_value(x)]))
                })
                .collect();
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            json!({"t": v.type_name(), "kv": pairs.into_iter().map(|p| p.1).collect::<Vec<_>>()})
        }
        Value::Host(h) => leaf(h.type_name(), String::new()),
    }
}

/// Drops the presentation-only fields (`nil` markers) so trees compare by meaning.
pub fn normalize(j: &J) -> J {
    match j {
        J::Object(o) => {
            let mut out = JMap::new();
            for (k, v) in o {
                if k == "nil" {
                    continue;
                }
                out.insert(k.clone(), normalize(v));
            }
            J::Object(out)
        }
        J::Array(a) => J::Array(a.iter().map(normalize).collect()),
        other => other.clone(),
    }
}
