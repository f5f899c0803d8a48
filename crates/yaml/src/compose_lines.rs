//! The node tree of block-style YAML read line by line, without the libyaml scanner:
//! values files, helmfile states and rendered manifests are nearly always written in a
//! subset whose structure shows in its indentation — block mappings and sequences, keys
//! and plain scalars on one line, quoted scalars on one line without escapes, `[]` and
//! `{}`, literal block scalars (`|`, `|-`, `|+`), comments. For a document in that subset
//! this builds exactly the [`Document`] that [`crate::compose`] builds from libyaml's
//! events (the same nodes in the same order, with the same marks); anything else (a tab,
//! a byte outside ASCII, anchors, tags, flow collections with items, folded or indented
//! block scalars, multi-line scalars, any `---` but one alone (or before a comment)
//! opening the document, directives, a line libyaml would refuse) is `None`, and the
//! caller composes it with libyaml. A test compares both on every
//! document the conformance vectors and the real-world charts hold.

use crate::nodes::{Document, Node, NodeKind};
use crate::utf8::SkipSpaces;
use capstan_source::Pos;
use libyaml_safer::ScalarStyle;

/// What libyaml puts between two lines of a folded scalar: a line break for each empty
/// line between them, else a space (nothing after an escaped line break, `joined`).
fn fold_break(value: &mut String, empty_lines: usize, joined: bool) {
    if empty_lines > 0 {
        value.extend(std::iter::repeat_n('\n', empty_lines));
    } else if !joined {
        value.push(' ');
    }
}

/// The part of a quoted scalar on one line, from after the opening quote (or the line's
/// first character past its indentation).
struct QuotedPart {
    /// The text: `''` read as a quote in single quotes, the escapes read in double.
    text: String,
    /// The byte index of the closing quote, when the line has one.
    close: Option<usize>,
    /// Whether an escape was read.
    escapes: bool,
    /// Whether the line ends with `\` (double quotes): the break folds to nothing.
    escaped_break: bool,
}

/// [`QuotedPart`] of `s` for `quote`; `None` for an escape outside `\n`, `\t`, `\"`,
/// `\\` and a final `\` (the others read differently in yaml.v2 and yaml.v3, or are
/// rare).
fn quoted_part(s: &str, quote: u8) -> Option<QuotedPart> {
    let b = s.as_bytes();
    let mut part = QuotedPart {
        text: String::with_capacity(s.len()),
        close: None,
        escapes: false,
        escaped_break: false,
    };
    let mut from = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c == quote => {
                if quote == b'\'' && b.get(i + 1) == Some(&b'\'') {
                    part.text.push_str(&s[from..=i]);
                    i += 2;
                    from = i;
                    continue;
                }
                part.text.push_str(&s[from..i]);
                part.close = Some(i);
                return Some(part);
            }
            b'\\' if quote == b'"' => {
                part.text.push_str(&s[from..i]);
                part.escapes = true;
                match b.get(i + 1) {
                    None => {
                        part.escaped_break = true;
                        return Some(part);
                    }
                    Some(b'n') => part.text.push('\n'),
                    Some(b't') => part.text.push('\t'),
                    Some(b'"') => part.text.push('"'),
                    Some(b'\\') => part.text.push('\\'),
                    Some(_) => return None,
                }
                i += 2;
                from = i;
            }
            _ => i += 1,
        }
    }
    part.text.push_str(&s[from..]);
    Some(part)
}

/// Longest key kept: libyaml gives up on a simple key of more than 1024 characters.
const MAX_KEY: usize = 1000;
/// Deeper documents are left to libyaml (and its depth errors).
const MAX_DEPTH: usize = 1000;

/// One line of the text: where it starts, its 1-based number, its text (without `\n`).
struct Line<'a> {
    start: usize,
    no: u32,
    text: &'a str,
}

impl Line<'_> {
    /// The mark at byte `col` of this line.
    fn at(&self, col: usize) -> Pos {
        Pos {
            offset: self.start + col,
            line: self.no,
            column: col as u32 + 1,
        }
    }
}

