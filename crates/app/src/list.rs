//! `list`: one row per selected release (name, namespace, enabled, installed, labels,
//! chart, version), as `helmfile list` gives them.

use crate::{Failure, Session, NO_MATCH_EXIT_CODE};

/// One release's row: name, namespace, enabled, installed, labels, chart, version.
pub type Row = [String; 7];

/// Runs `list`: the rows (empty when nothing matched and that is allowed).
pub fn run(session: &Session, log: &mut String) -> Result<Vec<Row>, Failure> {
    let (states, no_match) = session.load_any(log)?;
    if let Some(message) = no_match {
        return Err(Failure {
            message,
            code: NO_MATCH_EXIT_CODE,
            ..Failure::default()
        });
    }
    Ok(capstan_state::commands::list_rows(&states)?)
}

/// The rows as helmfile's table.
pub fn table(rows: &[Row]) -> String {
    capstan_state::commands::list_table(rows)
}

/// The rows as helmfile's JSON.
pub fn json(rows: &[Row]) -> String {
    capstan_state::commands::list_json(rows)
}
