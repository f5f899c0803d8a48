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
    // The folder the template names before its first action; helmfile's default
    // writes beside each state file.
    let folder = if request.output_file_template.is_empty() {
        crate::files::common_folder(session.cwd(), &files)
    } else {
        crate::files::fixed_folder(&request.output_file_template)
    };
    crate::files::write_all(session.cwd(), &folder, &files, true)?;
    Ok(files.into_iter().map(|(p, _)| p).collect())
}
