//! `values` (capstan's own): each selected release's final values, or with `explain`
//! every leaf with the layers that set it and the traps found, handed release by release
//! to the caller's formatter on the thread that explained it.

use crate::{Failure, Session};
use capstan_state::app::PreparedState;
use capstan_state::commands::ExplainedRelease;
use capstan_state::release_values::HelmFlags;
use capstan_state::StateError;

/// What `values` is asked for.
#[derive(Clone, Debug, Default)]
pub struct ValuesRequest {
    /// Extra `--set` for every release.
    pub set: Vec<String>,
    /// Extra values files for every release.
    pub values: Vec<String>,
    /// Follow values templates back to the environment (its layers are recorded while
    /// the states load).
    pub explain: bool,
}

/// What `values` gives: what `format` kept of each release, in the states' order, and the
/// states (for the caller to drop or leave to the process exit).
pub struct Explained<R> {
    /// Per release, what `format` returned.
    pub releases: Vec<R>,
    /// The loaded states.
    pub states: Vec<PreparedState>,
}

/// Runs `values`; each release goes through `format` (in parallel), `progress` following
/// them; `Ok(None)`: nothing matched and that is allowed.
pub fn run<R: Send>(
    session: &Session,
    request: &ValuesRequest,
    format: &(dyn Fn(ExplainedRelease) -> Result<R, StateError> + Sync),
    progress: &dyn crate::template::Progress,
    log: &mut String,
) -> Result<Option<Explained<R>>, Failure> {
    let mut session = session.clone();
    if request.explain {
        session.settings.env_journal = Some(Default::default());
    }
    let Some(states) = session.load(log)? else {
        return Ok(None);
    };
    let flags = HelmFlags {
        set: request.set.clone(),
        values: request.values.clone(),
        skip_deps: session.skip_deps,
        ..Default::default()
    };
    let releases = capstan_state::commands::explain_values(
        &session.settings,
        &states,
        &flags,
        format,
        &|finished, total| progress.rendered(finished, total),
    );
    progress.done();
    Ok(Some(Explained {
        releases: releases?,
        states,
    }))
}
