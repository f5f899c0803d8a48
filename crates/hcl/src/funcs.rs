//! The functions helmfile gives HCL: cty's stdlib (the cidr functions,
//! `yamldecode`/`yamlencode` too) as one table of name, parameters (cty's names and
//! types) and implementation, with cty's error texts. Calling them is [`crate::call`]'s.

use crate::number::{Number, LITERAL_PREC};
use crate::value::{convert, set_of, unify, Type, Value};
use std::collections::BTreeMap;

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

fn p(name: &'static str, ty: Type) -> Param {
    Param {
        name,
        ty,
        allow_null: false,
    }
}

fn pn(name: &'static str, ty: Type) -> Param {
    Param {
        name,
        ty,
        allow_null: true,
    }
}

fn list(t: Type) -> Type {
    Type::List(Box::new(t))
}

fn set(t: Type) -> Type {
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

/// Every function helmfile gives HCL (but `try` and `can`, which evaluate their
/// arguments themselves), sorted by name: the table calls and suggestions read.
pub(crate) fn table() -> &'static [Sig] {
    static TABLE: std::sync::OnceLock<Vec<Sig>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        use Type::*;
        let s = |name: &'static str, params: Vec<Param>, var: Option<Param>, imp: Impl| Sig {
            name,
            params,
            var,
            imp,
        };
        let mut table = vec![
            s("abs", vec![p("num", Number)], None, |a| {
                Ok(Value::Number(num(&a[0]).abs()))
            }),
            s("ceil", vec![p("num", Number)], None, |a| {
                float_fn(&a[0], f64::ceil)
            }),
            s("floor", vec![p("num", Number)], None, |a| {
                float_fn(&a[0], f64::floor)
            }),
            s("chomp", vec![p("str", String)], None, |a| {
                Ok(Value::string(
                    st(&a[0]).trim_end_matches(['\r', '\n']).to_string(),
                ))
            }),
            s("coalesce", vec![], Some(pn("vals", Dynamic)), coalesce),
            s(
                "coalescelist",
                vec![],
                Some(pn("vals", Dynamic)),
                coalescelist,
            ),
            s("compact", vec![p("list", list(String))], None, |a| {
                let items = elems(&a[0])
                    .into_iter()
                    .filter(|v| {
                        !matches!(v, Value::Null(_))
                            && !matches!(v, Value::String(s) if s.is_empty())
                    })
                    .collect();
                Ok(Value::List(Type::String, items))
            }),
            s("concat", vec![], Some(p("seqs", Dynamic)), concat),
            s(
                "contains",
                vec![p("list", Dynamic), p("value", Dynamic)],
                None,
                |a| match &a[0] {
                    Value::List(..) | Value::Tuple(_) | Value::Set(..) => Ok(Value::Bool(
                        elems(&a[0])
                            .iter()
                            .any(|x| x.equals(&a[1]) || loose_equal(x, &a[1])),
                    )),
                    other => Err(Fail::Arg(
                        0,
                        format!(
                            "argument must be list, tuple, or set, got {}",
                            other.ty().friendly()
                        ),
                    )),
                },
            ),
            s("csvdecode", vec![p("str", String)], None, csvdecode),
            s("distinct", vec![p("list", list(Dynamic))], None, |a| {
                let (t, items) = match &a[0] {
                    Value::List(t, items) => (t.clone(), items.clone()),
                    other => (Type::Dynamic, elems(other)),
                };
                let mut out: Vec<Value> = Vec::new();
                for x in items {
                    if !out.iter().any(|y| y.equals(&x)) {
                        out.push(x);
                    }
                }
                Ok(Value::List(t, out))
            }),
            s(
                "element",
                vec![p("list", Dynamic), p("index", Number)],
                None,
                |a| {
                    let items = match &a[0] {
                        Value::List(..) | Value::Tuple(_) => elems(&a[0]),
                        other => {
                            return Err(Fail::Arg(
                                0,
                                format!("cannot read elements from {}", other.ty().friendly()),
                            ))
                        }
                    };
                    if items.is_empty() {
                        return Err(Fail::Call(
                            "cannot use element function with an empty list".into(),
                        ));
                    }
                    let i = int_of(&a[1]).ok_or_else(|| {
                        Fail::Arg(1, "invalid index: value must be a whole number".into())
                    })?;
                    let n = items.len() as i64;
                    Ok(items[i.rem_euclid(n) as usize].clone())
                },
            ),
            s(
                "chunklist",
                vec![p("list", list(Dynamic)), p("size", Number)],
                None,
                |a| {
                    let size = int_of(&a[1])
                        .ok_or_else(|| Fail::Arg(1, "a whole number is required".into()))?;
                    if size < 0 {
                        return Err(Fail::Arg(1, "the size argument must be positive".into()));
                    }
                    let (t, items) = match &a[0] {
                        Value::List(t, items) => (t.clone(), items.clone()),
                        other => (Type::Dynamic, elems(other)),
                    };
                    let chunks: Vec<Value> = if size == 0 {
                        vec![Value::List(t.clone(), items)]
                    } else {
                        items
                            .chunks(size as usize)
                            .map(|c| Value::List(t.clone(), c.to_vec()))
                            .collect()
                    };
                    Ok(Value::List(list(t), chunks))
                },
            ),
            s("flatten", vec![p("list", Dynamic)], None, |a| {
                let mut out = Vec::new();
                match &a[0] {
                    Value::List(..) | Value::Tuple(_) | Value::Set(..) => flatten(&a[0], &mut out),
                    other => {
                        return Err(Fail::Arg(
                            0,
                            format!(
                                "can only flatten lists, sets and tuples, not {}",
                                other.ty().friendly()
                            ),
                        ))
                    }
                }
                Ok(Value::Tuple(out))
            }),
            s(
                "format",
                vec![p("format", String)],
                Some(pn("args", Dynamic)),
                |a| format(&st(&a[0]), &a[1..]).map(Value::string),
            ),
            s(
                "formatlist",
                vec![p("format", String)],
                Some(pn("args", Dynamic)),
                formatlist,
            ),
            s(
                "formatdate",
                vec![p("format", String), p("time", String)],
                None,
                formatdate,
            ),
            s(
                "indent",
                vec![p("spaces", Number), p("str", String)],
                None,
                |a| {
                    let n = int_of(&a[0]).unwrap_or(0).clamp(0, 1 << 16) as usize;
                    let pad = " ".repeat(n);
                    Ok(Value::string(st(&a[1]).replace('\n', &format!("\n{pad}"))))
                },
            ),
            s("int", vec![p("num", Number)], None, |a| {
                Ok(Value::Number(num(&a[0]).trunc()))
            }),
            s(
                "join",
                vec![p("separator", String)],
                Some(p("lists", list(String))),
                |a| {
                    if a.len() < 2 {
                        return Err(Fail::Call("at least one list is required".into()));
                    }
                    let mut parts = Vec::new();
                    for (i, l) in a[1..].iter().enumerate() {
                        for x in elems(l) {
                            match x {
                                Value::String(s) => parts.push(s),
                                Value::Null(_) => {
                                    return Err(Fail::Arg(
                                        i + 1,
                                        "element is null: cannot concatenate null values".into(),
                                    ))
                                }
                                _ => {}
                            }
                        }
                    }
                    Ok(Value::string(parts.join(&st(&a[0]))))
                },
            ),
            s("jsondecode", vec![p("str", String)], None, |a| {
                jsondecode(&st(&a[0]))
            }),
            s("jsonencode", vec![pn("val", Dynamic)], None, |a| {
                let mut out = std::string::String::new();
                json_encode(&a[0], &mut out);
                Ok(Value::string(out))
            }),
            s("keys", vec![p("inputMap", Dynamic)], None, |a| {
                match a[0].entries() {
                    Some(m) => Ok(Value::List(
                        Type::String,
                        m.keys().map(|k| Value::string(k.clone())).collect(),
                    )),
                    None => Err(Fail::Arg(0, "must have map or object type".into())),
                }
            }),
            s(
                "length",
                vec![p("collection", Dynamic)],
                None,
                |a| match &a[0] {
                    Value::List(_, v) | Value::Set(_, v) | Value::Tuple(v) => {
                        Ok(Value::int(v.len() as i64))
                    }
                    Value::Map(_, m) => Ok(Value::int(m.len() as i64)),
                    _ => Err(Fail::Call(
                        "collection must be a list, a map or a tuple".into(),
                    )),
                },
            ),
            s(
                "log",
                vec![p("num", Number), p("base", Number)],
                None,
                |a| {
                    let (n, b) = (num(&a[0]).to_f64(), num(&a[1]).to_f64());
                    float_value(n.ln() / b.ln())
                },
            ),
            s(
                "lookup",
                vec![
                    p("inputMap", Dynamic),
                    p("key", String),
                    pn("default", Dynamic),
                ],
                None,
                |a| {
                    let Some(m) = a[0].entries() else {
                        return Err(Fail::Arg(0, "the given object has no attribute".into()));
                    };
                    Ok(m.get(&st(&a[1])).cloned().unwrap_or_else(|| a[2].clone()))
                },
            ),
            s("lower", vec![p("str", String)], None, |a| {
                Ok(Value::string(go_case(&st(&a[0]), false)))
            }),
            s("upper", vec![p("str", String)], None, |a| {
                Ok(Value::string(go_case(&st(&a[0]), true)))
            }),
            s("title", vec![p("str", String)], None, |a| {
                Ok(Value::string(title(&st(&a[0]))))
            }),
            s("strrev", vec![p("str", String)], None, |a| {
                Ok(Value::string(
                    graphemes(&st(&a[0]))
                        .into_iter()
                        .rev()
                        .collect::<std::string::String>(),
                ))
            }),
            s("strlen", vec![p("str", String)], None, |a| {
                Ok(Value::int(graphemes(&st(&a[0])).len() as i64))
            }),
            s("trimspace", vec![p("str", String)], None, |a| {
                Ok(Value::string(st(&a[0]).trim().to_string()))
            }),
            s(
                "trim",
                vec![p("str", String), p("cutset", String)],
                None,
                |a| {
                    let cut: Vec<char> = st(&a[1]).chars().collect();
                    Ok(Value::string(
                        st(&a[0]).trim_matches(|c| cut.contains(&c)).to_string(),
                    ))
                },
            ),
            s(
                "trimprefix",
                vec![p("str", String), p("prefix", String)],
                None,
                |a| {
                    let (s0, pre) = (st(&a[0]), st(&a[1]));
                    Ok(Value::string(
                        s0.strip_prefix(pre.as_str()).unwrap_or(&s0).to_string(),
                    ))
                },
            ),
            s(
                "trimsuffix",
                vec![p("str", String), p("suffix", String)],
                None,
                |a| {
                    let (s0, suf) = (st(&a[0]), st(&a[1]));
                    Ok(Value::string(
                        s0.strip_suffix(suf.as_str()).unwrap_or(&s0).to_string(),
                    ))
                },
            ),
            s("max", vec![], Some(p("numbers", Number)), |a| {
                extreme(a, true)
            }),
            s("min", vec![], Some(p("numbers", Number)), |a| {
                extreme(a, false)
            }),
            s("merge", vec![], Some(pn("maps", Dynamic)), merge),
            s(
                "parseint",
                vec![p("number", Dynamic), p("base", Number)],
                None,
                parseint,
            ),
            s(
                "pow",
                vec![p("num", Number), p("power", Number)],
                None,
                |a| float_value(num(&a[0]).to_f64().powf(num(&a[1]).to_f64())),
            ),
            s("range", vec![], Some(p("params", Number)), range),
            s(
                "regex",
                vec![p("pattern", String), p("string", String)],
                None,
                |a| {
                    let re = compile(&st(&a[0]))?;
                    let text = st(&a[1]);
                    match re.captures(&text) {
                        Some(c) => Ok(captures(&re, &c)),
                        None => Err(Fail::Call(
                            "pattern did not match any part of the given string".into(),
                        )),
                    }
                },
            ),
            s(
                "regexall",
                vec![p("pattern", String), p("string", String)],
                None,
                |a| {
                    let re = compile(&st(&a[0]))?;
                    let text = st(&a[1]);
                    let all: Vec<Value> =
                        re.captures_iter(&text).map(|c| captures(&re, &c)).collect();
                    Ok(Value::list(all, Type::String))
                },
            ),
            s(
                "reverselist",
                vec![p("list", Dynamic)],
                None,
                |a| match &a[0] {
                    Value::List(t, v) => {
                        Ok(Value::List(t.clone(), v.iter().rev().cloned().collect()))
                    }
                    Value::Tuple(v) => Ok(Value::Tuple(v.iter().rev().cloned().collect())),
                    other => Err(Fail::Arg(
                        0,
                        format!(
                            "can only reverse list or tuple values, not {}",
                            other.ty().friendly()
                        ),
                    )),
                },
            ),
            s(
                "setintersection",
                vec![p("first_set", set(Dynamic))],
                Some(p("other_sets", set(Dynamic))),
                |a| {
                    set_op(a, |acc, other| {
                        acc.into_iter()
                            .filter(|x| other.iter().any(|y| y.equals(x)))
                            .collect()
                    })
                },
            ),
            s(
                "setsubtract",
                vec![p("a", set(Dynamic)), p("b", set(Dynamic))],
                None,
                |a| {
                    set_op(a, |acc, other| {
                        acc.into_iter()
                            .filter(|x| !other.iter().any(|y| y.equals(x)))
                            .collect()
                    })
                },
            ),
            s(
                "setunion",
                vec![p("first_set", set(Dynamic))],
                Some(p("other_sets", set(Dynamic))),
                |a| {
                    set_op(a, |mut acc, other| {
                        acc.extend(other);
                        acc
                    })
                },
            ),
            s("setproduct", vec![], Some(p("sets", Dynamic)), |a| {
                let mut rows: Vec<Vec<Value>> = vec![Vec::new()];
                for s0 in a {
                    let items = elems(s0);
                    let mut next = Vec::new();
                    for r in &rows {
                        for x in &items {
                            let mut r2 = r.clone();
                            r2.push(x.clone());
                            next.push(r2);
                        }
                    }
                    rows = next;
                }
                if a.is_empty() {
                    return Err(Fail::Call("at least two arguments are required".into()));
                }
                Ok(Value::List(
                    Type::Dynamic,
                    rows.into_iter().map(Value::Tuple).collect(),
                ))
            }),
            s("signum", vec![p("num", Number)], None, |a| {
                let n = num(&a[0]);
                Ok(Value::int(if n.is_zero() {
                    0
                } else if n.is_negative() {
                    -1
                } else {
                    1
                }))
            }),
            s(
                "slice",
                vec![
                    p("list", Dynamic),
                    p("start_index", Number),
                    p("end_index", Number),
                ],
                None,
                slice,
            ),
            s("sort", vec![p("list", list(String))], None, |a| {
                let mut items: Vec<std::string::String> = elems(&a[0]).iter().map(st).collect();
                items.sort();
                Ok(Value::List(
                    Type::String,
                    items.into_iter().map(Value::string).collect(),
                ))
            }),
            s(
                "split",
                vec![p("separator", String), p("str", String)],
                None,
                |a| {
                    let (sep, s0) = (st(&a[0]), st(&a[1]));
                    let parts: Vec<Value> = if sep.is_empty() {
                        s0.chars().map(|c| Value::string(c.to_string())).collect()
                    } else {
                        s0.split(sep.as_str()).map(Value::string).collect()
                    };
                    Ok(Value::List(Type::String, parts))
                },
            ),
            s(
                "substr",
                vec![p("str", String), p("offset", Number), p("length", Number)],
                None,
                substr,
            ),
            s(
                "timeadd",
                vec![p("timestamp", String), p("duration", String)],
                None,
                timeadd,
            ),
            s("values", vec![p("mapping", Dynamic)], None, |a| {
                match a[0].entries() {
                    Some(m) => {
                        let vals: Vec<Value> = m.values().cloned().collect();
                        Ok(match &a[0] {
                            Value::Map(t, _) => Value::List(t.clone(), vals),
                            _ => Value::Tuple(vals),
                        })
                    }
                    None => Err(Fail::Arg(0, "must have map or object type".into())),
                }
            }),
            s(
                "zipmap",
                vec![p("keys", list(String)), p("values", Dynamic)],
                None,
                zipmap,
            ),
            s("yamldecode", vec![p("src", String)], None, |a| {
                yamldecode(&st(&a[0]))
            }),
            s("yamlencode", vec![pn("value", Dynamic)], None, |a| {
                Ok(Value::string(yamlencode(&a[0])))
            }),
            s(
                "cidrhost",
                vec![p("prefix", String), p("hostnum", Number)],
                None,
                cidrhost,
            ),
            s("cidrnetmask", vec![p("prefix", String)], None, cidrnetmask),
            s(
                "cidrsubnet",
                vec![
                    p("prefix", String),
                    p("newbits", Number),
                    p("netnum", Number),
                ],
                None,
                cidrsubnet,
            ),
            s(
                "cidrsubnets",
                vec![p("prefix", String)],
                Some(p("newbits", Number)),
                cidrsubnets,
            ),
        ];
        table.sort_by_key(|s| s.name);
        table
    })
}

