//! [`Session`]: what every command shares — the run's settings, how its states are
//! loaded (files, selectors, state values), and the global switches commands read —
//! and loading the states with helmfile's "no releases found" rule.

use crate::{Failure, NO_MATCH_EXIT_CODE};
use capstan_helm::exec::LogLevel;
use capstan_state::app::{load_run, PreparedState, RunError, RunOptions};
use capstan_state::load::Settings;
use std::path::Path;

/// A command's run: its settings and the switches every command reads.
#[derive(Clone)]
pub struct Session {
    /// The host, the root directory, the environment and the renderers.
    pub settings: Settings,
    /// The state file, the selectors and the state values given.
    pub run: RunOptions,
    /// `--allow-no-matching-release`: no release matching is not an error.
    pub allow_no_matching_release: bool,
    /// Progress lines are shown (`--log-level` info or lower, not `--quiet`).
    pub progress: bool,
    /// The log level of helm's and the hooks' lines.
    pub log_level: LogLevel,
    /// `--skip-deps`: no `helm dependency build` (or its native equivalent).
    pub skip_deps: bool,
    /// `--debug`.
    pub debug: bool,
    /// `--kubeconfig`.
    pub kubeconfig: String,
}

impl Session {
    /// A session over `settings` with helmfile's defaults: the default state files, no
    /// selector or state values, progress shown at the info level, dependencies built.
    pub fn new(settings: Settings) -> Session {
        Session {
            settings,
            run: RunOptions {
                cli: capstan_state::load::Overrides {
                    base: ".".into(),
                    ..Default::default()
                },
                ..Default::default()
            },
            allow_no_matching_release: false,
            progress: true,
            log_level: LogLevel::Info,
            skip_deps: false,
            debug: false,
            kubeconfig: String::new(),
        }
    }

    /// The directory the command runs in (the state's root).
    pub fn cwd(&self) -> &Path {
        &self.settings.root
    }

    /// The environment's name.
    pub fn environment(&self) -> &str {
        &self.settings.env
    }

    /// The selected states; no release matching is helmfile's error (exit code 3) unless
    /// `--allow-no-matching-release`, when it is `None`: the command then does nothing
    /// and prints nothing.
    pub fn load(&self, log: &mut String) -> Result<Option<Vec<PreparedState>>, Failure> {
        match load_run(&self.settings, &self.run) {
            Ok((states, warnings)) => {
                for w in warnings {
                    logln!(log, "{w}");
                }
                Ok(Some(states))
            }
            Err(RunError::NoMatch { .. }) if self.allow_no_matching_release => Ok(None),
            Err(e @ RunError::NoMatch { .. }) => Err(Failure {
                code: NO_MATCH_EXIT_CODE,
                ..self.describe(&e)
            }),
            Err(other) => Err(self.describe(&other)),
        }
    }

    /// The states even when no release matches, with helmfile's "no releases found" error
    /// text when nothing did (`print-env` ignores it, `build` prints the states first); an
    /// environment no file defines is still an error at once.
    pub fn load_any(
        &self,
        log: &mut String,
    ) -> Result<(Vec<PreparedState>, Option<String>), Failure> {
        let loaded = capstan_state::app::load_states(&self.settings, &self.run)
            .map_err(|e| self.describe(&e))?;
        for w in loaded.warnings {
            logln!(log, "{w}");
        }
        match &loaded.no_match {
            Some(e @ RunError::NoMatch { undefined, .. })
                if !undefined.is_empty() && loaded.states.is_empty() =>
            {
                Err(Failure {
                    code: NO_MATCH_EXIT_CODE,
                    ..self.describe(e)
                })
            }
            Some(e) if !self.allow_no_matching_release => {
                Ok((loaded.states, Some(self.describe(e).message)))
            }
            _ => Ok((loaded.states, None)),
        }
    }

    /// A run error as a failure: helmfile's message and where it points; for an
    /// environment no file defines, each file's `environments:` shown.
    fn describe(&self, e: &RunError) -> Failure {
        match e {
            RunError::Failed(e) => Failure::from(e.clone()),
            RunError::NoMatch { undefined, .. } if !undefined.is_empty() => {
                let mut text = e.to_string();
                for at in undefined {
                    text.push_str(&format!(
                        "\nenvironment \"{}\" is not defined in {}",
                        self.environment(),
                        at.file
                    ));
                    text.push('\n');
                    text.push_str(&location_snippet(at, self.cwd()));
                }
                Failure::new(text, None)
            }
            other => Failure::new(other.to_string(), None),
        }
    }
}

/// `needs:` errors, pointed at the release they name (its `name:` line in its file).
pub fn describe_needs(e: capstan_state::select::NeedsError, root: &Path) -> Failure {
    let at = std::fs::read_to_string(root.join(&e.file))
        .ok()
        .and_then(|text| {
            capstan_state::locate_text(&text, &e.file, &format!("name: {}", e.release))
        });
    Failure::new(e.message, at)
}

/// The snippet of the line `at` points to (its file read relative to `cwd`), with any
/// URL password in it hidden; only the ` --> FILE:LINE:COLUMN` line when the file cannot
/// be read again (a remote or temporary file, gone since).
pub fn location_snippet(at: &capstan_source::Location, cwd: &Path) -> String {
    let bytes = std::fs::read(cwd.join(&at.file)).ok();
    let text = bytes.as_deref().map(String::from_utf8_lossy);
    let shown = text
        .and_then(|text| capstan_source::snippet(&at.file, &text, at.line, at.column.max(1)))
        .unwrap_or_else(|| format!(" --> {at}"));
    capstan_fetch::redact(shown.trim_end())
}
