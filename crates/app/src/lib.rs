//! The application layer: one module per helmfile command. Each takes a [`Session`] (the
//! run's settings and how states are loaded) and a typed request, and returns typed
//! output or a [`Failure`]; none parses flags or prints to standard output. The CLI
//! (`capstan-cli`) maps flags and environment variables to requests, calls these
//! modules, and renders what they return; tests call them directly.
//!
//! Read-only commands: [`template`], [`build`], [`list`], [`write_values`], [`values`],
//! [`print_env`], [`fetch`], [`show_dag`], [`cache`]. Cluster commands (`sync`, `apply`,
//! `diff`, `destroy`, `status`, `test`, `lint`, `repos`, `deps`, `unittest`): [`cluster`],
//! which wires the real helm and this process's I/O into `capstan_helm::deploy`.
//! The project commands: [`init`] (helm and its plugins checked, installed on request),
//! [`create`] (a new project's scaffold), [`version`]. Shared by them: [`session`] (loading states, helmfile's "no releases found"),
//! [`hooks`] (`prepare`/`cleanup` hooks of commands that do not reach the cluster),
//! [`files`] (writing output files all together), [`spool`] (standard output held back
//! until a command succeeded).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Appends a line to a log buffer (what goes to standard error), or prints it at once
/// when [`LIVE_STDERR`] is set.
#[macro_export]
macro_rules! logln {
    ($log:expr, $($arg:tt)*) => {{
        if $crate::LIVE_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!($($arg)*);
        } else {
            use std::fmt::Write as _;
            let _ = writeln!($log, $($arg)*);
        }
    }};
}

/// When set (the `capstan` binary sets it), progress and warnings go to standard error as
/// they happen instead of into the log buffer a command is given.
pub static LIVE_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set by the `capstan` binary: the process exits as soon as the command returns, so a
/// big result (every release's explained values) is left for the exit to reclaim at once
/// instead of being freed piece by piece ([`leave_to_exit`]). Unset in-process (tests,
/// the conformance runner), where everything is freed as usual.
pub static PROCESS_EXITS_AFTER_RUN: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Drops `v`, or leaves it to the process exit when [`PROCESS_EXITS_AFTER_RUN`] is set.
pub fn leave_to_exit<T>(v: T) {
    if PROCESS_EXITS_AFTER_RUN.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(v);
    }
}

/// Whether log lines go to standard error as they happen.
pub(crate) fn live() -> bool {
    LIVE_STDERR.load(std::sync::atomic::Ordering::Relaxed)
}

pub mod build;
pub mod cache;
pub mod chart;
pub mod cluster;
pub mod create;
mod failure;
pub mod fetch;
pub mod files;
pub mod hooks;
pub mod init;
pub mod list;
pub mod print_env;
pub mod session;
pub mod show_dag;
pub mod spool;
pub mod template;
pub mod values;
pub mod version;
pub mod write_values;

pub use failure::{Failure, NO_MATCH_EXIT_CODE};
pub use session::Session;