/// An open block collection.
enum Frame {
    Map {
        col: usize,
        node: usize,
        pairs: Vec<(usize, usize)>,
        /// The key whose value is being read.
        key: Option<usize>,
    },
    Seq {
        col: usize,
        node: usize,
        items: Vec<usize>,
    },
}

/// A `key:` with nothing after it on its line: the next line says whether a collection
/// follows or the value is null (an empty scalar right after the colon).
struct Pending {
    /// The column of the mapping holding the key.
    col: usize,
    after_colon: Pos,
}

/// A value written on the line after `key:` or `- `.
enum Written {
    /// Nothing (or a comment).
    Nothing,
    /// A scalar: text, style, its end within the line (byte index).
    Scalar(String, ScalarStyle, usize),
    /// `[]` (`true`) or `{}` (spaces inside allowed): the index after the bracket.
    EmptyFlow(bool, usize),
    /// A one-line flow sequence of scalars (`["ALL"]`, `[443, 6443]`): each item's
    /// text, style, start and end within the line; the index after the `]`.
    FlowSeq(Vec<(String, ScalarStyle, usize, usize)>, usize),
    /// `|`: the chomping (`-1` strip, `0` clip, `1` keep).
    Literal(i8),
}

/// The first document of `text` (which ends with a line break), when it is in the subset.
pub(crate) fn compose_lines(text: &str) -> Option<Document> {
    if !text.ends_with('\n') || !characters_in_subset(text) {
        return None;
    }
    Composer {
        doc: Document::default(),
        stack: Vec::new(),
    }
    .run(Lines {
        text,
        pos: 0,
        no: 0,
    })
}

/// Whether every character is one the subset reads as libyaml does: printable ASCII and
/// line feeds, and beyond ASCII (in comments and block scalars only: keys and scalars on
/// a line must be ASCII, as their columns are counted in bytes) what libyaml prints
/// without it being a line break (U+0085, U+2028, U+2029) or a byte order mark.
fn characters_in_subset(text: &str) -> bool {
    if crate::utf8::printable_ascii_lines(text.as_bytes()) {
        return true;
    }
    if text.is_ascii() {
        return false;
    }
    text.chars().all(|c| {
        c == '\n'
            || (' '..='~').contains(&c)
            || (c >= '\u{a0}'
                && !matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ))
    })
}

/// The lines of the text, read as they are reached (a state of thousands of releases
/// has hundreds of thousands of lines: no table of them is kept).
struct Lines<'a> {
    text: &'a str,
    /// Where the next line starts.
    pos: usize,
    /// Lines read so far.
    no: u32,
}

impl<'a> Lines<'a> {
    /// The next line, not yet read.
    fn peek(&self) -> Option<Line<'a>> {
        if self.pos >= self.text.len() {
            return None;
        }
        let end = self.text[self.pos..]
            .find('\n')
            .map_or(self.text.len(), |i| self.pos + i);
        Some(Line {
            start: self.pos,
            no: self.no + 1,
            text: &self.text[self.pos..end],
        })
    }

    /// Reads `line` (the one [`Lines::peek`] gave).
    fn advance(&mut self, line: &Line) {
        self.pos = line.start + line.text.len() + 1;
        self.no = line.no;
    }

    /// The mark past the last line (where libyaml ends what is open at the end).
    fn end(&self) -> Pos {
        Pos {
            offset: self.text.len(),
            line: self.no + 1,
            column: 1,
        }
    }
}

struct Composer {
    doc: Document,
    stack: Vec<Frame>,
}

