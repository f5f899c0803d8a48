//! The project commands on the command line: `init` and `create` (their flags, handed to
//! [`capstan_app::init`] and [`capstan_app::create`]).

use capstan_app::create::CreateRequest;
use capstan_app::init::InitRequest;
use capstan_app::Failure;
use std::path::Path;

/// `init`'s flags.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct InitArgs {
    /// Do not ask before installing helm plugins.
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = crate::global::go_bool)]
    force: bool,
}

/// `create`'s arguments.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct CreateArgs {
    /// The project directory (created when missing).
    #[arg(default_value = ".")]
    dir: String,
    /// Overwrite files that exist.
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = crate::global::go_bool)]
    force: bool,
}

/// `init` with helm binary `binary`; questions asked on the terminal.
pub(crate) fn init(
    args: &InitArgs,
    binary: &str,
    cwd: &Path,
    log: &mut String,
) -> Result<String, Failure> {
    let request = InitRequest {
        binary,
        force: args.force,
        confirm: &crate::cluster::ask_for_confirmation,
    };
    capstan_app::init::run(&request, cwd, log)?;
    Ok(String::new())
}

/// `create` in `args.dir`.
pub(crate) fn create(args: &CreateArgs, cwd: &Path, log: &mut String) -> Result<String, Failure> {
    let request = CreateRequest {
        dir: args.dir.clone(),
        force: args.force,
    };
    capstan_app::create::run(&request, cwd, log)?;
    Ok(String::new())
}
