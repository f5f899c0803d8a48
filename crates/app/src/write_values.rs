//! `write-values`: each selected release's merged values written to a file (private,
//! 0600: values may hold secrets), all files together.

use crate::{Failure, Session};
use capstan_state::release_values::HelmFlags;

/// What `write-values` is asked for.
#[derive(Clone, Debug, Default)]
pub struct WriteValuesRequest {
    /// Extra `--set` for every release.
    pub set: Vec<String>,
    /// Extra values files for every release.
    pub values: Vec<String>,
    /// The Go template of each release's file name (empty: helmfile's).
    pub output_file_template: String,
}

/// Runs `write-values`: the files written, relative to the root.
pub fn run(
    session: &Session,
    request: &WriteValuesRequest,
    log: &mut String,
) -> Result<Vec<String>, Failure> {
    let Some(states) = session.load(log)? else {
        return Ok(Vec::new());
    };
    // helmfile v1.7.4 triggers the global events around write-values and prepares no
    // release's chart (`pkg/app/run.go:49`).
    let scope = crate::hooks::HookScope::StateOnly;
    crate::hooks::state_hooks(session, &states, "prepare", "write-values", scope, log)?;
    let flags = HelmFlags {
        set: request.set.clone(),
        values: request.values.clone(),
        skip_deps: session.skip_deps,
        ..Default::default()
    };
    let files = capstan_state::commands::write_values(
        &session.settings,
        &states,
        &flags,
        &request.output_file_template,
    )?;
    // The files are named relative to each state's folder: every folder they go below,
    // from the working folder (or a common parent of it) down, is checked.
    let folder = crate::files::common_folder(session.cwd(), &files);
    crate::files::write_all(session.cwd(), &folder, &files, true)?;
    crate::hooks::state_hooks(session, &states, "cleanup", "write-values", scope, log)?;
    Ok(files.into_iter().map(|(p, _)| p).collect())
}
