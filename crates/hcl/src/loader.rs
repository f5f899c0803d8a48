//! helmfile's HCL values loader (`hcllang.HCLLoader.HCLRender`): every file's `values`
//! blocks share one namespace (`hv.`), each file has at most one `locals` block
//! (`local.`, private to the file), values are evaluated in dependency order, a name
//! defined several times is evaluated once per definition and deep-merged, and the
//! result is converted to Go values the way helmfile does (through JSON: every number
//! a float64).

use crate::ast::{Attribute, Body, Expr, Step};
use crate::ctx::Ctx;
use crate::diag::distance;
use crate::diag::{Diag, HclError, Range};
use crate::eval::eval;
use crate::parse::parse_file;
use crate::value::Value;
use capstan_value::{Str, Value as GoValue};
use std::collections::BTreeMap;

const VALUES: &str = "values";
const LOCALS: &str = "locals";

/// One definition of a name.
struct Def {
    expr: Expr,
    range: Range,
    file: String,
}

/// `Body.Content` with the schema `values {}` and `locals {}` blocks only.
fn check_schema(body: &Body) -> Result<(), Diag> {
    if let Some(a) = body.attributes.first() {
        return Err(Diag::new(
            "Unsupported argument",
            format!("An argument named {:?} is not expected here.", a.name),
            &a.name_range,
        ));
    }
    for b in &body.blocks {
        if b.kind != VALUES && b.kind != LOCALS {
            let mut detail = format!("Blocks of type {:?} are not expected here.", b.kind);
            if let Some(s) = [VALUES, LOCALS].iter().find(|s| distance(s, &b.kind) < 3) {
                detail.push_str(&format!(" Did you mean {s:?}?"));
            }
            return Err(Diag::new("Unsupported block type", detail, &b.kind_range));
        }
        if let Some((_, r)) = b.labels.first() {
            return Err(Diag::new(
                format!("Extraneous label for {}", b.kind),
                format!("No labels are expected for {} blocks.", b.kind),
                r,
            ));
        }
    }
    Ok(())
}

/// `JustAttributes` of a block body.
fn just_attributes(body: &Body) -> Result<&[Attribute], Diag> {
    if let Some(b) = body.blocks.first() {
        return Err(Diag::new(
            format!("Unexpected {:?} block", b.kind),
            "Blocks are not allowed here.",
            &b.kind_range,
        ));
    }
    Ok(&body.attributes)
}

