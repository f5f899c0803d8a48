//! helmfile's `prepare` and `cleanup` hooks for the commands that do not reach the
//! cluster (`template`, `build`): the state's hooks, then each active release's.

use crate::{Failure, Session};
use capstan_helm::exec::LogLevel;
use capstan_state::app::PreparedState;
use capstan_state::StateError;
use std::sync::Mutex;

/// A log line at `at`, shown when the session's level lets it through: to standard error
/// at once when live, else appended to `buf`.
pub(crate) fn log_line(session: &Session, buf: &Mutex<String>, at: LogLevel, text: &str) {
    if at < session.log_level {
        return;
    }
    let mut line = text.to_string();
    if !line.ends_with('\n') {
        line.push('\n');
    }
    if crate::live() {
        eprint!("{line}");
    } else {
        buf.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_str(&line);
    }
}

/// Which hooks a command runs around its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookScope {
    /// The states' top-level `hooks:` and every active release's.
    StateAndReleases,
    /// The states' top-level `hooks:` only: helmfile v1.7.4's `list` and `write-values`
    /// trigger the global events but prepare no release's chart (`pkg/app/run.go:49`,
    /// `commandsSkipChartPrep`; the release `prepare` hooks run while preparing charts).
    StateOnly,
}

/// Runs the `event` hooks (`prepare` or `cleanup`) of `command`. A failing `prepare`
/// hook is an error; a failing `cleanup` hook a warning.
pub fn state_hooks(
    session: &Session,
    states: &[PreparedState],
    event: &str,
    command: &str,
    scope: HookScope,
    log: &mut String,
) -> Result<(), Failure> {
    let s = &session.settings;
    let buf = Mutex::new(String::new());
    let write = |at: LogLevel, text: &str| log_line(session, &buf, at, text);
    let host = s.host.clone();
    let root = s.root.clone();
    let exec = |program: &str, args: &[String], dir: &str| -> Result<String, StateError> {
        Ok(host.exec(program, args, &[], None, &root.join(dir))?)
    };
    let hooks = capstan_helm::deploy::Hooks {
        settings: s,
        exec: &exec,
        log: &write,
    };
    let mut result = Ok(());
    'states: for ps in states {
        let releases = match scope {
            HookScope::StateAndReleases => ps.active()?,
            HookScope::StateOnly => Vec::new(),
        };
        for r in std::iter::once(None).chain(releases.into_iter().map(Some)) {
            if let Err(e) = capstan_helm::deploy::run_hooks(&hooks, ps, r, event, None, command) {
                if event == "cleanup" {
                    write(LogLevel::Warn, &format!("warn: {e}"));
                } else {
                    // helmfile runs a release's `prepare` hooks while preparing charts,
                    // whose errors are a list (`[…]`); the top-level ones it triggers
                    // itself. Either names the state file.
                    let e = if event == "prepare" && r.is_some() {
                        StateError {
                            message: format!("[{}]", e.message),
                            ..e
                        }
                    } else {
                        e
                    };
                    result = Err(e.context(&ps.context));
                    break 'states;
                }
            }
        }
    }
    log.push_str(&buf.into_inner().unwrap_or_else(|e| e.into_inner()));
    Ok(result?)
}
