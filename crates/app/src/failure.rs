//! [`Failure`]: what a command that failed gives back: its message, the place in a file it
//! is about, its exit code, and what it still printed on standard output.

/// helmfile's exit code for "no releases found".
pub const NO_MATCH_EXIT_CODE: i32 = 3;

/// A failed command: its message, the place in a file it is about (shown with a snippet
/// by the CLI's one renderer), its exit code, and what it still printed on standard
/// output.
#[derive(Debug, Default)]
pub struct Failure {
    /// What the command printed on standard output before it failed.
    pub stdout: String,
    /// The message (helmfile's or helm's wording).
    pub message: String,
    /// The place in a file the message is about.
    pub location: Option<capstan_source::Location>,
    /// The exit code.
    pub code: i32,
}

impl Failure {
    /// A failure with exit code 1.
    pub fn new(message: impl Into<String>, location: Option<capstan_source::Location>) -> Failure {
        Failure {
            stdout: String::new(),
            message: message.into(),
            location,
            code: 1,
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::new(message, None)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::new(message, None)
    }
}

impl From<capstan_state::StateError> for Failure {
    fn from(e: capstan_state::StateError) -> Failure {
        Failure::new(e.message, e.location)
    }
}

impl From<capstan_chart::TemplateError> for Failure {
    fn from(e: capstan_chart::TemplateError) -> Failure {
        let message = e.to_string();
        Failure::new(message, e.location)
    }
}

impl From<capstan_state::commands::ReleaseError> for Failure {
    fn from(e: capstan_state::commands::ReleaseError) -> Failure {
        Failure::new(e.to_string(), e.location)
    }
}

/// Errors of the crates below that are one message (Go's, Helm's or helmfile's text).
macro_rules! failures_from_messages {
    ($($t:ty),* $(,)?) => {
        $(impl From<$t> for Failure {
            fn from(e: $t) -> Failure {
                Failure::new(e.to_string(), None)
            }
        })*
    };
}

failures_from_messages!(
    capstan_value::json::JsonError,
    capstan_chart::manifests::ManifestError,
    capstan_helm::flags::FlagError,
    capstan_helm::ops::HelmError,
);
