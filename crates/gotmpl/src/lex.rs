//! The lexer of Go's `text/template`: splits template text into text runs and the tokens
//! of actions, with `{{-`/`-}}` trimming, comments, and Go's lexical error texts.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    LeftDelim,
    RightDelim,
    Space,
    Identifier,
    Field,
    Variable,
    Str,
    RawStr,
    Char,
    Number,
    Bool,
    Nil,
    Dot,
    Pipe,
    LeftParen,
    RightParen,
    Assign,
    Declare,
    /// A single punctuation character such as `,`.
    Punct,
    Keyword,
    Eof,
    /// A lexical error (Go's `itemError`): its text is the message, and lexing stopped
    /// there. The parser reports it only when it reaches it, as Go's does.
    Error,
}

/// A token: 32 bytes, copied freely (a lexical error's message is beside the tokens,
/// in what [`Lexer::lex`] returns). Its line is counted from `pos` when an error needs
/// it ([`line_at`]).
#[derive(Clone, Copy, Debug)]
pub struct Token<'a> {
    pub kind: Kind,
    /// Byte offset in the template text.
    pub pos: usize,
    /// The token's text in the template (empty for [`Kind::Error`] and [`Kind::Eof`]).
    pub text: &'a str,
}

/// A lexical error: message and 1-based line.
#[derive(Debug, Clone)]
pub struct LexError {
    pub msg: String,
    pub line: usize,
    /// The line of the action the error is in, when it started on an earlier line.
    pub action_line: usize,
}

const KEYWORDS: &[&str] = &[
    "block", "break", "continue", "define", "else", "end", "if", "range", "nil", "template", "with",
];

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_alnum(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    /// Where the current action's `{{` is (its line is the errors' line).
    action_start: usize,
    tokens: Vec<Token<'a>>,
    paren_depth: usize,
}

