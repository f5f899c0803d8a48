//! The helmfile-compatible commands on the command line: each command's flags, mapped
//! with helmfile's global flags (and their `HELMFILE_*` variables) to a
//! [`capstan_app::Session`] and the command's request, handed to its module in
//! `capstan_app`, and what it returns rendered: results to stdout, progress to stderr.

use crate::cluster::ClusterCommand;
use crate::global::{go_bool, Global};
use capstan_app::build::BuildRequest;
use capstan_app::fetch::FetchRequest;
use capstan_app::template::TemplateRequest;
use capstan_app::write_values::WriteValuesRequest;
use capstan_app::{Failure, Session};
use capstan_state::app::RunOptions;
use capstan_state::host::OsHost;
use capstan_state::load::{Overrides, Settings};
use capstan_state::release_values::HelmFlags;
use clap::{Args, Subcommand};
use std::path::Path;
use std::sync::Arc;

#[derive(Args, Clone, Debug, Default)]
pub struct TemplateArgs {
    /// Write manifests to this directory instead of stdout.
    #[arg(long = "output-dir", default_value = "")]
    output_dir: String,
    /// Go template for each release's output directory.
    #[arg(long = "output-dir-template", default_value = "")]
    output_dir_template: String,
    #[arg(long = "include-crds", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    include_crds: bool,
    #[arg(long = "skip-tests", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    skip_tests: bool,
    #[arg(long = "kube-version", default_value = "")]
    kube_version: String,
    #[arg(long = "skip-schema-validation", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    skip_schema_validation: bool,
    /// Releases rendered at once (0: one per core).
    #[arg(long = "concurrency", default_value_t = 0)]
    concurrency: usize,
    /// Extra `helm template` flags: those that change its output are applied, cluster
    /// and repository settings accepted, anything else refused.
    #[arg(long = "args", default_value = "", allow_hyphen_values = true)]
    args: String,
    /// Extra `--set` for every release.
    #[arg(long = "set")]
    set: Vec<String>,
    /// Extra values files for every release.
    #[arg(long = "values")]
    values: Vec<String>,
    /// With `-l`: also render the releases the selected ones need.
    #[arg(long = "include-needs", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    include_needs: bool,
    /// With `-l`: also render what they need, and what that needs, and so on.
    #[arg(long = "include-transitive-needs", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    include_transitive_needs: bool,
    /// Do not add the releases the selected ones need (helmfile's default: true unless
    /// `--include-needs`/`--include-transitive-needs`).
    #[arg(long = "skip-needs", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "true", value_parser = go_bool)]
    skip_needs: bool,
    /// A post-renderer for every release (over `postRenderer` in the state file).
    #[arg(long = "post-renderer", default_value = "")]
    post_renderer: String,
    /// Arguments for the post-renderer.
    #[arg(long = "post-renderer-args")]
    post_renderer_args: Vec<String>,
    /// Validate the manifests against the cluster of the kube context: rendered with its
    /// version and API versions, each object checked by the API server in a dry run.
    #[arg(long = "validate", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    validate: bool,
    /// Keep the temporary values files made for helm.
    #[arg(long = "skip-cleanup", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    skip_cleanup: bool,
    /// Leave hooks out of the output (`helm template --no-hooks`).
    #[arg(long = "no-hooks", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    no_hooks: bool,
    /// Only the manifests of these templates (`helm template --show-only`).
    #[arg(long = "show-only")]
    show_only: Vec<String>,
    /// Turn warnings about value traps (a list replaced whole, `tag: 1.10` read as 1.1,
    /// a `null` deleting a default) into errors: nothing is printed or written.
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    strict: bool,
    /// More arguments for `helm template` (read like `--args`).
    #[arg(long = "template-args", default_value = "", allow_hyphen_values = true)]
    template_args: String,
    /// Fail when a release's `needs:` are not installed (cluster commands).
    #[arg(long = "enforce-needs-are-installed", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    enforce_needs_are_installed: bool,
}