/// The names a definition depends on (`parseSingleAttrRef` over its variables).
fn dependencies(expr: &Expr, block: &str) -> Result<Vec<String>, Diag> {
    Ok(references(expr, block)?
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}

/// [`dependencies`] with the place of each name's first reference.
fn references(expr: &Expr, block: &str) -> Result<Vec<(String, Range)>, Diag> {
    let mut out: Vec<(String, Range)> = Vec::new();
    for (root, root_range, steps) in expr.variables() {
        if root == "local" && block != LOCALS {
            continue;
        }
        let Some(first) = steps.first() else {
            return Err(Diag::new(
                "Invalid reference",
                format!("The {root:?} object cannot be accessed directly. Instead, access it from one of its root."),
                &root_range,
            ));
        };
        match first {
            Step::Attr(name, r) => {
                if !out.iter().any(|(n, _)| n == name) {
                    out.push((name.clone(), Range::between(&root_range, r)));
                }
            }
            Step::Index(_, r) => {
                return Err(Diag::new(
                    "Invalid reference",
                    format!("The {root:?} object does not support this operation."),
                    r,
                ))
            }
        }
    }
    Ok(out)
}

/// Orders names by dependency: groups that can be evaluated one after the other.
fn plan(defs: &BTreeMap<String, Vec<Def>>, block: &str) -> Result<Vec<Vec<String>>, HclError> {
    let mut deps: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (name, ds) in defs {
        let mut all = Vec::new();
        for d in ds {
            for x in dependencies(&d.expr, block)? {
                if !all.contains(&x) {
                    all.push(x);
                }
            }
        }
        deps.insert(name.as_str(), all);
    }
    // Undefined dependencies.
    for ds in deps.values() {
        for d in ds {
            if !deps.contains_key(d.as_str()) {
                let dependents: Vec<String> = deps
                    .iter()
                    .filter(|(_, x)| x.contains(d))
                    .map(|(n, _)| format!("{n:?}"))
                    .collect();
                let first_use = defs.values().flatten().find_map(|def| {
                    references(&def.expr, block)
                        .ok()?
                        .into_iter()
                        .find(|(n, _)| n == d)
                        .map(|(_, r)| r.location())
                });
                return Err(HclError {
                    message: format!(
                        "variables {} depend(s) on undefined vars {d:?}",
                        dependents.join(", ")
                    ),
                    location: first_use,
                });
            }
        }
    }
    // Cycles.
    fn visit<'a>(
        n: &'a str,
        deps: &'a BTreeMap<&'a str, Vec<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
    ) -> Result<(), HclError> {
        match state.get(n) {
            Some(2) => return Ok(()),
            Some(1) => {
                let start = stack.iter().position(|x| *x == n).unwrap_or(0);
                let mut path: Vec<&str> = stack[start..].to_vec();
                path.push(n);
                return Err(format!(
                    "error while building the DAG variable graph : cycle detected: {}",
                    path.join(" -> ")
                )
                .into());
            }
            _ => {}
        }
        state.insert(n, 1);
        stack.push(n);
        if let Some(ds) = deps.get(n) {
            for d in ds {
                if let Some((k, _)) = deps.get_key_value(d.as_str()) {
                    visit(k, deps, state, stack)?;
                }
            }
        }
        stack.pop();
        state.insert(n, 2);
        Ok(())
    }
    let mut state = BTreeMap::new();
    for n in deps.keys() {
        visit(n, &deps, &mut state, &mut Vec::new())?;
    }
    let mut level: BTreeMap<&str, usize> = BTreeMap::new();
    fn level_of<'a>(
        n: &'a str,
        deps: &'a BTreeMap<&'a str, Vec<String>>,
        level: &mut BTreeMap<&'a str, usize>,
    ) -> usize {
        if let Some(l) = level.get(n) {
            return *l;
        }
        let l = deps
            .get(n)
            .map(|ds| {
                ds.iter()
                    .filter_map(|d| deps.get_key_value(d.as_str()).map(|(k, _)| *k))
                    .map(|k| level_of(k, deps, level) + 1)
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0);
        level.insert(n, l);
        l
    }
    let mut groups: Vec<Vec<String>> = Vec::new();
    for n in deps.keys() {
        let l = level_of(n, &deps, &mut level);
        if groups.len() <= l {
            groups.resize(l + 1, Vec::new());
        }
        groups[l].push(n.to_string());
    }
    Ok(groups)
}

/// helmfile's `ctyMergeValues`: objects merge per attribute and maps per key, a null
/// keeps the other side, anything else is replaced.
fn merge(a: Value, b: Value) -> Value {
    if b.is_null() {
        return a;
    }
    if a.is_null() {
        return b;
    }
    match (a, b) {
        (Value::Object(mut x), Value::Object(y)) => {
            for (k, v) in y {
                let merged = match x.remove(&k) {
                    Some(old) => merge(old, v),
                    None => v,
                };
                x.insert(k, merged);
            }
            Value::Object(x)
        }
        // Maps merge per key as objects do (helmfile v1.7.4 `pkg/hcllang/hcl_loader.go:48`):
        // a map defined in two files keeps the keys of both.
        (Value::Map(t, mut x), Value::Map(_, y)) => {
            for (k, v) in y {
                let merged = match x.remove(&k) {
                    Some(old) => merge(old, v),
                    None => v,
                };
                x.insert(k, merged);
            }
            Value::Map(t, x)
        }
        (_, b) => b,
    }
}

