//! List functions over any Go slice (`list`, `append`/`push`, `prepend`, `first`, `rest`,
//! `last`, `initial`, `reverse`, `uniq`, `without`, `has`, `compact`, `slice`, `concat`,
//! `chunk`) and their `must` forms, with sprig's error texts.

use crate::convert::{deep_equal, to_i64};
use crate::defaults::empty;
use crate::{reg, regv};
use capstan_gotmpl::{FuncMap, FuncResult, Ty};
use capstan_value::Value;

/// The items of a slice value, or sprig's "Cannot X on type K" error.
fn items<'a>(
    v: &'a Value,
    what: &str,
) -> Result<std::borrow::Cow<'a, [Value]>, capstan_gotmpl::FuncError> {
    match v {
        Value::List(l) => Ok(std::borrow::Cow::Borrowed(&l.items)),
        Value::Bytes(b) => Ok(std::borrow::Cow::Owned(
            b.iter().map(|x| Value::Int(*x as i64)).collect(),
        )),
        Value::Nil => {
            Err("runtime error: invalid memory address or nil pointer dereference".into())
        }
        other => Err(format!("Cannot {what} on type {}", other.kind_name()).into()),
    }
}

fn list(v: Vec<Value>) -> Value {
    Value::list_from(v)
}

fn contains(list: &[Value], x: &Value) -> bool {
    list.iter().any(|y| deep_equal(x, y))
}

/// Registers `name` and `mustName`: the plain form turns errors into template errors too
/// (sprig panics), so both behave the same here.
fn both(m: &mut FuncMap, name: &str, params: &[Ty], f: fn(Vec<Value>) -> FuncResult<Value>) {
    reg(m, name, params, f);
    let must = format!("must{}{}", name[..1].to_uppercase(), &name[1..]);
    reg(m, &must, params, f);
}

fn bothv(m: &mut FuncMap, name: &str, params: &[Ty], f: fn(Vec<Value>) -> FuncResult<Value>) {
    regv(m, name, params, Ty::Any, f);
    let must = format!("must{}{}", name[..1].to_uppercase(), &name[1..]);
    regv(m, &must, params, Ty::Any, f);
}

pub fn register(m: &mut FuncMap) {
    regv(m, "list", &[], Ty::Any, |a| Ok(list(a)));
    regv(m, "tuple", &[], Ty::Any, |a| Ok(list(a)));
    for name in ["push", "append"] {
        both(m, name, &[Ty::Any, Ty::Any], |a| {
            let mut l = items(&a[0], "push")?.into_owned();
            l.push(a[1].clone());
            Ok(list(l))
        });
    }
    both(m, "prepend", &[Ty::Any, Ty::Any], |a| {
        let mut l = items(&a[0], "prepend")?.into_owned();
        l.insert(0, a[1].clone());
        Ok(list(l))
    });
    both(m, "first", &[Ty::Any], |a| {
        Ok(items(&a[0], "find first")?
            .first()
            .cloned()
            .unwrap_or(Value::Nil))
    });
    both(m, "last", &[Ty::Any], |a| {
        Ok(items(&a[0], "find last")?
            .last()
            .cloned()
            .unwrap_or(Value::Nil))
    });
    both(m, "rest", &[Ty::Any], |a| {
        let l = items(&a[0], "find rest")?;
        Ok(if l.is_empty() {
            list(Vec::new())
        } else {
            list(l[1..].to_vec())
        })
    });
    both(m, "initial", &[Ty::Any], |a| {
        let l = items(&a[0], "find initial")?;
        Ok(if l.is_empty() {
            list(Vec::new())
        } else {
            list(l[..l.len() - 1].to_vec())
        })
    });
    both(m, "reverse", &[Ty::Any], |a| {
        let mut l = items(&a[0], "find reverse")?.into_owned();
        l.reverse();
        Ok(list(l))
    });
    both(m, "uniq", &[Ty::Any], |a| {
        let l = items(&a[0], "find uniq")?;
        let mut out: Vec<Value> = Vec::new();
        for x in l.iter() {
            if !contains(&out, x) {
                out.push(x.clone());
            }
        }
        Ok(list(out))
    });
    bothv(m, "without", &[Ty::Any], |a| {
        let l = items(&a[0], "find without")?;
        Ok(list(
            l.iter()
                .filter(|x| !contains(&a[1..], x))
                .cloned()
                .collect(),
        ))
    });
    both(m, "has", &[Ty::Any, Ty::Any], |a| match &a[1] {
        Value::Nil => Ok(Value::Bool(false)),
        h => Ok(Value::Bool(contains(&items(h, "find has")?, &a[0]))),
    });
    both(m, "compact", &[Ty::Any], |a| {
        let l = items(&a[0], "compact")?;
        Ok(list(l.iter().filter(|x| !empty(x)).cloned().collect()))
    });
    bothv(m, "slice", &[Ty::Any], |a| {
        let l = items(&a[0], "slice")?;
        let n = l.len() as i64;
        let start = a.get(1).map(to_i64).unwrap_or(0);
        let end = a.get(2).map(to_i64).unwrap_or(n);
        if start < 0 || end > n || start > end {
            return Err("reflect.Value.Slice: slice index out of bounds".into());
        }
        Ok(list(l[start as usize..end as usize].to_vec()))
    });
    regv(m, "concat", &[], Ty::Any, |a| {
        let mut out = Vec::new();
        for x in &a {
            match x {
                Value::List(l) => out.extend(l.items.iter().cloned()),
                Value::Nil => {
                    return Err(
                        "runtime error: invalid memory address or nil pointer dereference".into(),
                    )
                }
                other => {
                    return Err(format!("Cannot concat type {} as list", other.kind_name()).into())
                }
            }
        }
        Ok(list(out))
    });
    both(m, "chunk", &[Ty::Int, Ty::Any], |a| {
        let size = to_i64(&a[0]);
        let l = match &a[1] {
            Value::List(_) => items(&a[1], "chunk")?,
            Value::Nil => {
                return Err(
                    "runtime error: invalid memory address or nil pointer dereference".into(),
                )
            }
            other => return Err(format!("Cannot chunk type {}", other.kind_name()).into()),
        };
        if size <= 0 {
            return Err("runtime error: makeslice: len out of range".into());
        }
        Ok(list(
            l.chunks(size as usize).map(|c| list(c.to_vec())).collect(),
        ))
    });
}
