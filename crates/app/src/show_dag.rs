//! `show-dag`: the releases in the groups their `needs:` put them in, as helmfile's
//! table.

use crate::session::describe_needs;
use crate::{Failure, Session};

/// Runs `show-dag`: the table (empty when nothing matched and that is allowed).
pub fn run(session: &Session, log: &mut String) -> Result<String, Failure> {
    let (states, no_match) = session.load_any(log)?;
    // helmfile prints the table's header before it reports that no release matched.
    if let Some(message) = no_match {
        return Err(Failure {
            stdout: capstan_state::commands::empty_dag_table(),
            code: crate::failure::NO_MATCH_EXIT_CODE,
            ..Failure::new(message, None)
        });
    }
    capstan_state::commands::show_dag(&states).map_err(|e| describe_needs(e, session.cwd()))
}
