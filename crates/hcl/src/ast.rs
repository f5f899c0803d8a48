//! The syntax tree of HCL's native syntax: bodies of attributes and blocks, and
//! expressions with their source ranges.

use crate::diag::Range;
use crate::value::Value;

#[derive(Clone, Debug)]
pub struct Body {
    pub attributes: Vec<Attribute>,
    pub blocks: Vec<Block>,
}

#[derive(Clone, Debug)]
pub struct Attribute {
    pub name: String,
    pub name_range: Range,
    pub expr: Expr,
    /// From the name to the end of the expression.
    pub range: Range,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub kind: String,
    pub kind_range: Range,
    pub labels: Vec<(String, Range)>,
    pub body: Body,
    /// The type and labels (HCL's `DefRange`).
    pub def_range: Range,
}

/// One step after a variable or expression: `.name`, `[key]`, or a legacy `.0`.
#[derive(Clone, Debug)]
pub enum Step {
    Attr(String, Range),
    Index(Box<Expr>, Range),
}

/// A part of a template: literal text, an interpolation, or a directive.
#[derive(Clone, Debug)]
pub enum TemplatePart {
    Literal(String, Range),
    Interp(Expr),
    If {
        cond: Expr,
        then: Vec<TemplatePart>,
        otherwise: Vec<TemplatePart>,
    },
    For {
        key: Option<String>,
        value: String,
        collection: Expr,
        body: Vec<TemplatePart>,
    },
}

#[derive(Clone, Debug, Copy, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Literal(Value),
    Template(Vec<TemplatePart>),
    /// A variable with steps (`hv.a.b[0]`).
    Traversal {
        root: String,
        root_range: Range,
        steps: Vec<Step>,
    },
    /// Steps applied to the result of an expression (`(x).a`, `f()[0]`).
    Relative {
        source: Box<Expr>,
        steps: Vec<Step>,
    },
    Call {
        name: String,
        name_range: Range,
        open_range: Range,
        close_range: Range,
        args: Vec<Expr>,
        expand_final: bool,
    },
    Conditional {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Tuple {
        items: Vec<Expr>,
        open_range: Range,
    },
    Object {
        items: Vec<(Expr, Expr)>,
        open_range: Range,
    },
    /// An object key written as a bare name (`{ a = 1 }`).
    ObjectKeyName(String),
    For {
        key_var: Option<String>,
        value_var: String,
        collection: Box<Expr>,
        key: Option<Box<Expr>>,
        value: Box<Expr>,
        cond: Option<Box<Expr>>,
        group: bool,
        open_range: Range,
    },
    Splat {
        source: Box<Expr>,
        steps: Vec<Step>,
    },
    Parens(Box<Expr>),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub range: Range,
}

impl Expr {
    /// HCL's `StartRange`: where an error about the expression as a whole points.
    pub(crate) fn start_range(&self) -> Range {
        match &self.kind {
            ExprKind::Tuple { open_range, .. }
            | ExprKind::Object { open_range, .. }
            | ExprKind::For { open_range, .. } => open_range.clone(),
            ExprKind::Template(parts) => match parts.first() {
                Some(TemplatePart::Literal(_, r)) if parts.len() == 1 => r.clone(),
                _ => self.range.clone(),
            },
            ExprKind::Call { name_range, .. } => name_range.clone(),
            ExprKind::Traversal { root_range, .. } => root_range.clone(),
            _ => self.range.clone(),
        }
    }

    /// The variables the expression reads (HCL's `Variables()`): root names with their
    /// steps, leaving out names bound by `for` expressions and directives.
    pub fn variables(&self) -> Vec<(String, Range, Vec<Step>)> {
        let mut out = Vec::new();
        collect_vars(self, &mut Vec::new(), &mut out);
        out
    }
}

fn collect_parts(
    parts: &[TemplatePart],
    bound: &mut Vec<String>,
    out: &mut Vec<(String, Range, Vec<Step>)>,
) {
    for p in parts {
        match p {
            TemplatePart::Literal(..) => {}
            TemplatePart::Interp(e) => collect_vars(e, bound, out),
            TemplatePart::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                collect_vars(cond, bound, out);
                collect_parts(then, bound, out);
                collect_parts(otherwise, bound, out);
            }
            TemplatePart::For {
                key,
                value,
                collection,
                body,
                ..
            } => {
                collect_vars(collection, bound, out);
                let n = bound.len();
                bound.extend(key.iter().cloned());
                bound.push(value.clone());
                collect_parts(body, bound, out);
                bound.truncate(n);
            }
        }
    }
}

fn collect_steps(
    steps: &[Step],
    bound: &mut Vec<String>,
    out: &mut Vec<(String, Range, Vec<Step>)>,
) {
    for s in steps {
        if let Step::Index(e, _) = s {
            collect_vars(e, bound, out);
        }
    }
}

fn collect_vars(e: &Expr, bound: &mut Vec<String>, out: &mut Vec<(String, Range, Vec<Step>)>) {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::ObjectKeyName(_) => {}
        ExprKind::Template(parts) => collect_parts(parts, bound, out),
        ExprKind::Traversal {
            root,
            root_range,
            steps,
        } => {
            if !bound.contains(root) {
                let static_steps: Vec<Step> = steps
                    .iter()
                    .take_while(|s| match s {
                        Step::Attr(..) => true,
                        Step::Index(ix, _) => matches!(ix.kind, ExprKind::Literal(_)),
                    })
                    .cloned()
                    .collect();
                out.push((root.clone(), root_range.clone(), static_steps));
            }
            collect_steps(steps, bound, out);
        }
        ExprKind::Relative { source, steps } | ExprKind::Splat { source, steps, .. } => {
            collect_vars(source, bound, out);
            collect_steps(steps, bound, out);
        }
        ExprKind::Call { args, .. } => {
            for a in args {
                collect_vars(a, bound, out);
            }
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            collect_vars(cond, bound, out);
            collect_vars(then, bound, out);
            collect_vars(otherwise, bound, out);
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            collect_vars(lhs, bound, out);
            collect_vars(rhs, bound, out);
        }
        ExprKind::Not(x) | ExprKind::Neg(x) | ExprKind::Parens(x) => collect_vars(x, bound, out),
        ExprKind::Tuple { items, .. } => {
            for i in items {
                collect_vars(i, bound, out);
            }
        }
        ExprKind::Object { items, .. } => {
            for (k, v) in items {
                collect_vars(k, bound, out);
                collect_vars(v, bound, out);
            }
        }
        ExprKind::For {
            key_var,
            value_var,
            collection,
            key,
            value,
            cond,
            ..
        } => {
            collect_vars(collection, bound, out);
            let n = bound.len();
            bound.extend(key_var.iter().cloned());
            bound.push(value_var.clone());
            for x in key.iter().chain(std::iter::once(value)).chain(cond.iter()) {
                collect_vars(x, bound, out);
            }
            bound.truncate(n);
        }
    }
}
