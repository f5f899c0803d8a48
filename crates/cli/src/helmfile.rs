//! The helmfile-compatible commands: global flags as helmfile's (and their `HELMFILE_*`
//! variables), then `template`, `build`, `list`, `write-values`, `print-env` and
//! `show-dag` over the loaded state. Progress goes to stderr, results to stdout; files
//! are written only after everything rendered.

use crate::chart::Failure;
use crate::global::{go_bool, Global};
use capstan_state::app::{load_run, PreparedState, RunError, RunOptions};
use capstan_state::commands;
use capstan_state::host::OsHost;
use capstan_state::load::{Overrides, Settings};
use capstan_state::release_values::HelmFlags;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
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
    /// Do not prepare charts: helmfile's list runs chartify and `prepare` hooks unless
    /// given; capstan's list prepares nothing, so the output is the same either way.
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
pub struct ValuesArgs {
    /// List every leaf with the layer (file:line:col or flag) that set it and the ones
    /// it overrode.
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    explain: bool,
    /// `yaml` (default) or `json`.
    #[arg(short = 'o', long = "output", default_value = "yaml")]
    output: String,
    /// Turn warnings about value traps into errors.
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    strict: bool,
    /// Extra `--set` for every release.
    #[arg(long = "set")]
    set: Vec<String>,
    /// Extra values files for every release.
    #[arg(long = "values")]
    values: Vec<String>,
    /// With --explain: show the values that came from secrets (hidden otherwise).
    #[arg(long = "show-secrets", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    show_secrets: bool,
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
pub struct PrintEnvArgs {
    /// `yaml` (default) or `json`.
    #[arg(short = 'o', long = "output", default_value = "yaml")]
    output: String,
    /// List every environment value with the layer (file:line:col or flag) that set it
    /// and the ones it overrode (capstan's own).
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    explain: bool,
    /// With --explain: show the values that came from secrets files (hidden otherwise).
    #[arg(long = "show-secrets", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    show_secrets: bool,
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
    PrintEnv(With<PrintEnvArgs>),
    /// Print each release's final values (what its templates see as `.Values`), or with
    /// `--explain` where each one came from (capstan's own; helmfile has no such command).
    Values(With<ValuesArgs>),
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
    host.show_warnings = g.log_level()? <= 2;
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
    Ok(Settings {
        host: Arc::new(host),
        root,
        env: g.environment.clone(),
        namespace: g.namespace.clone(),
        kube_context: g.kube_context.clone(),
        hcl: capstan_state::hcl_evaluator(),
        secrets: capstan_state::load::sops_reader,
        limits: None,
        chart: g.chart.clone(),
        helm_binary: g.helm_binary.clone(),
        renderers: Default::default(),
        charts: Default::default(),
        env_journal: None,
    })
}

fn run_options(g: &Global) -> RunOptions {
    RunOptions {
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
    }
}

fn load(g: &Global, s: &Settings, log: &mut String) -> Result<Vec<PreparedState>, RunError> {
    let (states, warnings) = load_run(s, &run_options(g))?;
    for w in warnings {
        logln!(log, "{w}");
    }
    Ok(states)
}

/// The states even when no release matches, with helmfile's "no releases found" error
/// when nothing did (`print-env` ignores it, `build` prints the states first); an
/// environment no file defines is still an error at once.
fn load_any(
    g: &Global,
    s: &Settings,
    log: &mut String,
    root: &Path,
) -> Result<(Vec<PreparedState>, Option<String>), Failure> {
    let loaded = capstan_state::app::load_states(s, &run_options(g))
        .map_err(|e| describe_run(&e, &g.environment, root))?;
    for w in loaded.warnings {
        logln!(log, "{w}");
    }
    match &loaded.no_match {
        Some(e @ RunError::NoMatch { undefined, .. })
            if !undefined.is_empty() && loaded.states.is_empty() =>
        {
            Err(Failure {
                code: NO_MATCH_EXIT_CODE,
                ..describe_run(e, &g.environment, root)
            })
        }
        Some(e) if !g.allow_no_matching_release => Ok((
            loaded.states,
            Some(describe_run(e, &g.environment, root).message),
        )),
        _ => Ok((loaded.states, None)),
    }
}

/// Writes files all together: into a temporary sibling first, then renamed, so a failure
/// leaves nothing half-written.
///
/// Staged files are private (0600: values may hold secrets) and removed on a signal; in
/// place, a file is readable by others (0644) unless `private`. A path listed twice (one
/// state file loaded twice, two releases writing one file) ends with the last content,
/// as writing them one after the other would.
fn write_all<T: AsRef<[u8]>>(
    root: &Path,
    files: &[(String, T)],
    private: bool,
) -> Result<(), Failure> {
    let last_index: std::collections::HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (p.as_str(), i))
        .collect();
    let last: Vec<&(String, T)> = files
        .iter()
        .enumerate()
        .filter(|(i, (p, _))| last_index.get(p.as_str()) == Some(i))
        .map(|(_, f)| f)
        .collect();
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let cleanup = |staged: &[(PathBuf, PathBuf)]| {
        for (tmp, _) in staged {
            let _ = std::fs::remove_file(tmp);
            capstan_state::host::unregister_staged(tmp);
        }
    };
    for (path, text) in last {
        let target = root.join(path);
        if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Err(e) = std::fs::create_dir_all(dir) {
                cleanup(&staged);
                return Err(format!("mkdir {}: {e}", dir.display()).into());
            }
        }
        let tmp = target.with_extension(format!(
            "{}.capstan-tmp",
            target.extension().and_then(|e| e.to_str()).unwrap_or("")
        ));
        capstan_state::host::register_staged(&tmp);
        if let Err(e) = write_private_file(&tmp, text.as_ref()) {
            let _ = std::fs::remove_file(&tmp);
            capstan_state::host::unregister_staged(&tmp);
            cleanup(&staged);
            return Err(format!("write {}: {e}", tmp.display()).into());
        }
        staged.push((tmp, target));
    }
    for (i, (tmp, target)) in staged.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, target) {
            cleanup(&staged[i..]);
            return Err(format!("rename {}: {e}", target.display()).into());
        }
        capstan_state::host::unregister_staged(tmp);
        if !private {
            set_mode(target, 0o644);
        }
    }
    Ok(())
}

