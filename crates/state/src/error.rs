//! The state crate's error: helmfile's message (its `Display`, word for word) and, where
//! the failure is about a place in a file, that place.

use crate::Location;
use std::fmt::Display;

/// A failure while loading, templating or running a state file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StateError {
    /// helmfile's message.
    pub message: String,
    /// The place in a file the message is about, when known.
    pub location: Option<Location>,
    /// Text of the state file the error is about (a values entry, `name: RELEASE`), for
    /// the caller that has the file to turn into a [`Location`] when there is none yet.
    pub subject: Option<String>,
}

impl StateError {
    /// An error with `message` and no place.
    pub fn new(message: impl Into<String>) -> StateError {
        StateError {
            message: message.into(),
            location: None,
            subject: None,
        }
    }

    /// The same error, about `text` as it is written in the state file.
    pub fn about(mut self, text: impl Into<String>) -> StateError {
        self.subject.get_or_insert(text.into());
        self
    }

    /// The same error, about `location` (kept when it already has one: the innermost
    /// place is the most precise).
    pub fn at(mut self, location: Location) -> StateError {
        self.location.get_or_insert(location);
        self
    }

    /// helmfile's wrapping, `PREFIX: MESSAGE`, keeping the location.
    pub fn context(mut self, prefix: impl Display) -> StateError {
        self.message = format!("{prefix}: {}", self.message);
        self
    }
}

impl From<String> for StateError {
    fn from(message: String) -> StateError {
        StateError::new(message)
    }
}

impl From<&str> for StateError {
    fn from(message: &str) -> StateError {
        StateError::new(message)
    }
}

impl From<StateError> for capstan_gotmpl::FuncError {
    fn from(e: StateError) -> Self {
        capstan_gotmpl::FuncError::Message(e.message)
    }
}

impl From<capstan_hcl::HclError> for StateError {
    fn from(e: capstan_hcl::HclError) -> Self {
        StateError {
            message: e.message,
            location: e.location,
            subject: None,
        }
    }
}

/// Errors of the crates below that carry only Go's or Helm's text.
macro_rules! from_message_errors {
    ($($t:ty),* $(,)?) => {
        $(impl From<$t> for StateError {
            fn from(e: $t) -> Self {
                StateError::new(e.to_string())
            }
        })*
    };
}

from_message_errors!(
    capstan_gotmpl::ParseError,
    capstan_gotmpl::ExecError,
    capstan_value::json::JsonError,
    capstan_chart::manifests::ManifestError,
    capstan_chart::patch::PatchError,
    capstan_chart::postrender::PostRenderError,
    capstan_chart::dependencies::DependencyError,
    capstan_values::ReadError,
);

impl From<capstan_chart::template::TemplateError> for StateError {
    fn from(e: capstan_chart::template::TemplateError) -> Self {
        StateError {
            message: e.to_string(),
            location: e.location,
            subject: None,
        }
    }
}
