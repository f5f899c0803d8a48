//! `print-env`: the environment's final values per state file, or (explained) every
//! value with the layers that set it. No release needs to match.

use crate::{Failure, Session};
use capstan_state::commands::ExplainedEnv;

/// What `print-env` is asked for.
#[derive(Clone, Debug, Default)]
pub struct PrintEnvRequest {
    /// Every value with its layers instead of the values.
    pub explain: bool,
    /// JSON instead of YAML (without `explain`).
    pub json: bool,
}

/// What `print-env` gives.
pub enum PrintedEnv {
    /// The values as text.
    Text(String),
    /// Per state file, every value and its layers.
    Explained(Vec<ExplainedEnv>),
}

/// Runs `print-env`.
pub fn run(
    session: &Session,
    request: &PrintEnvRequest,
    log: &mut String,
) -> Result<PrintedEnv, Failure> {
    if request.explain {
        // Record every value layer while the states load.
        let mut session = session.clone();
        session.settings.env_journal = Some(Default::default());
        let (states, _) = session.load_any(log)?;
        return Ok(PrintedEnv::Explained(capstan_state::commands::explain_env(
            &session.settings,
            &states,
        )));
    }
    // print-env needs no release (helmfile suppresses "no releases found").
    let (states, _) = session.load_any(log)?;
    Ok(PrintedEnv::Text(capstan_state::commands::print_env(
        &session.settings,
        &states,
        request.json,
    )?))
}
