//! The parse tree of a template, and the `String()` forms Go prints in error contexts
//! (`executing "tpl" at <.name.x>`).

use std::fmt;

/// A numeric constant as Go's parser classifies it.
#[derive(Clone, Debug)]
pub struct Number {
    pub text: String,
    pub is_int: bool,
    pub is_uint: bool,
    pub is_float: bool,
    pub int: i64,
    pub uint: u64,
    pub float: f64,
    /// An imaginary constant (`2i`): its imaginary part (the real part is 0).
    pub imag: Option<f64>,
}

/// Names joined by dots (`a.b`, `$x.a.b`), in one string: a template holds thousands
/// of these, mostly one to three names long. No name is empty or holds a dot.
#[derive(Clone, Debug)]
pub struct Names(Box<str>);

impl Names {
    /// The names of `parts`, in order.
    pub(crate) fn joined<'a>(parts: impl IntoIterator<Item = &'a str>) -> Names {
        let mut out = String::new();
        for (i, p) in parts.into_iter().enumerate() {
            if i > 0 {
                out.push('.');
            }
            out.push_str(p);
        }
        Names(out.into_boxed_str())
    }

    /// The names joined by dots ("" for none).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The names in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.split('.').filter(|n| !n.is_empty())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The first name and the others joined ("" when it is alone).
    pub fn split_first(&self) -> (&str, &str) {
        self.0.split_once('.').unwrap_or((&self.0, ""))
    }
}

#[derive(Clone, Debug)]
pub enum Arg {
    /// `.a.b`
    Field {
        pos: usize,
        idents: Names,
    },
    /// `$x.a.b` (the first name is the variable's, with its `$`).
    Variable {
        pos: usize,
        idents: Names,
    },
    /// `(pipe).a.b` or `fn.a`
    Chain {
        pos: usize,
        node: Box<Arg>,
        fields: Names,
    },
    Dot(usize),
    Nil(usize),
    Bool(usize, bool),
    /// Boxed: a number is rare, and inline it would make every argument 72 bytes larger.
    Number(usize, Box<Number>),
    /// The quoted source text and the unquoted value.
    Str {
        pos: usize,
        quoted: Box<str>,
        text: capstan_value::Str,
    },
    /// A function name, resolved in the set's function map at parse time.
    Ident {
        pos: usize,
        name: String,
        func: Option<crate::Func>,
    },
    Pipe(Box<Pipe>),
}

impl Arg {
    pub fn pos(&self) -> usize {
        match self {
            Arg::Field { pos, .. }
            | Arg::Variable { pos, .. }
            | Arg::Chain { pos, .. }
            | Arg::Dot(pos)
            | Arg::Nil(pos)
            | Arg::Bool(pos, _)
            | Arg::Number(pos, _)
            | Arg::Str { pos, .. }
            | Arg::Ident { pos, .. } => *pos,
            Arg::Pipe(p) => p.pos,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Command {
    pub pos: usize,
    pub args: Vec<Arg>,
}

#[derive(Clone, Debug)]
pub struct Pipe {
    pub pos: usize,
    pub is_assign: bool,
    pub decl: Vec<std::sync::Arc<str>>,
    pub cmds: Vec<Command>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    If,
    Range,
    With,
}

#[derive(Clone, Debug)]
pub enum Node {
    Text(String),
    Action {
        pipe: Pipe,
    },
    Control {
        kind: Control,
        pipe: Box<Pipe>,
        list: Vec<Node>,
        else_list: Option<Vec<Node>>,
    },
    Template {
        pos: usize,
        name: String,
        pipe: Option<Box<Pipe>>,
    },
    Break,
    Continue,
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Field { idents, .. } => {
                for i in idents.iter() {
                    write!(f, ".{i}")?;
                }
                Ok(())
            }
            Arg::Variable { idents, .. } => f.write_str(idents.as_str()),
            Arg::Chain { node, fields, .. } => {
                if let Arg::Pipe(_) = **node {
                    write!(f, "({node})")?;
                } else {
                    write!(f, "{node}")?;
                }
                for x in fields.iter() {
                    write!(f, ".{x}")?;
                }
                Ok(())
            }
            Arg::Dot(_) => f.write_str("."),
            Arg::Nil(_) => f.write_str("nil"),
            Arg::Bool(_, b) => write!(f, "{b}"),
            Arg::Number(_, n) => f.write_str(&n.text),
            Arg::Str { quoted, .. } => f.write_str(quoted),
            Arg::Ident { name, .. } => f.write_str(name),
            Arg::Pipe(p) => write!(f, "{p}"),
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if let Arg::Pipe(p) = a {
                write!(f, "({p})")?;
            } else {
                write!(f, "{a}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.decl.is_empty() {
            let names: Vec<&str> = self.decl.iter().map(|d| &**d).collect();
            f.write_str(&names.join(", "))?;
            f.write_str(if self.is_assign { " = " } else { " := " })?;
        }
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl Node {
    /// Go's `String()` of an action-like node, used as the error context.
    pub fn context(&self) -> String {
        match self {
            Node::Template { name, pipe, .. } => match pipe {
                Some(p) => format!(
                    "{{{{template {} {}}}}}",
                    capstan_gocompat::quote::go_quote(name),
                    p
                ),
                None => format!(
                    "{{{{template {}}}}}",
                    capstan_gocompat::quote::go_quote(name)
                ),
            },
            Node::Action { pipe, .. } => format!("{{{{{pipe}}}}}"),
            Node::Break => "{{break}}".into(),
            Node::Continue => "{{continue}}".into(),
            Node::Text(t) => t.clone(),
            Node::Control { kind, pipe, .. } => {
                let k = match kind {
                    Control::If => "if",
                    Control::Range => "range",
                    Control::With => "with",
                };
                format!("{{{{{k} {pipe}}}}}")
            }
        }
    }
}

#[cfg(test)]
mod size_tests {
    /// A chart's templates make hundreds of thousands of these: what is rare (numbers,
    /// a resolved function, a control's pipeline) is boxed so that it does not widen
    /// every one of them.
    #[test]
    fn arguments_and_nodes_stay_small() {
        assert!(std::mem::size_of::<super::Arg>() <= 48);
        assert!(std::mem::size_of::<super::Node>() <= 72);
    }
}

#[cfg(test)]
mod tests {
    use super::Names;

    #[test]
    fn names_join_split_and_iterate() {
        let n = Names::joined(["$x", "a", "b"]);
        assert_eq!(n.as_str(), "$x.a.b");
        assert_eq!(n.iter().collect::<Vec<_>>(), ["$x", "a", "b"]);
        assert_eq!(n.split_first(), ("$x", "a.b"));
        let one = Names::joined(["Values"]);
        assert_eq!(one.split_first(), ("Values", ""));
        assert_eq!(one.iter().count(), 1);
        let none = Names::joined([]);
        assert!(none.is_empty());
        assert_eq!(none.iter().count(), 0);
        assert_eq!(none.split_first(), ("", ""));
    }
}
