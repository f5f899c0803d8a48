//! `capstan init`: what helmfile's `init` checks — the helm binary and its version, then
//! the helm plugins helmfile installs — reported with what capstan needs of each. A
//! missing or outdated plugin capstan's helm uses is installed with `helm plugin install`
//! after asking (or without asking under `--force`), as helmfile does; a declined
//! question, or no answer on a closed stdin, stops with helmfile's message and exit code 1.
//! helm itself is not downloaded: capstan prints the command that installs it.

use crate::Failure;
use capstan_helm::setup::{self, PLUGINS};
use std::path::Path;

/// What `init` is asked for.
pub struct InitRequest<'a> {
    /// The helm binary (empty: `helm`).
    pub binary: &'a str,
    /// Install or update plugins without asking.
    pub force: bool,
    /// Asks a question and says whether the answer was yes.
    pub confirm: &'a dyn Fn(&str) -> bool,
}

/// helmfile's code for "install it yourself".
const MANUAL_INSTALL: i32 = 1;

fn manual(message: String) -> Failure {
    Failure {
        code: MANUAL_INSTALL,
        ..Failure::new(message, None)
    }
}

/// Runs `init`; progress goes to `log`.
pub fn run(request: &InitRequest, cwd: &Path, log: &mut String) -> Result<(), Failure> {
    let binary = if request.binary.is_empty() {
        "helm"
    } else {
        request.binary
    };
    let install_helm = format!(
        "curl -fsSL {} | bash -s -- --version {}",
        setup::HELM_INSTALL_SCRIPT,
        setup::RECOMMENDED_HELM
    );
    let (text, version) = match setup::detect(binary, cwd) {
        Ok(v) => v,
        Err(e) => {
            logln!(log, "helm not found, needs to be installed ({e})");
            return Err(manual(format!(
                "install helm, then run `capstan init` again: {install_helm} (or see https://helm.sh/docs/intro/install/)"
            )));
        }
    };
    let (a, b, c) = setup::REQUIRED_HELM;
    if !version.at_least(a, b, c) {
        logln!(
            log,
            "helm version is too low, the current version is {text}, the required version is v{a}.{b}.{c}"
        );
        return Err(manual(format!(
            "update helm, then run `capstan init` again: {install_helm}"
        )));
    }
    logln!(log, "helm {text}: ok");
    let dir = setup::plugins_dir(binary, cwd).map_err(Failure::from)?;
    let ask = |question: &str| request.force || (request.confirm)(question);
    let declined = || manual("cancel automatic installation, please install manually".into());
    let helm = |args: Vec<String>| -> Result<(), Failure> {
        let out = std::process::Command::new(binary)
            .args(&args)
            .current_dir(cwd)
            .output()
            .map_err(|e| Failure::from(format!("{binary} {}: {e}", args.join(" "))))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(Failure::from(format!(
                "{binary} {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim_end()
            )))
        }
    };
    for p in PLUGINS {
        let installed = setup::installed_version(&dir, p.name);
        if let Some(why) = p.not_needed {
            match installed {
                Some(_) => logln!(
                    log,
                    "helm plugin {:?}: installed (capstan does not need it: {why})",
                    p.name
                ),
                None => logln!(
                    log,
                    "helm plugin {:?}: not installed; capstan does not need it ({why})",
                    p.name
                ),
            }
            continue;
        }
        match installed {
            None => {
                if !ask(&format!(
                    "The helm plugin {:?} is not installed, do you want to install it?",
                    p.name
                )) {
                    return Err(declined());
                }
                helm(setup::install_args(p))?;
                logln!(log, "helm plugin {:?}: installed {}", p.name, p.version);
            }
            Some(v) if !setup::recent_enough(p, &v) => {
                if !ask(&format!(
                    "The helm plugin {:?} version is too low, do you want to update it?",
                    p.name
                )) {
                    return Err(declined());
                }
                helm(setup::update_args(p))?;
                logln!(log, "helm plugin {:?}: updated", p.name);
            }
            Some(_) => logln!(log, "helm plugin {:?}: ok", p.name),
        }
    }
    logln!(log, "capstan initialization completed!");
    Ok(())
}
