//! A function call of an HCL expression, as hclsyntax makes it: `try` and `can` (which
//! evaluate their arguments themselves), else the arguments evaluated, counted against
//! the function's parameters ([`crate::funcs`]' table), converted, and errors reported
//! where hclsyntax reports them. The evaluator is passed in, so this module and
//! [`crate::eval`] do not import each other.

use crate::ast::{Expr, ExprKind};
use crate::ctx::Ctx;
use crate::diag::{distance, Diag, Range};
use crate::funcs::{elems, sig, table, Fail, Param};
use crate::value::{convert, Value};

/// Evaluates an expression in a context (the evaluator of [`crate::eval`]).
pub(crate) type Evaluator = fn(&Expr, &Ctx) -> Result<Value, Diag>;

/// Why a call failed.
pub enum FuncError {
    Diag(Diag),
}

/// The function call of an expression (arity, argument conversion, errors at the
/// places hclsyntax reports them).
pub(crate) fn call_function(e: &Expr, ctx: &Ctx, eval: Evaluator) -> Result<Value, FuncError> {
    let ExprKind::Call {
        name,
        name_range,
        open_range,
        close_range,
        args,
        expand_final,
    } = &e.kind
    else {
        return Err(FuncError::Diag(Diag::new("Invalid call", "", &e.range)));
    };
    let call_range = Range::between(name_range, open_range);
    if name == "try" || name == "can" {
        return try_can(name, args, ctx, &call_range, eval).map_err(FuncError::Diag);
    }
    let Some(sg) = sig(name) else {
        let suggestion = table()
            .iter()
            .map(|s| s.name)
            .chain(["can", "try"])
            .filter(|f| distance(f, name) < 3)
            .min()
            .map(|f| format!(" Did you mean {f:?}?"))
            .unwrap_or_default();
        return Err(FuncError::Diag(Diag::new(
            "Call to unknown function",
            format!("There is no function named {name:?}.{suggestion}"),
            name_range,
        )));
    };
    let mut values = Vec::new();
    let mut arg_exprs: Vec<&Expr> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let v = eval(a, ctx).map_err(FuncError::Diag)?;
        if *expand_final && i + 1 == args.len() {
            match &v {
                Value::List(..) | Value::Tuple(_) | Value::Set(..) => {
                    for x in elems(&v) {
                        values.push(x);
                        arg_exprs.push(a);
                    }
                }
                _ => {
                    return Err(FuncError::Diag(Diag::new(
                        "Invalid expanding argument value",
                        "The expanding argument (indicated by ...) must be of a tuple, list, or set type.",
                        &a.range,
                    )))
                }
            }
        } else {
            values.push(v);
            arg_exprs.push(a);
        }
    }
    if values.len() < sg.params.len() {
        let missing = &sg.params[values.len()];
        return Err(FuncError::Diag(Diag::new(
            "Not enough function arguments",
            format!(
                "Function {name:?} expects {} argument(s). Missing value for {:?}.",
                sg.params.len(),
                missing.name
            ),
            close_range,
        )));
    }
    if sg.var.is_none() && values.len() > sg.params.len() {
        return Err(FuncError::Diag(Diag::new(
            "Too many function arguments",
            format!(
                "Function {name:?} expects only {} argument(s).",
                sg.params.len()
            ),
            &arg_exprs[sg.params.len()].start_range(),
        )));
    }
    let param_of = |i: usize| -> Option<&Param> { sg.params.get(i).or(sg.var.as_ref()) };
    let mut converted = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let Some(prm) = param_of(i) else { continue };
        let bad = |m: String| {
            FuncError::Diag(Diag::new(
                "Invalid function argument",
                format!("Invalid value for {:?} parameter: {m}.", prm.name),
                &arg_exprs[i].start_range(),
            ))
        };
        if v.is_null() && !prm.allow_null {
            return Err(bad("argument must not be null".into()));
        }
        converted.push(convert(v, &prm.ty).map_err(bad)?);
    }
    (sg.imp)(&converted).map_err(|f| match f {
        Fail::Arg(i, m) => {
            let name = param_of(i).map(|p| p.name).unwrap_or("");
            FuncError::Diag(Diag::new(
                "Invalid function argument",
                format!("Invalid value for {name:?} parameter: {m}."),
                &arg_exprs
                    .get(i)
                    .map(|a| a.start_range())
                    .unwrap_or_else(|| e.range.clone()),
            ))
        }
        Fail::Call(m) => FuncError::Diag(Diag::new(
            "Error in function call",
            format!("Call to function {name:?} failed: {m}."),
            &call_range,
        )),
    })
}

fn try_can(
    name: &str,
    args: &[Expr],
    ctx: &Ctx,
    call_range: &Range,
    eval: Evaluator,
) -> Result<Value, Diag> {
    if name == "can" {
        if args.len() != 1 {
            return Err(Diag::new(
                if args.is_empty() {
                    "Not enough function arguments"
                } else {
                    "Too many function arguments"
                },
                "Function \"can\" expects 1 argument(s).",
                call_range,
            ));
        }
        return Ok(Value::Bool(eval(&args[0], ctx).is_ok()));
    }
    if args.is_empty() {
        return Err(Diag::new(
            "Error in function call",
            "Call to function \"try\" failed: at least one argument is required.",
            call_range,
        ));
    }
    let mut errors = Vec::new();
    for a in args {
        match eval(a, ctx) {
            Ok(v) => return Ok(v),
            Err(d) => errors.push(d),
        }
    }
    let mut msg = String::from("no expression succeeded:\n");
    for d in &errors {
        match &d.subject {
            Some(r) => msg.push_str(&format!("- {} (at {r})\n  {}\n", d.summary, d.detail)),
            None => msg.push_str(&format!("- {}\n  {}\n", d.summary, d.detail)),
        }
    }
    msg.push_str("\nAt least one expression must produce a successful result");
    Err(Diag::new(
        "Error in function call",
        format!("Call to function \"try\" failed: {msg}."),
        call_range,
    ))
}
