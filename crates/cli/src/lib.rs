//! The `capstan` command line as a library: argument parsing and dispatch, so tests and
//! the conformance runner can run a command in a directory and see what it prints. Each
//! command family lives in its own module (`chart`, `helmfile`); errors are `Error: ...`
//! on stderr with a non-zero exit code, and nothing is written to stdout on failure.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Appends a line to the log buffer (what goes to stderr), or prints it at once when
/// [`LIVE_STDERR`] is set.
macro_rules! logln {
    ($($arg:tt)*) => { capstan_app::logln!($($arg)*) };
}

pub use capstan_app::{leave_to_exit, LIVE_STDERR, PROCESS_EXITS_AFTER_RUN};

/// Makes this process leave no memory image: no core file (RLIMIT_CORE 0) and not
/// dumpable (PR_SET_DUMPABLE 0, which also keeps other users' debuggers out). capstan
/// holds decrypted secrets and rendered Secrets in memory at any moment, and a crash's
/// core file would hold them. Done first thing by the binary; a refusal (an unusual
/// kernel) is reported, never fatal.
pub fn harden_process() -> Result<(), String> {
    use nix::sys::resource::{setrlimit, Resource};
    setrlimit(Resource::RLIMIT_CORE, 0, 0).map_err(|e| format!("setrlimit(RLIMIT_CORE): {e}"))?;
    #[cfg(target_os = "linux")]
    nix::sys::prctl::set_dumpable(false).map_err(|e| format!("prctl(PR_SET_DUMPABLE): {e}"))?;
    Ok(())
}

/// Turns transparent huge pages off for this process (`prctl(PR_SET_THP_DISABLE)`), even
/// where the kernel gives them to every process or mimalloc asks for them. With them the
/// allocator's memory comes in 2 MiB pages the kernel zeroes whole: fewer page faults, but
/// the zeroing of pages nobody uses cost a fifth of the time of a state of 1,000 releases,
/// doubled a small chart's (prom-jiralert 5 → 10 ms), and on a virtual machine that hands
/// free memory back to its host it made even a big chart's runs stall at random
/// (kube-prometheus-stack 28–220 ms with them against a steady 36–44 ms without, run
/// after helm; 20 runs in a row: 50 ms ± 24% against 37 ms ± 1.3%). Only speed depends
/// on it: a kernel refusing it changes nothing else.
pub fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    {
        let _ = nix::sys::prctl::set_thp_disable(true);
    }
}

/// The first write to standard output that failed (a full disk, a closed pipe): the
/// binary then reports it and exits 1 whatever the command did, so a cut-off output is
/// never taken for a whole one (`capstan template > all.yaml && kubectl apply --prune`).
static STDOUT_ERROR: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Writes `bytes` to standard output and flushes it; a failure is recorded (the first
/// one) for [`stdout_error`] and writing stops.
pub fn write_stdout(bytes: &[u8]) -> bool {
    use std::io::Write as _;
    if stdout_error().is_some() {
        return false;
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => true,
        Err(e) => {
            record_stdout_error(&e);
            false
        }
    }
}

fn record_stdout_error(e: &std::io::Error) {
    let mut slot = STDOUT_ERROR.lock().unwrap_or_else(|p| p.into_inner());
    slot.get_or_insert_with(|| format!("writing to standard output: {e}"));
}

/// What went wrong writing standard output, if anything did.
pub fn stdout_error() -> Option<String> {
    STDOUT_ERROR
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}

thread_local! {
    /// Standard output the command running on this thread spilled to a private file
    /// (its directory and the file): [`print_spooled`].
    static SPOOLED_STDOUT: std::cell::RefCell<Option<(std::path::PathBuf, std::path::PathBuf)>> =
        const { std::cell::RefCell::new(None) };
}

/// What a command prints from a [`capstan_app::spool::Spool`]: the text, or (spilled to a file) nothing
/// here, the file to be printed once the command has returned.
pub(crate) fn print_spooled(s: capstan_app::spool::Spooled) -> String {
    match s {
        capstan_app::spool::Spooled::Text(t) => t,
        capstan_app::spool::Spooled::File { dir, path } => {
            SPOOLED_STDOUT.with(|s| *s.borrow_mut() = Some((dir, path)));
            String::new()
        }
    }
}

mod argocd;
mod chart;
mod cluster;
mod completion;
mod explain;
mod explain_html;
mod global;
mod helm_args;
mod helmfile;
mod progress;
mod setup;
mod values;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::path::Path;

#[derive(Parser)]
#[command(
    name = "capstan",
    version,
    disable_version_flag = true,
    about = "Declarative Helm releases, helmfile-compatible, with values you can explain"
)]
struct Cli {
    #[command(flatten)]
    global: global::Global,
    /// Print capstan's version (`capstan version` also names the helm it would run).
    #[arg(short = 'V', long = "version")]
    version: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

/// The command definition (for completion and the man page).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Answers a shell completion request (`CAPSTAN_COMPLETE` set: see `capstan completion`)
/// and exits; otherwise returns at once. Call it first, before anything is printed.
pub fn complete_if_asked() {
    completion::complete_if_asked(command);
}

// Parsed once per run: the size of the state command's flags does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Work with one Helm chart directly, like `helm template` (no cluster, no helm).
    #[command(subcommand)]
    Chart(chart::ChartCommand),
    #[command(flatten)]
    State(helmfile::StateCommand),
    /// Print capstan's version and the helm it would run, as `helmfile version`.
    Version,
    /// Print a shell completion script (bash, zsh, fish, powershell) that completes
    /// commands, flags, environment names (`-e`) and selectors (`-l`) from the state file:
    /// `source <(capstan completion bash)`.
    Completion(completion::CompletionArgs),
    /// Check helm and the helm plugins helmfile's `init` checks, as `helmfile init`.
    Init(setup::InitArgs),
    /// Create a project scaffold (helmfile.yaml, environments/, values/), as
    /// `helmfile create`.
    Create(setup::CreateArgs),
    /// Print capstan's man page (roff): `capstan man > capstan.1; man -l capstan.1`.
    Man,
    /// Run as an Argo CD Config Management Plugin (`deploy/argocd/plugin.yaml`): the
    /// application's parameters and environment from Argo CD's variables.
    #[command(subcommand)]
    Argocd(argocd::ArgocdCommand),
}