/// Creates (or truncates) `path` readable by its owner only, then writes `data`.
fn write_private_file(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path)?;
    set_mode(path, 0o600);
    f.write_all(data)
}

fn set_mode(path: &Path, mode: u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
}

/// helmfile's exit code for "no releases found".
const NO_MATCH_EXIT_CODE: i32 = 3;

fn no_match(e: RunError, g: &Global, root: &Path) -> Result<String, crate::chart::Failure> {
    match e {
        RunError::NoMatch { .. } if g.allow_no_matching_release => Ok(String::new()),
        e @ RunError::NoMatch { .. } => Err(Failure {
            code: NO_MATCH_EXIT_CODE,
            ..describe_run(&e, &g.environment, root)
        }),
        other => Err(describe_run(&other, &g.environment, root)),
    }
}

/// A run error as a failure: helmfile's message and where it points; for an environment
/// no file defines, each file's `environments:` shown.
fn describe_run(e: &RunError, env: &str, root: &Path) -> Failure {
    match e {
        RunError::Failed(e) => Failure::from(e.clone()),
        RunError::NoMatch { undefined, .. } if !undefined.is_empty() => {
            let mut text = e.to_string();
            for at in undefined {
                text.push_str(&format!(
                    "\nenvironment \"{env}\" is not defined in {}",
                    at.file
                ));
                text.push('\n');
                text.push_str(&crate::location_snippet(at, root));
            }
            Failure::new(text, None)
        }
        other => Failure::new(other.to_string(), None),
    }
}