#[derive(Args, Clone, Debug, Default)]
pub struct BuildArgs {
    /// Embed release values files in the output.
    #[arg(long = "embed-values", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    embed_values: bool,
}

#[derive(Args, Clone, Debug, Default)]
pub struct ListArgs {
    /// `json` for JSON output.
    #[arg(long = "output", default_value = "")]
    output: String,
    /// Do not prepare charts: no top-level `prepare`/`cleanup` hooks run (helmfile's
    /// list runs them unless given; neither prepares a release's chart).
    #[arg(long = "skip-charts", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    skip_charts: bool,
}

#[derive(Args, Clone, Debug, Default)]
pub struct WriteValuesArgs {
    #[arg(long = "output-file-template", default_value = "")]
    output_file_template: String,
    /// Releases handled at once (0: no limit).
    #[arg(long = "concurrency", default_value_t = 0)]
    concurrency: usize,
    #[arg(long = "set")]
    set: Vec<String>,
    #[arg(long = "values")]
    values: Vec<String>,
}

#[derive(Args, Clone, Debug, Default)]
pub struct FetchArgs {
    /// Where charts go (default: a temporary directory removed when the command ends).
    #[arg(long = "output-dir", default_value = "")]
    output_dir: String,
    /// Go template for each chart's directory (helmfile's default: namespace, kube
    /// context, release, chart name and version under the output directory).
    #[arg(long = "output-dir-template", default_value = "")]
    output_dir_template: String,
    /// Charts fetched at once (0: no limit).
    #[arg(long = "concurrency", default_value_t = 0)]
    concurrency: usize,
    /// Print the helmfile (as `build` prints it) with each release's `chart:` pointing at
    /// its fetched copy, for air-gapped installs; needs `--output-dir` and one state file.
    #[arg(long = "write-output", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    write_output: bool,
}

#[derive(Args, Clone, Debug, Default)]
pub struct NoArgs {}

/// A command's own flags plus helmfile's global flags (accepted after the command too);
/// `--help` lists the command's own first, the global ones under their own heading.
#[derive(Args, Clone, Debug, Default)]
pub struct With<T: Args> {
    #[command(flatten)]
    pub args: T,
    #[command(flatten, next_help_heading = "Global options")]
    pub global: Global,
}

#[derive(Subcommand, Clone, Debug)]
pub enum StateCommand {
    /// Render every release's manifests, as `helmfile template`.
    Template(With<TemplateArgs>),
    /// Print the final state after templating, as `helmfile build`.
    Build(With<BuildArgs>),
    /// List releases, as `helmfile list`.
    List(With<ListArgs>),
    /// Write each release's merged values to files, as `helmfile write-values`.
    WriteValues(With<WriteValuesArgs>),
    /// Print the environment and its merged values, as `helmfile print-env`.
    PrintEnv(With<crate::values::PrintEnvArgs>),
    /// Print each release's final values (what its templates see as `.Values`), or with
    /// `--explain` where each one came from (capstan's own; helmfile has no such command).
    Values(With<crate::values::ValuesArgs>),
    /// Download the releases' remote charts (helm repositories, OCI) into a directory,
    /// as `helmfile fetch`.
    Fetch(With<FetchArgs>),
    /// Print the `needs:` graph in groups, as `helmfile show-dag`.
    ShowDag(With<NoArgs>),
    /// The cache of remote files (`git::`, `http(s)://`, `s3://`), as `helmfile cache`.
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Install or upgrade every release, uninstall those marked `installed: false`, as
    /// `helmfile sync` (through the real helm).
    Sync(With<crate::cluster::SyncArgs>),
    /// Diff every release, then sync only the ones that changed, as `helmfile apply`.
    Apply(With<crate::cluster::ApplyArgs>),
    /// Show what `apply` would change: the deployed release against capstan's rendering,
    /// printed as helm-diff prints it (no plugin needed).
    Diff(With<crate::cluster::DiffCommandArgs>),
    /// Uninstall every release, in reverse `needs:` order, as `helmfile destroy`.
    Destroy(With<crate::cluster::DestroyArgs>),
    /// The old name of `destroy` (`helmfile delete`).
    Delete(With<crate::cluster::DestroyArgs>),
    /// `helm status` of every release, as `helmfile status`.
    Status(With<crate::cluster::StatusArgs>),
    /// `helm test` of every release, as `helmfile test`.
    Test(With<crate::cluster::TestArgs>),
    /// `helm lint` of every release's chart with its values, as `helmfile lint`.
    Lint(With<crate::cluster::LintArgs>),
    /// Add the state's chart repositories to helm (and log in to its OCI registries), as
    /// `helmfile repos`.
    Repos(With<crate::cluster::ReposArgs>),
    /// The helm-unittest plugin for each release with `unitTests:`, as `helmfile unittest`.
    Unittest(With<crate::cluster::UnittestArgs>),
    /// `helm dependency update` of local charts and the lock file of the repository
    /// charts (`helmfile.lock`), as `helmfile deps`.
    Deps(With<crate::cluster::DepsArgs>),
}