/// What a command printed and its exit code.
#[derive(Debug, Default)]
pub struct Outcome {
    /// What the command printed on standard output.
    pub stdout: String,
    /// What it printed on standard error.
    pub stderr: String,
    /// Its exit code.
    pub code: i32,
}

/// helmfile (cobra) accepts a command's own flags before the command's name
/// (`helmfile --concurrency=1 template`); clap does not, so flags before the command
/// that are not global ones are moved just after it. A global flag's separate value
/// (`-e prod`) stays with it.
fn cobra_order(cmd: &clap::Command, args: Vec<OsString>) -> Vec<OsString> {
    let commands: Vec<String> = cmd
        .get_subcommands()
        .flat_map(|c| {
            std::iter::once(c.get_name().to_string()).chain(c.get_all_aliases().map(String::from))
        })
        .collect();
    let global = |flag: &str| {
        cmd.get_arguments().find(|a| {
            flag.strip_prefix("--").map_or_else(
                || {
                    flag.strip_prefix('-')
                        .and_then(|f| f.chars().next())
                        .is_some_and(|c| a.get_short() == Some(c))
                },
                |long| {
                    a.get_long() == Some(long)
                        || a.get_all_aliases().is_some_and(|al| al.contains(&long))
                },
            )
        })
    };
    let Some(at) = args
        .iter()
        .skip(1)
        .position(|a| a.to_str().is_some_and(|a| commands.iter().any(|c| c == a)))
        .map(|i| i + 1)
    else {
        return args;
    };
    let (mut kept, mut moved) = (vec![args[0].clone()], Vec::new());
    let mut i = 1;
    while i < at {
        let a = args[i].to_string_lossy().into_owned();
        let name = a.split_once('=').map_or(a.as_str(), |(n, _)| n);
        match (a.starts_with('-'), global(name)) {
            (true, None) => moved.push(args[i].clone()),
            (true, Some(g)) => {
                kept.push(args[i].clone());
                let short_with_value = !a.starts_with("--") && a.len() > 2;
                if g.get_action().takes_values()
                    && !a.contains('=')
                    && !short_with_value
                    && i + 1 < at
                {
                    i += 1;
                    kept.push(args[i].clone());
                }
            }
            (false, _) => kept.push(args[i].clone()),
        }
        i += 1;
    }
    kept.push(args[at].clone());
    kept.extend(moved);
    kept.extend(args[at + 1..].iter().cloned());
    kept
}

