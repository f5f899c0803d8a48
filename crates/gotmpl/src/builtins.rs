//! The builtin functions of `text/template`: `and or not len index slice eq ne lt le gt ge
//! print printf println html js urlquery call`, with Go's comparison rules and errors.

use crate::{Func, FuncMap, FuncResult, Ty};
use capstan_value::printf::{sprint, sprintf, sprintln};
use capstan_value::Value;
use std::cmp::Ordering;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Uint,
    Float,
    Str,
    Other,
    Invalid,
}

fn basic_kind(v: &Value) -> Kind {
    match v {
        Value::Nil => Kind::Invalid,
        Value::Bool(_) => Kind::Bool,
        Value::Int(_) | Value::Int64(_) => Kind::Int,
        Value::Uint64(_) => Kind::Uint,
        Value::Float64(_) | Value::Float32(_) => Kind::Float,
        Value::String(_) | Value::RawString(_) => Kind::Str,
        _ => Kind::Other,
    }
}

fn as_i(v: &Value) -> i64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i,
        _ => 0,
    }
}

fn as_u(v: &Value) -> u64 {
    match v {
        Value::Uint64(u) => *u,
        _ => 0,
    }
}

fn as_f(v: &Value) -> f64 {
    match v {
        Value::Float64(f) => *f,
        Value::Float32(f) => *f as f64,
        _ => 0.0,
    }
}

fn as_s(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::RawString(b) => String::from_utf8_lossy(b).into_owned(),
        _ => String::new(),
    }
}

fn incompatible(a: &Value, b: &Value) -> String {
    format!(
        "incompatible types for comparison: {} and {}",
        a.type_name(),
        b.type_name()
    )
}

