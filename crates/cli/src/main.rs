//! The `capstan` binary: runs the command line of `capstan_cli` in the current directory
//! and passes on what it printed and its exit code.

#![forbid(unsafe_code)]

/// mimalloc: allocation-heavy YAML and template work runs about a third faster than with
/// the system allocator (see `conformance bench helm`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The exit code of the signal that stopped capstan (0: none): 130 for SIGINT, 143 for
/// SIGTERM, 129 for SIGHUP, as helmfile and shells report them.
static INTERRUPTED: AtomicU8 = AtomicU8::new(0);

/// Held while the outcome is printed, so the signal thread's exit never cuts it off.
static PRINTING: Mutex<()> = Mutex::new(());

/// How long stopped helm commands get to exit (then they are killed), and how long the
/// run then gets to report them before capstan exits anyway.
const CHILDREN_GRACE: Duration = Duration::from_secs(10);
const REPORT_GRACE: Duration = Duration::from_secs(5);

fn main() -> ExitCode {
    // No core file, no dumpable memory: secrets are decrypted into it.
    if let Err(e) = capstan_cli::harden_process() {
        eprintln!("capstan: warning: {e}");
    }
    // A shell asking for completions (`capstan completion SHELL` scripts) is answered
    // before anything else runs.
    capstan_cli::complete_if_asked();
    capstan_cli::no_huge_pages();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // SIGINT, SIGTERM, SIGHUP: taken by one thread, which stops the helm commands running and lets none start,
    // waits for them (bounded), lets the run report what each printed, removes the
    // private directories holding values for helm and any staged output file, and exits
    // with the signal's code.
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(mut signals) => {
            std::thread::spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    stop(signal);
                }
            });
        }
        Err(e) => eprintln!("capstan: warning: signals cannot be handled: {e}"),
    }
    capstan_cli::LIVE_STDERR.store(true, Ordering::Relaxed);
    capstan_cli::PROCESS_EXITS_AFTER_RUN.store(true, Ordering::Relaxed);
    let out = capstan_cli::run(args, std::path::Path::new("."));
    let _printing = PRINTING.lock().unwrap_or_else(|e| e.into_inner());
    let interrupted = INTERRUPTED.load(Ordering::SeqCst);
    if interrupted != 0 {
        capstan_state::host::remove_private_dirs();
    }
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    // A signal stopped the run: its code is the outcome, whatever the command's, and
    // standard output gets nothing (a cut-short render must not look whole); what helm
    // reported and the failure summary are on standard error.
    if interrupted != 0 {
        return ExitCode::from(interrupted);
    }
    let reported = capstan_cli::stdout_error().is_some();
    if !out.stdout.is_empty() {
        capstan_cli::write_stdout(out.stdout.as_bytes());
    }
    let mut code = out.code.clamp(0, 255) as u8;
    // Output cut off (a full disk, a closed pipe) is a failure, whatever the command did.
    if let Some(e) = capstan_cli::stdout_error() {
        if !reported {
            let _ = writeln!(std::io::stderr(), "Error: {e}");
        }
        if code == 0 {
            code = 1;
        }
    }
    ExitCode::from(code)
}

/// The signal thread's work (see `main`).
fn stop(signal: i32) {
    let (code, name) = match signal {
        signal_hook::consts::SIGINT => (130, "SIGINT"),
        signal_hook::consts::SIGTERM => (143, "SIGTERM"),
        _ => (129, "SIGHUP"),
    };
    INTERRUPTED.store(code, Ordering::SeqCst);
    eprintln!("capstan: received {name} to shut down");
    capstan_helm::runner::stop_children();
    capstan_helm::runner::wait_for_children(CHILDREN_GRACE);
    // The run now reports the stopped commands and returns; main prints and exits. If it
    // does not in time (a long render, a hook), exit from here.
    std::thread::sleep(REPORT_GRACE);
    let _printing = PRINTING.lock().unwrap_or_else(|e| e.into_inner());
    capstan_state::host::remove_private_dirs();
    std::process::exit(i32::from(code));
}
