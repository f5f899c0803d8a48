//! `list`: one row per selected release (name, namespace, enabled, installed, labels,
//! chart, version), as `helmfile list` gives them.

use crate::hooks::HookScope;
use crate::{Failure, Session, NO_MATCH_EXIT_CODE};

/// One release's row: name, namespace, enabled, installed, labels, chart, version.
pub type Row = [String; 7];

/// Runs `list`: the rows (empty when nothing matched and that is allowed). Unless
/// `skip_charts`, the states' top-level `prepare` and `cleanup` hooks run around it, as
/// helmfile v1.7.4's `list` triggers them (no release's chart is prepared).
pub fn run(session: &Session, skip_charts: bool, log: &mut String) -> Result<Vec<Row>, Failure> {
    let (states, no_match) = session.load_any(log)?;
    if let Some(message) = no_match {
        return Err(Failure {
            message,
            code: NO_MATCH_EXIT_CODE,
            ..Failure::default()
        });
    }
    let hooks = |event: &str, log: &mut String| match skip_charts {
        true => Ok(()),
        false => {
            crate::hooks::state_hooks(session, &states, event, "list", HookScope::StateOnly, log)
        }
    };
    hooks("prepare", log)?;
    let rows = capstan_state::commands::list_rows(&states)?;
    hooks("cleanup", log)?;
    Ok(rows)
}

/// The rows as helmfile's table.
pub fn table(rows: &[Row]) -> String {
    capstan_state::commands::list_table(rows)
}

/// The rows as helmfile's JSON.
pub fn json(rows: &[Row]) -> String {
    capstan_state::commands::list_json(rows)
}