/// The function named `name`.
pub(crate) fn sig(name: &str) -> Option<&'static Sig> {
    let t = table();
    t.binary_search_by_key(&name, |s| s.name)
        .ok()
        .map(|i| &t[i])
}

fn st(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

fn num(v: &Value) -> Number {
    match v {
        Value::Number(n) => n.clone(),
        _ => Number::zero(),
    }
}

fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.to_i64(),
        _ => None,
    }
}

pub(crate) fn elems(v: &Value) -> Vec<Value> {
    v.elements().map(|e| e.to_vec()).unwrap_or_default()
}

fn float_value(f: f64) -> FResult {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| Fail::Call("the result is not a finite number".into()))
}

fn float_fn(v: &Value, f: fn(f64) -> f64) -> FResult {
    let n = num(v);
    if n.is_integer() {
        return Ok(Value::Number(n));
    }
    float_value(f(n.to_f64()))
}

fn loose_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y,
        _ => false,
    }
}

fn coalesce(a: &[Value]) -> FResult {
    let types: Vec<Type> = a.iter().filter(|v| !v.is_null()).map(Value::ty).collect();
    let t =
        unify(&types).ok_or_else(|| Fail::Call("all arguments must have the same type".into()))?;
    for v in a {
        if !v.is_null() {
            return convert(v, &t).map_err(Fail::Call);
        }
    }
    Err(Fail::Call("no non-null arguments".into()))
}