#[derive(Subcommand, Clone, Debug)]
pub enum CacheCommand {
    /// Print the cache directory and what it holds.
    Info,
    /// Remove the cache directory.
    Cleanup,
}

impl StateCommand {
    fn global(&self) -> &Global {
        match self {
            StateCommand::Template(w) => &w.global,
            StateCommand::Build(w) => &w.global,
            StateCommand::List(w) => &w.global,
            StateCommand::WriteValues(w) => &w.global,
            StateCommand::PrintEnv(w) => &w.global,
            StateCommand::Fetch(w) => &w.global,
            StateCommand::Values(w) => &w.global,
            StateCommand::ShowDag(w) => &w.global,
            StateCommand::Sync(w) => &w.global,
            StateCommand::Apply(w) => &w.global,
            StateCommand::Diff(w) => &w.global,
            StateCommand::Destroy(w) | StateCommand::Delete(w) => &w.global,
            StateCommand::Status(w) => &w.global,
            StateCommand::Test(w) => &w.global,
            StateCommand::Lint(w) => &w.global,
            StateCommand::Repos(w) => &w.global,
            StateCommand::Unittest(w) => &w.global,
            StateCommand::Deps(w) => &w.global,
            StateCommand::Cache(_) => {
                static NONE: std::sync::OnceLock<Global> = std::sync::OnceLock::new();
                NONE.get_or_init(Global::default)
            }
        }
    }
}

/// The run's settings; `captured` collects the host's progress lines and warnings when
/// they do not go to standard error as they happen (an in-process run).
fn settings(
    g: &Global,
    cwd: &Path,
    captured: &Arc<std::sync::Mutex<String>>,
) -> Result<Settings, Failure> {
    let root = cwd.to_path_buf();
    let mut host = OsHost::new(&root);
    host.show_progress = g.shows_progress()?;
    host.status =
        capstan_state::status::StatusLine::new(crate::progress::redraws(host.show_progress));
    host.show_warnings = g.log_level()? <= 2;
    host.show_debug = g.log_level()? == 0;
    host.oci_plain_http = g.oci_plain_http;
    if !crate::LIVE_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
        host.captured = Some(captured.clone());
    }
    // helmfile takes an empty `-e`/`HELMFILE_ENVIRONMENT` for the default environment;
    // capstan does too, and says so (an empty variable is often a CI mistake).
    if g.empty_environment {
        use capstan_state::host::Host;
        host.warn(
            "WARNING: the environment name is empty (an empty HELMFILE_ENVIRONMENT or -e \"\"): using the \"default\" environment",
        );
    }
    if g.file == "-" {
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut data)
            .map_err(|e| format!("reading the state file from standard input: {e}"))?;
        host.stdin = Some(data);
    }
    let host: Arc<dyn capstan_state::host::Host> = if g.untrusted {
        Arc::new(capstan_state::tenant_host::TenantHost::for_run(
            Arc::new(host),
            &root,
        )?)
    } else {
        Arc::new(host)
    };
    Ok(Settings {
        env: g.environment.clone(),
        namespace: g.namespace.clone(),
        kube_context: g.kube_context.clone(),
        chart: g.chart.clone(),
        helm_binary: g.helm_binary.clone(),
        ..Settings::new(host, root)
    })
}

