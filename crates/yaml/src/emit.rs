//! The YAML emitter: block mappings and sequences, flow `{}`/`[]` for empty ones, and
//! scalars in plain, single-quoted, double-quoted or literal style, with libyaml's rules
//! (as ported by go-yaml) for choosing and writing each style: its scalar analysis, its
//! indentation, line folding at the best width, and the v2/v3 differences (v2 sequences
//! under a key are not indented; v3 tolerates tabs in literal blocks and never folds).

use crate::compose::Generation;

/// The style the encoder asks for; the emitter may fall back to a quoted one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    Literal,
    DoubleQuoted,
    SingleQuoted,
}

/// A node ready to be emitted.
#[derive(Clone, Debug, PartialEq)]
pub enum ENode {
    /// `tag`, when set, is written before the scalar (`!!binary`).
    Scalar {
        /// The scalar's text.
        value: String,
        /// How to write it.
        style: Style,
        /// A tag written before it.
        tag: Option<&'static str>,
    },
    /// A block sequence.
    Seq(Vec<ENode>),
    /// A block mapping, in entry order.
    Map(Vec<(ENode, ENode)>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chosen {
    Plain,
    Single,
    Double,
    Literal,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// go-yaml's `is_printable` (a byte-level test, restated on characters).
fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0a
        || (0x20..=0x7e).contains(&u)
        || (0xa0..=0xd7ff).contains(&u)
        || ((0xe000..=0xffff).contains(&u) && u != 0xfeff && u != 0xfffe && u != 0xffff)
}

struct Analysis {
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn analyze(value: &str, gen: Generation) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let (mut block_ind, mut flow_ind) = (false, false);
    if value.starts_with("---") || value.starts_with("...") {
        block_ind = true;
        flow_ind = true;
    }
    let (mut line_breaks, mut special, mut tabs) = (false, false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut prev_space, mut prev_break) = (false, false);
    let mut preceded_by_ws = true;
    let mut it = value.chars().enumerate().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|&(_, n)| n);
        let is_last = next.is_none();
        let followed_by_ws = next.is_none_or(|n| is_blank(n) || is_break(n));
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_ind = true;
                    block_ind = true;
                }
                '?' | ':' => {
                    flow_ind = true;
                    if followed_by_ws {
                        block_ind = true;
                    }
                }
                '-' if followed_by_ws => {
                    flow_ind = true;
                    block_ind = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_ind = true,
                ':' => {
                    flow_ind = true;
                    if followed_by_ws {
                        block_ind = true;
                    }
                }
                '#' if preceded_by_ws => {
                    flow_ind = true;
                    block_ind = true;
                }
                _ => {}
            }
        }
        if c == '\t' && gen == Generation::V3 {
            tabs = true;
        } else if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if is_last {
                trailing_space = true;
            }
            if prev_break {
                break_space = true;
            }
            prev_space = true;
            prev_break = false;
        } else if is_break(c) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if is_last {
                trailing_break = true;
            }
            if prev_space {
                space_break = true;
            }
            prev_space = false;
            prev_break = true;
        } else {
            prev_space = false;
            prev_break = false;
        }
        preceded_by_ws = is_blank(c) || is_break(c);
    }
    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain_allowed: true,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || tabs || special {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_allowed = false;
    }
    if line_breaks {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if flow_ind {
        a.flow_plain_allowed = false;
    }
    if block_ind {
        a.block_plain_allowed = false;
    }
    a
}

fn select_style(requested: Style, a: &Analysis, value: &str, simple_key: bool) -> Chosen {
    let mut style = match requested {
        Style::Plain => Chosen::Plain,
        Style::Literal => Chosen::Literal,
        Style::DoubleQuoted => Chosen::Double,
        Style::SingleQuoted => Chosen::Single,
    };
    if simple_key && a.multiline {
        style = Chosen::Double;
    }
    if style == Chosen::Plain && (!a.block_plain_allowed || (value.is_empty() && simple_key)) {
        style = Chosen::Single;
    }
    if style == Chosen::Single && !a.single_quoted_allowed {
        style = Chosen::Double;
    }
    if style == Chosen::Literal && (!a.block_allowed || simple_key) {
        style = Chosen::Double;
    }
    style
}

/// Context of the node being emitted, as libyaml's emitter tracks it.
#[derive(Clone, Copy, Default)]
struct Ctx {
    mapping: bool,
    simple_key: bool,
}

pub struct Emitter {
    out: String,
    gen: Generation,
    best_width: usize,
    column: usize,
    indent: i32,
    whitespace: bool,
    indention: bool,
    /// Sequences under a key not indented (yaml.v2's way; kyaml's "compact" style).
    compact_sequences: bool,
}

impl Emitter {
    pub fn new(gen: Generation) -> Self {
        let best_width = if gen == Generation::V2 {
            80
        } else {
            usize::MAX
        };
        Emitter {
            out: String::new(),
            gen,
            best_width,
            column: 0,
            indent: -1,
            whitespace: true,
            indention: true,
            compact_sequences: gen == Generation::V2,
        }
    }

    /// Sequences under a mapping key start at the key's column (`- a`), as kyaml writes
    /// them, whatever the generation.
    pub(crate) fn compact_sequences(mut self) -> Self {
        self.compact_sequences = true;
        self
    }

