//! cty's values and types as HCL evaluates them: primitives (string, number, bool),
//! collections (list, set, map: one element type) and structurals (tuple, object: a type
//! per element), nulls of a type, type names as cty prints them, conversion between
//! types (`cty/convert`, with its error texts) and unification for conditionals.

use crate::number::{Number, LITERAL_PREC};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// `cty.DynamicPseudoType`: any type.
    Dynamic,
    String,
    Number,
    Bool,
    List(Box<Type>),
    Set(Box<Type>),
    Map(Box<Type>),
    Tuple(Vec<Type>),
    Object(BTreeMap<String, Type>),
}

impl Type {
    /// cty's `FriendlyName`.
    pub(crate) fn friendly(&self) -> String {
        match self {
            Type::Dynamic => "dynamic".into(),
            Type::String => "string".into(),
            Type::Number => "number".into(),
            Type::Bool => "bool".into(),
            Type::List(e) => format!("list of {}", e.friendly()),
            Type::Set(e) => format!("set of {}", e.friendly()),
            Type::Map(e) => format!("map of {}", e.friendly()),
            Type::Tuple(_) => "tuple".into(),
            Type::Object(_) => "object".into(),
        }
    }

    pub(crate) fn is_primitive(&self) -> bool {
        matches!(self, Type::String | Type::Number | Type::Bool)
    }
}

#[derive(Clone, Debug)]
pub enum Value {
    Null(Type),
    String(String),
    Number(Number),
    Bool(bool),
    List(Type, Vec<Value>),
    Set(Type, Vec<Value>),
    Map(Type, BTreeMap<String, Value>),
    Tuple(Vec<Value>),
    Object(BTreeMap<String, Value>),
}

impl Value {
    pub fn null() -> Value {
        Value::Null(Type::Dynamic)
    }

    pub fn string(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }

    pub fn int(i: i64) -> Value {
        Value::Number(Number::from_i64(i))
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null(_))
    }

    pub fn ty(&self) -> Type {
        match self {
            Value::Null(t) => t.clone(),
            Value::String(_) => Type::String,
            Value::Number(_) => Type::Number,
            Value::Bool(_) => Type::Bool,
            Value::List(t, _) => Type::List(Box::new(t.clone())),
            Value::Set(t, _) => Type::Set(Box::new(t.clone())),
            Value::Map(t, _) => Type::Map(Box::new(t.clone())),
            Value::Tuple(items) => Type::Tuple(items.iter().map(Value::ty).collect()),
            Value::Object(attrs) => {
                Type::Object(attrs.iter().map(|(k, v)| (k.clone(), v.ty())).collect())
            }
        }
    }

    /// Elements of a list, set or tuple.
    pub fn elements(&self) -> Option<&[Value]> {
        match self {
            Value::List(_, v) | Value::Set(_, v) | Value::Tuple(v) => Some(v),
            _ => None,
        }
    }

    /// Entries of a map or object.
    pub fn entries(&self) -> Option<&BTreeMap<String, Value>> {
        match self {
            Value::Map(_, m) | Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// A list whose element type is unified from the items (`cty.ListVal`), or an empty
    /// list of `elem`.
    pub fn list(items: Vec<Value>, elem: Type) -> Value {
        let t = if items.is_empty() {
            elem
        } else {
            unify(&items.iter().map(Value::ty).collect::<Vec<_>>()).unwrap_or(Type::Dynamic)
        };
        let items = items
            .into_iter()
            .map(|v| convert(&v, &t).unwrap_or(v))
            .collect();
        Value::List(t, items)
    }

    /// cty's `Equals` (true when both are the same value of the same type).
    pub(crate) fn equals(&self, o: &Value) -> bool {
        match (self, o) {
            (Value::Null(_), Value::Null(_)) => true,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::List(_, a), Value::List(_, b))
            | (Value::Set(_, a), Value::Set(_, b))
            | (Value::Tuple(a), Value::Tuple(b)) => {
                self.ty() == o.ty()
                    && a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| x.equals(y))
            }
            (Value::Map(_, a), Value::Map(_, b)) | (Value::Object(a), Value::Object(b)) => {
                self.ty() == o.ty()
                    && a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((ka, va), (kb, vb))| ka == kb && va.equals(vb))
            }
            _ => false,
        }
    }
}

/// Why a conversion failed (cty's message, without the path prefix for elements).
pub type ConvError = String;

fn mismatch(want: &Type, got: &Type) -> ConvError {
    format!("{} required, but have {}", want.friendly(), got.friendly())
}