/// The global flags as the session every command runs in.
fn session(
    g: &Global,
    cwd: &Path,
    captured: &Arc<std::sync::Mutex<String>>,
) -> Result<Session, Failure> {
    Ok(Session {
        settings: settings(g, cwd, captured)?,
        run: RunOptions {
            file: g.file.clone(),
            selectors: g.selector.clone(),
            listed_selector_errors: g.listed_selector_errors,
            cli: Overrides {
                entries: g
                    .state_values_file
                    .iter()
                    .map(|f| capstan_value::Value::from(f.as_str()))
                    .collect(),
                set: g.state_values_set.clone(),
                set_string: g.state_values_set_string.clone(),
                base: ".".into(),
            },
        },
        allow_no_matching_release: g.allow_no_matching_release,
        progress: g.shows_progress()?,
        log_level: crate::cluster::log_level(g)?,
        skip_deps: g.skip_deps,
        debug: g.debug,
        kubeconfig: g.kubeconfig.clone(),
    })
}

/// Runs one helmfile command; the `Ok` text goes to stdout.
pub fn run(
    before: &Global,
    cmd: StateCommand,
    cwd: &Path,
    log: &mut String,
) -> Result<String, Failure> {
    let captured = Arc::new(std::sync::Mutex::new(String::new()));
    let result = run_with(before, cmd, cwd, log, &captured);
    log.push_str(&captured.lock().unwrap_or_else(|e| e.into_inner()));
    result
}

fn run_with(
    before: &Global,
    cmd: StateCommand,
    cwd: &Path,
    log: &mut String,
    captured: &Arc<std::sync::Mutex<String>>,
) -> Result<String, Failure> {
    let mut merged = cmd.global().over(before);
    // helmfile's chart preparation reports a malformed selector in an error list.
    merged.listed_selector_errors = matches!(
        cmd,
        StateCommand::Template(_)
            | StateCommand::Lint(_)
            | StateCommand::Diff(_)
            | StateCommand::Sync(_)
            | StateCommand::Apply(_)
            | StateCommand::Destroy(_)
            | StateCommand::Delete(_)
    );
    let g = &merged;
    let session = session(g, cwd, captured)?;
    match cmd {
        StateCommand::Template(w) => template(&session, &w.args, log),
        StateCommand::Build(w) => {
            let request = BuildRequest {
                embed_values: w.args.embed_values,
            };
            capstan_app::build::run(&session, &request, log)
        }
        StateCommand::List(w) => list(&session, &w.args, log),
        StateCommand::WriteValues(w) => write_values(&session, w.args, log),
        StateCommand::Values(w) => crate::values::values(&session, w.args, log),
        StateCommand::Fetch(w) => {
            let request = FetchRequest {
                output_dir: w.args.output_dir,
                output_dir_template: w.args.output_dir_template,
                write_output: w.args.write_output,
            };
            capstan_app::fetch::run(&session, &request, log)
        }
        StateCommand::PrintEnv(w) => crate::values::print_env(&session, &w.args, log),
        StateCommand::ShowDag(_) => capstan_app::show_dag::run(&session, log),
        StateCommand::Cache(c) => Ok(cache(c)?),
        other => match other.into_cluster() {
            Some(c) => crate::cluster::run(g, &session, c, log),
            None => Err("not a cluster command".into()),
        },
    }
}

