//! [`FetchError`]: why a source could not be fetched, shown without terminal controls.

use crate::redact::neutralize_controls;

/// Why a source could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError(pub String);

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // It may carry a server's or git's words: no terminal control reaches the screen.
        f.write_str(&neutralize_controls(&self.0))
    }
}