impl Composer {
    fn run(mut self, mut lines: Lines) -> Option<Document> {
        let mut pending: Option<Pending> = None;
        // After a value on its line, a deeper line would continue it (or be an error).
        let mut no_deeper_than: Option<usize> = None;
        // An explicit start (`---` alone, or before a comment) may open the document.
        let mut started = false;
        while let Some(line) = lines.peek() {
            lines.advance(&line);
            let line = &line;
            let indent = line.text.len() - line.text.skip_spaces().len();
            let t = &line.text[indent..];
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if indent == 0 && marker(t, "---") {
                let rest = t[3..].skip_spaces();
                let opens = !started
                    && self.doc.root.is_none()
                    && self.stack.is_empty()
                    && pending.is_none()
                    && (rest.is_empty() || rest.starts_with('#'));
                if !opens {
                    return None;
                }
                started = true;
                continue;
            }
            if indent == 0 && (t.starts_with('%') || marker(t, "...")) {
                return None;
            }
            if no_deeper_than.take().is_some_and(|m| indent > m) {
                return None;
            }
            let here = line.at(indent);
            let dash = t == "-" || t.starts_with("- ");
            if let Some(p) = pending.take() {
                if indent > p.col || (indent == p.col && dash) {
                    // A collection is the value.
                    if dash {
                        self.open_collection(true, indent, here)?;
                    } else {
                        self.open_map(indent, here)?;
                    }
                } else {
                    self.null_value(&p);
                }
            }
            // Close what this line is outside of.
            loop {
                match self.stack.last() {
                    None => {
                        if self.doc.root.is_some() || indent != 0 || dash {
                            return None;
                        }
                        self.open_map(0, here)?;
                    }
                    Some(Frame::Seq { col, .. }) => {
                        if indent == *col && dash {
                            break;
                        }
                        if indent > *col {
                            return None;
                        }
                        self.close(here);
                    }
                    Some(Frame::Map { col, .. }) => {
                        if indent == *col && !dash {
                            break;
                        }
                        if indent >= *col {
                            return None;
                        }
                        self.close(here);
                    }
                }
            }
            let (col, entry_col, entry) = match self.stack.last()? {
                Frame::Map { col, .. } => (*col, indent, t),
                Frame::Seq { col, .. } => {
                    let col = *col;
                    let item = t[1..].skip_spaces();
                    let item_col = line.text.len() - item.len();
                    if item.is_empty()
                        || item == "-"
                        || item.starts_with("- ")
                        || item.starts_with('#')
                    {
                        return None;
                    }
                    if key_of(item).is_some() {
                        // `- key: …`: a mapping whose keys line up under `key`.
                        self.open_map(item_col, line.at(item_col))?;
                        (item_col, item_col, item)
                    } else {
                        let node = self.value(line, item_col, &mut lines)??;
                        self.attach(node);
                        no_deeper_than = Some(col);
                        continue;
                    }
                }
            };
            // A `key: value` entry of the mapping at `col`.
            let (key, value_at) = key_of(entry)?;
            let key_node =
                self.push_scalar(key.0, key.1, line.at(entry_col), line.at(entry_col + key.2));
            if let Some(Frame::Map { key, .. }) = self.stack.last_mut() {
                *key = Some(key_node);
            }
            let colon = entry_col + value_at - 1;
            let spaces = entry[value_at..].len() - entry[value_at..].skip_spaces().len();
            let value_col = entry_col + value_at + spaces;
            if let Some(node) = self.multiline_quoted(line, value_col, col, &mut lines) {
                self.attach(node?);
                no_deeper_than = Some(col);
                continue;
            }
            match self.value(line, value_col, &mut lines)? {
                None => {
                    pending = Some(Pending {
                        col,
                        after_colon: line.at(colon + 1),
                    });
                }
                Some(node) => {
                    if self.ends_line(node, line) {
                        self.fold_plain(node, col, &mut lines)?;
                    }
                    self.attach(node);
                    no_deeper_than = Some(col);
                }
            }
        }
        if let Some(p) = pending.take() {
            self.null_value(&p);
        }
        let eof = lines.end();
        while !self.stack.is_empty() {
            self.close(eof);
        }
        self.doc.root?;
        Some(self.doc)
    }