impl StateCommand {
    /// The cluster command this is, if it is one.
    fn into_cluster(self) -> Option<ClusterCommand> {
        Some(match self {
            StateCommand::Sync(w) => ClusterCommand::Sync(w.args),
            StateCommand::Apply(w) => ClusterCommand::Apply(w.args),
            StateCommand::Diff(w) => ClusterCommand::Diff(w.args),
            StateCommand::Destroy(w) | StateCommand::Delete(w) => ClusterCommand::Destroy(w.args),
            StateCommand::Status(w) => ClusterCommand::Status(w.args),
            StateCommand::Test(w) => ClusterCommand::Test(w.args),
            StateCommand::Lint(w) => ClusterCommand::Lint(w.args),
            StateCommand::Repos(w) => ClusterCommand::Repos(w.args),
            StateCommand::Unittest(w) => ClusterCommand::Unittest(w.args),
            StateCommand::Deps(w) => ClusterCommand::Deps(w.args),
            _ => return None,
        })
    }
}

/// `template`: the flags as a request, a progress bar on a terminal, the output printed
/// or the files written named.
fn template(session: &Session, t: &TemplateArgs, log: &mut String) -> Result<String, Failure> {
    let mut flags = HelmFlags {
        include_crds: t.include_crds,
        skip_tests: t.skip_tests,
        kube_version: t.kube_version.clone(),
        skip_schema_validation: t.skip_schema_validation,
        set: t.set.clone(),
        values: t.values.clone(),
        post_renderer: t.post_renderer.clone(),
        post_renderer_args: t.post_renderer_args.clone(),
        no_hooks: t.no_hooks,
        show_only: t.show_only.clone(),
        ..Default::default()
    };
    crate::helm_args::apply("--args", &t.args, &mut flags)?;
    crate::helm_args::apply("--template-args", &t.template_args, &mut flags)?;
    let bar = crate::progress::Bar::new(session.progress, "Templating", "releases");
    let request = TemplateRequest {
        flags,
        include_needs: t.include_needs || t.include_transitive_needs,
        skip_needs: t.skip_needs,
        validate: t.validate,
        concurrency: t.concurrency,
        output_dir: t.output_dir.clone(),
        output_dir_template: t.output_dir_template.clone(),
        list_releases: session.progress && !bar.enabled(),
        strict: t.strict,
    };
    let Some(done) = capstan_app::template::run(session, &request, &bar, log)? else {
        return Ok(String::new());
    };
    if bar.enabled() {
        logln!(
            log,
            "Templated {} release(s) in {:.2} s",
            done.releases,
            bar.elapsed().as_secs_f64()
        );
    }
    if session.progress {
        for p in &done.written {
            logln!(log, "wrote {p}");
        }
    }
    Ok(done.printed.map(crate::print_spooled).unwrap_or_default())
}

/// `list`: the rows as a table or JSON; nothing when no release matched.
fn list(session: &Session, args: &ListArgs, log: &mut String) -> Result<String, Failure> {
    let rows = capstan_app::list::run(session, args.skip_charts, log)?;
    Ok(if rows.is_empty() {
        String::new()
    } else if args.output == "json" {
        capstan_app::list::json(&rows)
    } else {
        capstan_app::list::table(&rows)
    })
}

/// `write-values`: each file written named (with progress).
fn write_values(
    session: &Session,
    args: WriteValuesArgs,
    log: &mut String,
) -> Result<String, Failure> {
    let request = WriteValuesRequest {
        set: args.set,
        values: args.values,
        output_file_template: args.output_file_template,
    };
    for p in capstan_app::write_values::run(session, &request, log)? {
        if session.progress {
            logln!(log, "Writing values file {p}");
        }
    }
    Ok(String::new())
}

/// `cache info` and `cache cleanup`.
fn cache(c: CacheCommand) -> Result<String, Failure> {
    let dir = capstan_app::cache::dir();
    match c {
        CacheCommand::Info => {
            let mut out = format!("Cache directory: {}\n", dir.display());
            let names = capstan_app::cache::entries(&dir);
            if names.is_empty() {
                out.push_str("The cache is empty.\n");
            }
            for n in names {
                out.push_str(&format!("  {n}\n"));
            }
            Ok(out)
        }
        CacheCommand::Cleanup => Ok(if capstan_app::cache::cleanup(&dir)? {
            format!("Removed the cache directory {}\n", dir.display())
        } else {
            format!("The cache directory {} does not exist\n", dir.display())
        }),
    }
}
