//! `build`: every state as helmfile prints it after loading (`helmfile build`), after
//! the `prepare` hooks; the states are printed even when no release matched.

use crate::{Failure, Session, NO_MATCH_EXIT_CODE};

/// What `build` is asked for.
#[derive(Clone, Debug, Default)]
pub struct BuildRequest {
    /// Put each release's values files' content in the output.
    pub embed_values: bool,
}

/// Runs `build`: the YAML text of every state.
pub fn run(session: &Session, request: &BuildRequest, log: &mut String) -> Result<String, Failure> {
    // helmfile prints every state, then fails when no release matched.
    let (states, no_match) = session.load_any(log)?;
    // `build` prepares charts first, which runs the `prepare` hooks (helmfile v0.166 and
    // v1.7; `list` and `write-values` stopped in v0.168, #1681).
    crate::hooks::state_hooks(
        session,
        &states,
        "prepare",
        "build",
        crate::hooks::HookScope::StateAndReleases,
        log,
    )?;
    let out = capstan_state::commands::build(&session.settings, &states, request.embed_values)?;
    match no_match {
        Some(message) => Err(Failure {
            stdout: out,
            message,
            location: None,
            code: NO_MATCH_EXIT_CODE,
        }),
        None => Ok(out),
    }
}
