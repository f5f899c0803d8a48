//! The `capstan` command line as a library: argument parsing and dispatch, so tests and
//! the conformance runner can run a command in a directory and see what it prints. Each
//! command family lives in its own module (`chart`, `helmfile`); errors are `Error: ...`
//! on stderr with a non-zero exit code, and nothing is written to stdout on failure.

/// Appends a line to a log buffer (what goes to stderr).
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

/// When set (the `capstan` binary sets it), progress and warnings go to stderr as they
/// happen instead of into [`Outcome::stderr`].
pub static LIVE_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

mod chart;
mod helmfile;

use clap::{Parser, Subcommand};
use std::path::Path;


#[derive(Parser)]
#[command(
    name = "capstan",
    version,
    about = "Declarative Helm releases, helmfile-compatible, with values you can explain"
)]
struct Cli {
    #[command(flatten)]
    global: helmfile::Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Work with one Helm chart directly, like `helm template` (no cluster, no helm).
    #[command(subcommand)]
    Chart(chart::ChartCommand),
    #[command(flatten)]
    State(helmfile::StateCommand),
}

/// What a command printed and its exit code.
#[derive(Debug, Default)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs `capstan ARGS...` (the first item is the program name) in directory `cwd`.
pub fn run<I, T>(args: I, cwd: &Path) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let text = e.render().to_string();
            let code = e.exit_code();
            return if code == 0 {
                Outcome { stdout: text, stderr: String::new(), code }
            } else {
                Outcome { stdout: String::new(), stderr: text, code }
            };
        }
    };
    let mut log = String::new();
    let result = match cli.command {
        Command::Chart(c) => chart::run(c, cwd, &mut log),
        Command::State(c) => helmfile::run(&cli.global, c, cwd, &mut log),
    };
    match result {
        Ok(out) => Outcome { stdout: out, stderr: log, code: 0 },
        Err(e) => {
            logln!(log, "Error: {e}");
            Outcome { stdout: String::new(), stderr: log, code: 1 }
        }
    }
}
