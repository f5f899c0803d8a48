//! The HCL native syntax scanner: tokens with their ranges, with quoted templates and
//! heredocs scanned in their own modes (`${`/`%{` switch back to expressions until the
//! matching `}`). Comments are dropped; a line comment keeps its newline.

use crate::diag::{Pos, Range};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    OBrace,
    CBrace,
    OBrack,
    CBrack,
    OParen,
    CParen,
    OQuote,
    CQuote,
    /// `<<EOF` / `<<-EOF` with its newline; the flag is the indented form.
    OHeredoc(String, bool),
    CHeredoc,
    Star,
    Slash,
    Plus,
    Minus,
    Percent,
    Equal,
    EqualOp,
    NotEqual,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Bang,
    Dot,
    Comma,
    Ellipsis,
    FatArrow,
    Question,
    Colon,
    /// `${` (with `~` strip flag).
    TemplateInterp(bool),
    /// `%{` (with `~` strip flag).
    TemplateControl(bool),
    /// The `}` closing `${`/`%{` (with `~` strip flag before it).
    TemplateSeqEnd(bool),
    /// Literal text of a quoted string (escapes not yet processed).
    QuotedLit(String),
    /// Literal text of a heredoc.
    StringLit(String),
    /// A newline inside a quoted string (an error for the parser to report).
    QuotedNewline,
    Number(String),
    Ident(String),
    Newline,
    Eof,
    /// A character that starts no token.
    Invalid(char),
    Tabs,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub range: Range,
}

enum Mode {
    /// Expressions; the count of open braces since entering (to find the `}` that ends
    /// a template sequence), and whether this mode was entered from a template.
    Normal {
        braces: usize,
        in_template: bool,
    },
    Quoted,
    Heredoc {
        marker: String,
    },
}

struct Scanner<'a> {
    src: &'a str,
    file: Arc<str>,
    i: usize,
    line: u32,
    col: u32,
    out: Vec<Token>,
}

impl Scanner<'_> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
            byte: self.i,
        }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.i..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.src[self.i..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn starts(&self, s: &str) -> bool {
        self.src[self.i..].starts_with(s)
    }

    fn push(&mut self, tok: Tok, start: Pos) {
        let end = self.pos();
        self.out.push(Token {
            tok,
            range: Range {
                file: self.file.clone(),
                start,
                end,
            },
        });
    }
}