    /// Emits one document holding `root` and returns the text.
    pub fn document(mut self, root: &ENode) -> String {
        self.node(root, Ctx::default());
        self.write_indent();
        self.out
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, ind: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in ind.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        if self.indent < 0 {
            self.indent = if flow { 2 } else { 0 };
        } else if !indentless {
            self.indent += 2;
        }
    }

    fn node(&mut self, n: &ENode, ctx: Ctx) {
        capstan_value::stack::grow(|| self.node_here(n, ctx))
    }

    fn node_here(&mut self, n: &ENode, ctx: Ctx) {
        match n {
            ENode::Scalar { value, style, tag } => {
                if let Some(t) = tag {
                    self.write_indicator(t, true, false, false);
                }
                self.scalar(value, *style, ctx)
            }
            ENode::Seq(items) if items.is_empty() => self.flow_empty("[", "]"),
            ENode::Map(pairs) if pairs.is_empty() => self.flow_empty("{", "}"),
            ENode::Seq(items) => {
                let saved = self.indent;
                let indentless = self.compact_sequences && ctx.mapping && !self.indention;
                self.increase_indent(false, indentless);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Ctx::default());
                }
                self.indent = saved;
            }
            ENode::Map(pairs) => {
                let saved = self.indent;
                self.increase_indent(false, false);
                for (k, v) in pairs {
                    self.write_indent();
                    if is_simple_key(k) {
                        self.node(
                            k,
                            Ctx {
                                mapping: true,
                                simple_key: true,
                            },
                        );
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        self.node(
                            k,
                            Ctx {
                                mapping: true,
                                simple_key: false,
                            },
                        );
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    self.node(
                        v,
                        Ctx {
                            mapping: true,
                            simple_key: false,
                        },
                    );
                }
                self.indent = saved;
            }
        }
    }

    fn flow_empty(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn scalar(&mut self, value: &str, requested: Style, ctx: Ctx) {
        let a = analyze(value, self.gen);
        let style = select_style(requested, &a, value, ctx.simple_key);
        let saved = self.indent;
        self.increase_indent(true, false);
        let allow_breaks = !ctx.simple_key;
        match style {
            Chosen::Plain => self.write_plain(value, allow_breaks),
            Chosen::Single => self.write_single(value, allow_breaks),
            Chosen::Double => self.write_double(value, allow_breaks),
            Chosen::Literal => self.write_literal(value),
        }
        self.indent = saved;
    }

    fn write_break_char(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        self.write_foldable(value, allow_breaks, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        self.write_foldable(value, allow_breaks, true);
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// The text of a plain or single-quoted scalar: a space past the best width becomes a
    /// line break (not the first or last character when quoted), line breaks are doubled,
    /// and quotes are doubled inside single quotes.
    fn write_foldable(&mut self, value: &str, allow_breaks: bool, single: bool) {
        let (mut spaces, mut breaks) = (false, false);
        let mut it = value.chars().enumerate().peekable();
        while let Some((i, c)) = it.next() {
            if c == ' ' {
                let next = it.peek().map(|&(_, n)| n);
                let next_space = next == Some(' ');
                let inner = !single || (i > 0 && next.is_some());
                if allow_breaks && !spaces && self.column > self.best_width && inner && !next_space
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break_char(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if single && c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
    }

    fn write_double(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let mut spaces = false;
        let mut it = value.chars().enumerate().peekable();
        while let Some((i, c)) = it.next() {
            if !is_printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let v = c as u32;
                match c {
                    '\0' => self.put('0'),
                    '\u{7}' => self.put('a'),
                    '\u{8}' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\u{b}' => self.put('v'),
                    '\u{c}' => self.put('f'),
                    '\r' => self.put('r'),
                    '\u{1b}' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{a0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    _ => {
                        let (ind, w) = if v <= 0xff {
                            ('x', 2)
                        } else if v <= 0xffff {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(ind);
                        for s in format!("{:0w$X}", v, w = w).chars() {
                            self.put(s);
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && i > 0
                    && it.peek().is_some()
                {
                    self.write_indent();
                    if it.peek().map(|&(_, n)| n) == Some(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        // Block scalar hints: an explicit indentation when the text starts with a space or
        // a break, and the chomping indicator.
        let chars: Vec<char> = value.chars().collect();
        if chars.first().is_some_and(|&c| c == ' ' || is_break(c)) {
            self.write_indicator("2", false, false, false);
        }
        let chomp = match chars.len() {
            0 => Some("-"),
            n if !is_break(chars[n - 1]) => Some("-"),
            1 => Some("+"),
            n if is_break(chars[n - 2]) => Some("+"),
            _ => None,
        };
        if let Some(ch) = chomp {
            self.write_indicator(ch, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in &chars {
            if is_break(c) {
                self.write_break_char(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

/// libyaml's `check_simple_key` for the keys we emit.
fn is_simple_key(k: &ENode) -> bool {
    match k {
        ENode::Scalar { value, .. } => value.len() <= 128 && !value.chars().any(is_break),
        ENode::Seq(items) => items.is_empty(),
        ENode::Map(pairs) => pairs.is_empty(),
    }
}