    /// The value written at byte `col` of `line` (after `key: ` or `- `): its node, or
    /// `None` for nothing written; a literal block scalar reads the lines below it
    /// (moving `next` past them).
    fn value(&mut self, line: &Line, col: usize, lines: &mut Lines) -> Option<Option<usize>> {
        let text = &line.text[col..];
        let holder = self.holder_col();
        Some(match written(text)? {
            Written::Nothing => None,
            Written::Scalar(value, style, end) => {
                Some(self.push_scalar(value, style, line.at(col), line.at(col + end)))
            }
            Written::EmptyFlow(seq, end) => {
                Some(self.push_collection(seq, line.at(col), line.at(col + end))?)
            }
            Written::FlowSeq(items, end) => {
                let idx = self.push_collection(true, line.at(col), line.at(col + end))?;
                let nodes = items
                    .into_iter()
                    .map(|(value, style, s, e)| {
                        self.push_scalar(value, style, line.at(col + s), line.at(col + e))
                    })
                    .collect();
                self.doc.nodes[idx].kind = NodeKind::Seq(nodes);
                Some(idx)
            }
            Written::Literal(chomp) => {
                let (value, end) = literal(lines, holder, chomp)?;
                Some(self.push_scalar(value, ScalarStyle::Literal, line.at(col), end))
            }
        })
    }

    /// Whether `node` is a plain scalar ending its line (nothing but spaces after it).
    fn ends_line(&self, node: usize, line: &Line) -> bool {
        let n = &self.doc.nodes[node];
        matches!(
            n.kind,
            NodeKind::Scalar {
                style: ScalarStyle::Plain,
                ..
            }
        ) && n.end.line == line.no
            && line.text[n.end.column as usize - 1..]
                .skip_spaces()
                .is_empty()
    }

    /// Continues the plain scalar `node` (a value of the mapping at `col`) on the lines
    /// below it indented past `col`, folded as libyaml folds them: a line break between
    /// two lines is a space, each empty line between them a line break; a deeper comment
    /// line ends it. `None` for a continuation libyaml would read otherwise (a comment
    /// after text, `: ` or a final `:`, which end the scalar, or a byte outside ASCII,
    /// whose column counts differently).
    fn fold_plain(&mut self, node: usize, col: usize, lines: &mut Lines) -> Option<()> {
        let mut breaks = 0usize;
        let mut more = String::new();
        let mut end = None;
        while let Some(next) = lines.peek() {
            let body = next.text.skip_spaces();
            if body.is_empty() {
                lines.advance(&next);
                breaks += 1;
                continue;
            }
            let indent = next.text.len() - body.len();
            if indent <= col {
                break;
            }
            let content = body.trim_end_matches(' ');
            if content.starts_with('#') {
                // A comment ends the scalar; the line and what follows are the caller's
                // (which refuses a deeper line after it, as libyaml does).
                break;
            }
            if !content.is_ascii()
                || content.contains(" #")
                || content.contains(": ")
                || content.ends_with(':')
            {
                return None;
            }
            lines.advance(&next);
            fold_break(&mut more, breaks, false);
            breaks = 0;
            more.push_str(content);
            end = Some(next.at(indent + content.len()));
        }
        let Some(end) = end else { return Some(()) };
        let n = &mut self.doc.nodes[node];
        if let NodeKind::Scalar { value, .. } = &mut n.kind {
            value.push_str(&more);
        }
        n.end = end;
        Some(())
    }

