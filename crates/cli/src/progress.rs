//! The progress bar `template` draws on a terminal instead of a line per release: one
//! line redrawn with a terminal escape, only on a terminal that understands it (not a
//! dumb one, not in CI logs), after half a second, never going backwards.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A progress bar for standard error.
pub(crate) struct Bar {
    enabled: bool,
    verb: &'static str,
    noun: &'static str,
    started: Instant,
    /// (last drawn count, whether anything is on screen); drawing is serialised so counts
    /// never go backwards.
    shown: Mutex<(usize, bool)>,
}

/// Whether progress is drawn in place: it is shown (`progress`), standard error is a
/// terminal that redraws lines (not `TERM=dumb`, not a CI log) and this process writes
/// it as it goes (not captured for an in-process caller).
pub(crate) fn redraws(progress: bool) -> bool {
    let plain_terminal = std::env::var("TERM").is_ok_and(|t| t == "dumb")
        || std::env::var("CI").is_ok_and(|c| !c.is_empty() && c != "false");
    progress
        && !plain_terminal
        && crate::LIVE_STDERR.load(std::sync::atomic::Ordering::Relaxed)
        && std::io::IsTerminal::is_terminal(&std::io::stderr())
}

impl Bar {
    /// A bar for `verb`ing `noun`s, drawn when progress is shown and standard error is a
    /// terminal that redraws lines.
    pub(crate) fn new(progress: bool, verb: &'static str, noun: &'static str) -> Bar {
        Bar {
            enabled: redraws(progress),
            verb,
            noun,
            started: Instant::now(),
            shown: Mutex::new((0, false)),
        }
    }

    /// Whether the bar is drawn (instead of a line per item).
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// The time since the bar was made.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

impl capstan_app::template::Progress for Bar {
    fn rendered(&self, finished: usize, total: usize) {
        let width = 30;
        if !self.enabled || self.started.elapsed().as_millis() < 500 {
            return;
        }
        let Ok(mut last) = self.shown.lock() else {
            return;
        };
        if finished <= last.0 {
            return;
        }
        let filled = finished * width / total.max(1);
        eprint!(
            "\r\x1b[K{} [{}{}] {finished}/{total} {}",
            self.verb,
            "#".repeat(filled),
            ".".repeat(width - filled),
            self.noun
        );
        *last = (finished, true);
    }

    fn done(&self) {
        if self.shown.lock().is_ok_and(|s| s.1) {
            eprint!("\r\x1b[K");
        }
    }
}
