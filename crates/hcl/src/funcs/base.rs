//! What every HCL function shares: its failure ([`Fail`]), its parameters and
//! signature ([`Sig`]), and reading cty values as strings, numbers and elements.

use crate::number::Number;
use crate::value::{Type, Value};

/// Why a function failed: about one argument (reported at it) or the call.
/// Why a cty function call failed: cty's text, about one argument or the whole call.
#[derive(Debug)]
pub enum Fail {
    Arg(usize, String),
    Call(String),
}

impl Fail {
    /// cty's text.
    #[cfg(test)]
    pub fn message(&self) -> &str {
        match self {
            Fail::Arg(_, m) | Fail::Call(m) => m,
        }
    }
}

impl From<String> for Fail {
    fn from(message: String) -> Fail {
        Fail::Call(message)
    }
}

impl From<&str> for Fail {
    fn from(message: &str) -> Fail {
        Fail::Call(message.to_string())
    }
}

pub(crate) type FResult = Result<Value, Fail>;

pub(crate) struct Param {
    pub(crate) name: &'static str,
    pub(crate) ty: Type,
    pub(crate) allow_null: bool,
}

pub(crate) fn p(name: &'static str, ty: Type) -> Param {
    Param {
        name,
        ty,
        allow_null: false,
    }
}

pub(crate) fn pn(name: &'static str, ty: Type) -> Param {
    Param {
        name,
        ty,
        allow_null: true,
    }
}

pub(crate) fn list(t: Type) -> Type {
    Type::List(Box::new(t))
}

pub(crate) fn set(t: Type) -> Type {
    Type::Set(Box::new(t))
}

pub(crate) type Impl = fn(&[Value]) -> FResult;

/// One function: its name, cty's parameters (the last may repeat), its implementation.
pub(crate) struct Sig {
    pub(crate) name: &'static str,
    pub(crate) params: Vec<Param>,
    pub(crate) var: Option<Param>,
    pub(crate) imp: Impl,
}

pub(crate) fn st(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

pub(crate) fn num(v: &Value) -> Number {
    match v {
        Value::Number(n) => n.clone(),
        _ => Number::zero(),
    }
}

pub(crate) fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.to_i64(),
        _ => None,
    }
}

pub(crate) fn elems(v: &Value) -> Vec<Value> {
    v.elements().map(|e| e.to_vec()).unwrap_or_default()
}

pub(crate) fn float_value(f: f64) -> FResult {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| Fail::Call("the result is not a finite number".into()))
}

pub(crate) fn float_fn(v: &Value, f: fn(f64) -> f64) -> FResult {
    let n = num(v);
    if n.is_integer() {
        return Ok(Value::Number(n));
    }
    float_value(f(n.to_f64()))
}

pub(crate) fn loose_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y,
        _ => false,
    }
}