/// Runs `capstan ARGS...` (the first item is the program name) in directory `cwd`.
pub fn run<I, T>(args: I, cwd: &Path) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cwd = cwd.to_path_buf();
    // Templates, YAML and HCL nest as deep as their input: the command runs on a thread
    // whose stack fits Go's limits (see `capstan_value::DEEP_STACK_BYTES`), and a bug
    // that panics ends as an error, not an abort.
    quiet_too_deep_panics();
    let in_place = (args.clone(), cwd.clone());
    let worker = std::thread::Builder::new()
        .name("capstan".into())
        .stack_size(capstan_value::DEEP_STACK_BYTES)
        .spawn(move || {
            capstan_value::stack::mark_thread_stack(capstan_value::DEEP_STACK_BYTES);
            run_here(args, &cwd)
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(outcome)) => outcome,
        // Input nesting past every stack capstan allows (private files were removed as
        // the work unwound).
        Ok(Err(panic)) if capstan_value::stack::is_too_deep(panic.as_ref()) => Outcome {
            stdout: String::new(),
            stderr: format!("Error: {}\n", capstan_value::stack::TooDeep),
            code: 1,
        },
        // A map a template made to contain itself, walked outside any template call.
        Ok(Err(panic)) if capstan_value::cycles::as_cycle(panic.as_ref()).is_some() => Outcome {
            stdout: String::new(),
            stderr: format!(
                "Error: {}\n",
                capstan_value::cycles::as_cycle(panic.as_ref())
                    .map(capstan_value::cycles::Cycle::endless_walk)
                    .unwrap_or_default()
            ),
            code: 1,
        },
        Ok(Err(panic)) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome {
                stdout: String::new(),
                stderr: format!(
                    "Error: internal error (a bug in capstan, please report it): {what}\n"
                ),
                code: 70,
            }
        }
        // No room for the large stack (a ulimit on address space): run with this one.
        Err(_) => run_here(in_place.0, &in_place.1),
    }
}

/// Keeps the default panic message for bugs, but not for [`capstan_value::stack::TooDeep`]
/// or [`capstan_value::cycles::Cycle`] (properties of the input, reported as errors).
fn quiet_too_deep_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            if !capstan_value::stack::is_too_deep(payload)
                && capstan_value::cycles::as_cycle(payload).is_none()
            {
                default(info);
            }
        }));
    });
}

/// [`run`] on the current thread.
fn run_here(args: Vec<OsString>, cwd: &Path) -> Outcome {
    let (cli, matches) = match parse(args) {
        Ok(parsed) => parsed,
        Err(outcome) => return outcome,
    };
    let mut log = String::new();
    let Some(command) = cli.command else {
        return without_command(&cli);
    };
    // helmfile prints its errors as they are; helm (and capstan's own commands) after
    // `Error: `.
    let error_prefix = if matches!(command, Command::State(_)) {
        ""
    } else {
        "Error: "
    };
    let result = match command {
        Command::Chart(c) => chart_globals(&cli.global, &matches)
            .and_then(|globals| chart::run(c, cwd, &globals, &mut log)),
        Command::State(c) => helmfile::run(&cli.global, c, cwd, &mut log),
        Command::Version => Ok(capstan_app::version::text(&cli.global.helm_binary, cwd)),
        Command::Completion(a) => Ok(completion::script(&a)),
        Command::Init(a) => setup::init(&a, &cli.global.helm_binary, cwd, &mut log),
        Command::Create(a) => setup::create(&a, cwd, &mut log),
        Command::Man => Ok(completion::man_page(Cli::command())),
        // A child capstan does the work; its outcome is passed on as it is.
        Command::Argocd(c) => return argocd::run(c, cwd),
    };
    finish(result, log, error_prefix, cwd)
}

/// The command line parsed; clap's own output (help, a usage error) as the outcome.
fn parse(args: Vec<OsString>) -> Result<(Cli, clap::ArgMatches), Outcome> {
    // Built once (a few hundred flags: building is a tenth of a small chart's render).
    let cmd = Cli::command();
    let ordered = cobra_order(&cmd, args);
    cmd.try_get_matches_from(ordered)
        .and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)))
        .map_err(|e| {
            let text = e.render().to_string();
            let code = e.exit_code();
            if code == 0 {
                Outcome {
                    stdout: text,
                    stderr: String::new(),
                    code,
                }
            } else {
                Outcome {
                    stdout: String::new(),
                    stderr: text,
                    code,
                }
            }
        })
}

/// `capstan` without a command: `--version`, or an error naming the commands.
fn without_command(cli: &Cli) -> Outcome {
    if cli.version {
        // One line, as `helmfile --version` prints it; `capstan version` also asks helm.
        return Outcome {
            stdout: capstan_app::version::short(),
            ..Outcome::default()
        };
    }
    Outcome {
        stdout: String::new(),
        stderr: Cli::command()
            .error(
                clap::error::ErrorKind::MissingSubcommand,
                "a command is required (capstan --help lists them)",
            )
            .render()
            .to_string(),
        code: 2,
    }
}

