//! The `capstan` binary: runs the command line of `capstan_cli` in the current directory
//! and passes on what it printed and its exit code.

#![forbid(unsafe_code)]

/// mimalloc: allocation-heavy YAML and template work runs about a third faster than with
/// the system allocator (see `conformance bench helm`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;
use std::process::ExitCode;

/// Set by the signal handler.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn main() -> ExitCode {
    // No core file, no dumpable memory: secrets are decrypted into it.
    if let Err(e) = capstan_cli::harden_process() {
        eprintln!("capstan: warning: {e}");
    }
    // A shell asking for completions (`capstan completion SHELL` scripts) is answered
    // before anything else runs.
    capstan_cli::complete_if_asked();
    // SIGINT, SIGTERM, SIGHUP: stop the helm commands running, remove the private
    // directories holding values for helm and any staged output file, then stop (exit
    // code 130).
    let _ = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        capstan_helm::runner::stop_children();
        capstan_state::host::remove_private_dirs();
        std::process::exit(130);
    });
    capstan_cli::LIVE_STDERR.store(true, std::sync::atomic::Ordering::Relaxed);
    capstan_cli::PROCESS_EXITS_AFTER_RUN.store(true, std::sync::atomic::Ordering::Relaxed);
    let out = capstan_cli::run(std::env::args_os(), std::path::Path::new("."));
    // A signal stopped helm under the command: the command's own failure is not the
    // outcome, the signal is (the handler may still be finishing).
    if INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
        capstan_state::host::remove_private_dirs();
        return ExitCode::from(130);
    }
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
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
