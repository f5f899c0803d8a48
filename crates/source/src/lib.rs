//! Where things come from: source files (`SourceId`), positions and spans inside them,
//! `Diagnostic`s as plain data, and reading an untrusted stream within a size cap
//! ([`read_capped`]). Rendering diagnostics with snippets is the CLI's job.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::fmt;
use std::sync::Arc;

/// The bytes of `r` when there are at most `cap` of them, else `Ok(None)`, read so that
/// memory never holds more than `cap` bytes (plus one chunk): `read_to_end` doubles its
/// buffer past the cap before it can tell, twice the memory each cap allows.
pub fn read_capped(mut r: impl std::io::Read, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    const CHUNK: usize = 64 * 1024;
    // Power-of-two capacities from here on: the buffer doubles to the cap at most.
    let mut out = Vec::with_capacity(CHUNK);
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => return Ok(Some(out)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if (out.len() + n) as u64 > cap {
            return Ok(None);
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

/// Names a source: a file path, or a pseudo-source such as `--set` or `<stdin>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId(pub Arc<str>);

impl SourceId {
    /// A source named `name` (a path as the user wrote it, or a label such as `--set`).
    pub fn new(name: impl Into<Arc<str>>) -> Self {
        SourceId(name.into())
    }
    /// The source's name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A position: byte offset plus 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// Byte offset from the start of the text.
    pub offset: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// A half-open range between two positions in one source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Where the span starts.
    pub start: Pos,
    /// Where it ends (exclusive).
    pub end: Pos,
}

impl Span {
    /// The span from `start` to `end`.
    pub fn new(start: Pos, end: Pos) -> Self {
        Span { start, end }
    }
    /// A zero-width span at one position.
    pub fn point(p: Pos) -> Self {
        Span { start: p, end: p }
    }
}

impl fmt::Display for Span {
    /// `line:column` of the start, the form used in `file:line:col` locations.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.start.line, self.start.column)
    }
}

/// Declares an error type whose whole content is one message: the exact text Go, Helm or
/// helmfile print for that failure (its `Display`), for failures that have no place in a
/// file of their own (a flag, a value, a network reply). Errors with a place carry a
/// [`Location`] instead.
///
/// ```
/// capstan_source::message_error!(
///     /// Why a patch could not be applied.
///     PatchError
/// );
/// let e = PatchError::from("bad op");
/// assert_eq!(e.to_string(), "bad op");
/// ```
#[macro_export]
macro_rules! message_error {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name(pub String);

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl ::std::error::Error for $name {}

        impl ::std::convert::From<String> for $name {
            fn from(message: String) -> Self {
                $name(message)
            }
        }

        impl ::std::convert::From<&str> for $name {
            fn from(message: &str) -> Self {
                $name(message.to_string())
            }
        }
    };
}

/// A place in a file that an error is about: the file as the user named it (or as the
/// tool showed it), the 1-based line, and the 1-based column (0 when unknown). The one
/// location type capstan's errors carry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// The file as the user named it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column; 0 when only the line is known.
    pub column: u32,
}

impl Location {
    /// The place `line`:`column` in `file`.
    pub fn new(file: impl Into<String>, line: u32, column: u32) -> Location {
        Location {
            file: file.into(),
            line,
            column,
        }
    }
}

impl fmt::Display for Location {
    /// `file:line:column`, or `file:line` when the column is unknown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.column > 0 {
            write!(f, ":{}", self.column)?;
        }
        Ok(())
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Stops the command.
    Error,
    /// Printed; the command goes on.
    Warning,
    /// Extra information attached to another diagnostic.
    Note,
}

/// A message about a place in a source, ready to be rendered by a front end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// The message, as helm or helmfile would print it.
    pub message: String,
    /// The source it is about, when there is one.
    pub source: Option<SourceId>,
    /// Where in that source.
    pub span: Option<Span>,
    /// Further lines printed after the snippet.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error with `message` and no place yet.
    pub fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            source: None,
            span: None,
            notes: Vec::new(),
        }
    }
    /// A warning with `message` and no place yet.
    pub fn warning(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }
    /// The same diagnostic, about `span` in `source`.
    pub fn at(mut self, source: SourceId, span: Span) -> Self {
        self.source = Some(source);
        self.span = Some(span);
        self
    }
    /// The same diagnostic with one more note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line:col: message`, the location parts present as far as known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.source, &self.span) {
            (Some(s), Some(sp)) => write!(f, "{}:{}: {}", s, sp, self.message),
            (Some(s), None) => write!(f, "{}: {}", s, self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// Converts byte offsets of one text to 1-based line/column positions.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// The line index of `text`.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// The position of a byte offset; `text` must be the indexed text.
    pub fn pos(&self, text: &str, offset: usize) -> Pos {
        let line = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.starts[line];
        let end = offset.min(text.len());
        let column = text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count())
            + 1;
        Pos {
            offset,
            line: line as u32 + 1,
            column: column as u32,
        }
    }
}

