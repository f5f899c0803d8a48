//! The parser of Go's `text/template`: tokens → trees (the main template and every
//! `define`/`block`), with Go's parse-time checks and error texts
//! (`template: NAME:LINE: msg`).

use crate::ast::{Arg, Command, Control, Names, Node, Number, Pipe};
use crate::lex::{Kind, Lexer, Token};
use capstan_gocompat::strconv::{parse_float, parse_int, parse_uint, unquote, unquote_char};

/// A parse failure: the template and line it names and what is wrong there; its
/// `Display` is Go's message (`template: NAME:LINE: DESCRIPTION`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The template's parse name.
    pub template: String,
    /// 1-based.
    pub line: usize,
    /// Go's text for the failure itself (`unexpected "}" in operand`).
    pub description: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "template: {}:{}: {}",
            self.template, self.line, self.description
        )
    }
}

impl std::error::Error for ParseError {}

/// Callers that report errors as text keep using `?`.
impl From<ParseError> for String {
    fn from(e: ParseError) -> String {
        e.to_string()
    }
}

/// One parsed tree: a template name and its body.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The template's name.
    pub name: String,
    pub(crate) root: Vec<Node>,
}

/// Whether a body counts as empty for redefinition (only whitespace text).
pub(crate) fn is_empty_tree(nodes: &[Node]) -> bool {
    nodes
        .iter()
        .all(|n| matches!(n, Node::Text(t) if t.trim().is_empty()))
}

struct Parser<'a, 's> {
    toks: Vec<Token<'s>>,
    i: usize,
    /// The furthest token read (Go's `token[0]`, the last item taken from the lexer,
    /// peeks included): errors name its line, and a lexical error is reported once the
    /// parser has read that far.
    seen: std::cell::Cell<usize>,
    /// The template text (lines are counted in it for errors).
    src: &'s str,
    /// The lexical error the tokens end with, if any.
    lex_error: Option<crate::lex::LexError>,
    parse_name: String,
    vars: Vec<String>,
    range_depth: usize,
    /// Open parentheses around the current operand (Go stops at [`MAX_PAREN_DEPTH`]).
    paren_depth: usize,
    lookup_func: &'a (dyn Fn(&str) -> Option<crate::Func> + Sync),
    trees: Vec<Tree>,
    /// Work stacks the lists being parsed grow on (nested ones above their parents'),
    /// each list then moved into a vector of exactly its length: most commands have one
    /// or two arguments, most pipelines one command, and vectors grown by pushes kept
    /// room for four (a third of a big chart's parse trees was that room).
    args: Vec<Arg>,
    cmds: Vec<Command>,
    nodes: Vec<Node>,
}

type R<T> = Result<T, ParseError>;

/// Go's limit on nested parenthesized pipelines (`maxStackDepth` in text/template/parse).
const MAX_PAREN_DEPTH: usize = 10_000;

/// Parses `text` as template `name`; returns every tree it defines, the main one first.
pub fn parse(
    name: &str,
    text: &str,
    lookup_func: &(dyn Fn(&str) -> Option<crate::Func> + Sync),
) -> Result<Vec<Tree>, ParseError> {
    let (toks, lex_error) = Lexer::lex(text);
    let mut p = Parser {
        toks,
        src: text,
        lex_error,
        i: 0,
        seen: std::cell::Cell::new(0),
        parse_name: name.to_string(),
        vars: vec!["$".into()],
        range_depth: 0,
        paren_depth: 0,
        lookup_func,
        trees: Vec::new(),
        args: Vec::new(),
        cmds: Vec::new(),
        nodes: Vec::new(),
    };
    let mut root = Vec::new();
    while p.peek().kind != Kind::Eof {
        if p.peek().kind == Kind::LeftDelim {
            let save = p.i;
            p.next();
            if p.peek_non_space().kind == Kind::Keyword && p.peek_non_space().text == "define" {
                p.next_non_space();
                p.definition()?;
                continue;
            }
            p.i = save;
        }
        match p.text_or_action()? {
            Item::Node(n) => root.push(n),
            Item::End => return Err(p.error("unexpected {{end}}")),
            Item::Else => return Err(p.error("unexpected {{else}}")),
        }
    }
    let main = Tree {
        name: name.to_string(),
        root,
    };
    p.add(main)?;
    // The main template goes first.
    let idx = p.trees.iter().position(|t| t.name == name).unwrap_or(0);
    let mut trees = p.trees;
    if idx < trees.len() {
        let main = trees.remove(idx);
        trees.insert(0, main);
    }
    Ok(trees)
}