fn evaluate(
    defs: &BTreeMap<String, Vec<Def>>,
    groups: &[Vec<String>],
    block: &str,
    locals: &BTreeMap<String, Option<Value>>,
) -> Result<BTreeMap<String, Value>, HclError> {
    let mut done: BTreeMap<String, Value> = BTreeMap::new();
    for g in groups {
        for name in g {
            let ds = &defs[name];
            let mut acc: Option<Value> = None;
            for d in ds {
                let mut ctx = Ctx::default();
                let accessor = if block == VALUES { "hv" } else { "local" };
                if !done.is_empty() {
                    ctx.vars
                        .insert(accessor.into(), Value::Object(done.clone()));
                }
                if block == VALUES {
                    if let Some(l) = locals.get(&d.file) {
                        ctx.vars
                            .insert("local".into(), l.clone().unwrap_or_else(Value::null));
                    }
                }
                let v = eval(&d.expr, &ctx).map_err(|diag| HclError {
                    message: if ds.len() > 1 {
                        format!(
                            "error when trying to evaluate variable {name} at {}:{} : {diag}",
                            d.range.file, d.range.start.line
                        )
                    } else {
                        format!("error when trying to evaluate variable {name} : {diag}")
                    },
                    location: Some(diag.subject.as_ref().unwrap_or(&d.range).location()),
                })?;
                acc = Some(match acc {
                    None => v,
                    Some(prev) => merge(prev, v),
                });
            }
            if let Some(v) = acc {
                done.insert(name.clone(), v);
            }
        }
    }
    Ok(done)
}

/// A cty value as helmfile hands it on: through cty's JSON and Go's `encoding/json`.
fn to_go(v: &Value) -> GoValue {
    match v {
        Value::Null(_) => GoValue::Nil,
        Value::Bool(b) => GoValue::Bool(*b),
        Value::Number(n) => {
            GoValue::Float64(n.text().parse::<f64>().unwrap_or_else(|_| n.to_f64()))
        }
        Value::String(s) => GoValue::from(s.as_str()),
        Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items) => {
            GoValue::appended_list(items.iter().map(to_go).collect())
        }
        Value::Map(_, m) | Value::Object(m) => GoValue::map_from(
            m.iter()
                .map(|(k, x)| (Str::from(k.as_str()), to_go(x)))
                .collect(),
        ),
    }
}

/// Where a `values` attribute is defined, and the names its expression reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueOrigin {
    /// The attribute's definition (the last one when several files define it).
    pub location: capstan_source::Location,
    /// The `hv.NAME` and `local.NAME` references in its expression, in order.
    pub references: Vec<String>,
    /// Where each key of an object the attribute is written as is defined (`net = {
    /// cidr = … }` gives `["cidr"]` at `cidr`'s line), nested objects too; keys that are
    /// computed are left out.
    pub items: Vec<(Vec<String>, capstan_source::Location)>,
}

/// The keys of the object constructor `expr` (and of those nested in it) with where each
/// is written.
fn object_items(
    expr: &crate::ast::Expr,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, capstan_source::Location)>,
) {
    use crate::ast::ExprKind;
    let expr = match &expr.kind {
        ExprKind::Parens(inner) => inner,
        _ => expr,
    };
    let ExprKind::Object { items, .. } = &expr.kind else {
        return;
    };
    if prefix.len() > 64 {
        return;
    }
    for (k, v) in items {
        let name = match &k.kind {
            ExprKind::ObjectKeyName(n) => n.clone(),
            ExprKind::Literal(crate::value::Value::String(s)) => s.clone(),
            _ => continue,
        };
        prefix.push(name);
        out.push((prefix.clone(), k.range.location()));
        object_items(v, prefix, out);
        prefix.pop();
    }
}

