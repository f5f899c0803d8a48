//! cty's collection functions: `coalesce`, `coalescelist`, `concat`, `flatten`, `min`/`max`,
//! `merge`, `range`, the set operations, `slice`, `zipmap`.

use crate::funcs::base::{elems, int_of, num, st, FResult, Fail};
use crate::number::Number;
use crate::value::{convert, set_of, unify, Type, Value};
use std::collections::BTreeMap;

pub(crate) fn coalesce(a: &[Value]) -> FResult {
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

pub(crate) fn coalescelist(a: &[Value]) -> FResult {
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

pub(crate) fn concat(a: &[Value]) -> FResult {
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

pub(crate) fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::List(..) | Value::Tuple(_) | Value::Set(..) => {
            for x in elems(v) {
                flatten(&x, out);
            }
        }
        other => out.push(other.clone()),
    }
}

pub(crate) fn extreme(a: &[Value], max: bool) -> FResult {
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

pub(crate) fn merge(a: &[Value]) -> FResult {
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

pub(crate) fn range(a: &[Value]) -> FResult {
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

pub(crate) fn set_op(a: &[Value], f: impl Fn(Vec<Value>, Vec<Value>) -> Vec<Value>) -> FResult {
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

pub(crate) fn slice(a: &[Value]) -> FResult {
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

pub(crate) fn zipmap(a: &[Value]) -> FResult {
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
