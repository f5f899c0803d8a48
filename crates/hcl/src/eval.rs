//! Expression evaluation as hclsyntax does it, with its diagnostics and their ranges.

use crate::ast::*;
use crate::call::{call_function, FuncError};
pub use crate::ctx::Ctx;
use crate::diag::{Diag, Range};
use crate::number::Number;
use crate::value::{convert, unify, Type, Value};
use std::collections::BTreeMap;

type EResult = Result<Value, Diag>;

fn type_name(v: &Value) -> String {
    v.ty().friendly()
}

/// Applies one `.name` or `[key]` step.
fn step(v: &Value, s: &Step, ctx: &Ctx) -> EResult {
    match s {
        Step::Attr(name, r) => get_attr(v, name, r),
        Step::Index(key, r) => {
            let k = eval(key, ctx)?;
            index(v, &k, r)
        }
    }
}

fn get_attr(v: &Value, name: &str, r: &Range) -> EResult {
    match v {
        Value::Null(_) => Err(Diag::new(
            "Attempt to get attribute from null value",
            "This value is null, so it does not have any attributes.",
            r,
        )),
        Value::Object(m) => m.get(name).cloned().ok_or_else(|| {
            Diag::new(
                "Unsupported attribute",
                format!("This object does not have an attribute named {name:?}."),
                r,
            )
        }),
        Value::Map(_, m) => m.get(name).cloned().ok_or_else(|| {
            Diag::new(
                "Missing map element",
                format!("This map does not have an element with the key {name:?}."),
                r,
            )
        }),
        Value::List(..) | Value::Set(..) | Value::Tuple(_) => Err(Diag::new(
            "Unsupported attribute",
            format!(
                "Can't access attributes on a {}. Did you mean to access attribute {name:?} for a specific element of the list, or across all elements of the list?",
                match v {
                    Value::Tuple(_) => "tuple".to_string(),
                    other => type_name(other),
                }
            ),
            r,
        )),
        other => Err(Diag::new(
            "Unsupported attribute",
            format!("Can't access attributes on a primitive-typed value ({}).", type_name(other)),
            r,
        )),
    }
}

fn invalid_index(r: &Range, extra: &str) -> Diag {
    Diag::new(
        "Invalid index",
        format!("The given key does not identify an element in this collection value{extra}."),
        r,
    )
}

pub fn index(v: &Value, k: &Value, r: &Range) -> EResult {
    if v.is_null() {
        return Err(Diag::new(
            "Attempt to index null value",
            "This value is null, so it does not have any indices.",
            r,
        ));
    }
    if k.is_null() {
        return Err(Diag::new(
            "Invalid index",
            "Can't use a null value as an indexing key.",
            r,
        ));
    }
    match v {
        Value::List(_, items) | Value::Tuple(items) => {
            let n = match convert(k, &Type::Number) {
                Ok(Value::Number(n)) => n,
                _ => {
                    return Err(Diag::new(
                        "Invalid index",
                        "The given key does not identify an element in this collection value: a number is required.",
                        r,
                    ))
                }
            };
            let Some(i) = n.to_i64() else {
                return Err(invalid_index(r, ": a whole number is required"));
            };
            if i < 0 || i as usize >= items.len() {
                return Err(invalid_index(r, ""));
            }
            Ok(items[i as usize].clone())
        }
        Value::Map(_, m) | Value::Object(m) => {
            let key = match convert(k, &Type::String) {
                Ok(Value::String(s)) => s,
                _ => {
                    return Err(Diag::new(
                        "Invalid index",
                        "The given key does not identify an element in this collection value: string required.",
                        r,
                    ))
                }
            };
            m.get(&key).cloned().ok_or_else(|| invalid_index(r, ""))
        }
        Value::Set(..) => Err(Diag::new(
            "Invalid index",
            "Elements of a set are identified only by their value and don't have any separate index or key to select with, so it's only possible to perform operations across all elements of the set.",
            r,
        )),
        other => Err(Diag::new(
            "Invalid index",
            format!("This value does not have any indices. (type {})", type_name(other)),
            r,
        )),
    }
}