/// cty's `convert.Convert(v, want)`.
pub fn convert(v: &Value, want: &Type) -> Result<Value, ConvError> {
    if *want == Type::Dynamic {
        return Ok(v.clone());
    }
    if let Value::Null(_) = v {
        return Ok(Value::Null(want.clone()));
    }
    let got = v.ty();
    if got == *want {
        return Ok(v.clone());
    }
    match (want, v) {
        (Type::String, Value::Number(n)) => Ok(Value::String(n.text())),
        (Type::String, Value::Bool(b)) => Ok(Value::String(b.to_string())),
        (Type::Number, Value::String(s)) => Number::parse(s, LITERAL_PREC)
            .filter(|_| !s.trim().is_empty() && s.trim() == s)
            .map(Value::Number)
            .ok_or_else(|| "a number is required".to_string()),
        (Type::Bool, Value::String(s)) => match s.as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err("a bool is required".to_string()),
        },
        (Type::List(e) | Type::Set(e), _) if v.elements().is_some() => {
            let items = v.elements().unwrap_or(&[]);
            let target = if **e == Type::Dynamic {
                unify(&items.iter().map(Value::ty).collect::<Vec<_>>())
                    .ok_or_else(|| "all list elements must have the same type".to_string())?
            } else {
                (**e).clone()
            };
            let mut out = Vec::new();
            for (i, x) in items.iter().enumerate() {
                out.push(convert(x, &target).map_err(|m| format!("element {i}: {m}"))?);
            }
            let target = if items.is_empty() {
                (**e).clone()
            } else {
                target
            };
            Ok(match want {
                Type::Set(_) => set_of(target, out),
                _ => Value::List(target, out),
            })
        }
        (Type::Map(e), _) if v.entries().is_some() => {
            let m = v.entries().cloned().unwrap_or_default();
            let target = if **e == Type::Dynamic {
                unify(&m.values().map(Value::ty).collect::<Vec<_>>())
                    .ok_or_else(|| "all map elements must have the same type".to_string())?
            } else {
                (**e).clone()
            };
            let mut out = BTreeMap::new();
            for (k, x) in m {
                let c = convert(&x, &target).map_err(|m| format!("element {k:?}: {m}"))?;
                out.insert(k, c);
            }
            Ok(Value::Map(
                if out.is_empty() {
                    (**e).clone()
                } else {
                    target
                },
                out,
            ))
        }
        (Type::Tuple(ts), _) if v.elements().is_some() => {
            let items = v.elements().unwrap_or(&[]);
            if items.len() != ts.len() {
                return Err(format!("tuple required, but have {}", got.friendly()));
            }
            let mut out = Vec::new();
            for (i, (x, t)) in items.iter().zip(ts).enumerate() {
                out.push(convert(x, t).map_err(|m| format!("element {i}: {m}"))?);
            }
            Ok(Value::Tuple(out))
        }
        (Type::Object(ts), _) if v.entries().is_some() => {
            let m = v.entries().cloned().unwrap_or_default();
            let mut out = BTreeMap::new();
            for (k, t) in ts {
                match m.get(k) {
                    Some(x) => {
                        out.insert(
                            k.clone(),
                            convert(x, t).map_err(|e| format!("attribute {k:?}: {e}"))?,
                        );
                    }
                    None => return Err(format!("attribute {k:?} is required")),
                }
            }
            Ok(Value::Object(out))
        }
        _ => Err(mismatch(want, &got)),
    }
}

/// A set: elements deduplicated and ordered as cty orders sets (strings lexically,
/// numbers by value, others by their first appearance).
pub(crate) fn set_of(elem: Type, items: Vec<Value>) -> Value {
    let mut out: Vec<Value> = Vec::new();
    for x in items {
        if !out.iter().any(|y| y.equals(&x)) {
            out.push(x);
        }
    }
    match elem {
        Type::String => out.sort_by(|a, b| match (a, b) {
            (Value::String(x), Value::String(y)) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        }),
        Type::Number => out.sort_by(|a, b| match (a, b) {
            (Value::Number(x), Value::Number(y)) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        }),
        _ => {}
    }
    Value::Set(elem, out)
}

/// cty's `convert.Unify` for the types HCL meets in conditionals and collection
/// literals: the common type every value converts to, if any.
pub(crate) fn unify(types: &[Type]) -> Option<Type> {
    let known: Vec<&Type> = types.iter().filter(|t| **t != Type::Dynamic).collect();
    let Some(first) = known.first() else {
        return Some(Type::Dynamic);
    };
    if known.iter().all(|t| *t == *first) {
        return Some((*first).clone());
    }
    if known.iter().all(|t| t.is_primitive()) {
        if known.iter().any(|t| **t == Type::String) {
            return Some(Type::String);
        }
        return None;
    }
    // Tuples and lists: a list of the unified element type.
    let elems = |t: &Type| -> Option<Vec<Type>> {
        match t {
            Type::Tuple(ts) => Some(ts.clone()),
            Type::List(e) | Type::Set(e) => Some(vec![(**e).clone()]),
            _ => None,
        }
    };
    if known.iter().all(|t| elems(t).is_some()) {
        let all: Vec<Type> = known
            .iter()
            .flat_map(|t| elems(t).unwrap_or_default())
            .collect();
        let e = unify(&all)?;
        return Some(Type::List(Box::new(e)));
    }
    let attrs = |t: &Type| -> Option<Vec<Type>> {
        match t {
            Type::Object(m) => Some(m.values().cloned().collect()),
            Type::Map(e) => Some(vec![(**e).clone()]),
            _ => None,
        }
    };
    if known.iter().all(|t| attrs(t).is_some()) {
        let all: Vec<Type> = known
            .iter()
            .flat_map(|t| attrs(t).unwrap_or_default())
            .collect();
        let e = unify(&all)?;
        return Some(Type::Map(Box::new(e)));
    }
    None
}