enum Item {
    Node(Node),
    End,
    /// `{{else}}` (an `if`/`with` right after it is left to the caller).
    Else,
}

fn item_string(t: &Token) -> String {
    match t.kind {
        Kind::Eof => "EOF".into(),
        Kind::Keyword | Kind::Dot | Kind::Nil | Kind::Bool => format!("<{}>", t.text),
        Kind::Space => format!("{:?}", t.text),
        _ if t.text.chars().count() > 10 => {
            let short: String = t.text.chars().take(10).collect();
            format!("{}...", capstan_gocompat::quote::go_quote(&short))
        }
        _ => capstan_gocompat::quote::go_quote(t.text),
    }
}

impl<'a, 's> Parser<'a, 's> {
    fn peek(&self) -> &Token<'s> {
        let at = self.i.min(self.toks.len() - 1);
        if at > self.seen.get() {
            self.seen.set(at);
        }
        &self.toks[at]
    }

    /// The next token; past the end (EOF, or a lexical error) it is read again, and a
    /// backup (`i -= 1`) after it undoes exactly this read.
    fn next(&mut self) -> Token<'s> {
        let t = *self.peek();
        self.i = (self.i + 1).min(self.toks.len());
        t
    }

    fn peek_non_space(&mut self) -> Token<'s> {
        let save = self.i;
        let t = self.next_non_space();
        self.i = save;
        t
    }

    fn next_non_space(&mut self) -> Token<'s> {
        loop {
            let t = self.next();
            if t.kind != Kind::Space {
                return t;
            }
        }
    }

    fn current_line(&self) -> usize {
        crate::lex::line_at(
            self.src,
            self.toks[self.seen.get().min(self.toks.len() - 1)].pos,
        )
    }

    fn error(&self, msg: impl AsRef<str>) -> ParseError {
        // Having read up to a lexical error, that error is what Go reports.
        let at_error = self
            .toks
            .get(self.seen.get())
            .is_some_and(|t| t.kind == Kind::Error);
        if let (true, Some(e)) = (at_error, &self.lex_error) {
            let extra = match e.action_line {
                0 => String::new(),
                a if a == e.line => String::new(),
                a if e.msg.ends_with(" action") => format!(" started at {}:{a}", self.parse_name),
                a => format!(" in action started at {}:{a}", self.parse_name),
            };
            return ParseError {
                template: self.parse_name.clone(),
                line: e.line,
                description: format!("{}{extra}", e.msg),
            };
        }
        let line = self.current_line();
        ParseError {
            template: self.parse_name.clone(),
            line,
            description: msg.as_ref().to_string(),
        }
    }

    fn unexpected(&self, t: &Token, context: &str) -> ParseError {
        if t.kind == Kind::Eof {
            return self.error(format!("unexpected EOF in {context}"));
        }
        self.error(format!("unexpected {} in {context}", item_string(t)))
    }

    fn add(&mut self, tree: Tree) -> R<()> {
        if let Some(existing) = self.trees.iter_mut().find(|t| t.name == tree.name) {
            if is_empty_tree(&existing.root) {
                *existing = tree;
                return Ok(());
            }
            if !is_empty_tree(&tree.root) {
                return Err(self.error(format!(
                    "template: multiple definition of template {}",
                    capstan_gocompat::quote::go_quote(&tree.name)
                )));
            }
            return Ok(());
        }
        self.trees.push(tree);
        Ok(())
    }

    fn definition(&mut self) -> R<()> {
        const CONTEXT: &str = "define clause";
        let t = self.next_non_space();
        if !matches!(t.kind, Kind::Str | Kind::RawStr) {
            return Err(self.unexpected(&t, CONTEXT));
        }
        let name = unquote(t.text).map_err(|e| self.error(e.to_string()))?;
        let t = self.next_non_space();
        if t.kind != Kind::RightDelim {
            return Err(self.unexpected(&t, CONTEXT));
        }
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".into()]);
        let (root, end) = self.item_list()?;
        self.vars = saved_vars;
        if let Item::Else = end {
            return Err(self.error(format!("unexpected {{{{else}}}} in {CONTEXT}")));
        }
        self.add(Tree { name, root })
    }

    fn text_or_action(&mut self) -> R<Item> {
        let t = self.next_non_space();
        match t.kind {
            Kind::Text => Ok(Item::Node(Node::Text(t.text.to_owned()))),
            Kind::LeftDelim => self.action(),
            _ => Err(self.unexpected(&t, "input")),
        }
    }

    /// Items up to `{{end}}` or `{{else}}`.
    fn item_list(&mut self) -> R<(Vec<Node>, Item)> {
        // Control structures nest as deep as the text does.
        capstan_value::stack::grow(|| self.item_list_here())
    }

    fn item_list_here(&mut self) -> R<(Vec<Node>, Item)> {
        let start = self.nodes.len();
        let end = self.items_onto_stack();
        let list: Vec<Node> = self.nodes.drain(start..).collect();
        Ok((list, end?))
    }

    /// Pushes items onto `self.nodes` up to `{{end}}` or `{{else}}`, which it returns.
    fn items_onto_stack(&mut self) -> R<Item> {
        while self.peek_non_space().kind != Kind::Eof {
            match self.text_or_action()? {
                Item::Node(n) => self.nodes.push(n),
                other => return Ok(other),
            }
        }
        Err(self.error("unexpected EOF"))
    }

    fn expect_right_delim(&mut self, context: &str) -> R<()> {
        let t = self.next_non_space();
        if t.kind != Kind::RightDelim {
            return Err(self.unexpected(&t, context));
        }
        Ok(())
    }

    fn action(&mut self) -> R<Item> {
        let t = self.next_non_space();
        if t.kind == Kind::Keyword {
            match t.text {
                "block" => return self.block().map(Item::Node),
                "break" | "continue" => {
                    self.expect_right_delim(&format!("{{{{{}}}}}", t.text))?;
                    if self.range_depth == 0 {
                        return Err(self.error(format!("{{{{{}}}}} outside {{{{range}}}}", t.text)));
                    }
                    return Ok(Item::Node(if t.text == "break" {
                        Node::Break
                    } else {
                        Node::Continue
                    }));
                }
                "else" => {
                    let p = self.peek_non_space();
                    if p.kind == Kind::Keyword && (p.text == "if" || p.text == "with") {
                        return Ok(Item::Else);
                    }
                    self.expect_right_delim("else")?;
                    return Ok(Item::Else);
                }
                "end" => {
                    self.expect_right_delim("end")?;
                    return Ok(Item::End);
                }
                "if" => return self.control(Control::If).map(Item::Node),
                "range" => return self.control(Control::Range).map(Item::Node),
                "with" => return self.control(Control::With).map(Item::Node),
                "template" => return self.template().map(Item::Node),
                _ => {}
            }
        }
        self.i -= 1;
        while self.peek().kind == Kind::Space {
            self.i -= 1;
        }
        let pipe = self.pipeline("command", Kind::RightDelim)?;
        Ok(Item::Node(Node::Action { pipe }))
    }

    fn control(&mut self, kind: Control) -> R<Node> {
        let context = match kind {
            Control::If => "if",
            Control::Range => "range",
            Control::With => "with",
        };
        let nvars = self.vars.len();
        let pipe = self.pipeline(context, Kind::RightDelim)?;
        if kind == Control::Range {
            self.range_depth += 1;
        }
        let (list, next) = self.item_list()?;
        if kind == Control::Range {
            self.range_depth -= 1;
        }
        let mut else_list = None;
        if let Item::Else = next {
            let p = self.peek_non_space();
            if kind == Control::If && p.kind == Kind::Keyword && p.text == "if" {
                self.next_non_space();
                else_list = Some(vec![self.control(Control::If)?]);
            } else if kind == Control::With && p.kind == Kind::Keyword && p.text == "with" {
                self.next_non_space();
                else_list = Some(vec![self.control(Control::With)?]);
            } else {
                let (l, n) = self.item_list()?;
                if let Item::Else = n {
                    return Err(self.error("expected end; found {{else}}"));
                }
                else_list = Some(l);
            }
        }
        self.vars.truncate(nvars);
        Ok(Node::Control {
            kind,
            pipe: Box::new(pipe),
            list,
            else_list,
        })
    }

    fn template_name(&mut self, t: &Token, context: &str) -> R<String> {
        match t.kind {
            Kind::Str | Kind::RawStr => unquote(t.text).map_err(|e| self.error(e.to_string())),
            _ => Err(self.unexpected(t, context)),
        }
    }

    fn template(&mut self) -> R<Node> {
        const CONTEXT: &str = "template clause";
        let t = self.next_non_space();
        let name = self.template_name(&t, CONTEXT)?;
        let pipe = if self.peek_non_space().kind != Kind::RightDelim {
            Some(self.pipeline(CONTEXT, Kind::RightDelim)?)
        } else {
            self.next_non_space();
            None
        };
        Ok(Node::Template {
            pos: t.pos,
            name,
            pipe: pipe.map(Box::new),
        })
    }

    fn block(&mut self) -> R<Node> {
        const CONTEXT: &str = "block clause";
        let t = self.next_non_space();
        let name = self.template_name(&t, CONTEXT)?;
        let pipe = self.pipeline(CONTEXT, Kind::RightDelim)?;
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".into()]);
        let (root, end) = self.item_list()?;
        self.vars = saved_vars;
        if let Item::Else = end {
            return Err(self.error(format!("unexpected {{{{else}}}} in {CONTEXT}")));
        }
        self.add(Tree {
            name: name.clone(),
            root,
        })?;
        Ok(Node::Template {
            pos: t.pos,
            name,
            pipe: Some(Box::new(pipe)),
        })
    }

    fn pipeline(&mut self, context: &str, end: Kind) -> R<Pipe> {
        let first = self.peek_non_space();
        let mut pipe = Pipe {
            pos: first.pos,
            is_assign: false,
            decl: Vec::new(),
            cmds: Vec::new(),
        };
        let start = self.cmds.len();
        let done = self.pipeline_onto_stack(&mut pipe, context, end);
        pipe.cmds = self.cmds.drain(start..).collect();
        done?;
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args[0],
                Arg::Bool(..) | Arg::Dot(_) | Arg::Nil(_) | Arg::Number(..) | Arg::Str { .. }
            ) {
                return Err(self.error(format!(
                    "non executable command in pipeline stage {}",
                    i + 1
                )));
            }
        }
        Ok(pipe)
    }

    /// The declarations of a pipeline into `pipe`, its commands onto `self.cmds`.
    fn pipeline_onto_stack(&mut self, pipe: &mut Pipe, context: &str, end: Kind) -> R<()> {
        let start = self.cmds.len();
        loop {
            let v = self.peek_non_space();
            if v.kind != Kind::Variable {
                break;
            }
            let save = self.i;
            self.next_non_space();
            let n = self.peek_non_space();
            if n.kind == Kind::Assign || n.kind == Kind::Declare {
                pipe.is_assign = n.kind == Kind::Assign;
                self.next_non_space();
                pipe.decl.push(std::sync::Arc::from(v.text));
                self.vars.push(v.text.to_string());
                break;
            } else if n.kind == Kind::Punct && n.text == "," {
                self.next_non_space();
                pipe.decl.push(std::sync::Arc::from(v.text));
                self.vars.push(v.text.to_string());
                if context == "range" && pipe.decl.len() < 2 {
                    let p = self.peek_non_space();
                    if matches!(p.kind, Kind::Variable | Kind::RightDelim | Kind::RightParen) {
                        continue;
                    }
                    return Err(self.error("range can only initialize variables"));
                }
                return Err(self.error(format!("too many declarations in {context}")));
            } else {
                self.i = save;
                break;
            }
        }
        loop {
            let t = self.next_non_space();
            if t.kind == end {
                if self.cmds.len() == start {
                    return Err(self.error(format!("missing value for {context}")));
                }
                return Ok(());
            }
            match t.kind {
                Kind::Bool
                | Kind::Char
                | Kind::Dot
                | Kind::Field
                | Kind::Identifier
                | Kind::Number
                | Kind::Nil
                | Kind::RawStr
                | Kind::Str
                | Kind::Variable
                | Kind::LeftParen => {
                    self.i -= 1;
                    let c = self.command()?;
                    self.cmds.push(c);
                }
                _ => return Err(self.unexpected(&t, context)),
            }
        }
    }

    fn command(&mut self) -> R<Command> {
        let pos = self.peek_non_space().pos;
        let start = self.args.len();
        let done = self.command_onto_stack();
        let args: Vec<Arg> = self.args.drain(start..).collect();
        done?;
        if args.is_empty() {
            return Err(self.error("empty command"));
        }
        Ok(Command { pos, args })
    }

    /// The operands of a command onto `self.args`.
    fn command_onto_stack(&mut self) -> R<()> {
        loop {
            self.peek_non_space();
            if let Some(op) = self.operand()? {
                self.args.push(op);
            }
            let t = self.next();
            match t.kind {
                Kind::Space => continue,
                Kind::RightDelim | Kind::RightParen => self.i -= 1,
                Kind::Pipe => {}
                _ => return Err(self.unexpected(&t, "operand")),
            }
            return Ok(());
        }
    }

    fn operand(&mut self) -> R<Option<Arg>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek().kind != Kind::Field {
            return Ok(Some(node));
        }
        let chain_pos = self.peek().pos;
        let mut fields = Vec::new();
        while self.peek().kind == Kind::Field {
            fields.push(&self.next().text[1..]);
        }
        Ok(Some(match node {
            Arg::Field { idents, .. } => Arg::Field {
                pos: chain_pos,
                idents: Names::joined(idents.iter().chain(fields)),
            },
            Arg::Variable { idents, .. } => Arg::Variable {
                pos: chain_pos,
                idents: Names::joined(idents.iter().chain(fields)),
            },
            Arg::Bool(..) | Arg::Str { .. } | Arg::Number(..) | Arg::Nil(_) | Arg::Dot(_) => {
                return Err(self.error(format!(
                    "unexpected . after term {}",
                    capstan_gocompat::quote::go_quote(&node.to_string())
                )));
            }
            other => Arg::Chain {
                pos: chain_pos,
                node: Box::new(other),
                fields: Names::joined(fields),
            },
        }))
    }

    fn term(&mut self) -> R<Option<Arg>> {
        let t = self.next_non_space();
        Ok(Some(match t.kind {
            Kind::Identifier => {
                let Some(func) = (self.lookup_func)(t.text) else {
                    return Err(self.error(format!(
                        "function {} not defined",
                        capstan_gocompat::quote::go_quote(t.text)
                    )));
                };
                Arg::Ident {
                    pos: t.pos,
                    name: t.text.to_owned(),
                    func: Some(func),
                }
            }
            Kind::Dot => Arg::Dot(t.pos),
            Kind::Nil => Arg::Nil(t.pos),
            Kind::Variable => {
                if !self.vars.iter().any(|v| *v == *t.text) {
                    return Err(self.error(format!(
                        "undefined variable {}",
                        capstan_gocompat::quote::go_quote(t.text)
                    )));
                }
                Arg::Variable {
                    pos: t.pos,
                    idents: Names::joined([t.text]),
                }
            }
            Kind::Field => Arg::Field {
                pos: t.pos,
                idents: Names::joined([&t.text[1..]]),
            },
            Kind::Bool => Arg::Bool(t.pos, t.text == "true"),
            Kind::Char | Kind::Number => Arg::Number(t.pos, Box::new(self.number(&t)?)),
            Kind::LeftParen => {
                if self.paren_depth >= MAX_PAREN_DEPTH {
                    return Err(self.error("max expression depth exceeded"));
                }
                self.paren_depth += 1;
                let pipe = self.pipeline("parenthesized pipeline", Kind::RightParen);
                self.paren_depth -= 1;
                Arg::Pipe(Box::new(pipe?))
            }
            Kind::Str | Kind::RawStr => {
                let text = unquote(t.text).map_err(|e| self.error(e.to_string()))?;
                Arg::Str {
                    pos: t.pos,
                    quoted: t.text.into(),
                    text: capstan_value::Str::from(text),
                }
            }
            _ => {
                self.i -= 1;
                return Ok(None);
            }
        }))
    }

    fn number(&self, t: &Token) -> R<Number> {
        let text = t.text;
        let mut n = Number {
            text: text.to_string(),
            is_int: false,
            is_uint: false,
            is_float: false,
            int: 0,
            uint: 0,
            float: 0.0,
            imag: None,
        };
        if t.kind == Kind::Char {
            let (c, tail) =
                unquote_char(&text[1..], '\'').map_err(|e| self.error(e.to_string()))?;
            if tail != "'" {
                return Err(self.error(format!("malformed character constant: {text}")));
            }
            n.is_int = true;
            n.is_uint = true;
            n.is_float = true;
            n.int = c as i64;
            n.uint = c as u64;
            n.float = c as u32 as f64;
            return Ok(n);
        }
        if let Some(imag_text) = text.strip_suffix('i') {
            let imag = parse_float(imag_text, 64).map_err(|_| {
                self.error(format!(
                    "illegal number syntax: {}",
                    capstan_gocompat::quote::go_quote(text)
                ))
            })?;
            // Go simplifies a complex constant with no imaginary part to a real one.
            if imag == 0.0 {
                n.is_float = true;
                n.is_int = true;
                n.is_uint = true;
                return Ok(n);
            }
            n.imag = Some(imag);
            return Ok(n);
        }
        if let Ok(u) = parse_uint(text, 0, 64) {
            n.is_uint = true;
            n.uint = u;
        }
        if let Ok(i) = parse_int(text, 0, 64) {
            n.is_int = true;
            n.int = i;
            if i == 0 {
                n.is_uint = true;
            }
        }
        if n.is_int {
            n.is_float = true;
            n.float = n.int as f64;
        } else if n.is_uint {
            n.is_float = true;
            n.float = n.uint as f64;
        } else if let Ok(f) = parse_float(text, 64) {
            if !text.contains(['.', 'e', 'E', 'p', 'P']) {
                return Err(self.error(format!(
                    "integer overflow: {}",
                    capstan_gocompat::quote::go_quote(text)
                )));
            }
            n.is_float = true;
            n.float = f;
            if (f as i64) as f64 == f {
                n.is_int = true;
                n.int = f as i64;
            }
            if f >= 0.0 && (f as u64) as f64 == f {
                n.is_uint = true;
                n.uint = f as u64;
            }
        }
        if !n.is_int && !n.is_uint && !n.is_float {
            return Err(self.error(format!(
                "illegal number syntax: {}",
                capstan_gocompat::quote::go_quote(text)
            )));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use capstan_gocompat::strconv::unquote;

    #[test]
    fn octal_escapes_need_two_more_octal_digits() {
        assert_eq!(unquote(r#""\101""#).as_deref(), Ok("A"));
        // A multi-byte character after the first digit is a syntax error, not a panic
        // (found by fuzzing).
        assert!(unquote("\"\\1\u{284}\"").is_err());
        assert!(unquote(r#""\18x""#).is_err());
    }
}