fn coalescelist(a: &[Value]) -> FResult {
    for (i, v) in a.iter().enumerate() {
        match v {
            Value::List(..) | Value::Tuple(_) => {
                if !elems(v).is_empty() {
                    return Ok(v.clone());
                }
            }
            Value::Null(_) => {}
            other => {
                return Err(Fail::Arg(
                    i,
                    format!(
                        "coalescelist arguments must be lists or tuples, got {}",
                        other.ty().friendly()
                    ),
                ))
            }
        }
    }
    Ok(a.last().cloned().unwrap_or(Value::Tuple(Vec::new())))
}

fn concat(a: &[Value]) -> FResult {
    let mut out = Vec::new();
    let mut all_lists = true;
    let mut elem: Option<Type> = None;
    for (i, v) in a.iter().enumerate() {
        match v {
            Value::List(t, items) => {
                out.extend(items.iter().cloned());
                match &elem {
                    Some(e) if e != t => all_lists = false,
                    _ => elem = Some(t.clone()),
                }
            }
            Value::Tuple(items) => {
                all_lists = false;
                out.extend(items.iter().cloned());
            }
            other => {
                return Err(Fail::Arg(
                    i,
                    format!(
                        "all arguments must be lists or tuples; got {}",
                        other.ty().friendly()
                    ),
                ))
            }
        }
    }
    Ok(match (all_lists, elem) {
        (true, Some(t)) => Value::List(t, out),
        _ => Value::Tuple(out),
    })
}

fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::List(..) | Value::Tuple(_) | Value::Set(..) => {
            for x in elems(v) {
                flatten(&x, out);
            }
        }
        other => out.push(other.clone()),
    }
}

/// Go's `strings.ToUpper`/`ToLower`: one rune for one rune (simple case mapping), so
/// `ß` stays `ß` where Rust's full mapping would give `SS`.
fn go_case(s: &str, upper: bool) -> String {
    s.chars()
        .map(|c| {
            if !upper && c == '\u{130}' {
                return 'i';
            }
            let mut m: Vec<char> = if upper {
                c.to_uppercase().collect()
            } else {
                c.to_lowercase().collect()
            };
            if m.len() == 1 {
                m.remove(0)
            } else {
                c
            }
        })
        .collect()
}

fn title(s: &str) -> String {
    let mut out = String::new();
    let mut prev_letter = false;
    for c in s.chars() {
        if !prev_letter && c.is_alphabetic() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_letter = c.is_alphanumeric() || c == '_' || c == '\'';
    }
    out
}

fn extreme(a: &[Value], max: bool) -> FResult {
    let mut best: Option<Number> = None;
    for v in a {
        let n = num(v);
        best = Some(match best {
            None => n,
            Some(b) => {
                if (max && n > b) || (!max && n < b) {
                    n
                } else {
                    b
                }
            }
        });
    }
    best.map(Value::Number)
        .ok_or_else(|| Fail::Call("must pass at least one number".into()))
}

fn merge(a: &[Value]) -> FResult {
    let mut out = BTreeMap::new();
    let mut any_object = false;
    for (i, v) in a.iter().enumerate() {
        match v {
            Value::Null(_) => {}
            Value::Object(m) => {
                any_object = true;
                out.extend(m.clone());
            }
            Value::Map(_, m) => out.extend(m.clone()),
            other => {
                return Err(Fail::Arg(
                    i,
                    format!(
                        "arguments must be maps or objects, got {:?}",
                        other.ty().friendly()
                    ),
                ))
            }
        }
    }
    if any_object {
        return Ok(Value::Object(out));
    }
    let t = unify(&out.values().map(Value::ty).collect::<Vec<_>>()).unwrap_or(Type::Dynamic);
    Ok(Value::Map(t, out))
}