/// The value a template interpolation contributes.
fn template_string(v: Value, r: &Range) -> Result<String, Diag> {
    if v.is_null() {
        return Err(Diag::new(
            "Invalid template interpolation value",
            "The expression result is null. Cannot include a null value in a string template.",
            r,
        ));
    }
    match convert(&v, &Type::String) {
        Ok(Value::String(s)) => Ok(s),
        Err(e) => Err(Diag::new(
            "Invalid template interpolation value",
            format!("Cannot include the given value in a string template: {e}."),
            r,
        )),
        Ok(_) => Ok(String::new()),
    }
}

fn eval_parts(parts: &[TemplatePart], ctx: &Ctx, out: &mut String) -> Result<(), Diag> {
    for p in parts {
        match p {
            TemplatePart::Literal(s, _) => out.push_str(s),
            TemplatePart::Interp(e) => {
                let v = eval(e, ctx)?;
                out.push_str(&template_string(v, &e.range)?);
            }
            TemplatePart::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let c = eval(cond, ctx)?;
                let b = match convert(&c, &Type::Bool) {
                    Ok(Value::Bool(b)) => b,
                    Ok(Value::Null(_)) => {
                        return Err(Diag::new(
                            "Invalid template if condition",
                            "The if condition is null. Cannot use a null value as a condition.",
                            &cond.range,
                        ))
                    }
                    _ => {
                        return Err(Diag::new(
                            "Invalid template if condition",
                            "A template if directive condition must be of type bool.",
                            &cond.range,
                        ))
                    }
                };
                eval_parts(if b { then } else { otherwise }, ctx, out)?;
            }
            TemplatePart::For {
                key,
                value,
                collection,
                body,
                ..
            } => {
                let c = eval(collection, ctx)?;
                for (k, v) in iterate(&c, &collection.range, "template for")? {
                    let mut b = vec![(value.as_str(), v)];
                    if let Some(kn) = key {
                        b.push((kn.as_str(), k));
                    }
                    eval_parts(body, &ctx.with(&b), out)?;
                }
            }
        }
    }
    Ok(())
}

/// The (key, value) pairs a `for` iterates.
fn iterate(c: &Value, r: &Range, what: &str) -> Result<Vec<(Value, Value)>, Diag> {
    match c {
        Value::Null(_) => Err(Diag::new(
            "Iteration over null value",
            format!("A null value cannot be used as the collection in a '{what}' expression."),
            r,
        )),
        Value::List(_, items) | Value::Tuple(items) | Value::Set(_, items) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let k = if matches!(c, Value::Set(..)) {
                    v.clone()
                } else {
                    Value::int(i as i64)
                };
                (k, v.clone())
            })
            .collect()),
        Value::Map(_, m) | Value::Object(m) => Ok(m
            .iter()
            .map(|(k, v)| (Value::string(k.clone()), v.clone()))
            .collect()),
        other => Err(Diag::new(
            "Iteration over non-iterable value",
            format!(
                "A value of type {} cannot be used as the collection in a 'for' expression.",
                type_name(other)
            ),
            r,
        )),
    }
}

/// An operand converted to `ty`, or hclsyntax's "Invalid operand" error.
fn operand(v: Value, e: &Expr, side: &str, ty: &Type) -> Result<Value, Diag> {
    let detail = if v.is_null() {
        "argument must not be null".to_string()
    } else {
        match convert(&v, ty) {
            Ok(x) => return Ok(x),
            Err(m) => m,
        }
    };
    Err(Diag::new(
        "Invalid operand",
        format!("Unsuitable value for {side} operand: {detail}."),
        &e.range,
    ))
}

fn operand_number(v: Value, e: &Expr, side: &str) -> Result<Number, Diag> {
    match operand(v, e, side, &Type::Number)? {
        Value::Number(n) => Ok(n),
        _ => Ok(Number::zero()),
    }
}

fn operand_bool(v: Value, e: &Expr, side: &str) -> Result<bool, Diag> {
    Ok(matches!(
        operand(v, e, side, &Type::Bool)?,
        Value::Bool(true)
    ))
}