    /// A quoted scalar opened at byte `col` of `line` (a value of the mapping at
    /// `map_col`) that the one-line reader leaves: single-quoted closed on a later line,
    /// or double-quoted with escapes or closed on a later line. `None` when it is not
    /// one of these; `Some(None)` for one libyaml would read otherwise than this (a line
    /// not indented past `map_col` before the quote closes, anything but spaces after
    /// it, a byte outside ASCII, an escape other than `\n`, `\t`, `\"`, `\\` and a final
    /// `\`). Lines fold as in a plain scalar (an escaped line break folds to nothing);
    /// `''` is a quote in single quotes.
    fn multiline_quoted(
        &mut self,
        line: &Line,
        col: usize,
        map_col: usize,
        lines: &mut Lines,
    ) -> Option<Option<usize>> {
        let text = &line.text[col..];
        let (quote, style) = match text.as_bytes().first() {
            Some(b'\'') => (b'\'', ScalarStyle::SingleQuoted),
            Some(b'"') => (b'"', ScalarStyle::DoubleQuoted),
            _ => return None,
        };
        let first = &text[1..];
        let part = match quoted_part(first, quote) {
            Some(part) => part,
            None => return Some(None),
        };
        if part.close.is_some() && !part.escapes {
            // On its line without escapes: the one-line reader's.
            return None;
        }
        if !first.is_ascii() {
            return Some(None);
        }
        let start = line.at(col);
        let finish = |me: &mut Self, value: String, at: &Line, indent: usize, close: usize| {
            let rest = &at.text[indent + close + 1..];
            if !rest.skip_spaces().is_empty() {
                return None;
            }
            Some(me.push_scalar(value, style, start, at.at(indent + close + 1)))
        };
        let mut value = part.text;
        if let Some(close) = part.close {
            return Some(finish(self, value, line, col + 1, close));
        }
        let mut joined = part.escaped_break;
        if !joined {
            value.truncate(value.trim_end_matches(' ').len());
        }
        let mut breaks = 0usize;
        while let Some(next) = lines.peek() {
            lines.advance(&next);
            let body = next.text.skip_spaces();
            if body.is_empty() {
                breaks += 1;
                continue;
            }
            let indent = next.text.len() - body.len();
            if indent <= map_col || !body.is_ascii() {
                return Some(None);
            }
            fold_break(&mut value, breaks, joined);
            breaks = 0;
            let Some(part) = quoted_part(body, quote) else {
                return Some(None);
            };
            value.push_str(&part.text);
            if let Some(close) = part.close {
                return Some(finish(self, value, &next, indent, close));
            }
            joined = part.escaped_break;
            if !joined {
                value.truncate(value.trim_end_matches(' ').len());
            }
        }
        Some(None)
    }

    /// A `key:` with nothing below it: null, libyaml's empty scalar right after the colon.
    fn null_value(&mut self, p: &Pending) {
        let null = self.push_scalar(
            String::new(),
            ScalarStyle::Plain,
            p.after_colon,
            p.after_colon,
        );
        self.attach(null);
    }

    /// The column of the collection a value goes into (libyaml's current indentation).
    fn holder_col(&self) -> usize {
        match self.stack.last() {
            Some(Frame::Map { col, .. } | Frame::Seq { col, .. }) => *col,
            None => 0,
        }
    }

    fn push_scalar(&mut self, value: String, style: ScalarStyle, start: Pos, end: Pos) -> usize {
        self.doc.nodes.push(Node {
            kind: NodeKind::Scalar {
                value,
                style,
                plain_implicit: style == ScalarStyle::Plain,
            },
            tag: None,
            start,
            end,
        });
        self.doc.nodes.len() - 1
    }

    /// A collection node one level below the open ones (empty; `None` past the depth
    /// kept), from `start` to `end`.
    fn push_collection(&mut self, seq: bool, start: Pos, end: Pos) -> Option<usize> {
        if self.stack.len() >= MAX_DEPTH {
            return None;
        }
        self.doc.nodes.push(Node {
            kind: if seq {
                NodeKind::Seq(Vec::new())
            } else {
                NodeKind::Map(Vec::new())
            },
            tag: None,
            start,
            end,
        });
        self.doc.depth = self.doc.depth.max(self.stack.len() + 1);
        Some(self.doc.nodes.len() - 1)
    }

    /// Opens a block mapping (`seq` false) or sequence whose entries sit at column `col`.
    fn open_collection(&mut self, seq: bool, col: usize, start: Pos) -> Option<()> {
        let node = self.push_collection(seq, start, start)?;
        self.stack.push(if seq {
            Frame::Seq {
                col,
                node,
                items: Vec::new(),
            }
        } else {
            Frame::Map {
                col,
                node,
                pairs: Vec::new(),
                key: None,
            }
        });
        Some(())
    }

    fn open_map(&mut self, col: usize, start: Pos) -> Option<()> {
        self.open_collection(false, col, start)
    }

    /// Closes the innermost collection at `end` and hands it to its parent.
    fn close(&mut self, end: Pos) {
        let node = match self.stack.pop() {
            Some(Frame::Map { node, pairs, .. }) => {
                self.doc.nodes[node].kind = NodeKind::Map(pairs);
                node
            }
            Some(Frame::Seq { node, items, .. }) => {
                self.doc.nodes[node].kind = NodeKind::Seq(items);
                node
            }
            None => return,
        };
        self.doc.nodes[node].end = end;
        self.attach(node);
    }