/// `print-env --explain`: per state file, every environment value and its layers.
fn print_env_explained(
    s: &Settings,
    states: &[PreparedState],
    output: &str,
    show_secrets: bool,
) -> Result<String, Failure> {
    let explained = commands::explain_env(s, states);
    if output == "html" {
        let sections: Vec<crate::explain_html::Section> = explained
            .iter()
            .map(|e| crate::explain_html::Section {
                title: format!("environment {} ({})", e.environment, e.file),
                leaves: &e.leaves,
                warnings: Vec::new(),
            })
            .collect();
        return Ok(crate::explain_html::page(
            "capstan print-env --explain",
            &sections,
            show_secrets,
        ));
    }
    if output == "json" {
        let docs = explained
            .iter()
            .map(|e| {
                let mut m = std::collections::BTreeMap::new();
                m.insert("file".into(), capstan_value::Value::from(e.file.as_str()));
                m.insert(
                    "environment".into(),
                    capstan_value::Value::from(e.environment.as_str()),
                );
                m.insert(
                    "values".into(),
                    crate::explain::json(&e.leaves, show_secrets),
                );
                capstan_value::Value::map_from(m)
            })
            .collect();
        return Ok(crate::explain::to_json_text(
            &capstan_value::Value::list_from(docs),
        )?);
    }
    let mut out = String::new();
    for e in &explained {
        out.push_str(&format!("# environment {} ({})\n", e.environment, e.file));
        out.push_str(&crate::explain::text(&e.leaves, show_secrets));
    }
    Ok(out)
}

/// `needs:` errors, pointed at the release they name (its `name:` line in its file).
fn describe_needs(e: capstan_state::select::NeedsError, root: &Path) -> Failure {
    let at = std::fs::read_to_string(root.join(&e.file))
        .ok()
        .and_then(|text| {
            capstan_state::locate_text(&text, &e.file, &format!("name: {}", e.release))
        });
    Failure::new(e.message, at)
}

