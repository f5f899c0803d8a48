//! The conformance ratchet: every case listed in `passing/<suite>.txt` must still pass
//! against `../shared` (the Go-generated vectors). New passes are recorded with
//! `conformance --update-passing`; the lists only grow.

use capstan_conformance::{default_path, read_passing, run_suite, SUITES};
use std::collections::HashMap;
use std::path::PathBuf;

/// The data directory, as a path relative to this crate's directory (where cargo runs
/// integration tests): the suites must work with relative paths, as `.ci/run` gives them.
fn shared_dir() -> PathBuf {
    let relative = PathBuf::from("../../../shared");
    let dir = if relative.join("conformance").is_dir() {
        relative
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
    };
    assert!(
        dir.join("conformance").is_dir(),
        "the conformance data is expected at {} (the repo's sibling `shared/`)",
        dir.display()
    );
    dir
}

#[test]
fn listed_cases_still_pass() {
    let shared = shared_dir();
    let mut regressions = Vec::new();
    for suite in SUITES {
        let listed = read_passing(suite);
        // A missing or emptied list would let the whole suite regress unnoticed.
        assert!(
            !listed.is_empty(),
            "tools/conformance/passing/{suite}.txt is missing or lists no case: every suite keeps a ratchet"
        );
        let path = shared.join(default_path(suite).expect("every suite has a path"));
        let report = run_suite(suite, &path).unwrap_or_else(|e| panic!("suite {suite}: {e}"));
        let outcome: HashMap<&str, Option<&str>> = report
            .results
            .iter()
            .map(|r| {
                (
                    r.id.as_str(),
                    r.failure.as_ref().map(|f| f.summary.as_str()),
                )
            })
            .collect();
        for id in &listed {
            match outcome.get(id.as_str()) {
                Some(None) => {}
                Some(Some(why)) => regressions.push(format!("{suite} {id}: {why}")),
                None => regressions.push(format!("{suite} {id}: no longer in the corpus")),
            }
        }
        eprintln!(
            "{suite}: {} listed, {} passed of {}",
            listed.len(),
            report.passed(),
            report.results.len()
        );
    }
    assert!(
        regressions.is_empty(),
        "{} listed case(s) regressed:\n{}",
        regressions.len(),
        regressions.join("\n")
    );
}
