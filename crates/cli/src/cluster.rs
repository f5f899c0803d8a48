//! helmfile's cluster commands on the command line (`sync`, `apply`, `diff`, `destroy`,
//! `delete`, `status`, `test`, `lint`, `repos`, `deps`, `unittest`): their flags, each
//! defined once and shared through flattened groups, turned into a [`ClusterOptions`]
//! and handed to [`capstan_app::cluster`]; the `--interactive` question asked on the
//! terminal.

use crate::global::{go_bool, Global};
use capstan_app::cluster::ClusterRequest;
use capstan_app::{Failure, Session};
use capstan_helm::deploy::{ClusterOptions, Command as Deploy};
use capstan_helm::exec::LogLevel;
use capstan_helm::flags::UpgradeOptions;
use capstan_state::release_values::HelmFlags;
use clap::Args;
use std::path::Path;

/// Flags every cluster command has.
#[derive(Args, Clone, Debug, Default)]
pub struct CommonArgs {
    /// Releases handled at once within a group of the `needs:` graph (0: no limit).
    #[arg(long = "concurrency", default_value_t = 0)]
    concurrency: usize,
    /// Extra arguments for every helm command.
    #[arg(long = "args", default_value = "", allow_hyphen_values = true)]
    args: String,
}

/// Which `needs:` come along with the selected releases.
#[derive(Args, Clone, Debug, Default)]
pub struct NeedsArgs {
    /// Leave the releases the selected ones need alone (default unless `--include-needs`).
    #[arg(long = "skip-needs", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "true", value_parser = go_bool)]
    skip_needs: bool,
    /// Also act on the releases the selected ones need.
    #[arg(long = "include-needs", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    include_needs: bool,
    /// Also act on what those need, and so on.
    #[arg(long = "include-transitive-needs", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    include_transitive_needs: bool,
}

/// Values given to helmfile for every release.
#[derive(Args, Clone, Debug, Default)]
pub struct ValuesArgs {
    /// Extra `--set` for every release.
    #[arg(long = "set")]
    set: Vec<String>,
    /// Extra values files for every release.
    #[arg(long = "values")]
    values: Vec<String>,
}

/// How helm renders (shared by upgrades and diffs).
#[derive(Args, Clone, Debug, Default)]
pub struct RenderArgs {
    /// A post-renderer for every release (over `postRenderer` in the state file).
    #[arg(long = "post-renderer", default_value = "")]
    post_renderer: String,
    /// Arguments for the post-renderer.
    #[arg(long = "post-renderer-args")]
    post_renderer_args: Vec<String>,
    /// Do not check the values against the chart's `values.schema.json`.
    #[arg(long = "skip-schema-validation", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    skip_schema_validation: bool,
    /// helmfile's "validate your manifests against the cluster": the diff already
    /// renders with the cluster's own version and API versions, and helm upgrade
    /// validates against the server; like helmfile v0.166, no helm call changes.
    #[arg(long = "validate", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    validate: bool,
    /// `--reuse-values` instead of `--reset-values`.
    #[arg(long = "reuse-values", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    reuse_values: bool,
    /// `--reset-values` even when `helmDefaults.reuseValues` says otherwise.
    #[arg(long = "reset-values", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    reset_values: bool,
}

/// `helm upgrade` settings.
#[derive(Args, Clone, Debug, Default)]
pub struct UpgradeArgs {
    #[arg(long = "wait", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    wait: bool,
    #[arg(long = "wait-retries", default_value_t = 0)]
    wait_retries: i64,
    #[arg(long = "wait-for-jobs", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    wait_for_jobs: bool,
    /// `--timeout` seconds for every release (over the state's).
    #[arg(long = "timeout", default_value_t = 0)]
    timeout: i64,
    #[arg(long = "skip-crds", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    skip_crds: bool,
    /// Extra arguments for `helm upgrade`.
    #[arg(long = "sync-args", default_value = "", allow_hyphen_values = true)]
    sync_args: String,
    #[arg(long = "hide-notes", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    hide_notes: bool,
    #[arg(long = "take-ownership", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    take_ownership: bool,
    /// Helm 4's `--server-side` for every release without its own `serverSide`
    /// (`true`, `false` or `auto`; over `helmDefaults.serverSide`).
    #[arg(long = "server-side", default_value = "")]
    server_side: String,
    /// The release description (`helm upgrade --description`).
    #[arg(long = "description", default_value = "")]
    description: String,
    /// `helm uninstall --cascade` for releases removed with `installed: false`.
    #[arg(long = "cascade", default_value = "")]
    cascade: String,
}

