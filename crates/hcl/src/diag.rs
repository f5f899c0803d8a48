//! Source ranges and diagnostics as HCL reports them: `file:line,col-col` (or
//! `file:line,col-line,col` across lines), then `Summary; Detail`.

use std::fmt;
use std::sync::Arc;

/// A position: 1-based line and column (columns count characters), byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// Byte offset from the start of the file.
    pub byte: usize,
}

/// A half-open range in a named file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Range {
    /// The file's name, as diagnostics print it.
    pub file: Arc<str>,
    /// The first position in the range.
    pub start: Pos,
    /// The position just after it.
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
    /// hclsyntax's short text (`Unsupported argument`).
    pub summary: String,
    /// The explanation after it.
    pub detail: String,
    /// The range it is about, when there is one.
    pub subject: Option<Range>,
}

impl Diag {
    /// A diagnostic about `subject`.
    pub fn new(summary: impl Into<String>, detail: impl Into<String>, subject: &Range) -> Diag {
        Diag {
            summary: summary.into(),
            detail: detail.into(),
            subject: Some(subject.clone()),
        }
    }
}

/// Why helmfile's HCL loader failed: its text (`Display`, word for word) and the place in
/// an HCL file it is about, when there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HclError {
    /// helmfile's text.
    pub message: String,
    /// The file, line and column it is about, when known.
    pub location: Option<capstan_source::Location>,
}

impl From<String> for HclError {
    fn from(message: String) -> HclError {
        HclError {
            message,
            location: None,
        }
    }
}

impl From<&str> for HclError {
    fn from(message: &str) -> HclError {
        HclError::from(message.to_string())
    }
}

impl From<Diag> for HclError {
    fn from(d: Diag) -> HclError {
        HclError {
            message: d.to_string(),
            location: d.subject.as_ref().map(Range::location),
        }
    }
}

impl Range {
    /// Where the range starts, as capstan's errors name places.
    pub fn location(&self) -> capstan_source::Location {
        capstan_source::Location::new(self.file.to_string(), self.start.line, self.start.col)
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

/// Levenshtein distance, for "Did you mean" suggestions.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}
