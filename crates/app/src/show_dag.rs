//! `show-dag`: the releases in the groups their `needs:` put them in, as helmfile's
//! table.

use crate::session::describe_needs;
use crate::{Failure, Session};

/// Runs `show-dag`: the table (empty when nothing matched and that is allowed).
pub fn run(session: &Session, log: &mut String) -> Result<String, Failure> {
    let Some(states) = session.load(log)? else {
        return Ok(String::new());
    };
    capstan_state::commands::show_dag(&states).map_err(|e| describe_needs(e, session.cwd()))
}