/// helm-diff settings.
#[derive(Args, Clone, Debug, Default)]
pub struct DiffArgs {
    /// Lines of context around each change.
    #[arg(long = "context", default_value_t = 0)]
    context: usize,
    /// helm-diff's output format (`diff`, `simple`, `template`, `dyff`).
    #[arg(long = "output", default_value = "")]
    output: String,
    #[arg(long = "suppress-secrets", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    suppress_secrets: bool,
    #[arg(long = "show-secrets", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    show_secrets: bool,
    /// Kinds of resources left out of the diff.
    #[arg(long = "suppress")]
    suppress: Vec<String>,
    #[arg(long = "suppress-output-line-regex")]
    suppress_output_line_regex: Vec<String>,
    #[arg(long = "no-hooks", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    no_hooks: bool,
    /// Releases not installed yet count as changed without running a diff.
    #[arg(long = "skip-diff-on-install", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    skip_diff_on_install: bool,
    /// Strip a trailing carriage return from each line before comparing.
    #[arg(long = "strip-trailing-cr", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    strip_trailing_cr: bool,
    /// Compare test hooks too (`helm.sh/hook: test`), which the diff leaves out.
    #[arg(long = "include-tests", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    include_tests: bool,
    /// Extra arguments for `helm diff`.
    #[arg(long = "diff-args", default_value = "", allow_hyphen_values = true)]
    diff_args: String,
    /// Diff through the helm-diff plugin (`helm diff upgrade`, which must be installed)
    /// as helmfile does, instead of capstan's own diff of the deployed manifest.
    #[arg(long = "diff-plugin", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    diff_plugin: bool,
    /// Also show the release's values that change, old → new, with the file:line (or
    /// flag) each new value comes from (capstan's own diff).
    #[arg(long = "show-values", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    show_values: bool,
    /// Do not print the diff.
    #[arg(long = "suppress-diff", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    suppress_diff: bool,
}

#[derive(Args, Clone, Debug, Default)]
pub struct DetailedExitcode {
    /// Exit with 2 when something changed.
    #[arg(long = "detailed-exitcode", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    detailed_exitcode: bool,
}

/// helmfile v1.x's `--template-args` (sync and apply): flags for the rendering before the
/// upgrade (capstan's own; `helm template`'s flags, read as `template --template-args`).
#[derive(Args, Clone, Debug, Default)]
pub struct TemplateArgs {
    /// More `helm template` flags for the rendering the diff compares (`--kube-version`,
    /// `--api-versions`, `--skip-tests`, ...).
    #[arg(long = "template-args", default_value = "", allow_hyphen_values = true)]
    template_args: String,
}

#[derive(Args, Clone, Debug, Default)]
pub struct SyncArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    needs: NeedsArgs,
    #[command(flatten)]
    values: ValuesArgs,
    #[command(flatten)]
    render: RenderArgs,
    #[command(flatten)]
    template: TemplateArgs,
    #[command(flatten)]
    upgrade: UpgradeArgs,
    #[command(flatten)]
    detailed: DetailedExitcode,
}

#[derive(Args, Clone, Debug, Default)]
pub struct ApplyArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    needs: NeedsArgs,
    #[command(flatten)]
    values: ValuesArgs,
    #[command(flatten)]
    render: RenderArgs,
    #[command(flatten)]
    template: TemplateArgs,
    #[command(flatten)]
    upgrade: UpgradeArgs,
    #[command(flatten)]
    diff: DiffArgs,
    #[command(flatten)]
    detailed: DetailedExitcode,
}