/// A command's result as the outcome: its output (spilled output printed from its file
/// by the binary, read back in-process), or its error rendered with its snippet.
fn finish(
    result: Result<String, chart::Failure>,
    mut log: String,
    error_prefix: &str,
    cwd: &Path,
) -> Outcome {
    // Output a command spilled to a private file: printed from there by the binary (a
    // caller in-process gets it as text); a command that failed left none.
    let spooled = SPOOLED_STDOUT.with(|s| s.borrow_mut().take());
    match (result, spooled) {
        (Ok(out), None) => Outcome {
            stdout: out,
            stderr: log,
            code: 0,
        },
        (Ok(out), Some((dir, path))) => print_spilled(out, &dir, &path, log),
        (Err(f), spooled) => {
            if let Some((dir, _)) = spooled {
                capstan_app::spool::remove(&dir);
            }
            if !f.message.is_empty() {
                // An error may quote a decrypted value (a line of a values file, a
                // failing template's input): secrets this run decrypted never show.
                // Nor do URL passwords and tokens, or a server's terminal escapes.
                let message = capstan_fetch::neutralize_controls(&capstan_fetch::redact(
                    &capstan_state::known_secrets::hide(&render_failure(&f, cwd)),
                ));
                logln!(log, "{error_prefix}{message}");
            }
            Outcome {
                stdout: f.stdout,
                stderr: log,
                code: f.code,
            }
        }
    }
}

/// Output spilled to `path`: printed to standard output by the binary, appended to `out`
/// in-process; the private directory removed either way.
fn print_spilled(mut out: String, dir: &Path, path: &Path, mut log: String) -> Outcome {
    let printed = if PROCESS_EXITS_AFTER_RUN.load(std::sync::atomic::Ordering::Relaxed) {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        capstan_app::spool::print_and_remove(dir, path, &mut lock)
            .and_then(|()| std::io::Write::flush(&mut lock))
            .inspect_err(record_stdout_error)
    } else {
        let mut bytes = Vec::new();
        let r = capstan_app::spool::print_and_remove(dir, path, &mut bytes);
        out.push_str(&String::from_utf8_lossy(&bytes));
        r
    };
    match printed {
        Ok(()) => Outcome {
            stdout: out,
            stderr: log,
            code: 0,
        },
        Err(e) => {
            logln!(log, "Error: writing to standard output: {e}");
            Outcome {
                stdout: String::new(),
                stderr: log,
                code: 1,
            }
        }
    }
}

/// How every error is shown: the message, then (when it is about a place in a file that
/// can be read) the offending line with a caret under the column.
pub(crate) fn render_failure(f: &chart::Failure, cwd: &Path) -> String {
    let mut text = f.message.clone();
    if let Some(l) = &f.location {
        text.push('\n');
        text.push_str(&capstan_app::session::location_snippet(l, cwd));
    }
    text
}

/// The global flags given on the command line before `chart`: helm's `-n` and `--debug`
/// carry over, flags about the cluster or the log are accepted (`helm template` takes
/// them and prints the same), and helmfile's own flags are refused.
fn chart_globals(
    g: &global::Global,
    matches: &clap::ArgMatches,
) -> Result<chart::Globals, chart::Failure> {
    const ACCEPTED: &[&str] = &[
        "namespace",
        "debug",
        "kube_context",
        "kubeconfig",
        "quiet",
        "log_level",
        "color",
        "no_color",
    ];
    for arg in Cli::command().get_arguments() {
        let id = arg.get_id().as_str();
        if matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
            && !ACCEPTED.contains(&id)
        {
            let name = arg
                .get_long()
                .map(|l| format!("--{l}"))
                .or_else(|| arg.get_short().map(|c| format!("-{c}")))
                .unwrap_or_else(|| id.to_string());
            return Err(format!(
                "{name} is a helmfile flag: `capstan chart` renders one chart without a state file and does not use it"
            )
            .into());
        }
    }
    g.log_level()?;
    Ok(chart::Globals {
        namespace: g.namespace.clone(),
        debug: g.debug,
    })
}

#[cfg(test)]
mod tests {

    /// Issue 28, item 2: after hardening, the process is not dumpable and may write no
    /// core file (the binary does this first thing).
    #[test]
    fn hardening_leaves_no_memory_image() {
        super::harden_process().expect("hardened");
        assert_eq!(nix::sys::prctl::get_dumpable(), Ok(false));
        assert_eq!(
            nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_CORE),
            Ok((0, 0))
        );
    }

    use super::{cobra_order, Cli};
    use clap::CommandFactory;

    fn order(args: &[&str]) -> Vec<String> {
        cobra_order(&Cli::command(), args.iter().map(Into::into).collect())
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn command_flags_before_the_command_move_after_it() {
        assert_eq!(
            order(&[
                "capstan",
                "--concurrency=1",
                "-e",
                "prod",
                "template",
                "--skip-tests"
            ]),
            [
                "capstan",
                "-e",
                "prod",
                "template",
                "--concurrency=1",
                "--skip-tests"
            ]
        );
        assert_eq!(
            order(&["capstan", "-f", "template", "--include-crds", "template"]),
            ["capstan", "-f", "template", "--include-crds", "template"],
            "a global flag's value that looks like a command stays a value"
        );
        assert_eq!(order(&["capstan", "list"]), ["capstan", "list"]);
    }
}