    /// Gives a finished node to the innermost collection (or makes it the root).
    fn attach(&mut self, n: usize) {
        match self.stack.last_mut() {
            None => self.doc.root = Some(n),
            Some(Frame::Seq { items, .. }) => items.push(n),
            Some(Frame::Map { pairs, key, .. }) => {
                if let Some(k) = key.take() {
                    pairs.push((k, n));
                }
            }
        }
    }
}

/// Whether `t` (at the line's start) is the document marker `m` (`---`, `...`).
fn marker(t: &str, m: &str) -> bool {
    t.strip_prefix(m)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// A byte that may start a plain scalar (with what follows it).
fn plain_start(t: &str) -> bool {
    let b = t.as_bytes();
    match b.first() {
        None => false,
        Some(b'-') => b.get(1).is_some_and(|&c| c != b' '),
        Some(
            b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
            | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' | b' ',
        ) => false,
        Some(_) => true,
    }
}

/// A quoted scalar at the start of `t` on one line: its value and the index after the
/// closing quote (`None` for escapes, a scalar running on, or no closing quote).
fn quoted(t: &str) -> Option<(String, ScalarStyle, usize)> {
    let b = t.as_bytes();
    match b.first()? {
        b'"' => {
            let close = t[1..].find(['"', '\\'])? + 1;
            if b[close] != b'"' {
                return None;
            }
            Some((
                t[1..close].to_string(),
                ScalarStyle::DoubleQuoted,
                close + 1,
            ))
        }
        b'\'' => {
            let mut value = String::new();
            let mut i = 1;
            loop {
                let rel = t[i..].find('\'')?;
                value.push_str(&t[i..i + rel]);
                i += rel;
                if b.get(i + 1) == Some(&b'\'') {
                    value.push('\'');
                    i += 2;
                } else {
                    return Some((value, ScalarStyle::SingleQuoted, i + 1));
                }
            }
        }
        _ => None,
    }
}

/// What follows a value on its line is fine: spaces, then a comment after a space.
fn only_comment_after(rest: &str) -> bool {
    let trimmed = rest.skip_spaces();
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

/// `key: rest` at the start of `t`: the key (value, style, length as written) and the
/// index after its colon.
fn key_of(t: &str) -> Option<((String, ScalarStyle, usize), usize)> {
    if let Some((value, style, end)) = quoted(t) {
        let after = t[end..].strip_prefix(':')?;
        if !(after.is_empty() || after.starts_with(' ')) || end > MAX_KEY || !t[..end].is_ascii() {
            return None;
        }
        return Some(((value, style, end), end + 1));
    }
    if !plain_start(t) {
        return None;
    }
    let b = t.as_bytes();
    let mut i = 0;
    loop {
        let rel = t[i..].find([':', '#'])?;
        i += rel;
        if b[i] == b'#' {
            if b[i - 1] == b' ' {
                // A comment before any `: `: the line is a scalar.
                return None;
            }
            i += 1;
            continue;
        }
        if i + 1 == b.len() || b[i + 1] == b' ' {
            break;
        }
        i += 1;
    }
    if i > MAX_KEY || !t[..i].is_ascii() {
        return None;
    }
    let key = t[..i].trim_end_matches(' ');
    if key.is_empty() {
        return None;
    }
    Some(((key.to_string(), ScalarStyle::Plain, key.len()), i + 1))
}

/// The value written at the start of `t` (after `key: ` or `- `), when in the subset.
fn written(t: &str) -> Option<Written> {
    if t.is_empty() || t.starts_with('#') {
        return Some(Written::Nothing);
    }
    if let Some((value, style, end)) = quoted(t) {
        return (t[..end].is_ascii() && only_comment_after(&t[end..]))
            .then_some(Written::Scalar(value, style, end));
    }
    if let Some(inner) = t.strip_prefix('{') {
        let end = t.len() - inner.skip_spaces().strip_prefix('}')?.len();
        return only_comment_after(&t[end..]).then_some(Written::EmptyFlow(false, end));
    }
    if let Some(rest) = t.strip_prefix("[]") {
        return only_comment_after(rest).then_some(Written::EmptyFlow(true, 2));
    }
    if t.starts_with('[') {
        return flow_sequence(t);
    }
    if let Some(header) = t.strip_prefix('|') {
        let (chomp, rest) = match header.as_bytes().first() {
            Some(b'-') => (-1, &header[1..]),
            Some(b'+') => (1, &header[1..]),
            _ => (0, header),
        };
        return only_comment_after(rest).then_some(Written::Literal(chomp));
    }
    if !plain_start(t) {
        return None;
    }
    // A plain scalar runs to a ` #` comment; `: ` or a final `:` would make it a key
    // (an error on a value's line).
    let b = t.as_bytes();
    let mut end = b.len();
    for i in 1..b.len() {
        if b[i] == b'#' && b[i - 1] == b' ' {
            end = i;
            break;
        }
        if b[i - 1] == b':' && b[i] == b' ' {
            return None;
        }
    }
    let value = t[..end].trim_end_matches(' ');
    if value.ends_with(':') || !value.is_ascii() {
        return None;
    }
    Some(Written::Scalar(
        value.to_string(),
        ScalarStyle::Plain,
        value.len(),
    ))
}

/// A flow sequence on one line (`t` starts with `[`) of quoted scalars without escapes
/// and plain scalars of word characters, with commas, spaces and a trailing comma.
fn flow_sequence(t: &str) -> Option<Written> {
    let b = t.as_bytes();
    let mut items = Vec::new();
    let mut i = 1;
    let skip_spaces = |i: &mut usize| {
        while b.get(*i) == Some(&b' ') {
            *i += 1;
        }
    };
    loop {
        skip_spaces(&mut i);
        match b.get(i)? {
            b']' => break,
            b'"' | b'\'' => {
                let (value, style, len) = quoted(&t[i..])?;
                items.push((value, style, i, i + len));
                i += len;
            }
            c if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/') => {
                let len = t[i..]
                    .bytes()
                    .take_while(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/' | b'-' | b'+')
                    })
                    .count();
                items.push((t[i..i + len].to_string(), ScalarStyle::Plain, i, i + len));
                i += len;
            }
            _ => return None,
        }
        skip_spaces(&mut i);
        match b.get(i)? {
            b',' => i += 1,
            b']' => break,
            _ => return None,
        }
    }
    let end = i + 1;
    (t[..end].is_ascii() && only_comment_after(&t[end..])).then_some(Written::FlowSeq(items, end))
}

