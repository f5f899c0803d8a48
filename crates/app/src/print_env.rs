//! `print-env`: the environment's final values per state file, or (explained) every
//! value with the layers that set it, or two environments compared leaf by leaf. No
//! release needs to match.

use crate::{Failure, Session};
use capstan_state::commands::ExplainedEnv;
use capstan_values::provenance::Explained;
use std::collections::{BTreeMap, BTreeSet};

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

/// One state file's environment values in two environments, leaf by leaf.
pub struct Compared {
    /// The state file.
    pub file: String,
    /// The two environments, as asked.
    pub environments: [String; 2],
    /// The leaves whose values differ or that one environment lacks, by path: each
    /// environment's leaf (with the layer that set it), `None` where it has none.
    pub differences: Vec<[Option<Explained>; 2]>,
    /// How many leaves have the same value in both.
    pub same: usize,
}

/// `print-env --explain --compare A B`: each state file's environment values in `A` and
/// in `B`, the leaves that differ with the layer that makes each side's value.
pub fn compare(
    session: &Session,
    environments: [&str; 2],
    log: &mut String,
) -> Result<Vec<Compared>, Failure> {
    let mut sides: Vec<Vec<ExplainedEnv>> = Vec::new();
    for env in environments {
        let mut session = session.clone();
        session.settings.env = env.to_string();
        session.settings.env_journal = Some(Default::default());
        // Nothing cached for one environment reaches the other.
        session.settings.renderers = Default::default();
        let (states, _) = session.load_any(log)?;
        sides.push(capstan_state::commands::explain_env(
            &session.settings,
            &states,
        ));
    }
    let b = sides.pop().unwrap_or_default();
    let a = sides.pop().unwrap_or_default();
    let mut files: Vec<&str> = a.iter().map(|e| e.file.as_str()).collect();
    for e in &b {
        if !files.contains(&e.file.as_str()) {
            files.push(&e.file);
        }
    }
    let leaves_of = |side: &[ExplainedEnv], file: &str| -> BTreeMap<String, Explained> {
        side.iter()
            .filter(|e| e.file == file)
            .flat_map(|e| e.leaves.iter().cloned())
            .map(|l| (l.path.to_string(), l))
            .collect()
    };
    Ok(files
        .into_iter()
        .map(|file| {
            let mut left = leaves_of(&a, file);
            let mut right = leaves_of(&b, file);
            let paths: BTreeSet<String> = left.keys().chain(right.keys()).cloned().collect();
            let mut differences = Vec::new();
            let mut same = 0;
            for p in paths {
                let pair = [left.remove(&p), right.remove(&p)];
                match &pair {
                    [Some(x), Some(y)] if x.value == y.value => same += 1,
                    _ => differences.push(pair),
                }
            }
            Compared {
                file: file.to_string(),
                environments: environments.map(str::to_string),
                differences,
                same,
            }
        })
        .collect())
}