/// For provenance: where each `values` attribute of `files` is defined and what it reads.
/// Files that do not parse are left out (evaluating them reports the error).
pub fn value_origins(files: &[(String, String)]) -> BTreeMap<String, ValueOrigin> {
    let mut out = BTreeMap::new();
    for (file, text) in files {
        let Ok(body) = parse_file(text, file) else {
            continue;
        };
        for b in body.blocks.iter().filter(|b| b.kind == VALUES) {
            for a in &b.body.attributes {
                let mut references = Vec::new();
                for (root, _, steps) in a.expr.variables() {
                    if let Some(Step::Attr(name, _)) = steps.first() {
                        let r = format!("{root}.{name}");
                        if !references.contains(&r) {
                            references.push(r);
                        }
                    }
                }
                let mut items = Vec::new();
                object_items(&a.expr, &mut Vec::new(), &mut items);
                out.insert(
                    a.name.clone(),
                    ValueOrigin {
                        location: a.range.location(),
                        references,
                        items,
                    },
                );
            }
        }
    }
    out
}

/// `HCLRender` over `(file name, text)` pairs, in order: the values map, or helmfile's
/// error text.
pub fn render(files: &[(String, String)]) -> Result<BTreeMap<Str, GoValue>, HclError> {
    let mut values: BTreeMap<String, Vec<Def>> = BTreeMap::new();
    let mut locals_by_file: Vec<(String, BTreeMap<String, Vec<Def>>, bool)> = Vec::new();
    for (file, text) in files {
        let body = parse_file(text, file)?;
        check_schema(&body)?;
        let locals_blocks: Vec<_> = body.blocks.iter().filter(|b| b.kind == LOCALS).collect();
        if locals_blocks.len() > 1 {
            let first = &body.blocks[0];
            return Err(Diag::new(
                "A file can only support exactly 1 `locals` block",
                "",
                &first.def_range,
            )
            .into());
        }
        let mut file_locals: BTreeMap<String, Vec<Def>> = BTreeMap::new();
        let mut has_locals = false;
        for b in &body.blocks {
            let attrs = just_attributes(&b.body)?;
            let target = if b.kind == VALUES {
                &mut values
            } else {
                has_locals = true;
                &mut file_locals
            };
            for a in attrs {
                target.entry(a.name.clone()).or_default().push(Def {
                    expr: a.expr.clone(),
                    range: a.range.clone(),
                    file: file.clone(),
                });
            }
        }
        locals_by_file.push((file.clone(), file_locals, has_locals));
    }
    let mut locals: BTreeMap<String, Option<Value>> = BTreeMap::new();
    for (file, defs, has) in &locals_by_file {
        let groups = plan(defs, LOCALS)?;
        let evaluated = evaluate(defs, &groups, LOCALS, &BTreeMap::new())?;
        let v = if *has && !evaluated.is_empty() {
            Some(Value::Object(evaluated))
        } else {
            None
        };
        locals.insert(file.clone(), v);
    }
    let groups = plan(&values, VALUES)?;
    let result = evaluate(&values, &groups, VALUES, &locals)?;
    if result.is_empty() {
        return Err("panic: unknown type implementation".into());
    }
    Ok(result
        .iter()
        .map(|(k, v)| (Str::from(k.as_str()), to_go(v)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A map (or object) named in two files keeps the keys of both (helmfile's
    /// `ctyMergeValues`), the later file winning per key.
    #[test]
    fn maps_and_objects_of_one_name_merge_across_files() {
        for (a, b) in [
            (
                "zipmap([\"x\", \"y\"], [\"1\", \"a\"])",
                "zipmap([\"z\", \"y\"], [\"2\", \"b\"])",
            ),
            ("{x = \"1\", y = \"a\"}", "{z = \"2\", y = \"b\"}"),
        ] {
            let files = vec![
                ("a.hcl".to_string(), format!("values {{\n  m = {a}\n}}\n")),
                ("b.hcl".to_string(), format!("values {{\n  m = {b}\n}}\n")),
            ];
            let got = render(&files).expect("renders");
            let m = got.get("m").expect("m").to_string();
            assert_eq!(m, "map[x:1 y:b z:2]", "{a} + {b}");
        }
    }
}
