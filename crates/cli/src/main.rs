//! The `capstan` binary: runs the command line of `capstan_cli` in the current directory
//! and passes on what it printed and its exit code.

/// mimalloc: allocation-heavy YAML and template work runs about a third faster than with
/// the system allocator (see `conformance bench helm`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    // SIGINT, SIGTERM, SIGHUP: remove the private directories holding values for helm
    // and any staged output file, then stop (exit code 130).
    let _ = ctrlc::set_handler(|| {
        capstan_state::host::remove_private_dirs();
        std::process::exit(130);
    });
    capstan_cli::LIVE_STDERR.store(true, std::sync::atomic::Ordering::Relaxed);
    let out = capstan_cli::run(std::env::args_os(), std::path::Path::new("."));
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    ExitCode::from(out.code.clamp(0, 255) as u8)
}