fn binary(op: BinOp, lhs: &Expr, rhs: &Expr, range: &Range, ctx: &Ctx) -> EResult {
    let a = eval(lhs, ctx)?;
    let b = eval(rhs, ctx)?;
    use BinOp::*;
    match op {
        Eq | Ne => {
            let eq = a.equals(&b);
            Ok(Value::Bool(if op == Eq { eq } else { !eq }))
        }
        And | Or => {
            let x = operand_bool(a, lhs, "left")?;
            let y = operand_bool(b, rhs, "right")?;
            Ok(Value::Bool(if op == And { x && y } else { x || y }))
        }
        _ => {
            let x = operand_number(a, lhs, "left")?;
            let y = operand_number(b, rhs, "right")?;
            let failed = |m: &str| {
                Diag::new(
                    "Operation failed",
                    format!("Error during operation: {m}."),
                    range,
                )
            };
            Ok(match op {
                Add => Value::Number(x.add(&y)),
                Sub => Value::Number(x.sub(&y)),
                Mul => Value::Number(x.mul(&y)),
                Div => Value::Number(x.quo(&y).ok_or_else(|| failed("can't divide by zero"))?),
                Mod => Value::Number(
                    x.modulo(&y)
                        .ok_or_else(|| failed("can't use modulo by zero"))?,
                ),
                Lt => Value::Bool(x < y),
                Le => Value::Bool(x <= y),
                Gt => Value::Bool(x > y),
                Ge => Value::Bool(x >= y),
                _ => Value::null(),
            })
        }
    }
}