/// Where `{{` first is in `s`: each `{` found with `str::find(char)` (a memchr), which
/// costs less on template text than a substring searcher built per text run.
fn find_left_delim(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = s[from..].find('{') {
        let at = from + i;
        if b.get(at + 1) == Some(&b'{') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The 1-based line of byte `pos` of `src` (counted only when an error needs it).
pub(crate) fn line_at(src: &str, pos: usize) -> usize {
    1 + src.as_bytes()[..pos.min(src.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

impl<'a> Lexer<'a> {
    fn emit(&mut self, kind: Kind, start: usize, end: usize) {
        self.tokens.push(Token {
            kind,
            pos: start,
            text: &self.src[start..end],
        });
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T, LexError> {
        Err(LexError {
            msg: msg.into(),
            line: line_at(self.src, self.action_start),
            action_line: 0,
        })
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    /// Lexes the whole template; a lexical error ends the tokens with a [`Kind::Error`]
    /// (its message and lines returned beside them).
    pub fn lex(src: &'a str) -> (Vec<Token<'a>>, Option<LexError>) {
        let mut lx = Lexer {
            src,
            pos: 0,
            action_start: 0,
            // Room for a token per 4 bytes (the densest templates), so that it is not
            // grown: growing copies every token into new memory, and the room a sparse
            // template leaves unused is never written, so the kernel never provides it.
            tokens: Vec::with_capacity(src.len() / 4 + 8),
            paren_depth: 0,
        };
        if let Err(e) = lx.text() {
            lx.tokens.push(Token {
                kind: Kind::Error,
                pos: lx.pos,
                text: "",
            });
            return (lx.tokens, Some(e));
        }
        let end = src.len();
        lx.tokens.push(Token {
            kind: Kind::Eof,
            pos: end,
            text: "",
        });
        (lx.tokens, None)
    }

    fn text(&mut self) -> Result<(), LexError> {
        loop {
            let Some(off) = find_left_delim(self.rest()) else {
                if self.pos < self.src.len() {
                    self.emit(Kind::Text, self.pos, self.src.len());
                }
                self.pos = self.src.len();
                return Ok(());
            };
            let delim = self.pos + off;
            let after = &self.src[delim + 2..];
            let trim =
                after.len() >= 2 && after.as_bytes()[0] == b'-' && is_space(after.as_bytes()[1]);
            let mut text_end = delim;
            if trim {
                text_end = self.src[self.pos..delim]
                    .trim_end_matches(|c: char| c.is_ascii() && is_space(c as u8))
                    .len()
                    + self.pos;
            }
            if text_end > self.pos {
                self.emit(Kind::Text, self.pos, text_end);
            }
            self.action_start = delim;
            self.pos = delim + 2 + if trim { 2 } else { 0 };
            // A comment is a whole action.
            if self.rest().starts_with("/*") {
                self.comment(delim)?;
                continue;
            }
            self.emit(Kind::LeftDelim, delim, delim + 2);
            self.paren_depth = 0;
            self.inside_action()?;
        }
    }

    fn comment(&mut self, delim: usize) -> Result<(), LexError> {
        let Some(end) = self.rest().find("*/") else {
            return self.err("unclosed comment");
        };
        self.pos += end + 2;
        let r = self.rest();
        let (trim, len) = if r.len() >= 4 && is_space(r.as_bytes()[0]) && r[1..].starts_with("-}}")
        {
            (true, 4)
        } else if r.starts_with("}}") {
            (false, 2)
        } else {
            return self.err("comment ends before closing delimiter");
        };
        let _ = delim;
        self.pos += len;
        if trim {
            self.skip_space_after_trim();
        }
        Ok(())
    }

    fn skip_space_after_trim(&mut self) {
        let n = self.rest().len()
            - self
                .rest()
                .trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8))
                .len();
        self.pos += n;
    }

    fn at_right_delim(&self) -> Option<(bool, usize)> {
        let r = self.rest();
        if r.len() >= 4 && is_space(r.as_bytes()[0]) && r[1..].starts_with("-}}") {
            return Some((true, 4));
        }
        if r.starts_with("}}") {
            return Some((false, 2));
        }
        None
    }

    fn inside_action(&mut self) -> Result<(), LexError> {
        loop {
            if let Some((trim, len)) = self.at_right_delim() {
                if self.paren_depth > 0 {
                    return self.err("unclosed left paren");
                }
                let start = if trim { self.pos + 2 } else { self.pos };
                self.emit(Kind::RightDelim, start, self.pos + len);
                self.pos += len;
                if trim {
                    self.skip_space_after_trim();
                }
                return Ok(());
            }
            let Some(c) = self.rest().chars().next() else {
                // Go reports the line where input ended and the line the action began.
                return Err(LexError {
                    msg: "unclosed action".into(),
                    line: line_at(self.src, self.pos),
                    action_line: line_at(self.src, self.action_start),
                });
            };
            let start = self.pos;
            match c {
                ' ' | '\t' | '\r' | '\n' => {
                    // A run of spaces; stop before a right trim marker.
                    let mut end = self.pos;
                    let b = self.src.as_bytes();
                    while end < b.len() && is_space(b[end]) {
                        if self.src[end..].len() >= 4 && self.src[end + 1..].starts_with("-}}") {
                            break;
                        }
                        end += 1;
                    }
                    self.emit(Kind::Space, start, end.max(self.pos + 1));
                    self.pos = end.max(self.pos + 1);
                }
                '=' => {
                    self.pos += 1;
                    self.emit(Kind::Assign, start, self.pos);
                }
                ':' => {
                    if !self.rest().starts_with(":=") {
                        return self.err("expected :=");
                    }
                    self.pos += 2;
                    self.emit(Kind::Declare, start, self.pos);
                }
                '|' => {
                    self.pos += 1;
                    self.emit(Kind::Pipe, start, self.pos);
                }
                '"' => self.quote()?,
                '`' => {
                    let Some(end) = self.src[self.pos + 1..].find('`') else {
                        return self.err("unterminated raw quoted string");
                    };
                    self.pos += end + 2;
                    self.emit(Kind::RawStr, start, self.pos);
                }
                '$' => {
                    self.pos += 1;
                    self.word();
                    self.emit(Kind::Variable, start, self.pos);
                    self.check_terminator()?;
                }
                '\'' => self.char_const()?,
                '.' => {
                    let next = self.src[self.pos + 1..].chars().next();
                    if next.is_some_and(|n| n.is_ascii_digit()) {
                        self.number()?;
                    } else {
                        self.pos += 1;
                        if next.is_some_and(is_alnum) {
                            self.word();
                            self.emit(Kind::Field, start, self.pos);
                        } else {
                            self.emit(Kind::Dot, start, self.pos);
                        }
                        self.check_terminator()?;
                    }
                }
                '+' | '-' | '0'..='9' => self.number()?,
                '(' => {
                    self.pos += 1;
                    self.paren_depth += 1;
                    self.emit(Kind::LeftParen, start, self.pos);
                }
                ')' => {
                    self.pos += 1;
                    if self.paren_depth == 0 {
                        return self.err("unexpected right paren");
                    }
                    self.paren_depth -= 1;
                    self.emit(Kind::RightParen, start, self.pos);
                }
                c if is_alnum(c) => {
                    self.word();
                    let w = &self.src[start..self.pos];
                    let kind = match w {
                        "true" | "false" => Kind::Bool,
                        "nil" => Kind::Nil,
                        w if KEYWORDS.contains(&w) => Kind::Keyword,
                        _ => Kind::Identifier,
                    };
                    self.emit(kind, start, self.pos);
                    self.check_terminator()?;
                }
                c if c.is_ascii() && (c as u32) >= 0x20 && c != '\u{7f}' => {
                    self.pos += 1;
                    self.emit(Kind::Punct, start, self.pos);
                }
                c => {
                    return self.err(format!(
                        "unrecognized character in action: {}",
                        go_unicode_name(c)
                    ))
                }
            }
        }
    }

    fn word(&mut self) {
        // ASCII letters, digits and `_` byte by byte; from the first other non-ASCII
        // character on, by characters.
        let rest = self.rest().as_bytes();
        let ascii = rest
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or(rest.len());
        self.pos += ascii;
        if rest.get(ascii).is_some_and(|b| !b.is_ascii()) {
            let n: usize = self
                .rest()
                .chars()
                .take_while(|&c| is_alnum(c))
                .map(char::len_utf8)
                .sum();
            self.pos += n;
        }
    }

    /// Go's `atTerminator` check after identifiers, fields and variables.
    fn check_terminator(&self) -> Result<(), LexError> {
        let r = self.rest();
        let Some(c) = r.chars().next() else {
            return Ok(());
        };
        if is_space(c as u8) && c.is_ascii()
            || matches!(c, '.' | ',' | '|' | ':' | ')' | '(')
            || r.starts_with("}}")
        {
            return Ok(());
        }
        self.err(format!("bad character {}", go_unicode_name(c)))
    }

    fn quote(&mut self) -> Result<(), LexError> {
        let start = self.pos;
        let b = self.src.as_bytes();
        let mut i = self.pos + 1;
        loop {
            match b.get(i) {
                None | Some(b'\n') => return self.err("unterminated quoted string"),
                Some(b'\\') => {
                    if matches!(b.get(i + 1), None | Some(b'\n')) {
                        return self.err("unterminated quoted string");
                    }
                    i += 2;
                }
                Some(b'"') => break,
                _ => i += 1,
            }
        }
        self.pos = i + 1;
        self.emit(Kind::Str, start, self.pos);
        Ok(())
    }

    fn char_const(&mut self) -> Result<(), LexError> {
        let start = self.pos;
        let b = self.src.as_bytes();
        let mut i = self.pos + 1;
        loop {
            match b.get(i) {
                None | Some(b'\n') => return self.err("unterminated character constant"),
                Some(b'\\') => {
                    if matches!(b.get(i + 1), None | Some(b'\n')) {
                        return self.err("unterminated character constant");
                    }
                    i += 2;
                }
                Some(b'\'') => break,
                _ => i += 1,
            }
        }
        self.pos = i + 1;
        self.emit(Kind::Char, start, self.pos);
        Ok(())
    }

    /// Go's `scanNumber`: optional sign, digits with base prefix and underscores, fraction,
    /// exponent, and an optional imaginary `i`.
    fn number(&mut self) -> Result<(), LexError> {
        let start = self.pos;
        let b = self.src.as_bytes();
        let mut i = self.pos;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let mut digits: &[u8] = b"0123456789_";
        let mut exp: &[u8] = b"eE";
        if i + 1 < b.len()
            && b[i] == b'0'
            && matches!(b[i + 1], b'x' | b'X' | b'o' | b'O' | b'b' | b'B')
        {
            match b[i + 1] {
                b'x' | b'X' => {
                    digits = b"0123456789abcdefABCDEF_";
                    exp = b"pP";
                }
                b'o' | b'O' => {
                    digits = b"01234567_";
                    exp = b"";
                }
                _ => {
                    digits = b"01_";
                    exp = b"";
                }
            }
            i += 2;
        }
        while i < b.len() && digits.contains(&b[i]) {
            i += 1;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            while i < b.len() && digits.contains(&b[i]) {
                i += 1;
            }
        }
        if !exp.is_empty() && i < b.len() && exp.contains(&b[i]) {
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                i += 1;
            }
            while i < b.len() && b"0123456789_".contains(&b[i]) {
                i += 1;
            }
        }
        if i < b.len() && b[i] == b'i' {
            i += 1;
        }
        // The next character must not be alphanumeric.
        if let Some(c) = self.src[i..].chars().next() {
            if is_alnum(c) || c == '.' {
                let end = i + c.len_utf8();
                return self.err(format!("bad number syntax: {:?}", &self.src[start..end]));
            }
        }
        self.pos = i;
        self.emit(Kind::Number, start, i);
        Ok(())
    }
}

/// Go's `%#U` rendering of a rune: `U+0041 'A'`.
pub(crate) fn go_unicode_name(c: char) -> String {
    if c.is_control() {
        format!("U+{:04X}", c as u32)
    } else {
        format!("U+{:04X} '{}'", c as u32, c)
    }
}
