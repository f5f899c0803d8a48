//! Execution of parsed templates: walking the tree, evaluating pipelines, fields,
//! variables and function calls with Go's semantics and error texts
//! (`template: NAME:LINE:COL: executing "NAME" at <NODE>: MSG`).

use crate::ast::{Arg, Command, Control, Node, Number, Pipe};
use crate::{CallCtx, MissingKey, TemplateDef, Templates, Ty};
use capstan_gocompat::quote::go_quote;
use capstan_value::{Elem, Value};
use std::fmt;
use std::sync::Arc;

mod error;
pub use error::{ExecCause, ExecError, ExecLocation, Executing};

/// The name of the root variable, shared.
fn dollar() -> Arc<str> {
    static D: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    D.get_or_init(|| Arc::from("$")).clone()
}

/// Go's limit on nested template calls.
const MAX_DEPTH: usize = 100_000;

/// A value during evaluation: `None` is Go's invalid `reflect.Value` (a missing key under
/// `missingkey=default`, or a nil interface after a pipeline stage).
type EV = Option<Value>;

enum Flow {
    Normal,
    Break,
    Continue,
}

struct State<'a> {
    set: &'a Templates,
    def: Arc<TemplateDef>,
    name: String,
    vars: Vec<(Arc<str>, EV)>,
    depth: usize,
    /// Nodes walked so far, checked against the set's `step_limit`.
    steps: u64,
}

pub fn execute(
    set: &Templates,
    name: &str,
    data: &Value,
    out: &mut String,
    depth: usize,
) -> Result<(), ExecError> {
    let Some(def) = set.lookup(name) else {
        let root = if set.root_name.is_empty() {
            name
        } else {
            set.root_name.as_str()
        };
        return Err(ExecError::new(format!(
            "template: no template {} associated with template {}",
            go_quote(name),
            go_quote(root)
        )));
    };
    let def = def.clone();
    execute_def(set, name, &def, data, out, depth)
}

/// Executes one parsed tree as template `name` of `set`.
pub(crate) fn execute_def(
    set: &Templates,
    name: &str,
    def: &Arc<TemplateDef>,
    data: &Value,
    out: &mut String,
    depth: usize,
) -> Result<(), ExecError> {
    if depth > MAX_DEPTH {
        return Err(ExecError::new(format!(
            "template: exceeded maximum template depth ({MAX_DEPTH})"
        )));
    }
    let mut st = State {
        set,
        def: def.clone(),
        name: name.to_string(),
        vars: vec![(dollar(), Some(data.clone()))],
        depth,
        steps: 0,
    };
    let def = def.clone();
    st.walk(&Some(data.clone()), &def.root, out)?;
    Ok(())
}

fn truth(v: &EV) -> bool {
    v.as_ref().is_some_and(Value::is_truthy)
}

/// The value as passed to an `interface {}` parameter.
fn concrete(v: EV) -> Value {
    v.unwrap_or(Value::Nil)
}

/// After each pipeline stage Go digs into `interface {}`: a nil becomes invalid.
fn dig(v: EV) -> EV {
    match v {
        Some(Value::Nil) => None,
        other => other,
    }
}

impl<'a> State<'a> {
    fn location(&self, pos: usize) -> ExecLocation {
        let all = self.def.text.as_str();
        let text = &all[..pos.min(all.len())];
        let line = 1 + text.matches('\n').count();
        let column = match text.rfind('\n') {
            Some(i) => pos - (i + 1),
            None => pos,
        };
        ExecLocation {
            template: self.def.parse_name.clone(),
            line,
            column,
        }
    }

    fn error(&self, pos: usize, context: impl fmt::Display, msg: impl fmt::Display) -> ExecError {
        self.failed(pos, context, ExecCause::Message(msg.to_string()))
    }

    /// Function `function` returned `error` while executing `context`.
    fn call_error(
        &self,
        pos: usize,
        context: impl fmt::Display,
        function: &str,
        error: impl Into<crate::FuncError>,
    ) -> ExecError {
        let cause = ExecCause::Call {
            function: function.to_string(),
            error: error.into(),
        };
        self.failed(pos, context, cause)
    }

    fn failed(&self, pos: usize, context: impl fmt::Display, cause: ExecCause) -> ExecError {
        ExecError {
            at: Some(self.location(pos)),
            executing: Some(Box::new(Executing {
                template: self.name.clone(),
                node: context.to_string(),
            })),
            cause,
        }
    }

