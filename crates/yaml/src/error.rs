//! The YAML error type. Its `Display` is the exact `err.Error()` text of the Go library
//! being reproduced; the position, when known, is kept beside it for diagnostics.

use capstan_source::{Diagnostic, Pos, SourceId, Span};

/// A YAML decode or encode failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    /// Go's message, byte for byte (for example `yaml: line 2: did not find expected key`).
    pub message: String,
    /// Where in the input the problem was found, if known (1-based line and column).
    pub pos: Option<Pos>,
}

impl YamlError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        YamlError {
            message: message.into(),
            pos: None,
        }
    }

    pub(crate) fn at(mut self, pos: Option<Pos>) -> Self {
        if self.pos.is_none() {
            self.pos = pos;
        }
        self
    }

    /// The same error, at `line` (column unknown) when it has no position yet.
    pub(crate) fn at_line(self, line: usize) -> Self {
        let line = u32::try_from(line).unwrap_or(u32::MAX);
        self.at(Some(Pos {
            offset: 0,
            line,
            column: 0,
        }))
    }

    /// The error as a diagnostic located in `file` (`file:line:col: message` when the
    /// position is known).
    pub fn diagnostic(&self, file: SourceId) -> Diagnostic {
        let d = Diagnostic::error(self.message.clone());
        match self.pos {
            Some(p) => d.at(file, Span::point(p)),
            None => Diagnostic {
                source: Some(file),
                ..d
            },
        }
    }

    /// Prefixes the message (Go's `fmt.Errorf("context: %w", err)`).
    pub(crate) fn wrap(mut self, prefix: &str) -> Self {
        self.message = format!("{prefix}{}", self.message);
        self
    }
}

/// A value with keys that helmfile cannot turn into strings
/// (`maputil.CastKeysToStrings`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CastError(pub String);

#[cfg(test)]
mod tests {
    use crate::decode_helmfile;
    use capstan_source::SourceId;

    #[test]
    fn bad_yaml_is_located() {
        let err = decode_helmfile("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        let shown = err.diagnostic(SourceId::new("values.yaml")).to_string();
        assert!(shown.starts_with("values.yaml:"), "{shown}");
        let pos = err.pos.expect("a syntax error has a position");
        assert!(pos.line >= 2 && pos.column >= 1, "{pos:?}");
    }
}
