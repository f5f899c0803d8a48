//! Source ranges and diagnostics as HCL reports them: `file:line,col-col` (or
//! `file:line,col-line,col` across lines), then `Summary; Detail`.

use std::fmt;
use std::sync::Arc;

/// A position: 1-based line and column (columns count characters), byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
    pub byte: usize,
}

/// A half-open range in a named file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Range {
    pub file: Arc<str>,
    pub start: Pos,
    pub end: Pos,
}

impl Range {
    /// The range from the start of `a` to the end of `b`.
    pub fn between(a: &Range, b: &Range) -> Range {
        Range {
            file: a.file.clone(),
            start: a.start,
            end: b.end,
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.start.line == self.end.line {
            write!(
                f,
                "{}:{},{}-{}",
                self.file, self.start.line, self.start.col, self.end.col
            )
        } else {
            write!(
                f,
                "{}:{},{}-{},{}",
                self.file, self.start.line, self.start.col, self.end.line, self.end.col
            )
        }
    }
}

/// An error diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub summary: String,
    pub detail: String,
    pub subject: Option<Range>,
}

impl Diag {
    pub fn new(summary: impl Into<String>, detail: impl Into<String>, subject: &Range) -> Diag {
        Diag {
            summary: summary.into(),
            detail: detail.into(),
            subject: Some(subject.clone()),
        }
    }
}

/// HCL's `Diagnostic.Error()`.
impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.subject {
            Some(r) => write!(f, "{r}: {}; {}", self.summary, self.detail),
            None => write!(f, "<nil>: {}; {}", self.summary, self.detail),
        }
    }
}