#[derive(Args, Clone, Debug, Default)]
pub struct DiffCommandArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    needs: NeedsArgs,
    #[command(flatten)]
    values: ValuesArgs,
    #[command(flatten)]
    render: RenderArgs,
    #[command(flatten)]
    diff: DiffArgs,
    #[command(flatten)]
    detailed: DetailedExitcode,
}

#[derive(Args, Clone, Debug, Default)]
pub struct DestroyArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// `helm uninstall --cascade`.
    #[arg(long = "cascade", default_value = "")]
    cascade: String,
    /// Wait until everything the releases made is gone.
    #[arg(long = "delete-wait", alias = "deleteWait", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    delete_wait: bool,
    /// Seconds `--delete-wait` waits.
    #[arg(
        long = "delete-timeout",
        alias = "deleteTimeout",
        default_value_t = 300
    )]
    delete_timeout: i64,
    /// Do not prepare the charts first (no `prepare` hooks, no `helm dependency build`).
    #[arg(long = "skip-charts", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    skip_charts: bool,
    /// Helm 2's purge (Helm 3 and 4 always purge; accepted for old scripts).
    #[arg(long = "purge", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    purge: bool,
}

#[derive(Args, Clone, Debug, Default)]
pub struct StatusArgs {
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Args, Clone, Debug, Default)]
pub struct TestArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Helm 2's cleanup (warned about and ignored, as helmfile does).
    #[arg(long = "cleanup", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    cleanup: bool,
    /// Print the test pods' logs.
    #[arg(long = "logs", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    logs: bool,
    /// Seconds each test may take (default: the releases' own `timeout`).
    #[arg(long = "timeout")]
    timeout: Option<i64>,
}

#[derive(Args, Clone, Debug, Default)]
pub struct UnittestArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    needs: NeedsArgs,
    #[command(flatten)]
    values: ValuesArgs,
    /// Stop at the first failing test (helm-unittest's `--failfast`).
    #[arg(long = "failfast", alias = "fail-fast", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    failfast: bool,
    /// helm-unittest's `--debugPlugin`.
    #[arg(long = "debug-plugin", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    debug_plugin: bool,
}

#[derive(Args, Clone, Debug, Default)]
pub struct ReposArgs {
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Args, Clone, Debug, Default)]
pub struct DepsArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Do not add the state's repositories (`helm repo add`) before updating the
    /// dependencies.
    #[arg(long = "skip-repos", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    skip_repos: bool,
}

#[derive(Args, Clone, Debug, Default)]
pub struct LintArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    needs: NeedsArgs,
    #[command(flatten)]
    values: ValuesArgs,
}

/// One cluster command with its flags.
#[derive(Clone, Debug)]
pub enum ClusterCommand {
    Sync(SyncArgs),
    Apply(ApplyArgs),
    Diff(DiffCommandArgs),
    Destroy(DestroyArgs),
    Status(StatusArgs),
    Test(TestArgs),
    Lint(LintArgs),
    Repos(ReposArgs),
    Unittest(UnittestArgs),
    Deps(DepsArgs),
}

impl ClusterCommand {
    /// `--template-args` of sync and apply (empty for the other commands).
    fn template_args(&self) -> &str {
        match self {
            ClusterCommand::Sync(a) => &a.template.template_args,
            ClusterCommand::Apply(a) => &a.template.template_args,
            _ => "",
        }
    }
}

fn apply_common(o: &mut ClusterOptions, c: &CommonArgs) {
    o.concurrency = c.concurrency;
    o.args = c.args.clone();
}

fn apply_needs(o: &mut ClusterOptions, n: &NeedsArgs) {
    o.include_needs = n.include_needs;
    o.include_transitive_needs = n.include_transitive_needs;
    o.skip_needs = n.skip_needs && !n.include_needs && !n.include_transitive_needs;
}

