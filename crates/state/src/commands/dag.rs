//! `show-dag` and the `needs:` checks every command makes.

use crate::app::PreparedState;
use crate::release::Release;
use crate::select::{dag_table, plan_batches};

/// `show-dag` for every state.
pub fn show_dag(states: &[PreparedState]) -> Result<String, crate::select::NeedsError> {
    let mut out = String::new();
    for ps in states {
        let releases: Vec<Release> = ps
            .selected
            .iter()
            .map(|&i| ps.releases[i].clone())
            .collect();
        if releases.is_empty() {
            continue;
        }
        let batches = plan_batches(&releases).map_err(|e| needs_error(ps, e))?;
        out.push_str(&dag_table(&releases, &batches));
    }
    Ok(out)
}

/// The table of no release: its header alone (helmfile prints it before reporting that
/// no release matched).
pub fn empty_dag_table() -> String {
    crate::select::dag_table(&[], &[])
}

/// A `needs:` problem of state `ps`, named as helmfile names it.
fn needs_error(ps: &PreparedState, e: crate::select::NeedsError) -> crate::select::NeedsError {
    crate::select::NeedsError {
        file: ps.state.file.clone(),
        message: format!("{}: {}", ps.context, e.message),
        ..e
    }
}

/// Checks the `needs:` graph of every state (cycles and unknown releases are errors).
pub fn check_needs(states: &[PreparedState]) -> Result<(), crate::select::NeedsError> {
    for ps in states {
        plan_batches(&ps.releases).map_err(|e| needs_error(ps, e))?;
    }
    Ok(())
}