/// Runs one helmfile command; the `Ok` text goes to stdout.
pub fn run(
    before: &Global,
    cmd: StateCommand,
    cwd: &Path,
    log: &mut String,
) -> Result<String, crate::chart::Failure> {
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
) -> Result<String, crate::chart::Failure> {
    let mut merged = cmd.global().over(before);
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
    let s = settings(g, cwd, captured)?;
    let progress = g.shows_progress()?;
    match cmd {
        StateCommand::Template(With { args: t, .. }) => {
            let mut states = match load(g, &s, log) {
                Ok(st) => st,
                Err(e) => return no_match(e, g, cwd),
            };
            if !g.selector.is_empty() && (t.include_needs || t.include_transitive_needs) {
                for ps in &mut states {
                    // helmfile's template plans with IncludeTransitiveNeeds set to
                    // --include-needs: the needs of the needs come too (helmfile v0.166:
                    // `-l name=web template --include-needs` renders web's whole chain).
                    ps.include_needs(true);
                }
            } else if !g.selector.is_empty() && !t.skip_needs {
                for ps in &states {
                    ps.check_unselected_needs()?;
                }
            }
            commands::check_needs(&states).map_err(|e| describe_needs(e, cwd))?;
            crate::cluster::state_hooks(g, &s, &states, "prepare", "template", log)?;
            let mut flags = HelmFlags {
                include_crds: t.include_crds,
                skip_tests: t.skip_tests,
                kube_version: t.kube_version.clone(),
                skip_schema_validation: t.skip_schema_validation,
                set: t.set.clone(),
                values: t.values.clone(),
                post_renderer: t.post_renderer.clone(),
                post_renderer_args: t.post_renderer_args.clone(),
                skip_deps: g.skip_deps,
                keep_documents: !t.output_dir.is_empty(),
                ..Default::default()
            };
            crate::helm_args::apply("--args", &t.args, &mut flags)?;
            crate::helm_args::apply("--template-args", &t.template_args, &mut flags)?;
            // --validate: rendered with the cluster's version and API versions, then each
            // object checked by the API server (a dry run), as `helm template --validate`.
            let validator = if t.validate {
                let v = capstan_helm::validate::Validator::connect(
                    &capstan_helm::ops::kubeconfig_path(&g.kubeconfig),
                    &g.kube_context,
                )?;
                flags.cluster = Some(std::sync::Arc::new(v.capabilities()?));
                Some(v)
            } else {
                None
            };
            let invalid = std::sync::Mutex::new(Vec::<String>::new());
            let check = |r: &commands::RenderedRelease| {
                if let Some(v) = &validator {
                    if let Err(e) = v.validate(&r.manifest, &r.namespace) {
                        if let Ok(mut list) = invalid.lock() {
                            list.push(format!("release {:?}: {e}", r.name));
                        }
                    }
                }
            };
            flags.no_hooks |= t.no_hooks;
            flags.show_only.extend(t.show_only.iter().cloned());
            // On a terminal, one bar instead of a line per release.
            // A bar redraws its line with a terminal escape: only on a terminal that
            // understands it, and not in CI logs.
            let plain_terminal = std::env::var("TERM").is_ok_and(|t| t == "dumb")
                || std::env::var("CI").is_ok_and(|c| !c.is_empty() && c != "false");
            let bar = progress
                && !plain_terminal
                && crate::LIVE_STDERR.load(std::sync::atomic::Ordering::Relaxed)
                && std::io::IsTerminal::is_terminal(&std::io::stderr());
            if progress && !bar {
                for ps in &states {
                    for r in ps.active()? {
                        if !g.skip_deps {
                            logln!(
                                log,
                                "Building dependency release={}, chart={}",
                                r.name,
                                r.chart
                            );
                        }
                        logln!(log, "Templating release={}, chart={}", r.name, r.chart);
                    }
                }
            }
            let started = std::time::Instant::now();
            // (last drawn count, whether anything is on screen); drawing is serialised so
            // counts never go backwards.
            let shown = std::sync::Mutex::new((0usize, false));
            let draw = |finished: usize, total: usize| {
                let width = 30;
                if !bar || started.elapsed().as_millis() < 500 {
                    return;
                }
                let Ok(mut last) = shown.lock() else { return };
                if finished <= last.0 {
                    return;
                }
                let filled = finished * width / total.max(1);
                eprint!(
                    "\r\x1b[KTemplating [{}{}] {finished}/{total} releases",
                    "#".repeat(filled),
                    ".".repeat(width - filled)
                );
                *last = (finished, true);
            };
            // Without --output-dir, each release's manifest goes to the output as soon as
            // it and the releases before it are rendered (memory stays bounded: past a
            // bound the output waits in a private file); it is printed only once every
            // release has rendered.
            let spool = std::sync::Mutex::new((crate::spool::Spool::new(), 0usize));
            let to_spool = |r: commands::RenderedRelease| {
                check(&r);
                if let Ok(mut spool) = spool.lock() {
                    spool.0.push(&r.manifest);
                    spool.0.push("\n");
                    spool.1 += 1;
                }
            };
            let emit: Option<&(dyn Fn(commands::RenderedRelease) + Sync)> =
                if t.output_dir.is_empty() {
                    Some(&to_spool)
                } else {
                    None
                };
            let rendered =
                commands::template_reporting(&s, &states, &flags, t.concurrency, &draw, emit);
            if shown.lock().is_ok_and(|s| s.1) {
                eprint!("\r\x1b[K");
            }
            let rendered = rendered.map_err(|e| {
                // `--debug` passes helm's `--debug`: the rendered files come first.
                let stdout = e.rendered.clone().filter(|_| g.debug).unwrap_or_default();
                Failure {
                    stdout,
                    ..describe_release_error(e)
                }
            })?;
            let (spool, spooled) = spool.into_inner().unwrap_or_else(|e| e.into_inner());
            if validator.is_some() {
                for r in &rendered {
                    check(r);
                }
                let invalid = invalid.into_inner().unwrap_or_else(|e| e.into_inner());
                if !invalid.is_empty() {
                    return Err(invalid.join("\n").into());
                }
            }
            if bar {
                logln!(
                    log,
                    "Templated {} release(s) in {:.2} s",
                    rendered.len() + spooled,
                    started.elapsed().as_secs_f64()
                );
            }
            crate::cluster::state_hooks(g, &s, &states, "cleanup", "template", log)?;
            if t.output_dir.is_empty() {
                let out = spool
                    .finish()
                    .map_err(|e| format!("writing the output: {e}"))?;
                return Ok(crate::print_spooled(out));
            }
            let tmpl = if t.output_dir_template.is_empty() {
                "{{ .OutputDir }}/{{ .State.BaseName }}-{{ .State.AbsPathSHA1 }}-{{ .Release.Name }}"
            } else {
                &t.output_dir_template
            };
            let mut files = Vec::new();
            let mut i = 0;
            for ps in &states {
                // In the order the releases rendered (their `needs:`).
                let active = ps.active()?;
                for r in capstan_state::select::dag_order(&active)
                    .into_iter()
                    .map(|i| active[i])
                {
                    let dir = commands::render_path(
                        tmpl,
                        &commands::path_template_data(&s, ps, r, &t.output_dir),
                        &t.output_dir,
                    )?;
                    if let Some(rr) = rendered.get(i) {
                        files.extend(commands::output_files(&dir, &rr.documents)?);
                    }
                    i += 1;
                }
            }
            write_all(cwd, &files, false)?;
            if progress {
                for (p, _) in &files {
                    logln!(log, "wrote {p}");
                }
            }
            Ok(String::new())
        }
        StateCommand::Build(With {
            args: BuildArgs { embed_values },
            ..
        }) => {
            // helmfile prints every state, then fails when no release matched.
            let (states, no_match) = load_any(g, &s, log, cwd)?;
            // `build` prepares charts first, which runs the `prepare` hooks (helmfile
            // v0.166 and v1.7; `list` and `write-values` stopped in v0.168, #1681).
            crate::cluster::state_hooks(g, &s, &states, "prepare", "build", log)?;
            let out = commands::build(&s, &states, embed_values)?;
            match no_match {
                Some(message) => Err(Failure {
                    stdout: out,
                    message,
                    location: None,
                    code: NO_MATCH_EXIT_CODE,
                }),
                None => Ok(out),
            }
        }
        StateCommand::List(With {
            args: ListArgs { output, .. },
            ..
        }) => {
            let (states, no_match) = load_any(g, &s, log, cwd)?;
            if let Some(message) = no_match {
                return Err(Failure {
                    message,
                    code: NO_MATCH_EXIT_CODE,
                    ..Failure::default()
                });
            }
            let rows = commands::list_rows(&states)?;
            // Nothing matched (and --allow-no-matching-release): helmfile prints nothing.
            if rows.is_empty() {
                return Ok(String::new());
            }
            Ok(if output == "json" {
                commands::list_json(&rows)
            } else {
                commands::list_table(&rows)
            })
        }
        StateCommand::WriteValues(With {
            args:
                WriteValuesArgs {
                    output_file_template,
                    set,
                    values,
                    // One release at a time is within any limit.
                    concurrency: _,
                },
            ..
        }) => {
            let states = match load(g, &s, log) {
                Ok(st) => st,
                Err(e) => return no_match(e, g, cwd),
            };
            let flags = HelmFlags {
                set,
                values,
                skip_deps: g.skip_deps,
                ..Default::default()
            };
            let files = commands::write_values(&s, &states, &flags, &output_file_template)?;
            write_all(cwd, &files, true)?;
            if progress {
                for (p, _) in &files {
                    logln!(log, "Writing values file {p}");
                }
            }
            Ok(String::new())
        }
        StateCommand::Values(With {
            args:
                ValuesArgs {
                    explain,
                    output,
                    strict,
                    set,
                    values,
                    show_secrets,
                },
            ..
        }) => {
            if output == "html" && !explain {
                return Err("-o html shows --explain: add --explain".into());
            }
            if output != "yaml" && output != "json" && output != "html" {
                return Err(format!(
                    "unsupported output format: {output} (supported: yaml, json, html with --explain)"
                )
                .into());
            }
            // --explain follows template values back to the environment: its layers are
            // recorded while the states load.
            let mut s = s.clone();
            if explain {
                s.env_journal = Some(Default::default());
            }
            let states = match load(g, &s, log) {
                Ok(st) => st,
                Err(e) => return no_match(e, g, cwd),
            };
            let flags = HelmFlags {
                set,
                values,
                skip_deps: g.skip_deps,
                ..Default::default()
            };
            // Each release formatted on the thread that explained it; only what is
            // printed stays (the whole release only for the HTML page).
            enum Piece {
                Text(String),
                Json(capstan_value::Value),
                Named(capstan_value::Str, capstan_value::Value),
                Whole(commands::ExplainedRelease),
            }
            let html = explain && output == "html";
            let format = |r: commands::ExplainedRelease| -> Result<
                (Vec<String>, Piece),
                capstan_state::StateError,
            > {
                let warned: Vec<String> = r
                    .traps
                    .iter()
                    .map(|t| format!("warning: release {}: {}: {}", r.name, t.path, t.message))
                    .collect();
                let header = format!(
                    "# release {} (namespace {}, chart {})\n",
                    r.name, r.namespace, r.chart
                );
                let piece = if html {
                    Piece::Whole(r)
                } else if explain && output == "json" {
                    let mut m = std::collections::BTreeMap::new();
                    let text = |t: &str| capstan_value::Value::from(t);
                    m.insert("release".into(), text(&r.name));
                    m.insert("namespace".into(), text(&r.namespace));
                    m.insert("chart".into(), text(&r.chart));
                    m.insert("values".into(), crate::explain::json(&r.leaves, show_secrets));
                    let warnings = r
                        .traps
                        .iter()
                        .map(|t| {
                            let mut w = std::collections::BTreeMap::new();
                            w.insert("path".into(), text(&t.path.to_string()));
                            w.insert("message".into(), text(&t.message));
                            capstan_value::Value::map_from(w)
                        })
                        .collect();
                    m.insert("warnings".into(), capstan_value::Value::list_from(warnings));
                    Piece::Json(capstan_value::Value::map_from(m))
                } else if explain {
                    Piece::Text(header + &crate::explain::text(&r.leaves, show_secrets))
                } else if output == "json" {
                    // Keyed by the release's ID: two `app` releases in two namespaces are
                    // two entries.
                    Piece::Named(
                        capstan_value::Str::from(r.id.as_str()),
                        capstan_value::Value::map_from(r.values),
                    )
                } else {
                    let yaml = capstan_yaml::encode_helm(&capstan_value::Value::map_from(r.values))
                        .map_err(|e| e.to_string())?;
                    Piece::Text(format!("---\n{header}{yaml}"))
                };
                Ok((warned, piece))
            };
            let releases = commands::explain_values(&s, &states, &flags, &format)?;
            let mut explained_json = Vec::new();
            let mut whole = Vec::new();
            let mut warnings = 0;
            let mut out = String::new();
            let mut json = std::collections::BTreeMap::new();
            for (warned, piece) in releases {
                for w in &warned {
                    logln!(log, "{w}");
                }
                warnings += warned.len();
                match piece {
                    Piece::Text(t) => out.push_str(&t),
                    Piece::Json(v) => explained_json.push(v),
                    Piece::Named(name, v) => {
                        json.insert(name, v);
                    }
                    Piece::Whole(r) => whole.push(r),
                }
            }
            let html_sections: Vec<crate::explain_html::Section> = whole
                .iter()
                .map(|r| crate::explain_html::Section {
                    title: format!(
                        "release {} (namespace {}, chart {})",
                        r.name, r.namespace, r.chart
                    ),
                    leaves: &r.leaves,
                    warnings: r
                        .traps
                        .iter()
                        .map(|t| (t.path.to_string(), t.message.clone()))
                        .collect(),
                })
                .collect();
            if strict && warnings > 0 {
                return Err(format!("{warnings} warning(s) and --strict is set").into());
            }
            if output == "html" {
                out = crate::explain_html::page(
                    "capstan values --explain",
                    &html_sections,
                    show_secrets,
                );
            } else if output == "json" && explain {
                out =
                    crate::explain::to_json_text(&capstan_value::Value::list_from(explained_json))?;
            } else if output == "json" {
                let style = capstan_value::json::JsonStyle {
                    escape_html: false,
                    indent: Some("  "),
                };
                out = capstan_value::json::to_json(&capstan_value::Value::map_from(json), style)?
                    + "\n";
            }
            drop(html_sections);
            crate::leave_to_exit((whole, states));
            Ok(out)
        }
        StateCommand::Fetch(With {
            args:
                FetchArgs {
                    output_dir,
                    output_dir_template,
                    // Charts are fetched one at a time, within any limit.
                    concurrency: _,
                    write_output,
                },
            ..
        }) => {
            if write_output && output_dir.is_empty() {
                return Err("--write-output requires --output-dir: the printed helmfile points at the charts fetched there".to_string().into());
            }
            let states = match load(g, &s, log) {
                Ok(st) => st,
                Err(e) => return no_match(e, g, cwd),
            };
            if write_output && states.len() != 1 {
                return Err(format!(
                    "--write-output needs a single helmfile state file, but {} were loaded ({}): name one with -f",
                    states.len(),
                    states
                        .iter()
                        .map(|p| p.state.file.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
                .into());
            }
            // Without --output-dir: a private directory, removed however this ends.
            let temp = if output_dir.is_empty() {
                Some(
                    capstan_state::host::PrivateDir::new()
                        .map_err(|e| format!("a temporary directory: {e}"))?,
                )
            } else {
                None
            };
            let dir = temp.as_ref().map_or(output_dir.clone(), |t| {
                t.path().to_string_lossy().into_owned()
            });
            let charts = commands::fetch(&s, &states, &dir, &output_dir_template)?;
            let mut files: Vec<(String, Vec<u8>)> = Vec::new();
            let mut paths = commands::ChartPaths::new();
            for c in charts {
                paths.insert(
                    (c.state, c.id.clone()),
                    capstan_state::host::clean(
                        &std::path::absolute(cwd.join(&c.dir)).unwrap_or_else(|_| cwd.join(&c.dir)),
                    )
                    .to_string_lossy()
                    .into_owned(),
                );
                if cwd.join(&c.dir).exists() {
                    logln!(log, "\"{}\" has not been downloaded because the output directory \"{}\" already exists", c.chart, c.dir);
                    continue;
                }
                if progress {
                    logln!(
                        log,
                        "Fetched chart={} release={} into {}",
                        c.chart,
                        c.release,
                        c.dir
                    );
                }
                files.extend(
                    c.files
                        .into_iter()
                        .map(|f| (format!("{}/{}", c.dir, f.name), f.data.to_vec())),
                );
            }
            let written = write_all(cwd, &files, false);
            drop(temp);
            written?;
            if write_output {
                return Ok(commands::build_with_charts(&s, &states, false, &paths)?);
            }
            Ok(String::new())
        }
        StateCommand::PrintEnv(With {
            args:
                PrintEnvArgs {
                    output,
                    explain,
                    show_secrets,
                },
            ..
        }) => {
            if output == "html" && !explain {
                return Err("-o html shows --explain: add --explain".into());
            }
            if output != "yaml" && output != "json" && output != "html" && !output.is_empty() {
                return Err(format!(
                    "unsupported output format: {output} (supported: yaml, json, html with --explain)"
                )
                .into());
            }
            if explain {
                // Record every value layer while the states load.
                let mut s = s.clone();
                s.env_journal = Some(Default::default());
                let (states, _) = load_any(g, &s, log, cwd)?;
                return print_env_explained(&s, &states, &output, show_secrets);
            }
            // print-env needs no release (helmfile suppresses "no releases found").
            let (states, _) = load_any(g, &s, log, cwd)?;
            Ok(commands::print_env(&s, &states, output == "json")?)
        }
        StateCommand::Cache(c) => {
            let dir = capstan_fetch::cache_dir(&|k| std::env::var(k).ok());
            match c {
                CacheCommand::Info => {
                    let mut out = format!("Cache directory: {}\n", dir.display());
                    let mut names: Vec<String> = std::fs::read_dir(&dir)
                        .map(|rd| {
                            rd.flatten()
                                .map(|e| e.file_name().to_string_lossy().into_owned())
                                .collect()
                        })
                        .unwrap_or_default();
                    names.sort();
                    if names.is_empty() {
                        out.push_str("The cache is empty.\n");
                    }
                    for n in names {
                        out.push_str(&format!("  {n}\n"));
                    }
                    Ok(out)
                }
                CacheCommand::Cleanup => match std::fs::remove_dir_all(&dir) {
                    Ok(()) => Ok(format!("Removed the cache directory {}\n", dir.display())),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(format!(
                        "The cache directory {} does not exist\n",
                        dir.display()
                    )),
                    Err(e) => Err(format!("removing {}: {e}", dir.display()).into()),
                },
            }
        }
        StateCommand::Sync(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Sync(w.args),
            cwd,
            log,
        ),
        StateCommand::Apply(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Apply(w.args),
            cwd,
            log,
        ),
        StateCommand::Diff(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Diff(w.args),
            cwd,
            log,
        ),
        StateCommand::Destroy(w) | StateCommand::Delete(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Destroy(w.args),
            cwd,
            log,
        ),
        StateCommand::Status(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Status(w.args),
            cwd,
            log,
        ),
        StateCommand::Test(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Test(w.args),
            cwd,
            log,
        ),
        StateCommand::Lint(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Lint(w.args),
            cwd,
            log,
        ),
        StateCommand::Repos(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Repos(w.args),
            cwd,
            log,
        ),
        StateCommand::Unittest(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Unittest(w.args),
            cwd,
            log,
        ),
        StateCommand::Deps(w) => cluster(
            g,
            &s,
            crate::cluster::ClusterCommand::Deps(w.args),
            cwd,
            log,
        ),
        StateCommand::ShowDag(_) => {
            let states = match load(g, &s, log) {
                Ok(st) => st,
                Err(e) => return no_match(e, g, cwd),
            };
            Ok(commands::show_dag(&states).map_err(|e| describe_needs(e, cwd))?)
        }
    }
}

/// A cluster command over the loaded states (see [`crate::cluster`]).
fn cluster(
    g: &Global,
    s: &Settings,
    cmd: crate::cluster::ClusterCommand,
    cwd: &Path,
    log: &mut String,
) -> Result<String, crate::chart::Failure> {
    // --show-values names the layer a value came from: record the environment's layers.
    let mut s = s.clone();
    if cmd.shows_values() {
        s.env_journal = Some(Default::default());
    }
    let states = match load(g, &s, log) {
        Ok(st) => st,
        Err(e) => return no_match(e, g, cwd),
    };
    crate::cluster::run(g, &s, &states, &cmd, cwd, log)
}

fn describe_release_error(e: commands::ReleaseError) -> Failure {
    Failure::new(e.to_string(), e.location)
}