/// Evaluates an expression.
pub fn eval(e: &Expr, ctx: &Ctx) -> EResult {
    match &e.kind {
        ExprKind::Literal(v) => Ok(v.clone()),
        ExprKind::ObjectKeyName(n) => Ok(Value::string(n.clone())),
        ExprKind::Template(parts) => {
            if let [TemplatePart::Interp(inner)] = parts.as_slice() {
                return eval(inner, ctx);
            }
            let mut out = String::new();
            eval_parts(parts, ctx, &mut out)?;
            Ok(Value::String(out))
        }
        ExprKind::Traversal {
            root,
            root_range,
            steps,
        } => {
            let mut v = match ctx.vars.get(root) {
                Some(v) => v.clone(),
                None => {
                    return Err(Diag::new(
                        "Unknown variable",
                        format!("There is no variable named {root:?}."),
                        root_range,
                    ))
                }
            };
            for s in steps {
                v = step(&v, s, ctx)?;
            }
            Ok(v)
        }
        ExprKind::Relative { source, steps } => {
            let mut v = eval(source, ctx)?;
            for s in steps {
                v = step(&v, s, ctx)?;
            }
            Ok(v)
        }
        ExprKind::Splat { source, steps, .. } => {
            let v = eval(source, ctx)?;
            let items: Vec<Value> = match &v {
                Value::Null(_) => return Ok(Value::Tuple(Vec::new())),
                Value::List(_, items) | Value::Tuple(items) | Value::Set(_, items) => items.clone(),
                other => vec![other.clone()],
            };
            let mut out = Vec::new();
            for it in items {
                let mut x = it;
                for s in steps {
                    x = step(&x, s, ctx)?;
                }
                out.push(x);
            }
            Ok(match v {
                Value::List(..) => Value::list(out, Type::Dynamic),
                _ => Value::Tuple(out),
            })
        }
        ExprKind::Call { .. } => call_function(e, ctx, eval).map_err(|fe| match fe {
            FuncError::Diag(d) => d,
        }),
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            let t = eval(then, ctx);
            let f = eval(otherwise, ctx);
            let c = eval(cond, ctx)?;
            let b = match c {
                Value::Null(_) => {
                    return Err(Diag::new(
                        "Null condition",
                        "The condition value is null. Conditions must either be true or false.",
                        &cond.range,
                    ))
                }
                other => match convert(&other, &Type::Bool) {
                    Ok(Value::Bool(b)) => b,
                    _ => {
                        return Err(Diag::new(
                            "Incorrect condition type",
                            "The condition expression must be of type bool.",
                            &cond.range,
                        ))
                    }
                },
            };
            let (tv, fv) = match (&t, &f) {
                (Ok(tv), Ok(fv)) => (tv.clone(), fv.clone()),
                _ => return if b { t } else { f },
            };
            let Some(ty) = unify(&[tv.ty(), fv.ty()]) else {
                return Err(Diag::new(
                    "Inconsistent conditional result types",
                    format!(
                        "The true and false result expressions must have consistent types. The 'true' value is {}, but the 'false' value is {}.",
                        type_name(&tv),
                        type_name(&fv)
                    ),
                    &Range::between(&then.range, &otherwise.range),
                ));
            };
            let chosen = if b { tv } else { fv };
            Ok(convert(&chosen, &ty).unwrap_or(chosen))
        }
        ExprKind::Binary { op, lhs, rhs } => binary(*op, lhs, rhs, &e.range, ctx),
        ExprKind::Not(x) => {
            let v = eval(x, ctx)?;
            Ok(Value::Bool(!operand_bool(v, x, "")?))
        }
        ExprKind::Neg(x) => {
            let v = eval(x, ctx)?;
            Ok(Value::Number(operand_number(v, x, "")?.neg()))
        }
        ExprKind::Parens(x) => eval(x, ctx),
        ExprKind::Tuple { items, .. } => {
            let mut out = Vec::new();
            for i in items {
                out.push(eval(i, ctx)?);
            }
            Ok(Value::Tuple(out))
        }
        ExprKind::Object { items, .. } => {
            let mut out = BTreeMap::new();
            for (k, v) in items {
                let kv = eval(k, ctx)?;
                if kv.is_null() {
                    return Err(Diag::new(
                        "Null value as key",
                        "Can't use a null value as a key.",
                        &k.range,
                    ));
                }
                let key = match convert(&kv, &Type::String) {
                    Ok(Value::String(s)) => s,
                    _ => {
                        return Err(Diag::new(
                            "Incorrect key type",
                            "Can't use this value as a key: string required.",
                            &k.range,
                        ))
                    }
                };
                out.insert(key, eval(v, ctx)?);
            }
            Ok(Value::Object(out))
        }
        ExprKind::For {
            key_var,
            value_var,
            collection,
            key,
            value,
            cond,
            group,
            ..
        } => {
            let c = eval(collection, ctx)?;
            let pairs = iterate(&c, &collection.range, "for")?;
            let mut tuple = Vec::new();
            let mut obj: BTreeMap<String, Value> = BTreeMap::new();
            let mut groups: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            for (k, v) in pairs {
                let mut b = vec![(value_var.as_str(), v)];
                if let Some(kn) = key_var {
                    b.push((kn.as_str(), k));
                }
                let inner = ctx.with(&b);
                if let Some(cnd) = cond {
                    let cv = eval(cnd, &inner)?;
                    match convert(&cv, &Type::Bool) {
                        Ok(Value::Bool(true)) => {}
                        Ok(Value::Bool(false)) => continue,
                        _ => {
                            return Err(Diag::new(
                                "Invalid 'for' condition",
                                "The 'if' clause value is invalid: bool required.",
                                &cnd.range,
                            ))
                        }
                    }
                }
                match key {
                    None => tuple.push(eval(value, &inner)?),
                    Some(kx) => {
                        let kv = eval(kx, &inner)?;
                        let ks = match convert(&kv, &Type::String) {
                            Ok(Value::String(s)) => s,
                            _ => {
                                return Err(Diag::new(
                                    "Invalid object key",
                                    "The object key is invalid: string required.",
                                    &kx.range,
                                ))
                            }
                        };
                        let vv = eval(value, &inner)?;
                        if *group {
                            groups.entry(ks).or_default().push(vv);
                        } else {
                            if obj.contains_key(&ks) {
                                return Err(Diag::new(
                                    "Duplicate object key",
                                    format!("Two different items produced the key {ks:?} in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key."),
                                    &kx.range,
                                ));
                            }
                            obj.insert(ks, vv);
                        }
                    }
                }
            }
            Ok(match key {
                None => Value::Tuple(tuple),
                Some(_) if *group => Value::Object(
                    groups
                        .into_iter()
                        .map(|(k, v)| (k, Value::Tuple(v)))
                        .collect(),
                ),
                Some(_) => Value::Object(obj),
            })
        }
    }
}