fn parseint(a: &[Value]) -> FResult {
    let s = match &a[0] {
        Value::String(s) => s.clone(),
        other => {
            return Err(Fail::Arg(
                0,
                format!(
                    "first argument must be a string, not {}",
                    other.ty().friendly()
                ),
            ))
        }
    };
    let base = int_of(&a[1]).ok_or_else(|| Fail::Arg(1, "base must be a whole number".into()))?;
    if !(2..=62).contains(&base) {
        return Err(Fail::Arg(
            1,
            "base must be a whole number between 2 and 62 inclusive".into(),
        ));
    }
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(&s)),
    };
    let fail = || Fail::Arg(0, format!("cannot parse {s:?} as a base {base} integer"));
    if digits.is_empty() {
        return Err(fail());
    }
    let mut n = num_bigint::BigUint::from(0u32);
    for c in digits.chars() {
        let d = match c {
            '0'..='9' => c as u32 - '0' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 10,
            'A'..='Z' if base <= 36 => c as u32 - 'A' as u32 + 10,
            'A'..='Z' => c as u32 - 'A' as u32 + 36,
            _ => return Err(fail()),
        };
        if d as i64 >= base {
            return Err(fail());
        }
        n = n * base as u32 + d;
    }
    Ok(Value::Number(Number::from_bigint(neg, n)))
}

fn range(a: &[Value]) -> FResult {
    let nums: Vec<Number> = a.iter().map(num).collect();
    let one = Number::from_i64(1);
    let zero = Number::from_i64(0);
    let (start, limit, step) = match nums.as_slice() {
        [l] => (zero.clone(), l.clone(), one.clone()),
        [s, l] => {
            let st = if s > l { one.neg() } else { one.clone() };
            (s.clone(), l.clone(), st)
        }
        [s, l, st] => (s.clone(), l.clone(), st.clone()),
        _ => return Err(Fail::Call("must have one, two, or three arguments".into())),
    };
    if step.is_zero() {
        return Err(Fail::Arg(2, "step must not be zero".into()));
    }
    let down = step.is_negative();
    if down && start < limit {
        return Err(Fail::Arg(
            0,
            "for a negative step, start must not be less than limit".into(),
        ));
    }
    if !down && start > limit {
        return Err(Fail::Arg(
            0,
            "for a positive step, start must not be greater than limit".into(),
        ));
    }
    let mut out = Vec::new();
    let mut cur = start;
    while (!down && cur < limit) || (down && cur > limit) {
        if out.len() >= 1024 {
            return Err(Fail::Call("more than 1024 values were generated; either decrease the difference between start and end or use a smaller step".into()));
        }
        out.push(Value::Number(cur.clone()));
        cur = cur.add(&step);
    }
    Ok(Value::List(Type::Number, out))
}

fn compile(pattern: &str) -> Result<regex::Regex, Fail> {
    regex::Regex::new(pattern)
        .map_err(|e| Fail::Arg(0, format!("invalid regular expression pattern: {e}")))
}

fn captures(re: &regex::Regex, c: &regex::Captures) -> Value {
    let names: Vec<Option<&str>> = re.capture_names().skip(1).collect();
    if names.is_empty() {
        return Value::string(c.get(0).map(|m| m.as_str()).unwrap_or(""));
    }
    if names.iter().any(|n| n.is_some()) {
        let mut m = BTreeMap::new();
        for (i, n) in names.iter().enumerate() {
            if let Some(n) = n {
                m.insert(
                    n.to_string(),
                    Value::string(c.get(i + 1).map(|x| x.as_str()).unwrap_or("")),
                );
            }
        }
        return Value::Object(m);
    }
    Value::List(
        Type::String,
        (1..c.len())
            .map(|i| Value::string(c.get(i).map(|x| x.as_str()).unwrap_or("")))
            .collect(),
    )
}

fn set_op(a: &[Value], f: impl Fn(Vec<Value>, Vec<Value>) -> Vec<Value>) -> FResult {
    let elem_ty = |v: &Value| match v {
        Value::Set(t, _) => t.clone(),
        _ => Type::Dynamic,
    };
    let mut acc = elems(&a[0]);
    let mut t = elem_ty(&a[0]);
    for other in &a[1..] {
        if t == Type::Dynamic {
            t = elem_ty(other);
        }
        acc = f(acc, elems(other));
    }
    Ok(set_of(t, acc))
}

fn slice(a: &[Value]) -> FResult {
    let items = elems(&a[0]);
    let from = int_of(&a[1]).ok_or_else(|| Fail::Arg(1, "a whole number is required".into()))?;
    let to = int_of(&a[2]).ok_or_else(|| Fail::Arg(2, "a whole number is required".into()))?;
    if from < 0 {
        return Err(Fail::Arg(
            1,
            "from index must be greater than or equal to 0".into(),
        ));
    }
    if to > items.len() as i64 {
        return Err(Fail::Arg(
            2,
            "to index must be less than or equal to the length of the input collection".into(),
        ));
    }
    if from > to {
        return Err(Fail::Arg(
            1,
            "from index must be less than or equal to index".into(),
        ));
    }
    let part = items[from as usize..to as usize].to_vec();
    Ok(match &a[0] {
        Value::List(t, _) => Value::List(t.clone(), part),
        _ => Value::Tuple(part),
    })
}

fn substr(a: &[Value]) -> FResult {
    let chars: Vec<String> = graphemes(&st(&a[0]));
    let n = chars.len() as i64;
    let mut off = int_of(&a[1]).ok_or_else(|| Fail::Arg(1, "a whole number is required".into()))?;
    let len = int_of(&a[2]).ok_or_else(|| Fail::Arg(2, "a whole number is required".into()))?;
    if off < 0 {
        off += n;
        if off < 0 {
            off = 0;
        }
    }
    if off >= n {
        return Ok(Value::string(""));
    }
    let end = if len < 0 { n } else { (off + len).min(n) };
    if end <= off {
        return Ok(Value::string(""));
    }
    Ok(Value::string(chars[off as usize..end as usize].concat()))
}

