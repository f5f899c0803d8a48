//! The `capstan` command line: argument parsing and dispatch. Each command family lives
//! in its own module (`chart`); errors are printed as `Error: ...` on stderr with a
//! non-zero exit code, and nothing is written to stdout on failure.

mod chart;
mod helmfile;

/// mimalloc: allocation-heavy YAML and template work runs about a third faster than with
/// the system allocator (see `conformance bench helm`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Chart(c) => chart::run(c),
        Command::State(c) => helmfile::run(&cli.global, c),
    };
    match result {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::FAILURE
        }
    }
}
