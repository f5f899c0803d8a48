//! [`ExecError`]: an execution failure as Go's `text/template` reports it, with where it
//! happened and why.

use capstan_gocompat::quote::go_quote;
use std::fmt;

/// An execution failure, as Go's `text/template` reports it: where in which template it
/// happened and which node was executing (absent for failures with no place: a missing
/// template, a limit), and why. Its `Display` is Go's message
/// (`template: NAME:LINE:COL: executing "NAME" at <NODE>: CAUSE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecError {
    /// The action that failed, in the template being executed (not a template it included:
    /// that one is in [`ExecCause::Call`]).
    pub at: Option<ExecLocation>,
    /// The template executing and the node's source text; present when `at` is.
    pub executing: Option<Box<Executing>>,
    /// Why it failed.
    pub cause: ExecCause,
}

/// The template executing and the text of the node that failed (Go's
/// `executing "NAME" at <NODE>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executing {
    /// The template's name (Go quotes it in the message).
    pub template: String,
    /// The node's source text.
    pub node: String,
}

/// Why an execution failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecCause {
    /// Go's text for a failure of the engine itself (`nil pointer evaluating ...`).
    Message(String),
    /// A function returned an error (`error calling NAME: ERROR`); an `include`d template's
    /// failure stays whole inside it.
    Call {
        /// The function called.
        function: String,
        /// What it returned.
        error: crate::FuncError,
    },
}

impl fmt::Display for ExecCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecCause::Message(m) => f.write_str(m),
            ExecCause::Call { function, error } => write!(f, "error calling {function}: {error}"),
        }
    }
}

/// A place in a template: its parse name (as Go's messages show it), line and column
/// (1-based line; the column counts bytes from 0, as Go prints it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecLocation {
    /// The template's parse name.
    pub template: String,
    /// 1-based line.
    pub line: usize,
    /// Byte column from 0, as Go counts it.
    pub column: usize,
}

impl fmt::Display for ExecLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.template, self.line, self.column)
    }
}

impl ExecError {
    /// An error with no place in a template; `message` is Go's whole text.
    pub fn new(message: impl Into<String>) -> ExecError {
        ExecError {
            at: None,
            executing: None,
            cause: ExecCause::Message(message.into()),
        }
    }
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (Some(at), Some(ex)) = (&self.at, &self.executing) {
            write!(
                f,
                "template: {at}: executing {} at <{}>: ",
                go_quote(&ex.template),
                ex.node
            )?;
        }
        write!(f, "{}", self.cause)
    }
}

impl std::error::Error for ExecError {}
