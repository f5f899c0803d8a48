//! `conformance <suite> <path> [-v] [--update-passing]`: runs one conformance suite and
//! prints one line per failing case, then `N passed, N failed`. Exits 0 only when no case
//! failed. `conformance --update-passing` with no suite runs every suite over
//! `../shared` and grows the ratchet lists.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use capstan_conformance::{default_path, run_suite, update_passing, SUITES};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: conformance <suite> <path> [-v] [--update-passing]\n       conformance bench gotemplate|helm|real-charts <dir> [--iterations N]\n       conformance --update-passing [--shared DIR]\nsuites: yaml, gotemplate, strvals, helm-values, hcl, env-merge, helmfile-e2e, real-charts, helmfile-helm, helmfile-real";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v" || a == "--verbose");
    let update = args.iter().any(|a| a == "--update-passing");
    let mut shared = PathBuf::from("../shared");
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-v" | "--verbose" | "--update-passing" => {}
            "--iterations" => {
                it.next();
            }
            "--shared" => match it.next() {
                Some(d) => shared = PathBuf::from(d),
                None => {
                    eprintln!("{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => positional.push(a.clone()),
        }
    }

    if positional.first().map(String::as_str) == Some("bench") {
        let iterations = args
            .iter()
            .position(|a| a == "--iterations")
            .and_then(|i| args.get(i + 1))
            .and_then(|n| n.parse().ok());
        let positional: Vec<&String> = positional
            .iter()
            .filter(|p| p.parse::<usize>().is_err())
            .collect();
        return match positional.as_slice() {
            [_, suite, dir] if ["gotemplate", "helm", "real-charts"].contains(&suite.as_str()) => {
                let run = match suite.as_str() {
                    "helm" => capstan_conformance::bench::run_helm,
                    "real-charts" => capstan_conformance::real_charts::bench,
                    _ => capstan_conformance::bench::run_gotemplate,
                };
                match run(std::path::Path::new(dir.as_str()), iterations) {
                    Ok(true) => ExitCode::SUCCESS,
                    Ok(false) => ExitCode::FAILURE,
                    Err(e) => {
                        eprintln!("conformance bench: {e}");
                        ExitCode::from(2)
                    }
                }
            }
            _ => {
                eprintln!("{USAGE}");
                ExitCode::from(2)
            }
        };
    }

    let runs: Vec<(String, PathBuf)> = match positional.as_slice() {
        [] if update => SUITES
            .iter()
            .filter_map(|s| default_path(s).map(|p| (s.to_string(), shared.join(p))))
            .collect(),
        [suite, path] => vec![(suite.clone(), PathBuf::from(path))],
        [suite] => match default_path(suite) {
            Some(p) => vec![(suite.clone(), shared.join(p))],
            None => {
                eprintln!("unknown suite {suite:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };

    let mut all_ok = true;
    for (suite, path) in runs {
        let report = match run_suite(&suite, &path) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("conformance: {e}");
                return ExitCode::from(2);
            }
        };
        if update {
            match update_passing(&suite, &report) {
                Ok(n) => eprintln!("{suite}: {n} newly passing case(s) recorded"),
                Err(e) => {
                    eprintln!("conformance: cannot update the passing list: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        print!("{}", report.render(verbose));
        all_ok &= report.failed() == 0;
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