/// A literal block scalar whose header was the last line read, in a collection at
/// column `holder`: its value and end mark (libyaml's: the start of the line that ends
/// it, or the end of the text); that line is left to read.
fn literal(lines: &mut Lines, holder: usize, chomp: i8) -> Option<(String, Pos)> {
    let mut indent: Option<usize> = None;
    let mut parts: Vec<&str> = Vec::new();
    let mut end = None;
    while let Some(line) = lines.peek() {
        let spaces = line.text.len() - line.text.skip_spaces().len();
        let blank = spaces == line.text.len();
        match indent {
            None if blank => {
                // Spaces before the text begins decide libyaml's indentation.
                if spaces > 0 {
                    return None;
                }
                parts.push("");
            }
            None => {
                if spaces <= holder {
                    return None;
                }
                indent = Some(spaces);
                parts.push(&line.text[spaces..]);
            }
            Some(n) if blank => parts.push(if spaces > n { &line.text[n..] } else { "" }),
            Some(n) if spaces >= n => parts.push(&line.text[n..]),
            Some(_) => {
                end = Some(line.at(0));
                break;
            }
        }
        lines.advance(&line);
    }
    indent?;
    let end = end.unwrap_or_else(|| lines.end());
    let last = parts.iter().rposition(|p| !p.is_empty())?;
    let mut value = parts[..=last].join("\n");
    if chomp >= 0 {
        value.push('\n');
    }
    if chomp > 0 {
        for _ in last + 1..parts.len() {
            value.push('\n');
        }
    }
    Some((value, end))
}

#[cfg(test)]
#[path = "compose_lines_tests.rs"]
mod tests;