/// Scans a whole file.
pub(crate) fn scan(src: &str, file: &str) -> Vec<Token> {
    let mut s = Scanner {
        src,
        file: Arc::from(file),
        i: 0,
        line: 1,
        col: 1,
        out: Vec::new(),
    };
    let mut modes = vec![Mode::Normal {
        braces: 0,
        in_template: false,
    }];
    while let Some(mode) = modes.last_mut() {
        match mode {
            Mode::Normal {
                braces,
                in_template,
            } => {
                let in_template = *in_template;
                let start = s.pos();
                let Some(c) = s.peek() else {
                    break;
                };
                match c {
                    ' ' | '\r' => {
                        s.bump();
                    }
                    '\t' => {
                        while s.peek() == Some('\t') {
                            s.bump();
                        }
                        s.push(Tok::Tabs, start);
                    }
                    '\n' => {
                        s.bump();
                        s.push(Tok::Newline, start);
                    }
                    '#' => {
                        while !matches!(s.peek(), Some('\n') | None) {
                            s.bump();
                        }
                    }
                    '/' if s.peek_at(1) == Some('/') => {
                        while !matches!(s.peek(), Some('\n') | None) {
                            s.bump();
                        }
                    }
                    '/' if s.peek_at(1) == Some('*') => {
                        s.bump();
                        s.bump();
                        while s.peek().is_some() && !s.starts("*/") {
                            s.bump();
                        }
                        s.bump();
                        s.bump();
                    }
                    '{' => {
                        s.bump();
                        *braces += 1;
                        s.push(Tok::OBrace, start);
                    }
                    '}' | '~'
                        if in_template
                            && *braces == 0
                            && (c == '}' || s.peek_at(1) == Some('}')) =>
                    {
                        let strip = c == '~';
                        if strip {
                            s.bump();
                        }
                        s.bump();
                        s.push(Tok::TemplateSeqEnd(strip), start);
                        modes.pop();
                    }
                    '}' => {
                        s.bump();
                        *braces = braces.saturating_sub(1);
                        s.push(Tok::CBrace, start);
                    }
                    '"' => {
                        s.bump();
                        s.push(Tok::OQuote, start);
                        modes.push(Mode::Quoted);
                    }
                    '<' if s.starts("<<") && heredoc_marker(&s.src[s.i..]).is_some() => {
                        let (marker, indented, len) =
                            heredoc_marker(&s.src[s.i..]).unwrap_or_default();
                        for _ in 0..len {
                            s.bump();
                        }
                        s.push(Tok::OHeredoc(marker.clone(), indented), start);
                        modes.push(Mode::Heredoc { marker });
                    }
                    '0'..='9' => {
                        let mut text = String::new();
                        while let Some(d) = s.peek().filter(|d| d.is_ascii_digit()) {
                            text.push(d);
                            s.bump();
                        }
                        if s.peek() == Some('.') && s.peek_at(1).is_some_and(|d| d.is_ascii_digit())
                        {
                            text.push('.');
                            s.bump();
                            while let Some(d) = s.peek().filter(|d| d.is_ascii_digit()) {
                                text.push(d);
                                s.bump();
                            }
                        }
                        if matches!(s.peek(), Some('e' | 'E')) {
                            let sign = matches!(s.peek_at(1), Some('+' | '-'));
                            let digit_at = if sign { 2 } else { 1 };
                            if s.peek_at(digit_at).is_some_and(|d| d.is_ascii_digit()) {
                                for _ in 0..digit_at {
                                    text.push(s.bump().unwrap_or('e'));
                                }
                                while let Some(d) = s.peek().filter(|d| d.is_ascii_digit()) {
                                    text.push(d);
                                    s.bump();
                                }
                            }
                        }
                        s.push(Tok::Number(text), start);
                    }
                    c if c.is_alphabetic() || c == '_' => {
                        let mut text = String::new();
                        while let Some(d) = s
                            .peek()
                            .filter(|d| d.is_alphanumeric() || *d == '_' || *d == '-')
                        {
                            text.push(d);
                            s.bump();
                        }
                        s.push(Tok::Ident(text), start);
                    }
                    _ => {
                        let two = |a: &str| s.starts(a);
                        let (tok, n) = if two("==") {
                            (Tok::EqualOp, 2)
                        } else if two("!=") {
                            (Tok::NotEqual, 2)
                        } else if two("<=") {
                            (Tok::Le, 2)
                        } else if two(">=") {
                            (Tok::Ge, 2)
                        } else if two("&&") {
                            (Tok::And, 2)
                        } else if two("||") {
                            (Tok::Or, 2)
                        } else if two("=>") {
                            (Tok::FatArrow, 2)
                        } else if two("...") {
                            (Tok::Ellipsis, 3)
                        } else {
                            let t = match c {
                                '[' => Tok::OBrack,
                                ']' => Tok::CBrack,
                                '(' => Tok::OParen,
                                ')' => Tok::CParen,
                                '*' => Tok::Star,
                                '/' => Tok::Slash,
                                '+' => Tok::Plus,
                                '-' => Tok::Minus,
                                '%' => Tok::Percent,
                                '=' => Tok::Equal,
                                '<' => Tok::Lt,
                                '>' => Tok::Gt,
                                '!' => Tok::Bang,
                                '.' => Tok::Dot,
                                ',' => Tok::Comma,
                                '?' => Tok::Question,
                                ':' => Tok::Colon,
                                other => Tok::Invalid(other),
                            };
                            (t, 1)
                        };
                        for _ in 0..n {
                            s.bump();
                        }
                        s.push(tok, start);
                    }
                }
            }
            Mode::Quoted => {
                let start = s.pos();
                let mut lit = String::new();
                loop {
                    match s.peek() {
                        None => break,
                        Some('"') => break,
                        Some('\n') => break,
                        Some('\\') => {
                            lit.push('\\');
                            s.bump();
                            if let Some(c) = s.peek().filter(|c| *c != '\n') {
                                lit.push(c);
                                s.bump();
                            }
                        }
                        Some('$') if s.starts("$${") => {
                            lit.push_str("$${");
                            for _ in 0..3 {
                                s.bump();
                            }
                        }
                        Some('%') if s.starts("%%{") => {
                            lit.push_str("%%{");
                            for _ in 0..3 {
                                s.bump();
                            }
                        }
                        Some('$' | '%') if s.peek_at(1) == Some('{') => break,
                        Some(c) => {
                            lit.push(c);
                            s.bump();
                        }
                    }
                }
                if !lit.is_empty() {
                    s.push(Tok::QuotedLit(lit), start);
                }
                let start = s.pos();
                match s.peek() {
                    None => {
                        modes.pop();
                    }
                    Some('"') => {
                        s.bump();
                        s.push(Tok::CQuote, start);
                        modes.pop();
                    }
                    Some('\n') => {
                        s.bump();
                        s.push(Tok::QuotedNewline, start);
                    }
                    Some(c) => open_sequence(&mut s, c, start, &mut modes),
                }
            }
            Mode::Heredoc { marker } => {
                let marker = marker.clone();
                // At the start of a line: the closing marker?
                let line_start = s.i;
                let rest = &s.src[line_start..];
                let line_end = rest.find('\n').map(|i| i + 1).unwrap_or(rest.len());
                let line = &rest[..line_end];
                if line.trim() == marker {
                    let start = s.pos();
                    while !matches!(s.peek(), Some('\n') | None) {
                        s.bump();
                    }
                    s.push(Tok::CHeredoc, start);
                    modes.pop();
                    continue;
                }
                if s.peek().is_none() {
                    modes.pop();
                    continue;
                }
                let start = s.pos();
                let mut lit = String::new();
                let mut interp = None;
                while let Some(c) = s.peek() {
                    if s.starts("$${") || s.starts("%%{") {
                        lit.push_str(&s.src[s.i..s.i + 3]);
                        for _ in 0..3 {
                            s.bump();
                        }
                        continue;
                    }
                    if (c == '$' || c == '%') && s.peek_at(1) == Some('{') {
                        interp = Some(c);
                        break;
                    }
                    lit.push(c);
                    s.bump();
                    if c == '\n' {
                        break;
                    }
                }
                if !lit.is_empty() {
                    s.push(Tok::StringLit(lit), start);
                }
                if let Some(c) = interp {
                    let start = s.pos();
                    open_sequence(&mut s, c, start, &mut modes);
                }
            }
        }
    }
    let start = s.pos();
    s.push(Tok::Eof, start);
    s.out
}

/// `${` or `%{` (with an optional `~`) inside a template: the token, and expressions
/// until the matching `}`.
fn open_sequence(s: &mut Scanner, c: char, start: Pos, modes: &mut Vec<Mode>) {
    s.bump();
    s.bump();
    let strip = s.peek() == Some('~');
    if strip {
        s.bump();
    }
    s.push(
        if c == '$' {
            Tok::TemplateInterp(strip)
        } else {
            Tok::TemplateControl(strip)
        },
        start,
    );
    modes.push(Mode::Normal {
        braces: 0,
        in_template: true,
    });
}

/// `<<EOF\n` or `<<-EOF\n` at the start of `s`: the marker, whether indented, and the
/// length including the newline.
fn heredoc_marker(s: &str) -> Option<(String, bool, usize)> {
    let rest = s.strip_prefix("<<")?;
    let (indented, rest) = match rest.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if name.is_empty()
        || !name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
    {
        return None;
    }
    let after = &rest[name.len()..];
    let nl = if after.starts_with("\r\n") {
        2
    } else if after.starts_with('\n') {
        1
    } else {
        return None;
    };
    Some((
        name.clone(),
        indented,
        2 + indented as usize + name.len() + nl,
    ))
}