fn apply_values(o: &mut ClusterOptions, v: &ValuesArgs, cwd: &Path) -> Result<(), Failure> {
    o.set = v.set.clone();
    for f in &v.values {
        let abs = cwd.join(f);
        if !abs.is_file() {
            return Err(format!("file does not exist: {}", abs.display()).into());
        }
        o.values.push(abs.display().to_string());
    }
    Ok(())
}

fn apply_render(o: &mut ClusterOptions, r: &RenderArgs) {
    o.upgrade.post_renderer = r.post_renderer.clone();
    o.upgrade.post_renderer_args = r.post_renderer_args.clone();
    o.upgrade.skip_schema_validation = r.skip_schema_validation;
    o.reuse_values = r.reuse_values;
    o.reset_values = r.reset_values;
}

/// The flag groups `sync`, `apply` and `diff` share.
fn apply_release_args(
    o: &mut ClusterOptions,
    common: &CommonArgs,
    needs: &NeedsArgs,
    values: &ValuesArgs,
    render: &RenderArgs,
    cwd: &Path,
) -> Result<(), Failure> {
    apply_common(o, common);
    apply_needs(o, needs);
    apply_values(o, values, cwd)?;
    apply_render(o, render);
    Ok(())
}

fn apply_upgrade(o: &mut ClusterOptions, u: &UpgradeArgs) {
    let keep = std::mem::take(&mut o.upgrade);
    o.upgrade = UpgradeOptions {
        wait: u.wait,
        wait_for_jobs: u.wait_for_jobs,
        wait_retries: u.wait_retries,
        timeout: u.timeout,
        sync_args: u.sync_args.clone(),
        hide_notes: u.hide_notes,
        take_ownership: u.take_ownership,
        server_side: u.server_side.clone(),
        description: u.description.clone(),
        ..keep
    };
    o.skip_crds = u.skip_crds;
    o.cascade = u.cascade.clone();
}

fn apply_diff(o: &mut ClusterOptions, d: &DiffArgs, g: &Global) {
    o.context = d.context;
    o.diff_output = d.output.clone();
    o.suppress_secrets = d.suppress_secrets;
    o.show_secrets = d.show_secrets;
    o.suppress = d.suppress.clone();
    o.suppress_output_line_regex = d.suppress_output_line_regex.clone();
    o.no_hooks = d.no_hooks;
    o.skip_diff_on_install = d.skip_diff_on_install;
    o.strip_trailing_cr = d.strip_trailing_cr;
    o.include_tests = d.include_tests;
    o.diff_args = d.diff_args.clone();
    o.suppress_diff = d.suppress_diff;
    o.diff_plugin = d.diff_plugin;
    o.show_values = d.show_values;
    o.color = g.color;
    o.no_color = g.no_color || std::env::var("NO_COLOR").is_ok_and(|v| !v.is_empty());
}