    fn walk(&mut self, dot: &EV, nodes: &[Node], out: &mut String) -> Result<Flow, ExecError> {
        // Control structures and template calls nest as deep as the templates do.
        capstan_value::stack::grow(|| self.walk_here(dot, nodes, out))
    }

    fn walk_here(&mut self, dot: &EV, nodes: &[Node], out: &mut String) -> Result<Flow, ExecError> {
        for node in nodes {
            match self.walk_node(dot, node, out)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn step(&mut self) -> Result<(), ExecError> {
        if let Some(limit) = self.set.step_limit {
            self.steps += 1;
            if self.steps > limit {
                return Err(ExecError::new(format!(
                    "template: execution exceeded the step limit ({limit})"
                )));
            }
        }
        Ok(())
    }

    fn walk_node(&mut self, dot: &EV, node: &Node, out: &mut String) -> Result<Flow, ExecError> {
        self.step()?;
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Action { pipe, .. } => {
                let v = self.eval_pipeline(dot, pipe)?;
                if pipe.decl.is_empty() {
                    if let Some(Err(c)) = v.as_ref().map(capstan_value::cycles::check) {
                        return Err(self.error(pipe.pos, pipe, c.endless_walk()));
                    }
                    print_value(out, &v);
                    if let Some(limit) = self.set.value_limit.filter(|&l| out.len() > l) {
                        return Err(ExecError::new(format!(
                            "template: output larger than the limit of {limit} bytes"
                        )));
                    }
                }
            }
            Node::Control {
                kind,
                pipe,
                list,
                else_list,
                ..
            } => {
                let mark = self.vars.len();
                let flow = match kind {
                    Control::If | Control::With => {
                        let v = self.eval_pipeline(dot, pipe)?;
                        if truth(&v) {
                            let inner = if *kind == Control::With {
                                v
                            } else {
                                dot.clone()
                            };
                            self.walk(&inner, list, out)?
                        } else if let Some(e) = else_list {
                            self.walk(dot, e, out)?
                        } else {
                            Flow::Normal
                        }
                    }
                    Control::Range => {
                        self.walk_range(dot, pipe, list, else_list.as_deref(), out)?
                    }
                };
                self.vars.truncate(mark);
                if !matches!(flow, Flow::Normal) {
                    return Ok(flow);
                }
            }
            Node::Template { pos, name, pipe } => {
                let Some(def) = self.set.lookup(name).cloned() else {
                    return Err(self.error(
                        *pos,
                        node.context(),
                        format!("template {} not defined", go_quote(name)),
                    ));
                };
                let new_dot = match pipe {
                    Some(p) => self.eval_pipeline(dot, p)?,
                    None => None,
                };
                if self.depth + 1 > MAX_DEPTH {
                    return Err(self.error(
                        *pos,
                        node.context(),
                        format!("exceeded maximum template depth ({MAX_DEPTH})"),
                    ));
                }
                let mut st = State {
                    set: self.set,
                    def: def.clone(),
                    name: name.clone(),
                    vars: vec![(dollar(), new_dot.clone())],
                    depth: self.depth + 1,
                    steps: self.steps,
                };
                let r = st.walk(&new_dot, &def.root, out);
                self.steps = st.steps;
                r?;
            }
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    fn walk_range(
        &mut self,
        dot: &EV,
        pipe: &Pipe,
        list: &[Node],
        else_list: Option<&[Node]>,
        out: &mut String,
    ) -> Result<Flow, ExecError> {
        // Evaluate without declaring: range declares per iteration.
        let val = self.eval_pipeline_raw(dot, pipe)?;
        let mark = self.vars.len();
        let mut ran = false;
        let one =
            |st: &mut Self, key: Value, elem: Value, out: &mut String| -> Result<bool, ExecError> {
                st.step()?;
                st.vars.truncate(mark);
                match pipe.decl.len() {
                    0 => {}
                    1 => st.vars.push((pipe.decl[0].clone(), Some(elem.clone()))),
                    _ => {
                        st.vars.push((pipe.decl[0].clone(), Some(key)));
                        st.vars.push((pipe.decl[1].clone(), Some(elem.clone())));
                    }
                }
                let r = st.walk(&Some(elem), list, out)?;
                Ok(matches!(r, Flow::Break))
            };
        match &val {
            None | Some(Value::Nil) => {}
            Some(Value::List(l)) => {
                for (i, item) in l.items.iter().enumerate() {
                    ran = true;
                    if one(self, Value::Int(i as i64), item.clone(), out)? {
                        break;
                    }
                }
            }
            Some(Value::Map(m)) => {
                // A snapshot: the body may change the map (`set`) while it runs.
                for (k, item) in m.snapshot() {
                    ran = true;
                    if one(self, Value::String(k.clone()), item.clone(), out)? {
                        break;
                    }
                }
            }
            Some(Value::AnyMap(m)) => {
                let mut entries = m.entries.clone();
                entries.sort_by_key(|a| a.0.to_string());
                for (k, item) in entries {
                    ran = true;
                    if one(self, k, item, out)? {
                        break;
                    }
                }
            }
            Some(Value::Int(n)) | Some(Value::Int64(n)) => {
                if pipe.decl.len() > 1 {
                    let (pos, ctx) = last_arg(pipe);
                    return Err(self.error(
                        pos,
                        ctx,
                        format!("can't use {n} to iterate over more than one variable"),
                    ));
                }
                for i in 0..*n {
                    ran = true;
                    let iv = if matches!(val, Some(Value::Int64(_))) {
                        Value::Int64(i)
                    } else {
                        Value::Int(i)
                    };
                    if one(self, iv.clone(), iv, out)? {
                        break;
                    }
                }
            }
            Some(Value::Host(h)) if h.entries().is_some() => {
                for (k, item) in h.entries().unwrap_or_default() {
                    ran = true;
                    if one(self, k, item, out)? {
                        break;
                    }
                }
            }
            Some(Value::Bytes(b)) => {
                for (i, x) in b.iter().enumerate() {
                    ran = true;
                    if one(self, Value::Int(i as i64), Value::Int(*x as i64), out)? {
                        break;
                    }
                }
            }
            Some(other) => {
                let (pos, ctx) = last_arg(pipe);
                return Err(self.error(pos, ctx, format!("range can't iterate over {other}")));
            }
        }
        self.vars.truncate(mark);
        if !ran {
            if let Some(e) = else_list {
                return self.walk(dot, e, out);
            }
        }
        Ok(Flow::Normal)
    }

    fn eval_pipeline(&mut self, dot: &EV, pipe: &Pipe) -> Result<EV, ExecError> {
        let v = self.eval_pipeline_raw(dot, pipe)?;
        for name in &pipe.decl {
            if pipe.is_assign {
                match self.vars.iter_mut().rev().find(|(n, _)| n == name) {
                    Some(slot) => slot.1 = v.clone(),
                    None => {
                        let (pos, ctx) = last_arg(pipe);
                        return Err(self.error(pos, ctx, format!("undefined variable: {name}")));
                    }
                }
            } else {
                self.vars.push((name.clone(), v.clone()));
            }
        }
        Ok(v)
    }

    fn eval_pipeline_raw(&mut self, dot: &EV, pipe: &Pipe) -> Result<EV, ExecError> {
        let mut value: Option<EV> = None;
        for cmd in &pipe.cmds {
            let v = self.eval_command(dot, cmd, value.take())?;
            value = Some(dig(v));
        }
        Ok(value.flatten())
    }

    fn not_a_function(&self, cmd: &Command, final_: &Option<EV>) -> Result<(), ExecError> {
        if cmd.args.len() > 1 || final_.is_some() {
            let a = &cmd.args[0];
            return Err(self.error(
                a.pos(),
                a,
                format!("can't give argument to non-function {a}"),
            ));
        }
        Ok(())
    }

    fn eval_command(
        &mut self,
        dot: &EV,
        cmd: &Command,
        final_: Option<EV>,
    ) -> Result<EV, ExecError> {
        let first = &cmd.args[0];
        match first {
            Arg::Field { pos, idents } => {
                let recv = dot.clone();
                let names = idents.as_str();
                self.eval_field_chain(dot, recv, true, first, *pos, names, &cmd.args, final_)
            }
            Arg::Chain { pos, node, fields } => {
                let recv = self.eval_arg_value(dot, node)?;
                let from_iface = matches!(**node, Arg::Field { .. } | Arg::Variable { .. });
                self.eval_field_chain(
                    dot,
                    recv,
                    from_iface,
                    first,
                    *pos,
                    fields.as_str(),
                    &cmd.args,
                    final_,
                )
            }
            Arg::Variable { pos, idents } => {
                let (name, rest) = idents.split_first();
                let v = self.var_value(name, *pos, first)?;
                if rest.is_empty() {
                    self.not_a_function(cmd, &final_)?;
                    return Ok(v);
                }
                self.eval_field_chain(dot, v, false, first, *pos, rest, &cmd.args, final_)
            }
            Arg::Ident { pos, name, .. } => self.eval_function(dot, *pos, name, cmd, final_),
            Arg::Pipe(p) => {
                self.not_a_function(cmd, &final_)?;
                self.eval_pipeline(dot, p)
            }
            Arg::Bool(_, b) => {
                self.not_a_function(cmd, &final_)?;
                Ok(Some(Value::Bool(*b)))
            }
            Arg::Dot(_) => {
                self.not_a_function(cmd, &final_)?;
                Ok(dot.clone())
            }
            Arg::Nil(pos) => {
                self.not_a_function(cmd, &final_)?;
                Err(self.error(*pos, first, "nil is not a command"))
            }
            Arg::Number(pos, n) => {
                self.not_a_function(cmd, &final_)?;
                self.ideal_constant(*pos, first, n).map(Some)
            }
            Arg::Str { text, .. } => {
                self.not_a_function(cmd, &final_)?;
                Ok(Some(Value::String(text.clone())))
            }
        }
    }

    fn ideal_constant(&self, pos: usize, node: &Arg, n: &Number) -> Result<Value, ExecError> {
        if let Some(imag) = n.imag {
            return Ok(Value::Host(std::sync::Arc::new(crate::builtins::Complex(
                0.0, imag,
            ))));
        }
        let t = &n.text;
        let is_hex_int = t.len() > 2
            && t.starts_with('0')
            && (t.as_bytes()[1] | 0x20) == b'x'
            && !t.contains(['p', 'P']);
        let is_rune = t.starts_with('\'');
        if n.is_float && !is_hex_int && !is_rune && t.contains(['.', 'e', 'E', 'p', 'P']) {
            return Ok(Value::Float64(n.float));
        }
        if n.is_int {
            return Ok(Value::Int(n.int));
        }
        if n.is_uint {
            return Err(self.error(pos, node, format!("{t} overflows int")));
        }
        Ok(Value::Nil)
    }

    fn var_value(&self, name: &str, pos: usize, node: &Arg) -> Result<EV, ExecError> {
        match self.vars.iter().rev().find(|(n, _)| &**n == name) {
            Some((_, v)) => Ok(v.clone()),
            None => Err(self.error(pos, node, format!("undefined variable: {name}"))),
        }
    }

    /// Evaluates an argument for an `interface {}` parameter.
    fn eval_arg_value(&mut self, dot: &EV, a: &Arg) -> Result<EV, ExecError> {
        match a {
            Arg::Field { pos, idents } => {
                let names = idents.as_str();
                self.eval_field_chain(dot, dot.clone(), true, a, *pos, names, &[], None)
            }
            Arg::Variable { pos, idents } => {
                let (name, rest) = idents.split_first();
                let v = self.var_value(name, *pos, a)?;
                if rest.is_empty() {
                    return Ok(v);
                }
                self.eval_field_chain(dot, v, false, a, *pos, rest, &[], None)
            }
            Arg::Chain { pos, node, fields } => {
                let recv = self.eval_arg_value(dot, node)?;
                let from_iface = matches!(**node, Arg::Field { .. } | Arg::Variable { .. });
                let names = fields.as_str();
                self.eval_field_chain(dot, recv, from_iface, a, *pos, names, &[], None)
            }
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => Ok(Some(Value::Nil)),
            Arg::Bool(_, b) => Ok(Some(Value::Bool(*b))),
            Arg::Number(pos, n) => self.ideal_constant(*pos, a, n).map(Some),
            Arg::Str { text, .. } => Ok(Some(Value::String(text.clone()))),
            Arg::Ident { pos, name, .. } => {
                let cmd = Command {
                    pos: *pos,
                    args: vec![a.clone()],
                };
                self.eval_function(dot, *pos, name, &cmd, None)
            }
            Arg::Pipe(p) => self.eval_pipeline(dot, p),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn eval_field_chain(
        &mut self,
        dot: &EV,
        mut recv: EV,
        mut from_iface: bool,
        node: &Arg,
        pos: usize,
        names: &str,
        args: &[Arg],
        final_: Option<EV>,
    ) -> Result<EV, ExecError> {
        // `names` joined by dots, "" for none (a plain byte loop: `split` and `peekable`
        // cost several times as much on names this short, for every field evaluated).
        let mut rest = names;
        while !rest.is_empty() {
            let (name, last) = match rest.bytes().position(|b| b == b'.') {
                Some(i) => {
                    let name = &rest[..i];
                    rest = &rest[i + 1..];
                    (name, false)
                }
                None => (std::mem::take(&mut rest), true),
            };
            let (a, f) = if last {
                (args, final_.clone())
            } else {
                (&[][..], None)
            };
            recv = self.eval_field(dot, name, node, pos, a, f, recv, from_iface)?;
            from_iface = true;
        }
        Ok(recv)
    }

    #[allow(clippy::too_many_arguments)]
    fn eval_field(
        &mut self,
        dot: &EV,
        name: &str,
        node: &Arg,
        pos: usize,
        args: &[Arg],
        final_: Option<EV>,
        recv: EV,
        from_iface: bool,
    ) -> Result<EV, ExecError> {
        let has_args = args.len() > 1 || final_.is_some();
        let Some(recv) = recv else {
            if self.set.missing_key == MissingKey::Error {
                return Err(self.error(
                    pos,
                    node,
                    format!("nil data; no entry for key {}", go_quote(name)),
                ));
            }
            return Ok(None);
        };
        let lookup = |m: Option<&Value>| -> Result<EV, ExecError> {
            match m {
                Some(v) => Ok(Some(v.clone())),
                None => match self.set.missing_key {
                    MissingKey::Default => Ok(None),
                    MissingKey::Zero => Ok(Some(Value::Nil)),
                    MissingKey::Error => Err(self.error(
                        pos,
                        node,
                        format!("map has no entry for key {}", go_quote(name)),
                    )),
                },
            }
        };
        match &recv {
            Value::Map(m) => {
                if has_args {
                    return Err(self.error(
                        pos,
                        node,
                        format!("{name} is not a method but has arguments"),
                    ));
                }
                lookup(m.get(name).as_ref())
            }
            Value::AnyMap(m) => {
                if has_args {
                    return Err(self.error(
                        pos,
                        node,
                        format!("{name} is not a method but has arguments"),
                    ));
                }
                lookup(
                    m.entries
                        .iter()
                        .find(|(k, _)| k.as_str() == Some(name))
                        .map(|(_, v)| v),
                )
            }
            Value::Host(h) => {
                if !has_args {
                    if let Some(v) = h.field(name) {
                        return Ok(Some(v));
                    }
                }
                let mut argv = Vec::new();
                if has_args {
                    for a in args.iter().skip(1) {
                        argv.push(concrete(self.eval_arg_value(dot, a)?));
                    }
                    if let Some(f) = final_ {
                        argv.push(concrete(f));
                    }
                }
                match h.call(name, &argv) {
                    Some(Ok(v)) => Ok(Some(v)),
                    Some(Err(e)) => Err(self.call_error(pos, node, name, e.to_string())),
                    None => Err(self.error(
                        pos,
                        node,
                        format!("can't evaluate field {name} in type {}", h.type_name()),
                    )),
                }
            }
            // A nil map value is seen through `interface {}` whatever its origin.
            Value::Nil => Err(self.error(
                pos,
                node,
                format!("nil pointer evaluating interface {{}}.{name}"),
            )),
            other => {
                let ty = if from_iface {
                    "interface {}".to_string()
                } else {
                    other.type_name()
                };
                Err(self.error(
                    pos,
                    node,
                    format!("can't evaluate field {name} in type {ty}"),
                ))
            }
        }
    }

    fn eval_function(
        &mut self,
        dot: &EV,
        pos: usize,
        name: &str,
        cmd: &Command,
        final_: Option<EV>,
    ) -> Result<EV, ExecError> {
        let ident = &cmd.args[0];
        let args = &cmd.args[1..];
        // and/or evaluate their arguments lazily.
        if name == "and" || name == "or" {
            let total = args.len() + usize::from(final_.is_some());
            if total == 0 {
                return Err(self.error(
                    pos,
                    ident,
                    format!("wrong number of args for {name}: want at least 1 got 0"),
                ));
            }
            let mut v: EV = None;
            for a in args {
                v = self.eval_arg_value(dot, a)?;
                let t = truth(&v);
                if (name == "and" && !t) || (name == "or" && t) {
                    return Ok(Some(concrete(v)));
                }
            }
            if let Some(f) = final_ {
                v = f;
            }
            return Ok(Some(concrete(v)));
        }
        if name == "call" && !args.is_empty() {
            // Go passes the callee's source text along to report "non-function X".
            let callee = self.eval_arg_value(dot, &args[0])?;
            return match callee {
                None | Some(Value::Nil) => {
                    Err(self.call_error(cmd.pos, cmd, "call", "call of nil"))
                }
                Some(v) => Err(self.call_error(
                    cmd.pos,
                    cmd,
                    "call",
                    format!("non-function {} of type {}", args[0], v.type_name()),
                )),
            };
        }
        let resolved = match ident {
            Arg::Ident { func: Some(f), .. } => Some(crate::Func::clone(f)),
            _ => self.set.funcs().get(name).cloned(),
        };
        let Some(func) = resolved else {
            return Err(self.error(
                pos,
                ident,
                format!("{} is not a defined function", go_quote(name)),
            ));
        };
        let total = args.len() + usize::from(final_.is_some());
        let fixed = func.params.len();
        if func.variadic.is_some() {
            if total < fixed {
                return Err(self.error(
                    pos,
                    ident,
                    format!("wrong number of args for {name}: want at least {fixed} got {total}"),
                ));
            }
        } else if total != fixed {
            return Err(self.error(
                pos,
                ident,
                format!("wrong number of args for {name}: want {fixed} got {total}"),
            ));
        }
        let mut argv = Vec::with_capacity(total);
        let mut invalid = false;
        for (i, a) in args.iter().enumerate() {
            let ty = if i < fixed {
                func.params[i]
            } else {
                func.variadic.unwrap_or(Ty::Any)
            };
            if func.invalid_arg.is_some() && ty == Ty::Any {
                let v = self.eval_arg_value(dot, a)?;
                invalid |= v.is_none();
                argv.push(concrete(v));
            } else {
                argv.push(self.eval_typed_arg(dot, a, ty)?);
            }
        }
        if let Some(f) = final_ {
            let ty = if total - 1 < fixed {
                func.params[total - 1]
            } else {
                func.variadic.unwrap_or(Ty::Any)
            };
            invalid |= f.is_none();
            let v = concrete(f);
            argv.push(self.check_type(pos, ident, v, ty)?);
        }
        if let (true, Some(message)) = (invalid, func.invalid_arg) {
            return Err(self.call_error(cmd.pos, cmd, name, message));
        }
        let mut interface_args: Vec<bool> = args
            .iter()
            .zip(&argv)
            .map(|(a, v)| {
                let looked_up = match a {
                    Arg::Field { .. } => true,
                    Arg::Variable { idents, .. } => !idents.split_first().1.is_empty(),
                    Arg::Chain { fields, .. } => !fields.is_empty(),
                    _ => false,
                };
                looked_up && !matches!(v, Value::Host(_) | Value::Nil)
            })
            .collect();
        interface_args.resize(argv.len(), false);
        // Arguments are copies: a struct that prints through its address no longer does.
        let argv: Vec<Value> = argv.into_iter().map(Value::as_argument).collect();
        let ctx = CallCtx {
            templates: self.set,
            depth: self.depth,
            interface_args: &interface_args,
        };
        // A function that walks a map containing itself stops with a `Cycle` panic (Go
        // dies there): it becomes this call's error.
        let called =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (func.imp)(&ctx, argv)));
        let result = match called {
            Ok(r) => r,
            Err(payload) => match capstan_value::cycles::as_cycle(payload.as_ref()) {
                Some(c) => return Err(self.call_error(cmd.pos, cmd, name, c.endless_walk())),
                None => std::panic::resume_unwind(payload),
            },
        };
        match result {
            Ok(Value::String(text)) if self.set.value_limit.is_some_and(|l| text.len() > l) => {
                let limit = self.set.value_limit.unwrap_or_default();
                Err(self.call_error(
                    cmd.pos,
                    cmd,
                    name,
                    format!("result larger than the limit of {limit} bytes"),
                ))
            }
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(self.call_error(cmd.pos, cmd, name, e)),
        }
    }

    /// Go's `evalArg` for a parameter of type `ty`.
    fn eval_typed_arg(&mut self, dot: &EV, a: &Arg, ty: Ty) -> Result<Value, ExecError> {
        match (a, ty) {
            (_, Ty::Any) => Ok(concrete(self.eval_arg_value(dot, a)?)),
            (Arg::Number(pos, n), Ty::Int | Ty::Int64) => {
                if n.is_int {
                    Ok(if ty == Ty::Int {
                        Value::Int(n.int)
                    } else {
                        Value::Int64(n.int)
                    })
                } else {
                    Err(self.error(*pos, a, format!("expected integer; found {}", n.text)))
                }
            }
            (Arg::Number(pos, n), Ty::Float64) => {
                if n.is_float {
                    Ok(Value::Float64(n.float))
                } else {
                    Err(self.error(*pos, a, format!("expected float; found {}", n.text)))
                }
            }
            (Arg::Number(pos, n), _) => Err(self.error(
                *pos,
                a,
                format!("expected {}; found {}", short_kind(ty), n.text),
            )),
            (Arg::Str { pos, text, quoted }, t) => {
                if t == Ty::String {
                    Ok(Value::String(text.clone()))
                } else {
                    Err(self.error(
                        *pos,
                        a,
                        format!("expected {}; found {}", short_kind(t), quoted),
                    ))
                }
            }
            (Arg::Bool(pos, b), t) => {
                if t == Ty::Bool {
                    Ok(Value::Bool(*b))
                } else {
                    Err(self.error(*pos, a, format!("expected {}; found {}", short_kind(t), b)))
                }
            }
            (Arg::Nil(pos), t) => {
                if matches!(t, Ty::List | Ty::Map) {
                    Ok(Value::Nil)
                } else {
                    Err(self.error(*pos, a, format!("cannot assign nil to {}", t.go_name())))
                }
            }
            _ => {
                let v = self.eval_arg_value(dot, a)?;
                let v = match v {
                    None => {
                        if matches!(ty, Ty::List | Ty::Map) {
                            return Ok(Value::Nil);
                        }
                        return Err(self.error(
                            a.pos(),
                            a,
                            format!("invalid value; expected {}", ty.go_name()),
                        ));
                    }
                    Some(v) => v,
                };
                self.check_type(a.pos(), a, v, ty)
            }
        }
    }

    fn check_type(
        &self,
        pos: usize,
        node: &dyn fmt::Display,
        v: Value,
        ty: Ty,
    ) -> Result<Value, ExecError> {
        let ok = match (ty, &v) {
            (Ty::Any, _) => true,
            (Ty::String, Value::String(_) | Value::RawString(_)) => true,
            (Ty::Int, Value::Int(_))
            | (Ty::Int64, Value::Int64(_))
            | (Ty::Float64, Value::Float64(_))
            | (Ty::Bool, Value::Bool(_)) => true,
            (Ty::List, Value::List(l)) => l.elem == Elem::Any,
            (Ty::Map, Value::Map(m)) => m.elem == Elem::Any,
            (Ty::Host(name), Value::Host(h)) => h.type_name() == name,
            _ => false,
        };
        if ok {
            return Ok(v);
        }
        if let Value::Nil = v {
            return Err(self.error(
                pos,
                node,
                format!(
                    "wrong type for value; expected {}; got interface {{}}",
                    ty.go_name()
                ),
            ));
        }
        Err(self.error(
            pos,
            node,
            format!(
                "wrong type for value; expected {}; got {}",
                ty.go_name(),
                v.type_name()
            ),
        ))
    }
}

fn short_kind(ty: Ty) -> &'static str {
    match ty {
        Ty::Int | Ty::Int64 => "integer",
        Ty::Float64 => "float",
        Ty::Bool => "bool",
        Ty::String => "string",
        _ => ty.go_name(),
    }
}

/// The node Go last visited in a pipeline (its last command's last argument).
fn last_arg(pipe: &Pipe) -> (usize, String) {
    match pipe.cmds.last() {
        Some(c) if c.args.len() == 1 => (c.args[0].pos(), c.args[0].to_string()),
        Some(c) => (c.pos, c.to_string()),
        None => (pipe.pos, pipe.to_string()),
    }
}

/// Go's `printValue`: invalid prints `<no value>`, everything else as `%v`.
fn print_value(out: &mut String, v: &EV) {
    match v {
        None | Some(Value::Nil) => out.push_str("<no value>"),
        Some(Value::String(s)) => out.push_str(s),
        Some(v) => out.push_str(&v.to_string()),
    }
}