/// Whether `c` continues the grapheme cluster before it: combining marks, variation
/// selectors, emoji modifiers, zero-width joiners.
fn extends(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F
        | 0xFE00..=0xFE0F | 0x1F3FB..=0x1F3FF | 0x200D | 0xE0020..=0xE007F)
}

/// User-perceived characters (cty counts grapheme clusters): a character with the marks
/// and joined characters that follow it; `\r\n` is one.
fn graphemes(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut join_next = false;
    for c in s.chars() {
        let attach =
            join_next || extends(c) || (c == '\n' && out.last().is_some_and(|l| l == "\r"));
        match out.last_mut() {
            Some(last) if attach => last.push(c),
            _ => out.push(c.to_string()),
        }
        join_next = c == '\u{200D}';
    }
    out
}

fn zipmap(a: &[Value]) -> FResult {
    let keys = elems(&a[0]);
    let vals = match &a[1] {
        Value::List(..) | Value::Tuple(_) => elems(&a[1]),
        other => {
            return Err(Fail::Arg(
                1,
                format!(
                    "values must be list or tuple, not {}",
                    other.ty().friendly()
                ),
            ))
        }
    };
    if keys.len() != vals.len() {
        return Err(Fail::Call(format!(
            "number of keys ({}) does not match number of values ({})",
            keys.len(),
            vals.len()
        )));
    }
    let mut m = BTreeMap::new();
    for (k, v) in keys.iter().zip(vals) {
        m.insert(st(k), v);
    }
    Ok(match &a[1] {
        Value::List(t, _) => Value::Map(t.clone(), m),
        _ => Value::Object(m),
    })
}