impl ClusterCommand {
    /// The deploy command and its options.
    fn plan(&self, g: &Global, cwd: &Path) -> Result<(Deploy, ClusterOptions), Failure> {
        let mut o = ClusterOptions::default();
        let command = match self {
            ClusterCommand::Sync(a) => {
                apply_release_args(&mut o, &a.common, &a.needs, &a.values, &a.render, cwd)?;
                apply_upgrade(&mut o, &a.upgrade);
                o.detailed_exitcode = a.detailed.detailed_exitcode;
                Deploy::Sync
            }
            ClusterCommand::Apply(a) => {
                apply_release_args(&mut o, &a.common, &a.needs, &a.values, &a.render, cwd)?;
                apply_upgrade(&mut o, &a.upgrade);
                apply_diff(&mut o, &a.diff, g);
                o.detailed_exitcode = a.detailed.detailed_exitcode;
                Deploy::Apply
            }
            ClusterCommand::Diff(a) => {
                apply_release_args(&mut o, &a.common, &a.needs, &a.values, &a.render, cwd)?;
                apply_diff(&mut o, &a.diff, g);
                o.detailed_exitcode = a.detailed.detailed_exitcode;
                Deploy::Diff
            }
            ClusterCommand::Destroy(a) => {
                apply_common(&mut o, &a.common);
                o.cascade = a.cascade.clone();
                o.delete_wait = a.delete_wait;
                o.delete_timeout = a.delete_timeout;
                o.skip_charts = a.skip_charts;
                Deploy::Destroy
            }
            ClusterCommand::Status(a) => {
                apply_common(&mut o, &a.common);
                Deploy::Status
            }
            ClusterCommand::Test(a) => {
                apply_common(&mut o, &a.common);
                o.cleanup = a.cleanup;
                o.logs = a.logs;
                o.test_timeout = a.timeout;
                Deploy::Test
            }
            ClusterCommand::Lint(a) => {
                apply_common(&mut o, &a.common);
                apply_needs(&mut o, &a.needs);
                apply_values(&mut o, &a.values, cwd)?;
                Deploy::Lint
            }
            ClusterCommand::Repos(a) => {
                apply_common(&mut o, &a.common);
                Deploy::Repos
            }
            ClusterCommand::Deps(a) => {
                apply_common(&mut o, &a.common);
                o.skip_repos = a.skip_repos;
                Deploy::Deps
            }
            ClusterCommand::Unittest(a) => {
                apply_common(&mut o, &a.common);
                apply_needs(&mut o, &a.needs);
                apply_values(&mut o, &a.values, cwd)?;
                o.fail_fast = a.failfast;
                o.debug_plugin = a.debug_plugin;
                o.color = g.color;
                Deploy::Unittest
            }
        };
        o.skip_repos |= g.skip_deps || g.skip_refresh;
        o.interactive = g.interactive;
        Ok((command, o))
    }
}

/// helmfile's log level of `--log-level`/`--quiet`, as helm's calls and hooks log.
pub(crate) fn log_level(g: &Global) -> Result<LogLevel, Failure> {
    Ok(match g.log_level()? {
        0 => LogLevel::Debug,
        1 => LogLevel::Info,
        2 => LogLevel::Warn,
        _ => LogLevel::Error,
    })
}

/// Runs a cluster command: its flags as options, handed to [`capstan_app::cluster`]
/// with the real helm; returns what helm printed on stdout (when not printed live).
pub(crate) fn run(
    g: &Global,
    session: &Session,
    cmd: ClusterCommand,
    log: &mut String,
) -> Result<String, Failure> {
    let (command, options) = cmd.plan(g, session.cwd())?;
    let mut template_flags = HelmFlags::default();
    crate::helm_args::apply("--template-args", cmd.template_args(), &mut template_flags)?;
    let live = crate::LIVE_STDERR.load(std::sync::atomic::Ordering::Relaxed);
    let request = ClusterRequest {
        command,
        options,
        template_flags,
        helm_binary: g.helm_binary.clone(),
        disable_force_update: g.disable_force_update,
        confirm: &ask_for_confirmation,
        live_stdout: live.then_some(crate::write_stdout as fn(&[u8]) -> bool),
    };
    capstan_app::cluster::run(session, &request, log)
}

/// helmfile's `askForConfirmation`: the question on stdout, `y`/`yes` or `n`/`no` read
/// from stdin (asked again otherwise; no answer is no).
pub(crate) fn ask_for_confirmation(question: &str) -> bool {
    use std::io::{BufRead as _, Write as _};
    let stdin = std::io::stdin();
    loop {
        {
            let mut out = std::io::stdout().lock();
            let _ = write!(out, "{question} [y/n]: ");
            let _ = out.flush();
        }
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => return false,
            Ok(_) => match line.trim().to_lowercase().as_str() {
                "y" | "yes" => return true,
                "n" | "no" => return false,
                _ => continue,
            },
        }
    }
}