/// Go's `eq arg1 arg2...`.
fn eq(args: &[Value]) -> FuncResult<bool> {
    let a = &args[0];
    if args.len() < 2 {
        return Err("missing argument for comparison".into());
    }
    let k1 = basic_kind(a);
    for b in &args[1..] {
        let k2 = basic_kind(b);
        let truth = if k1 != k2 {
            match (k1, k2) {
                (Kind::Int, Kind::Uint) => as_i(a) >= 0 && as_i(a) as u64 == as_u(b),
                (Kind::Uint, Kind::Int) => as_i(b) >= 0 && as_u(a) == as_i(b) as u64,
                _ => {
                    if k1 != Kind::Invalid && k2 != Kind::Invalid {
                        return Err(incompatible(a, b).into());
                    }
                    false
                }
            }
        } else {
            match k1 {
                Kind::Bool => a == b,
                Kind::Float => as_f(a) == as_f(b),
                Kind::Int => as_i(a) == as_i(b),
                Kind::Uint => as_u(a) == as_u(b),
                Kind::Str => as_s(a) == as_s(b),
                Kind::Invalid => true,
                Kind::Other => {
                    let show = |v: &Value| sprintf("%s", std::slice::from_ref(v));
                    if a.type_name() != b.type_name() {
                        return Err(format!(
                            "non-comparable types {}: {}, {}: {}",
                            show(a),
                            a.type_name(),
                            b.type_name(),
                            show(b)
                        )
                        .into());
                    }
                    match (a, b) {
                        (Value::Time(x), Value::Time(y)) => x == y,
                        _ => {
                            return Err(format!(
                                "non-comparable type {}: {}",
                                show(b),
                                b.type_name()
                            )
                            .into())
                        }
                    }
                }
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Go's `lt`.
fn lt(a: &Value, b: &Value) -> FuncResult<bool> {
    let k1 = basic_kind(a);
    let k2 = basic_kind(b);
    if matches!(k1, Kind::Invalid | Kind::Other) || matches!(k2, Kind::Invalid | Kind::Other) {
        return Err("invalid type for comparison".into());
    }
    if k1 != k2 {
        return match (k1, k2) {
            (Kind::Int, Kind::Uint) => Ok(as_i(a) < 0 || (as_i(a) as u64) < as_u(b)),
            (Kind::Uint, Kind::Int) => Ok(as_i(b) >= 0 && as_u(a) < as_i(b) as u64),
            _ => Err(incompatible(a, b).into()),
        };
    }
    Ok(match k1 {
        Kind::Bool => return Err("invalid type for comparison".into()),
        Kind::Float => as_f(a) < as_f(b),
        Kind::Int => as_i(a) < as_i(b),
        Kind::Uint => as_u(a) < as_u(b),
        Kind::Str => as_s(a).cmp(&as_s(b)) == Ordering::Less,
        _ => false,
    })
}

fn length(v: &Value) -> FuncResult<Value> {
    Ok(Value::Int(match v {
        Value::String(s) => s.len() as i64,
        Value::RawString(b) | Value::Bytes(b) => b.len() as i64,
        Value::List(l) => l.items.len() as i64,
        Value::Map(m) => m.len() as i64,
        Value::AnyMap(m) => m.entries.len() as i64,
        Value::Host(h) if matches!(h.kind(), "map" | "slice") => {
            h.entries().map_or(0, |e| e.len()) as i64
        }
        // A present nil (an invalid argument is refused before the call).
        Value::Nil => return Err("len of nil pointer".into()),
        other => return Err(format!("len of type {}", other.type_name()).into()),
    }))
}

fn index_arg(i: &Value, len: usize, what: &str) -> FuncResult<usize> {
    let x: i64 = match i {
        Value::Int(n) | Value::Int64(n) => *n,
        Value::Uint64(u) => *u as i64,
        Value::Nil => return Err(format!("cannot index {what} with nil").into()),
        other => return Err(format!("cannot index {what} with type {}", other.type_name()).into()),
    };
    if x < 0 || x as usize > len {
        return Err(format!("index out of range: {x}").into());
    }
    Ok(x as usize)
}

fn index(args: Vec<Value>) -> FuncResult<Value> {
    let mut item = args[0].clone();
    if matches!(item, Value::Nil) {
        return Err("index of untyped nil".into());
    }
    for ix in &args[1..] {
        item = match &item {
            Value::List(l) => {
                let x = index_arg(ix, l.items.len(), "slice/array")?;
                match l.items.get(x) {
                    Some(v) => v.clone(),
                    None => return Err("reflect: slice index out of range".into()),
                }
            }
            Value::String(s) => {
                let x = index_arg(ix, s.len(), "slice/array")?;
                match s.as_bytes().get(x) {
                    Some(b) => Value::Int(*b as i64),
                    None => return Err("reflect: string index out of range".into()),
                }
            }
            Value::Map(m) => match ix {
                Value::String(k) => m.get(k).unwrap_or(Value::Nil),
                Value::Nil => return Err("value is nil; should be of type string".into()),
                other => {
                    return Err(
                        format!("value has type {}; should be string", other.type_name()).into(),
                    )
                }
            },
            Value::AnyMap(m) => m
                .entries
                .iter()
                .find(|(k, _)| k == ix)
                .map(|(_, v)| v.clone())
                .unwrap_or(Value::Nil),
            Value::Nil => return Err("index of nil pointer".into()),
            other => return Err(format!("can't index item of type {}", other.type_name()).into()),
        };
    }
    Ok(item)
}

fn slice(args: Vec<Value>, interface_args: &[bool]) -> FuncResult<Value> {
    let item = &args[0];
    if matches!(item, Value::Nil) {
        return Err("slice of untyped nil".into());
    }
    let idx = &args[1..];
    if idx.len() > 3 {
        return Err(format!("too many slice indexes: {}", idx.len()).into());
    }
    let (len, cap) = match item {
        Value::String(s) => {
            if idx.len() == 3 {
                return Err("cannot 3-index slice a string".into());
            }
            (s.len(), s.len())
        }
        Value::List(l) => (l.items.len(), l.items.len() + l.spare),
        other => return Err(format!("can't slice item of type {}", other.type_name()).into()),
    };
    let mut ix = [0usize, len, cap];
    for (i, v) in idx.iter().enumerate() {
        // Go's `slice` does not unwrap its indexes: a map value keeps `interface {}`.
        if interface_args.get(i + 1).copied().unwrap_or(false) {
            return Err("cannot index slice/array with type interface {}".into());
        }
        ix[i] = index_arg(v, cap, "slice/array")?;
    }
    if ix[0] > ix[1] {
        return Err(format!("invalid slice index: {} > {}", ix[0], ix[1]).into());
    }
    if idx.len() == 3 && ix[1] > ix[2] {
        return Err(format!("invalid slice index: {} > {}", ix[1], ix[2]).into());
    }
    Ok(match item {
        Value::String(s) => match s.get(ix[0]..ix[1]) {
            Some(sub) => Value::from(sub),
            None => Value::RawString(s.as_bytes()[ix[0]..ix[1]].into()),
        },
        Value::List(l) => {
            // Indexes up to the capacity reach the spare slots, which hold nil.
            let mut nl = (**l).clone();
            nl.items = (ix[0]..ix[1])
                .map(|i| l.items.get(i).cloned().unwrap_or(Value::Nil))
                .collect();
            let limit = if idx.len() == 3 { ix[2] } else { cap };
            nl.spare = limit - ix[1];
            Value::List(std::sync::Arc::new(nl))
        }
        _ => Value::Nil,
    })
}

/// `text/template`'s `HTMLEscapeString`.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\0' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// `text/template`'s `JSEscapeString` (Go 1.22+: every control character, newline and tab
/// included, as `\uXXXX`).
pub(crate) fn escape_js(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if !c.is_ascii() && !capstan_gocompat::quote::is_go_printable(c) => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Go's `evalArgs` for the escapers: one string argument as is, else `fmt.Sprint`.
fn joined(args: &[Value]) -> String {
    if let [Value::String(s)] = args {
        return s.to_string();
    }
    let printable: Vec<Value> = args
        .iter()
        .map(|a| {
            if matches!(a, Value::Nil) {
                Value::from("<no value>")
            } else {
                a.clone()
            }
        })
        .collect();
    sprint(&printable)
}

/// The builtin function map.
pub fn builtins() -> FuncMap {
    let mut m = FuncMap::new();
    let lazy = |_: &crate::CallCtx, _: Vec<Value>| -> FuncResult<Value> { Ok(Value::Nil) };
    m.insert("and".into(), Func::variadic(&[Ty::Any], Ty::Any, lazy));
    m.insert("or".into(), Func::variadic(&[Ty::Any], Ty::Any, lazy));
    m.insert(
        "not".into(),
        Func::new(&[Ty::Any], |_, a| Ok(Value::Bool(!a[0].is_truthy()))),
    );
    m.insert(
        "len".into(),
        Func::reflective(
            &[Ty::Any],
            "reflect: call of reflect.Value.Type on zero Value",
            |_, a| length(&a[0]),
        ),
    );
    m.insert(
        "index".into(),
        Func::variadic(&[Ty::Any], Ty::Any, |_, a| index(a)),
    );
    m.insert(
        "slice".into(),
        Func::variadic(&[Ty::Any], Ty::Any, |ctx, a| slice(a, ctx.interface_args)),
    );
    m.insert(
        "eq".into(),
        Func::variadic(&[Ty::Any], Ty::Any, |_, a| eq(&a).map(Value::Bool)),
    );
    m.insert(
        "ne".into(),
        Func::new(&[Ty::Any, Ty::Any], |_, a| eq(&a).map(|t| Value::Bool(!t))),
    );
    m.insert(
        "lt".into(),
        Func::new(&[Ty::Any, Ty::Any], |_, a| {
            lt(&a[0], &a[1]).map(Value::Bool)
        }),
    );
    m.insert(
        "le".into(),
        Func::new(&[Ty::Any, Ty::Any], |_, a| {
            Ok(Value::Bool(lt(&a[0], &a[1])? || eq(&a)?))
        }),
    );
    m.insert(
        "gt".into(),
        Func::new(&[Ty::Any, Ty::Any], |_, a| {
            Ok(Value::Bool(!(lt(&a[0], &a[1])? || eq(&a)?)))
        }),
    );
    m.insert(
        "ge".into(),
        Func::new(&[Ty::Any, Ty::Any], |_, a| {
            Ok(Value::Bool(!lt(&a[0], &a[1])?))
        }),
    );
    m.insert(
        "print".into(),
        Func::variadic(&[], Ty::Any, |_, a| Ok(Value::from(sprint(&a)))),
    );
    m.insert(
        "println".into(),
        Func::variadic(&[], Ty::Any, |_, a| Ok(Value::from(sprintln(&a)))),
    );
    m.insert(
        "printf".into(),
        Func::variadic(&[Ty::String], Ty::Any, |_, a| {
            Ok(Value::from(sprintf(&as_s(&a[0]), &a[1..])))
        }),
    );
    m.insert(
        "html".into(),
        Func::variadic(&[], Ty::Any, |_, a| {
            Ok(Value::from(escape_html(&joined(&a))))
        }),
    );
    m.insert(
        "js".into(),
        Func::variadic(&[], Ty::Any, |_, a| Ok(Value::from(escape_js(&joined(&a))))),
    );
    m.insert(
        "urlquery".into(),
        Func::variadic(&[], Ty::Any, |_, a| {
            Ok(Value::from(query_escape(&joined(&a))))
        }),
    );
    m.insert(
        "call".into(),
        Func::variadic(&[Ty::Any], Ty::Any, |_, a| match &a[0] {
            Value::Nil => Err("call of nil".into()),
            other => Err(format!("non-function {} of type {}", other, other.type_name()).into()),
        }),
    );
    m
}

/// A Go `complex128` (from an imaginary constant such as `2i`), printed as Go prints it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Complex(pub f64, pub f64);

impl capstan_value::HostObject for Complex {
    fn type_name(&self) -> &str {
        "complex128"
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn display(&self) -> Option<String> {
        let g = |x: f64| capstan_gocompat::strconv::format_float(x, 'g', -1, 64);
        let im = g(self.1);
        let sign = if im.starts_with(['-', '+']) { "" } else { "+" };
        Some(format!("({}{sign}{im}i)", g(self.0)))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