fn csvdecode(a: &[Value]) -> FResult {
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

fn jsondecode(s: &str) -> FResult {
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

fn yamldecode(s: &str) -> FResult {
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
fn yamlencode(v: &Value) -> String {
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

fn formatlist(a: &[Value]) -> FResult {
    let fmt = st(&a[0]);
    let args = &a[1..];
    let mut n: Option<usize> = None;
    for (i, x) in args.iter().enumerate() {
        if let Some(items) = x.elements() {
            match n {
                None => n = Some(items.len()),
                Some(m) if m != items.len() => {
                    return Err(Fail::Arg(i + 1, format!("argument {} has length {}, which is inconsistent with argument 1 of length {m}", i + 1, items.len())))
                }
                _ => {}
            }
        }
    }
    let n = n.unwrap_or(1);
    let mut out = Vec::new();
    for i in 0..n {
        let row: Vec<Value> = args
            .iter()
            .map(|x| {
                x.elements()
                    .map(|e| e[i].clone())
                    .unwrap_or_else(|| x.clone())
            })
            .collect();
        out.push(Value::string(format(&fmt, &row)?));
    }
    Ok(Value::List(Type::String, out))
}

/// cty's `format`: Go-like verbs over cty values.
pub fn format(fmt: &str, args: &[Value]) -> Result<String, Fail> {
    let mut out = String::new();
    let mut ai = 0;
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let start = i;
        while i < chars.len() && "+- #0".contains(chars[i]) {
            i += 1;
        }
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let Some(&verb) = chars.get(i) else {
            return Err("invalid format string".into());
        };
        i += 1;
        let spec: String = chars[start..i - 1].iter().collect();
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(ai) else {
            return Err(format!("not enough arguments for %{spec}{verb} at {}", start - 1).into());
        };
        ai += 1;
        let go = |v: capstan_value::Value| {
            capstan_value::printf::sprintf(&format!("%{spec}{verb}"), &[v])
        };
        let piece = match verb {
            'v' => {
                if spec.contains('#') {
                    let mut s = String::new();
                    json_encode(arg, &mut s);
                    s
                } else {
                    match arg {
                        Value::String(s) => go(capstan_value::Value::from(s.as_str())),
                        Value::Number(n) => go(capstan_value::Value::from(n.text())),
                        Value::Bool(b) => go(capstan_value::Value::Bool(*b)),
                        Value::Null(_) => go(capstan_value::Value::from("null")),
                        other => {
                            let mut s = String::new();
                            json_encode(other, &mut s);
                            go(capstan_value::Value::from(s))
                        }
                    }
                }
            }
            't' => match convert(arg, &Type::Bool) {
                Ok(Value::Bool(b)) => go(capstan_value::Value::Bool(b)),
                _ => {
                    return Err(format!(
                        "unsupported value for \"%{verb}\" at {}: bool required",
                        start - 1
                    )
                    .into())
                }
            },
            'd' | 'x' | 'X' | 'o' | 'b' if !matches!(arg, Value::String(_)) || verb == 'd' => {
                let n = match convert(arg, &Type::Number) {
                    Ok(Value::Number(n)) => n,
                    _ => {
                        return Err(format!(
                            "unsupported value for \"%{verb}\" at {}: number required",
                            start - 1
                        )
                        .into())
                    }
                };
                let Some(i) = n.to_i64() else {
                    return Err(format!(
                        "unsupported value for \"%{verb}\" at {}: an integer is required",
                        start - 1
                    )
                    .into());
                };
                go(capstan_value::Value::Int(i))
            }
            'e' | 'E' | 'f' | 'g' | 'G' => {
                let n = match convert(arg, &Type::Number) {
                    Ok(Value::Number(n)) => n,
                    _ => {
                        return Err(format!(
                            "unsupported value for \"%{verb}\" at {}: number required",
                            start - 1
                        )
                        .into())
                    }
                };
                go(capstan_value::Value::Float64(n.to_f64()))
            }
            's' | 'q' | 'x' | 'X' => match convert(arg, &Type::String) {
                Ok(Value::String(s)) => go(capstan_value::Value::from(s)),
                _ => {
                    return Err(format!(
                        "unsupported value for \"%{verb}\" at {}: string required",
                        start - 1
                    )
                    .into())
                }
            },
            other => {
                return Err(format!(
                    "unrecognized format character {other:?} at offset {}",
                    start - 1
                )
                .into())
            }
        };
        out.push_str(&piece);
    }
    if ai < args.len() {
        return Err(format!("too many arguments; only {ai} used by format string").into());
    }
    Ok(out)
}

fn parse_rfc3339(
    s: &str,
) -> Result<capstan_gocompat::time::GoTime, capstan_gocompat::timefmt::TimeParseError> {
    let zone = capstan_gocompat::timefmt::Zone::utc();
    Ok(
        capstan_gocompat::timefmt::parse("2006-01-02T15:04:05Z07:00", s, &zone)
            .map_err(|_| format!("not a valid RFC3339 timestamp: cannot use {s:?} as year"))?,
    )
}

fn formatdate(a: &[Value]) -> FResult {
    let spec = st(&a[0]);
    let t = parse_rfc3339(&st(&a[1])).map_err(|e| Fail::Arg(1, e.0))?;
    let c = t.civil();
    use capstan_gocompat::timefmt::{DAYS, MONTHS};
    let days = capstan_gocompat::time::days_from_civil(c.year, c.month, c.day);
    let weekday = DAYS[((days % 7 + 11) % 7) as usize];
    let chars: Vec<char> = spec.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let off = t.offset;
    let offset = |colon: bool| {
        let sign = if off < 0 { '-' } else { '+' };
        let a = off.unsigned_abs();
        if colon {
            format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
        } else {
            format!("{sign}{:02}{:02}", a / 3600, a / 60 % 60)
        }
    };
    while i < chars.len() {
        let c0 = chars[i];
        if c0 == '\'' {
            let mut j = i + 1;
            if chars.get(j) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            while j < chars.len() && chars[j] != '\'' {
                out.push(chars[j]);
                j += 1;
            }
            i = j + 1;
            continue;
        }
        if !c0.is_ascii_alphabetic() {
            out.push(c0);
            i += 1;
            continue;
        }
        let mut n = 0;
        while i + n < chars.len() && chars[i + n] == c0 {
            n += 1;
        }
        let h12 = if c.hour % 12 == 0 { 12 } else { c.hour % 12 };
        let piece = match (c0, n) {
            ('Y', 4) => format!("{:04}", c.year),
            ('Y', 2) => format!("{:02}", c.year % 100),
            ('M', 4) => MONTHS[c.month as usize - 1].to_string(),
            ('M', 3) => MONTHS[c.month as usize - 1][..3].to_string(),
            ('M', 2) => format!("{:02}", c.month),
            ('M', 1) => c.month.to_string(),
            ('D', 2) => format!("{:02}", c.day),
            ('D', 1) => c.day.to_string(),
            ('E', 4) => weekday.to_string(),
            ('E', 3) => weekday[..3].to_string(),
            ('h', 2) => format!("{:02}", c.hour),
            ('h', 1) => c.hour.to_string(),
            ('H', 2) => format!("{:02}", h12),
            ('H', 1) => h12.to_string(),
            ('A', 2) => if c.hour < 12 { "AM" } else { "PM" }.to_string(),
            ('a', 2) => if c.hour < 12 { "am" } else { "pm" }.to_string(),
            ('m', 2) => format!("{:02}", c.minute),
            ('m', 1) => c.minute.to_string(),
            ('s', 2) => format!("{:02}", c.second),
            ('s', 1) => c.second.to_string(),
            ('Z', 5) => offset(true),
            ('Z', 4) => offset(false),
            ('Z', 3) => {
                if off == 0 {
                    "UTC".into()
                } else {
                    offset(false)
                }
            }
            ('Z', 1) => {
                if off == 0 {
                    "Z".into()
                } else {
                    offset(true)
                }
            }
            _ => {
                return Err(Fail::Arg(
                    0,
                    format!(
                        "invalid date format verb {:?}: unsupported format",
                        chars[i..i + n].iter().collect::<String>()
                    ),
                ))
            }
        };
        out.push_str(&piece);
        i += n;
    }
    Ok(Value::string(out))
}

fn timeadd(a: &[Value]) -> FResult {
    let t = parse_rfc3339(&st(&a[0])).map_err(|e| Fail::Arg(0, e.0))?;
    let d = capstan_gocompat::time::parse_duration(&st(&a[1])).map_err(|e| Fail::Arg(1, e.0))?;
    let total = t.nanos as i128 + d as i128;
    let secs = total.div_euclid(1_000_000_000) as i64;
    let nanos = total.rem_euclid(1_000_000_000) as u32;
    let nt = capstan_gocompat::time::GoTime {
        unix: t.unix + secs,
        nanos,
        offset: t.offset,
        zone: t.zone.clone(),
    };
    Ok(Value::string(capstan_gocompat::timefmt::format(
        &nt,
        "2006-01-02T15:04:05Z07:00",
    )))
}

/// An IP network: address bits, length, prefix length.
struct Net {
    addr: u128,
    bits: u32,
    prefix: u32,
}

fn parse_cidr(s: &str) -> Result<Net, Fail> {
    let bad = || {
        Fail::Arg(
            0,
            format!("invalid CIDR expression: invalid CIDR address: {s}"),
        )
    };
    let (ip, len) = s.split_once('/').ok_or_else(bad)?;
    let prefix: u32 = len.parse().map_err(|_| bad())?;
    if let Ok(v4) = ip.parse::<std::net::Ipv4Addr>() {
        if prefix > 32 {
            return Err(bad());
        }
        let a = u32::from(v4) as u128;
        let mask = if prefix == 0 {
            0
        } else {
            (!0u32 << (32 - prefix)) as u128
        };
        return Ok(Net {
            addr: a & mask,
            bits: 32,
            prefix,
        });
    }
    if let Ok(v6) = ip.parse::<std::net::Ipv6Addr>() {
        if prefix > 128 {
            return Err(bad());
        }
        let a = u128::from(v6);
        let mask = if prefix == 0 {
            0
        } else {
            !0u128 << (128 - prefix)
        };
        return Ok(Net {
            addr: a & mask,
            bits: 128,
            prefix,
        });
    }
    Err(bad())
}

fn show_ip(a: u128, bits: u32) -> String {
    if bits == 32 {
        std::net::Ipv4Addr::from(a as u32).to_string()
    } else {
        std::net::Ipv6Addr::from(a).to_string()
    }
}

fn cidrhost(a: &[Value]) -> FResult {
    let net = parse_cidr(&st(&a[0]))?;
    let host = int_of(&a[1]).ok_or_else(|| Fail::Arg(1, "a whole number is required".into()))?;
    let host_bits = net.bits - net.prefix;
    let size: u128 = if host_bits >= 128 {
        u128::MAX
    } else {
        1u128 << host_bits
    };
    let h = if host < 0 {
        size as i128 + host as i128
    } else {
        host as i128
    };
    if h < 0 || (host_bits < 128 && h as u128 >= size) {
        return Err(Fail::Call(format!(
            "prefix of {} does not accommodate a host numbered {host}",
            net.prefix
        )));
    }
    Ok(Value::string(show_ip(net.addr | h as u128, net.bits)))
}

fn cidrnetmask(a: &[Value]) -> FResult {
    let net = parse_cidr(&st(&a[0]))?;
    if net.bits != 32 {
        return Err(Fail::Call("only IPv4 networks can have a netmask".into()));
    }
    let mask = if net.prefix == 0 {
        0
    } else {
        !0u32 << (32 - net.prefix)
    };
    Ok(Value::string(std::net::Ipv4Addr::from(mask).to_string()))
}

fn subnet(net: &Net, newbits: i64, netnum: i64) -> Result<(u128, u32), Fail> {
    let new_prefix = net.prefix as i64 + newbits;
    if newbits < 0 || new_prefix > net.bits as i64 {
        return Err(format!(
            "insufficient address space to extend prefix of {} by {newbits}",
            net.prefix
        )
        .into());
    }
    let max = 1i128 << newbits;
    if netnum < 0 || netnum as i128 >= max {
        return Err(format!(
            "prefix extension of {newbits} does not accommodate a subnet numbered {netnum}"
        )
        .into());
    }
    let shift = net.bits as i64 - new_prefix;
    let addr = net.addr | ((netnum as u128) << shift);
    Ok((addr, new_prefix as u32))
}

fn cidrsubnet(a: &[Value]) -> FResult {
    let net = parse_cidr(&st(&a[0]))?;
    let newbits = int_of(&a[1]).ok_or_else(|| Fail::Arg(1, "a whole number is required".into()))?;
    let netnum = int_of(&a[2]).ok_or_else(|| Fail::Arg(2, "a whole number is required".into()))?;
    let (addr, pfx) = subnet(&net, newbits, netnum)?;
    Ok(Value::string(format!("{}/{pfx}", show_ip(addr, net.bits))))
}

fn cidrsubnets(a: &[Value]) -> FResult {
    let net = parse_cidr(&st(&a[0]))?;
    let mut out = Vec::new();
    let mut next: u128 = net.addr;
    for (i, nb) in a[1..].iter().enumerate() {
        let newbits =
            int_of(nb).ok_or_else(|| Fail::Arg(i + 1, "a whole number is required".into()))?;
        let new_prefix = net.prefix as i64 + newbits;
        if newbits < 1 || new_prefix > net.bits as i64 {
            return Err(Fail::Arg(i + 1, format!("would extend prefix to {new_prefix} bits, which is too long for an IPv{} address", if net.bits == 32 { 4 } else { 6 })));
        }
        let size: u128 = 1u128 << (net.bits as i64 - new_prefix);
        // Align to this subnet's size.
        let aligned = next.div_ceil(size) * size;
        let end = aligned + size;
        let net_end = net.addr + (1u128 << (net.bits - net.prefix));
        if end > net_end {
            return Err(Fail::Arg(i + 1, format!("not enough remaining address space for a subnet with a prefix of {new_prefix} bits after {}", show_ip(next.saturating_sub(1), net.bits))));
        }
        out.push(Value::string(format!(
            "{}/{new_prefix}",
            show_ip(aligned, net.bits)
        )));
        next = end;
    }
    Ok(Value::List(Type::String, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_names_each_function_once() {
        let names: Vec<&str> = table().iter().map(|s| s.name).collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
        assert!(sig("upper").is_some() && sig("try").is_none());
    }

    #[test]
    fn grapheme_clusters_count_as_one() {
        assert_eq!(graphemes("he\u{301}llo").len(), 5);
        assert_eq!(graphemes("a\r\nb").len(), 3);
        assert_eq!(graphemes("👩\u{200D}💻x").len(), 2);
        assert_eq!(go_case("straße", true), "STRAßE");
    }

    #[test]
    fn cty_format_verbs() {
        let n = |s: &str| Value::Number(Number::parse(s, LITERAL_PREC).unwrap());
        assert_eq!(
            format("%5.1f|%-4d|%03d", &[n("3.14159"), n("7"), n("5")]).unwrap(),
            "  3.1|7   |005"
        );
        assert_eq!(
            format("%s and %v", &[Value::string("a"), Value::Bool(true)]).unwrap(),
            "a and true"
        );
        assert!(format("%d", &[n("1.5")])
            .unwrap_err()
            .message()
            .contains("an integer is required"));
        assert!(format("%s", &[])
            .unwrap_err()
            .message()
            .contains("not enough arguments"));
    }
}
