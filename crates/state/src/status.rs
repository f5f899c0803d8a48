//! The transient status line of a run on a terminal: what a long step (a download, a
//! remote file, an OCI pull) is doing and for how long, drawn on standard error only when
//! it is a terminal. A step that ends within [`DELAY`] never shows; a longer one shows
//! `Fetching …  (2.4 s)`, redrawn as time passes, and is erased when it ends. A log line
//! printed meanwhile erases it first (it is redrawn after). Off, it costs nothing.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a step runs before it is shown.
const DELAY: Duration = Duration::from_millis(300);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(200);

#[derive(Default, Debug)]
struct Inner {
    /// The steps running, latest last (the latest is shown).
    active: Vec<(u64, String, Instant)>,
    next_id: u64,
    /// Whether a line is on the screen now.
    drawn: bool,
    /// Whether the redrawing thread runs.
    ticking: bool,
}

/// The status line; clones share it.
#[derive(Clone, Default, Debug)]
pub struct StatusLine {
    enabled: bool,
    inner: Arc<Mutex<Inner>>,
}

/// A running step; dropping it ends the step.
#[must_use = "the step ends when this is dropped"]
pub struct Step {
    line: Option<(StatusLine, u64)>,
}

impl Drop for Step {
    fn drop(&mut self) {
        if let Some((line, id)) = self.line.take() {
            if let Ok(mut inner) = line.inner.lock() {
                inner.active.retain(|(i, _, _)| *i != id);
                // Erased now: what the run prints next must not land after it.
                if inner.drawn {
                    eprint!("\r\x1b[K");
                    inner.drawn = false;
                }
            }
        }
    }
}

impl StatusLine {
    /// A status line drawn on standard error when `enabled` (the caller decides: a
    /// terminal, progress shown, output not captured).
    pub fn new(enabled: bool) -> StatusLine {
        StatusLine {
            enabled,
            inner: Arc::default(),
        }
    }

    /// Starts a step described by `text` (no secrets: URLs are redacted by the caller).
    pub fn begin(&self, text: String) -> Step {
        if !self.enabled {
            return Step { line: None };
        }
        let Ok(mut inner) = self.inner.lock() else {
            return Step { line: None };
        };
        let id = inner.next_id;
        inner.next_id += 1;
        inner.active.push((id, text, Instant::now()));
        if !inner.ticking {
            inner.ticking = true;
            let line = self.clone();
            std::thread::spawn(move || line.tick());
        }
        Step {
            line: Some((self.clone(), id)),
        }
    }

    /// Redraws the latest step until none is left, then erases the line.
    fn tick(&self) {
        loop {
            std::thread::sleep(TICK);
            let Ok(mut inner) = self.inner.lock() else {
                return;
            };
            let shown = inner
                .active
                .last()
                .filter(|(_, _, started)| started.elapsed() >= DELAY)
                .map(|(_, text, started)| {
                    format!("{text}  ({:.1} s)", started.elapsed().as_secs_f64())
                });
            match shown {
                Some(text) => {
                    eprint!("\r\x1b[K{text}");
                    inner.drawn = true;
                }
                None if inner.drawn => {
                    eprint!("\r\x1b[K");
                    inner.drawn = false;
                }
                None => {}
            }
            if inner.active.is_empty() {
                inner.ticking = false;
                return;
            }
        }
    }

    /// Prints `line` to standard error with the status line out of its way.
    pub fn print(&self, line: &str) {
        if !self.enabled {
            eprintln!("{line}");
            return;
        }
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.drawn {
            eprint!("\r\x1b[K");
            inner.drawn = false;
        }
        eprintln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_come_and_go_and_the_ticker_stops() {
        let line = StatusLine::new(true);
        {
            let _a = line.begin("one".into());
            let _b = line.begin("two".into());
            assert_eq!(line.inner.lock().unwrap().active.len(), 2);
        }
        assert!(line.inner.lock().unwrap().active.is_empty());
        std::thread::sleep(TICK * 3);
        let inner = line.inner.lock().unwrap();
        assert!(!inner.ticking && !inner.drawn);
    }

    #[test]
    fn off_it_keeps_nothing() {
        let line = StatusLine::new(false);
        let _s = line.begin("x".into());
        assert!(line.inner.lock().unwrap().active.is_empty());
    }
}
