//! Type conversion and reflection functions (`toString`, `int`, `int64`, `float64`,
//! `atoi`, `toDecimal`, `toStrings`, `typeOf`, `typeIs`, `typeIsLike`, `kindOf`, `kindIs`,
//! `deepEqual`) and the conversion helpers every family shares, after `spf13/cast` 1.7.

use crate::{reg, regv};
use capstan_gocompat::strconv::{parse_float, parse_int};
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::{Elem, List, Value};
use std::sync::Arc;

/// sprig's `strval`: strings as they are, byte slices as text, anything else as `%v`.
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::RawString(b) | Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => other.to_string(),
    }
}

/// cast's `trimZeroDecimal`: `"1.0"` → `"1"`, `"1.50"` stays.
fn trim_zero_decimal(s: &str) -> &str {
    let Some(dot) = s.find('.') else { return s };
    if s[dot + 1..].bytes().all(|b| b == b'0') && dot + 1 < s.len() {
        &s[..dot]
    } else {
        s
    }
}

/// `cast.ToInt64E`; `None` where cast fails (sprig then uses 0).
pub(crate) fn to_i64_opt(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) | Value::Int64(i) => Some(*i),
        Value::Uint64(u) => Some(*u as i64),
        Value::Float64(f) => Some(go_f64_to_i64(*f)),
        Value::Float32(f) => Some(go_f64_to_i64(*f as f64)),
        Value::Bool(b) => Some(*b as i64),
        Value::Nil => Some(0),
        Value::String(s) => parse_int(trim_zero_decimal(s), 0, 64).ok(),
        _ => None,
    }
}

/// Go's `int64(f)` on amd64: out-of-range values and NaN give the minimum int64.
fn go_f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// `cast.ToInt64` (errors become 0).
pub fn to_i64(v: &Value) -> i64 {
    to_i64_opt(v).unwrap_or(0)
}

/// `cast.ToFloat64E`.
pub(crate) fn to_f64_opt(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) | Value::Int64(i) => Some(*i as f64),
        Value::Uint64(u) => Some(*u as f64),
        Value::Float64(f) => Some(*f),
        Value::Float32(f) => Some(*f as f64),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Nil => Some(0.0),
        Value::String(s) => parse_float(s, 64).ok(),
        _ => None,
    }
}

/// `cast.ToFloat64` (errors become 0).
pub fn to_f64(v: &Value) -> f64 {
    to_f64_opt(v).unwrap_or(0.0)
}

/// A `[]string`.
pub(crate) fn string_list(items: Vec<String>) -> Value {
    Value::List(Arc::new(List {
        elem: Elem::String,
        nil: false,
        items: items.into_iter().map(Value::from).collect(),
        spare: 0,
    }))
}

/// sprig's `strslice`: a list's items as strings (nil items dropped), else `[strval(v)]`.
pub(crate) fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(l) => l
            .items
            .iter()
            .filter(|x| !matches!(x, Value::Nil))
            .map(strval)
            .collect(),
        Value::Nil => Vec::new(),
        other => vec![strval(other)],
    }
}

/// A `string` argument (already type-checked by the engine), borrowed when possible.
pub fn s(v: &Value) -> std::borrow::Cow<'_, str> {
    match v {
        Value::String(x) => std::borrow::Cow::Borrowed(x),
        other => std::borrow::Cow::Owned(strval(other)),
    }
}

fn kind_is_like(target: &str, v: &Value) -> bool {
    let t = v.type_name();
    target == t || target == format!("*{t}")
}

pub fn register(m: &mut FuncMap) {
    reg(m, "toString", &[Ty::Any], |a| {
        Ok(Value::from(strval(&a[0])))
    });
    reg(m, "toStrings", &[Ty::Any], |a| {
        Ok(string_list(strslice(&a[0])))
    });
    reg(m, "int64", &[Ty::Any], |a| Ok(Value::Int64(to_i64(&a[0]))));
    reg(m, "int", &[Ty::Any], |a| Ok(Value::Int(to_i64(&a[0]))));
    reg(m, "float64", &[Ty::Any], |a| {
        Ok(Value::Float64(to_f64(&a[0])))
    });
    reg(m, "atoi", &[Ty::String], |a| {
        Ok(Value::Int(parse_int(&s(&a[0]), 10, 64).unwrap_or(0)))
    });
    reg(m, "toDecimal", &[Ty::Any], |a| {
        let v = parse_int(&strval(&a[0]), 8, 64).unwrap_or(0);
        Ok(Value::Int64(v))
    });
    reg(m, "typeOf", &[Ty::Any], |a| {
        Ok(Value::from(a[0].type_name()))
    });
    reg(m, "typeIs", &[Ty::String, Ty::Any], |a| {
        Ok(Value::Bool(s(&a[0]) == a[1].type_name()))
    });
    reg(m, "typeIsLike", &[Ty::String, Ty::Any], |a| {
        Ok(Value::Bool(kind_is_like(&s(&a[0]), &a[1])))
    });
    reg(m, "kindOf", &[Ty::Any], |a| {
        Ok(Value::from(a[0].kind_name()))
    });
    reg(m, "kindIs", &[Ty::String, Ty::Any], |a| {
        Ok(Value::Bool(s(&a[0]) == a[1].kind_name()))
    });
    reg(m, "deepEqual", &[Ty::Any, Ty::Any], |a| {
        Ok(Value::Bool(deep_equal(&a[0], &a[1])))
    });
    regv(m, "seq", &[], Ty::Int, |a| {
        Ok(Value::from(seq(&a.iter().map(to_i64).collect::<Vec<_>>())))
    });
}

/// Go's `reflect.DeepEqual` on values (types must match too).
pub(crate) fn deep_equal(a: &Value, b: &Value) -> bool {
    a.type_name() == b.type_name() && a == b
}

/// sprig's `seq` (like the Unix command).
fn seq(p: &[i64]) -> String {
    let (start, stop, step) = match p {
        [] => return String::new(),
        [end] => {
            let step = if *end < 1 { -1 } else { 1 };
            (1, end + step, step)
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            (*start, end + step, step)
        }
        [start, step, end] => {
            let inc = if end < start { -1 } else { 1 };
            if (inc < 0 && *step > 0) || (inc > 0 && *step < 0) {
                return String::new();
            }
            (*start, end + inc, *step)
        }
        _ => return String::new(),
    };
    let mut out = Vec::new();
    if step == 0 || (stop < start && step > 0) || (stop > start && step < 0) {
        return String::new();
    }
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i.to_string());
        i += step;
    }
    out.join(" ")
}