/// The source line of a 1-based `line`/`column` with a caret under the column, as
/// compilers show it:
///
/// ```text
///   --> values.yaml:3:5
///    |
///  3 | foo: [1, 2
///    |     ^
/// ```
/// A position just past the last line (where parsers report "unexpected end of input")
/// is shown at the end of the last line. `None` for an empty text or line 0.
pub fn snippet(name: &str, text: &str, line: u32, column: u32) -> Option<String> {
    let count = text.lines().count() as u32;
    let (line, column) = match line.checked_sub(1)? {
        l if l < count => (line, column),
        _ => {
            let last = text.lines().last()?;
            (count, last.chars().count() as u32 + 1)
        }
    };
    let src = text.lines().nth(line as usize - 1)?;
    let number = line.to_string();
    let pad = " ".repeat(number.len());
    let col = column.max(1) as usize;
    let before: String = src
        .chars()
        .take(col - 1)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    Some(format!(
        "{pad}--> {name}:{line}:{column}\n{pad} |\n{number} | {src}\n{pad} | {before}^\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out its bytes in uneven pieces, as a socket or decoder does.
    struct Trickle {
        left: u64,
        step: u64,
    }

    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.step = (self.step * 7919 + 13) % 70_001 + 1;
            let n = (self.step.min(self.left) as usize).min(buf.len());
            buf[..n].fill(1);
            self.left -= n as u64;
            Ok(n)
        }
    }

    #[test]
    fn capped_reads_never_hold_twice_the_cap() {
        let mut cases = vec![
            (0u64, 0u64),
            (10, 10),
            (11, 10),
            (200_000, 131_072),
            (131_072, 131_072),
        ];
        for cap in [1_000u64, 65_536, 100_000, 1 << 20, 3 << 20] {
            for delta in [-70_000i64, -1, 0, 1, 999, 70_000] {
                cases.push(((cap as i64 + delta).max(0) as u64, cap));
            }
        }
        for (i, (len, cap)) in cases.into_iter().enumerate() {
            let got = read_capped(
                Trickle {
                    left: len,
                    step: i as u64,
                },
                cap,
            )
            .expect("read");
            match got {
                Some(v) => {
                    assert!(len <= cap);
                    assert_eq!(v.len() as u64, len);
                    assert!(v.capacity() as u64 <= cap.max(64 * 1024).next_power_of_two());
                }
                None => assert!(len > cap),
            }
        }
    }

    #[test]
    fn snippets_point_at_the_column() {
        assert_eq!(
            snippet("v.yaml", "a: 1\nfoo: [1, 2\n", 2, 6).unwrap(),
            " --> v.yaml:2:6\n  |\n2 | foo: [1, 2\n  |      ^\n"
        );
        assert_eq!(
            snippet("v.yaml", "a: 1\n", 5, 1).unwrap(),
            " --> v.yaml:1:5\n  |\n1 | a: 1\n  |     ^\n"
        );
        assert_eq!(snippet("v.yaml", "", 1, 1), None);
    }

    #[test]
    fn line_index_positions() {
        let text = "ab\ncé\nx";
        let idx = LineIndex::new(text);
        assert_eq!(
            idx.pos(text, 0),
            Pos {
                offset: 0,
                line: 1,
                column: 1
            }
        );
        assert_eq!(
            idx.pos(text, 3),
            Pos {
                offset: 3,
                line: 2,
                column: 1
            }
        );
        assert_eq!(
            idx.pos(text, 6),
            Pos {
                offset: 6,
                line: 2,
                column: 3
            }
        );
        let d =
            Diagnostic::error("boom").at(SourceId::new("f.yaml"), Span::point(idx.pos(text, 7)));
        assert_eq!(d.to_string(), "f.yaml:3:1: boom");
    }
}
