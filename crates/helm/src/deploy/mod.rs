//! helmfile's cluster commands over loaded states: `sync`, `apply`, `diff` (capstan's own
//! diff of the latest revision against its rendering, printed as helm-diff prints it; the
//! plugin only with `--diff-plugin`), `destroy`, `lint`, `status` and `test`, in
//! helmfile's order of work: which releases are selected (and which needs come along),
//! which exist (`helm list`), which changed, then deletions in reverse `needs:` order and
//! upgrades in `needs:` order, a group at a time, with helmfile's errors and exit codes.
//!
//! The helm side is a [`Helm`]; the values files of a release come from the caller
//! (`values_files`), so this module neither renders nor writes files.

use crate::exec::LogLevel;
use crate::flags::{collect_args, DiffOptions, FlagSource, UpgradeOptions};
use crate::ops::{Helm, HelmContext, HelmError};
use crate::plan::{plan, PlanOptions};
use capstan_state::app::PreparedState;
use capstan_state::merge::Tree;
use capstan_state::release::Release;
use capstan_state::select::condition_enabled;
use capstan_state::spec::{bool_of, map_of, str_of, strings_of};
use capstan_state::StateError;
use capstan_value::Value;
use std::collections::BTreeSet;

mod deps;
mod destroy;
mod diff;
mod hooks;
mod lint;
mod status;
mod summary;
mod sync;

use hooks::release_tree;
pub use hooks::{run_hooks, HookExec, Hooks};
pub use summary::{Affected, AffectedRelease};

/// The options of the cluster commands (helmfile's `*ConfigProvider`s), one struct for all.
#[derive(Clone, Debug, Default)]
pub struct ClusterOptions {
    /// Releases handled at once within a group (0: all of the group).
    pub concurrency: usize,
    /// `--skip-needs`: the selected releases' needs are not added.
    pub skip_needs: bool,
    /// `--include-needs`: the selected releases' direct needs are added.
    pub include_needs: bool,
    /// `--include-transitive-needs`: their needs' needs too.
    pub include_transitive_needs: bool,
    /// `--detailed-exitcode`: exit 2 when something changed.
    pub detailed_exitcode: bool,
    /// `--args`: extra helm arguments.
    pub args: String,
    /// `--set` and `--values` for every release.
    pub set: Vec<String>,
    /// `--values`: values files for every release.
    pub values: Vec<String>,
    /// The `helm upgrade` options (`--wait`, `--timeout`…).
    pub upgrade: UpgradeOptions,
    /// `--skip-crds`.
    pub skip_crds: bool,
    /// `--reuse-values`.
    pub reuse_values: bool,
    /// `--reset-values`.
    pub reset_values: bool,
    // diff
    /// `--context`: lines of context around each change.
    pub context: usize,
    /// `--output` of the diff (`diff`, `simple`, `template`, `dyff`).
    pub diff_output: String,
    /// `--color`.
    pub color: bool,
    /// `--no-color` (or `NO_COLOR`).
    pub no_color: bool,
    /// `--diff-args`: extra helm-diff arguments.
    pub diff_args: String,
    /// `--skip-diff-on-install`: a release not installed yet is not diffed.
    pub skip_diff_on_install: bool,
    /// `--strip-trailing-cr`.
    pub strip_trailing_cr: bool,
    /// `--include-tests`: test hooks are diffed too.
    pub include_tests: bool,
    /// `--suppress`: kinds whose changes are not shown.
    pub suppress: Vec<String>,
    /// `--suppress-secrets`: Secrets' changes are not shown.
    pub suppress_secrets: bool,
    /// `--show-secrets`: Secrets' values are shown.
    pub show_secrets: bool,
    /// `--no-hooks`: hooks are not diffed.
    pub no_hooks: bool,
    /// `--suppress-diff`: no diff is printed (apply).
    pub suppress_diff: bool,
    /// `--suppress-output-line-regex`: changed lines matching these are not shown.
    pub suppress_output_line_regex: Vec<String>,
    /// Ask before changing anything (`--interactive`).
    pub interactive: bool,
    /// With capstan's own diff: also the release's values that change, each with where
    /// its new value comes from.
    pub show_values: bool,
    /// Leave `helm repo add` and registry logins out (`--skip-deps`, `--skip-refresh`,
    /// `deps --skip-repos`).
    pub skip_repos: bool,
    /// `destroy --skip-charts`: no chart preparation (`prepare` hooks, dependency builds)
    /// before deleting.
    pub skip_charts: bool,
    /// Diff through the helm-diff plugin (`helm diff upgrade`), as helmfile does, instead
    /// of capstan's own diff of the deployed manifest against its rendering.
    pub diff_plugin: bool,
    // delete
    /// `--cascade` of `helm uninstall`.
    pub cascade: String,
    /// `--wait` of `helm uninstall`.
    pub delete_wait: bool,
    /// `--timeout` of `helm uninstall` (seconds).
    pub delete_timeout: i64,
    // unittest
    /// `unittest --failfast`.
    pub fail_fast: bool,
    /// `unittest --debug-plugin`.
    pub debug_plugin: bool,
    // test
    /// `test --cleanup` (Helm 3 and later: warned about, not applied).
    pub cleanup: bool,
    /// `test --logs`.
    pub logs: bool,
    /// `helmfile test --timeout` (seconds); `None`: the releases' own.
    pub test_timeout: Option<i64>,
}

/// A failure of a cluster command, as helmfile words it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ClusterError {
    /// helmfile's message.
    pub message: String,
    /// The process exit code helmfile uses (1, or 2 for "changes found").
    pub code: i32,
}

/// One error of a state: plain, or of a release (with helm's exit code when it ran).
#[derive(Clone, Debug)]
enum StateFailure {
    Plain(StateError),
    Release {
        name: String,
        message: String,
        code: i32,
    },
}

impl StateFailure {
    fn text(&self) -> String {
        match self {
            StateFailure::Plain(e) => e.to_string(),
            StateFailure::Release { name, message, .. } => {
                format!("failed processing release {name}: {message}")
            }
        }
    }

    fn release(r: &Release, e: HelmError) -> StateFailure {
        StateFailure::Release {
            name: r.name.clone(),
            message: e.message,
            code: e.exit_code.unwrap_or(0),
        }
    }
}

/// helmfile's `Error` over several errors: the one, or `N errors:` and each.
fn joined(errs: &[StateFailure]) -> String {
    if errs.len() == 1 {
        return errs[0].text();
    }
    let lines: Vec<String> = errs
        .iter()
        .enumerate()
        .map(|(i, e)| format!("err {i}: {}", e.text()))
        .collect();
    format!("{} errors:\n{}", errs.len(), lines.join("\n"))
}

/// `f(0..n)` on up to `limit` threads (0: `n`, at most [`MAX_THREADS`]), results in index
/// order. Calls start in index order; with one thread they run one after the other on
/// the calling thread. Each thread gets capstan's deep stack (a release may render here).
fn parallel<T: Send>(n: usize, limit: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let workers = if limit == 0 {
        n.min(MAX_THREADS)
    } else {
        limit.min(n)
    };
    if workers <= 1 {
        return (0..n).map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<T>>> =
        std::sync::Mutex::new((0..n).map(|_| None).collect());
    let work = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if i >= n {
            break;
        }
        let r = f(i);
        results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
    };
    capstan_value::stack::deep_workers(workers, "capstan-release", work);
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

/// Threads `--concurrency 0` ("no limit") uses at most.
const MAX_THREADS: usize = 64;

/// `in ./helmfile.yaml` for a state file.
fn state_label(file: &str) -> String {
    match file.rsplit_once('/') {
        Some((dir, base)) => format!("in {dir}/{base}"),
        None => format!("in ./{file}"),
    }
}

/// The values files of a release, written by the caller for helm (`--values`), in order.
pub type ValuesFiles<'a> =
    dyn Fn(&PreparedState, &Release) -> Result<Vec<String>, StateError> + Sync + 'a;

/// Everything a command needs besides the states.
pub struct Cluster<'a> {
    /// The run's settings.
    pub settings: &'a capstan_state::load::Settings,
    /// The helm side.
    pub helm: &'a dyn Helm,
    /// The command's options.
    pub options: &'a ClusterOptions,
    /// A release's values files for helm.
    pub values_files: &'a ValuesFiles<'a>,
    /// The process environment (`HELMFILE_USE_HELM_STATUS_TO_CHECK_RELEASE_EXISTENCE`,
    /// repository credentials, the old release `env:` section).
    pub getenv: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// Log lines at their level (the summary tables at info, "Affected releases are"
    /// at debug for sync/apply and info for diff, as helmfile).
    pub log: &'a (dyn Fn(LogLevel, &str) + Sync),
    /// capstan's standard output (the diffs, in release order).
    pub print: &'a (dyn Fn(&str) + Sync),
    /// Runs a hook command (`program`, `args`, in the state file's directory) and returns
    /// what it printed.
    pub exec: &'a HookExec<'a>,
    /// Asks the question and says whether the answer was yes (`--interactive`).
    pub confirm: &'a (dyn Fn(&str) -> bool + Sync),
    /// A release's user-supplied values with their origins (`--show-values`).
    pub user_values: &'a UserValues<'a>,
    /// Renders a release's manifest as helm would install or upgrade it (see
    /// [`RenderFor`]). capstan's own diff compares this with the deployed one.
    pub render: &'a Render<'a>,
}

/// A release's user-supplied values and, per leaf path, where each comes from (for
/// [`ClusterOptions::show_values`]).
pub type UserValues<'a> = dyn Fn(
        &PreparedState,
        &Release,
    ) -> Result<(Tree, capstan_state::commands::ValueOrigins), StateError>
    + Sync
    + 'a;

/// The release manifest renderer of [`Cluster::render`].
pub type Render<'a> =
    dyn Fn(&PreparedState, &Release, &RenderFor) -> Result<String, StateError> + Sync + 'a;

/// How capstan's diff renders a release: as `helm upgrade` would on the cluster.
#[derive(Clone, Debug, Default)]
pub struct RenderFor {
    /// `.Release.IsUpgrade` (the release exists).
    pub is_upgrade: bool,
    /// Hooks rendered too (helm-diff compares them, unless `--no-hooks`).
    pub hooks: bool,
    /// The cluster's version and API versions for `.Capabilities` (`None`: helm's
    /// defaults, when the cluster could not be asked).
    pub cluster: Option<std::sync::Arc<capstan_chart::capabilities::ClusterCapabilities>>,
}

/// The releases of a state a command sees: duplicates of one ID reduced to the selected
/// one, and which of them the selectors (and conditions) pick.
struct Releases {
    all: Vec<Release>,
    selected: Vec<usize>,
}

fn releases_of(ps: &PreparedState) -> Result<Releases, StateError> {
    let enabled = |i: usize| -> Result<bool, StateError> {
        condition_enabled(&ps.releases[i], &ps.state.values)
    };
    let mut selected_ids: Vec<String> = Vec::new();
    for &i in &ps.selected {
        if !enabled(i)? {
            continue;
        }
        let id = ps.releases[i].id();
        let n = ps
            .selected
            .iter()
            .filter(|&&j| ps.releases[j].id() == id)
            .count();
        if n > 1 {
            return Err(format!("found {n} duplicate releases with ID {id:?}").into());
        }
        selected_ids.push(id);
    }
    let mut all = Vec::new();
    let mut selected = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (i, r) in ps.releases.iter().enumerate() {
        let id = r.id();
        let dups = ps.releases.iter().filter(|o| o.id() == id).count();
        let is_selected = ps.selected.contains(&i) && selected_ids.contains(&id);
        if dups > 1 && (!is_selected || !seen.insert(id)) {
            continue;
        }
        if is_selected {
            selected.push(all.len());
        }
        all.push(r.clone());
    }
    Ok(Releases { all, selected })
}

/// helmfile's `normalizeChart`: a local chart path joined to the state's directory.
fn chart_for_helm(base: &str, chart: &str) -> String {
    let local = chart.starts_with("./")
        || chart.starts_with("../")
        || chart.starts_with('/')
        || (!chart.is_empty()
            && !chart.contains("://")
            && chart.split('@').next().unwrap_or(chart).split('/').count() != 2);
    if !local || chart.starts_with('/') {
        chart.to_string()
    } else {
        capstan_state::envvals::join_shown(base, chart)
    }
}

struct StateRun<'a, 'b> {
    c: &'b Cluster<'a>,
    ps: &'b PreparedState,
    rs: Releases,
    defaults: Tree,
    /// helmfile's command name (`.HelmfileCommand` in hooks).
    command: &'static str,
}

impl<'a, 'b> StateRun<'a, 'b> {
    fn new(
        c: &'b Cluster<'a>,
        ps: &'b PreparedState,
        command: &'static str,
    ) -> Result<Self, StateError> {
        Ok(StateRun {
            c,
            ps,
            rs: releases_of(ps)?,
            defaults: map_of(&ps.state.doc, "helmDefaults"),
            command,
        })
    }

    fn o(&self) -> &ClusterOptions {
        self.c.options
    }

    fn r(&self, i: usize) -> &Release {
        &self.rs.all[i]
    }

    fn desired(&self, i: usize) -> bool {
        self.r(i).desired()
    }

    fn context(&self, i: usize) -> HelmContext {
        let t = &self.r(i).raw;
        HelmContext {
            history_max: crate::flags::int_of(t, "historyMax")
                .or_else(|| crate::flags::int_of(&self.defaults, "historyMax"))
                .unwrap_or(10),
        }
    }

    fn plan(
        &self,
        selected: Vec<usize>,
        reverse: bool,
        skip_needs: bool,
        include_needs: bool,
    ) -> Result<Vec<Vec<usize>>, StateError> {
        plan(
            &self.rs.all,
            &PlanOptions {
                selected,
                reverse,
                skip_needs,
                include_needs,
            },
        )
    }

    /// helmfile's `GetArgs`: `helmDefaults.args` then `--args`.
    fn extra_args(&self) -> Vec<String> {
        let mut a = strings_of(&self.defaults, "args")
            .iter()
            .flat_map(|s| collect_args(s))
            .collect::<Vec<_>>();
        a.extend(collect_args(&self.o().args));
        a
    }

    fn with_flags<T>(
        &self,
        i: usize,
        values_files: &[String],
        f: impl FnOnce(&FlagSource) -> T,
    ) -> T {
        let r = self.r(i);
        let tree = release_tree(r);
        let repo = self.repo_of(&r.chart);
        let settings = self.c.settings;
        let data = capstan_state::release::release_template_data(
            &self.ps.state.env,
            &self.ps.state.values,
            &tree,
            &self.ps.overrides,
        );
        let renderer = self.ps.renderer(settings);
        let render = |a: &str| -> Result<String, StateError> { Ok(renderer.render(a, &data)?) };
        let host = settings.host.clone();
        let resolve = |s: &str| capstan_state::render::resolve_ref(host.as_ref(), s);
        let src = FlagSource {
            helm: self.c.helm.version(),
            file: &self.ps.state.file,
            defaults: &self.defaults,
            release: &tree,
            env_kube_context: &self.ps.state.env.kube_context,
            repo: repo.as_ref(),
            values_files,
            render: &render,
            resolve_ref: &resolve,
            getenv: self.c.getenv,
        };
        f(&src)
    }

    /// The chart as helmfile's chart preparation leaves it (`ChartPathOrName`): a local
    /// chart directory that exists, joined to the state's directory and cleaned
    /// (`charts/app` for `./charts/app`); anything else as written.
    fn prepared_chart(&self, r: &Release) -> String {
        let joined = chart_for_helm(&self.ps.state.base, &r.chart);
        if joined != r.chart && self.c.settings.host.is_dir(std::path::Path::new(&joined)) {
            joined
        } else {
            r.chart.clone()
        }
    }

    /// The chart as helm is given it for an upgrade or a plugin diff: helmfile's
    /// `normalizeChart`, except that a chart of an OCI repository (`reg/name`, a name helm
    /// cannot resolve) is the archive pulled from the registry at the release's version
    /// (helmfile pulls it with `helm pull`; capstan pulls it natively into its cache, with
    /// the repository's credentials and `plainHttp`).
    fn chart_arg(&self, r: &Release) -> Result<String, StateFailure> {
        if self
            .repo_of(&r.chart)
            .is_none_or(|t| bool_of(&t, "oci") != Some(true))
        {
            return Ok(chart_for_helm(&self.ps.state.base, &r.chart));
        }
        let pulled = capstan_state::charts::repo_chart(
            self.c.settings.host.as_ref(),
            &self.ps.state.doc,
            &self.ps.state.base,
            &r.chart,
            &str_of(&r.raw, "version"),
        );
        match pulled {
            Ok(Some(archive)) => Ok(archive.display().to_string()),
            Ok(None) => Ok(chart_for_helm(&self.ps.state.base, &r.chart)),
            Err(message) => Err(StateFailure::Release {
                name: r.name.clone(),
                message: message.message,
                code: 0,
            }),
        }
    }

    fn repo_of(&self, chart: &str) -> Option<Tree> {
        let (name, _) = chart.split_once('/')?;
        capstan_state::spec::list_of(&self.ps.state.doc, "repositories")
            .iter()
            .filter_map(|r| r.as_map().map(|m| m.snapshot()))
            .find(|r| str_of(r, "name") == name)
    }

    /// `--kube-context` of a release (release, environment, `helmDefaults`).
    fn connection_flags(&self, i: usize) -> Vec<String> {
        let r = self.r(i);
        let kc = [
            r.kube_context.clone(),
            self.ps.state.env.kube_context.clone(),
            str_of(&self.defaults, "kubeContext"),
        ]
        .into_iter()
        .find(|k| !k.is_empty());
        match kc {
            Some(k) => vec!["--kube-context".into(), k],
            None => Vec::new(),
        }
    }

    /// helmfile's `isReleaseInstalled`: `helm list --filter ^NAME$` (or `helm status`
    /// with `HELMFILE_USE_HELM_STATUS_TO_CHECK_RELEASE_EXISTENCE`).
    fn installed(&self, i: usize) -> Result<bool, StateFailure> {
        let r = self.r(i);
        let mut flags = self.connection_flags(i);
        if !r.namespace.is_empty() {
            flags.extend(["--namespace".into(), r.namespace.clone()]);
        }
        let ctx = self.context(i);
        if (self.c.getenv)("HELMFILE_USE_HELM_STATUS_TO_CHECK_RELEASE_EXISTENCE")
            .is_some_and(|v| !v.is_empty())
        {
            return match self.c.helm.release_status(&ctx, &r.name, &flags) {
                Ok(()) => Ok(true),
                Err(e) if e.release_not_found() => Ok(false),
                Err(e) => Err(StateFailure::release(r, e)),
            };
        }
        flags.extend(
            ["--uninstalling", "--deployed", "--failed", "--pending"]
                .iter()
                .map(|s| s.to_string()),
        );
        self.c
            .helm
            .list(&ctx, &format!("^{}$", r.name), &flags)
            .map(|out| !out.is_empty())
            .map_err(|e| StateFailure::Plain(e.message.into()))
    }

    fn values_files(&self, i: usize) -> Result<Vec<String>, StateFailure> {
        (self.c.values_files)(self.ps, self.r(i)).map_err(StateFailure::Plain)
    }

    fn extra_values_and_set(&self, flags: &mut Vec<String>) {
        for v in &self.o().values {
            flags.extend(["--values".into(), v.clone()]);
        }
        for s in &self.o().set {
            flags.extend(["--set".into(), s.clone()]);
        }
    }

    fn values_control(&self, flags: &mut Vec<String>) {
        let o = self.o();
        if !o.reset_values
            && (bool_of(&self.defaults, "reuseValues") == Some(true) || o.reuse_values)
        {
            flags.push("--reuse-values".into());
        } else {
            flags.push("--reset-values".into());
        }
    }

    fn cascade_flags(&self, i: usize, flags: &mut Vec<String>) {
        if !self.c.helm.version().at_least(3, 12, 1) && !self.c.helm.version().is_helm4() {
            return;
        }
        let cascade = [
            str_of(&self.r(i).raw, "cascade"),
            self.o().cascade.clone(),
            str_of(&self.defaults, "cascade"),
        ]
        .into_iter()
        .find(|c| !c.is_empty());
        if let Some(c) = cascade {
            flags.extend(["--cascade".into(), c]);
        }
    }

    fn delete_wait_flags(&self, i: usize, flags: &mut Vec<String>) {
        let raw = &self.r(i).raw;
        let wait = bool_of(raw, "deleteWait").unwrap_or_else(|| {
            bool_of(&self.defaults, "deleteWait").unwrap_or(false) || self.o().delete_wait
        });
        if wait {
            flags.push("--wait".into());
            let mut timeout = crate::flags::int_of(&self.defaults, "deleteTimeout")
                .unwrap_or(self.o().delete_timeout);
            if let Some(t) = crate::flags::int_of(raw, "deleteTimeout") {
                timeout = t;
            }
            if timeout != 0 {
                flags.extend(["--timeout".into(), format!("{timeout}s")]);
            }
        }
    }

    fn affected(&self, i: usize, started: std::time::Instant) -> AffectedRelease {
        let r = self.r(i);
        AffectedRelease {
            name: r.name.clone(),
            namespace: r.namespace.clone(),
            chart: r.chart.clone(),
            version: r.version.clone(),
            seconds: started.elapsed().as_secs_f64().round() as u64,
        }
    }

    /// helmfile's hooks for `event` (see [`run_hooks`]).
    fn trigger(
        &self,
        event: &str,
        i: Option<usize>,
        error: Option<&str>,
        command: &str,
    ) -> Result<bool, StateError> {
        run_hooks(
            &Hooks {
                settings: self.c.settings,
                exec: self.c.exec,
                log: self.c.log,
            },
            self.ps,
            i.map(|i| self.r(i)),
            event,
            error,
            command,
        )
    }

    /// helmfile's `SyncRepos`: `helm repo add --force-update` for each repository of the
    /// state (which fetches its index: the real helmfile runs no `helm repo update`
    /// after it), a registry login for OCI ones with credentials. Credentials not in the
    /// file come from `NAME_USERNAME`/`NAME_PASSWORD`.
    fn sync_repos(&self) -> Result<(), Vec<StateFailure>> {
        for r in capstan_state::spec::list_of(&self.ps.state.doc, "repositories") {
            let Some(t) = r.as_map().map(|m| m.snapshot()) else {
                continue;
            };
            let add = crate::flags::repo_add(&t, self.c.getenv);
            let result = if bool_of(&t, "oci") == Some(true) {
                let host = add.url.trim_start_matches("oci://").to_string();
                self.c.helm.registry_login(&crate::exec::RegistryLogin {
                    host,
                    username: add.username,
                    password: add.password,
                    ca_file: add.ca_file,
                    cert_file: add.cert_file,
                    key_file: add.key_file,
                    skip_tls_verify: add.skip_tls_verify,
                    plain_http: bool_of(&t, "plainHttp") == Some(true),
                })
            } else {
                self.c.helm.add_repo(&add)
            };
            result.map_err(|e| vec![StateFailure::Plain(e.message.into())])?;
        }
        Ok(())
    }

    /// `helmfile repos`.
    fn repos(&self) -> Result<bool, Vec<StateFailure>> {
        self.c.helm.set_extra_args(self.extra_args());
        self.sync_repos()?;
        Ok(true)
    }

    /// `prepare` hooks of the releases a command acts on (and the state's).
    fn prepare(&self, which: &[usize], command: &str) -> Result<(), Vec<StateFailure>> {
        self.trigger("prepare", None, None, command)
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        for &i in which.iter().filter(|&&i| self.desired(i)) {
            self.trigger("prepare", Some(i), None, command)
                .map_err(|e| vec![StateFailure::Plain(e)])?;
        }
        Ok(())
    }

    /// `cleanup` hooks: failures are warnings, as helmfile's.
    fn cleanup(&self, which: &[usize], command: &str) {
        for &i in which {
            if let Err(e) = self.trigger("cleanup", Some(i), None, command) {
                (self.c.log)(LogLevel::Warn, &format!("warn: {e}\n"));
            }
        }
    }

    fn include(&self) -> bool {
        self.o().include_needs || self.o().include_transitive_needs
    }

    /// helmfile's chart preparation before `helm upgrade` and `helm lint`: `helm dependency build` of each
    /// local chart with `dependencies:` (once per chart), unless `--skip-deps` or the
    /// release's (or `helmDefaults`') `skipDeps`.
    fn build_dependencies(&self, to_update: &[usize]) -> Vec<StateFailure> {
        if self.o().skip_repos {
            return Vec::new();
        }
        let mut done: Vec<String> = Vec::new();
        let mut errs = Vec::new();
        for &i in to_update {
            let r = self.r(i);
            let skip = bool_of(&r.raw, "skipDeps")
                .or_else(|| bool_of(&self.defaults, "skipDeps"))
                .unwrap_or(false);
            let chart = chart_for_helm(&self.ps.state.base, &r.chart);
            if skip || done.contains(&chart) || r.chart.contains("://") {
                continue;
            }
            let chart_yaml = std::path::Path::new(&chart).join("Chart.yaml");
            let Ok(bytes) = self.c.settings.host.read_file(&chart_yaml) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let has_deps = capstan_yaml::decode_helm(&text)
                .ok()
                .and_then(|v| v.get("dependencies"))
                .is_some_and(|d| matches!(d, Value::List(l) if !l.items.is_empty()));
            done.push(chart.clone());
            if !has_deps {
                continue;
            }
            if let Err(e) = self.c.helm.build_deps(&r.name, &chart, &[]) {
                errs.push(StateFailure::release(r, e));
            }
        }
        errs
    }

    /// The selected releases and what they need (`include` as [`Self::include`]), in the
    /// order the plan runs them.
    fn selected_with_needs(&self, include: bool) -> Result<Vec<usize>, Vec<StateFailure>> {
        let groups = self
            .plan(
                self.rs.selected.clone(),
                false,
                self.o().skip_needs,
                include,
            )
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        Ok(groups.concat())
    }

    /// helmfile's `withNeeds`: the releases a diff/lint/template acts on, in order.
    fn with_needs(&self, include_disabled: bool) -> Result<Vec<usize>, Vec<StateFailure>> {
        let include = self.include();
        let with_needs = self.selected_with_needs(include)?;
        let to_render: Vec<usize> = with_needs
            .iter()
            .copied()
            .filter(|&i| self.desired(i))
            .collect();
        let mut rels = Vec::new();
        if !to_render.is_empty() {
            let groups = self
                .plan(to_render, false, self.o().skip_needs, include)
                .map_err(|e| vec![StateFailure::Plain(e)])?;
            rels = groups.concat();
        }
        if include_disabled {
            for i in with_needs.into_iter().filter(|&i| !self.desired(i)) {
                if !rels.contains(&i) {
                    rels.push(i);
                }
            }
        }
        Ok(rels)
    }
}

/// A cluster command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `sync`: install, upgrade and delete every release.
    Sync,
    /// `apply`: diff every release, then sync those that changed.
    Apply,
    /// `diff`: what apply would change.
    Diff,
    /// `destroy` (and `delete`): uninstall every release.
    Destroy,
    /// `lint`: `helm lint` each release's chart.
    Lint,
    /// `status`: `helm status` of each release.
    Status,
    /// `test`: `helm test` of each release.
    Test,
    /// `repos`: add the state's repositories.
    Repos,
    /// `unittest`: the helm-unittest plugin per release.
    Unittest,
    /// `deps`: update local charts' dependencies and the lock file.
    Deps,
}

/// Runs a command over every state (helmfile's `ForEachState`): the first state that
/// fails ends the run with `in ./FILE: ...`. Returns the summary of what changed.
pub fn run(
    c: &Cluster,
    states: &[PreparedState],
    command: Command,
) -> Result<Affected, ClusterError> {
    let mut affected = Affected::default();
    let mut changed_any = false;
    let mut deferred_lint: Vec<String> = Vec::new();
    let order: Vec<&PreparedState> = if command == Command::Destroy {
        states.iter().rev().collect()
    } else {
        states.iter().collect()
    };
    for ps in order {
        let fail = |errs: Vec<StateFailure>| ClusterError {
            message: format!("{}: {}", state_label(&ps.state.file), joined(&errs)),
            code: 1,
        };
        let name = match command {
            Command::Sync => "sync",
            Command::Apply => "apply",
            Command::Diff => "diff",
            Command::Destroy => "destroy",
            Command::Lint => "lint",
            Command::Status => "status",
            Command::Test => "test",
            Command::Repos => "repos",
            Command::Unittest => "unittest",
            Command::Deps => "deps",
        };
        let run = StateRun::new(c, ps, name).map_err(|e| fail(vec![StateFailure::Plain(e)]))?;
        let mut here = Affected::default();
        let result = match command {
            Command::Sync => run.sync(&mut here).map(|_| ()),
            Command::Apply => run
                .apply(&mut here)
                .map(|(_, changed)| changed_any |= changed),
            Command::Diff => run.diff().map(|(_, changed)| changed_any |= changed),
            Command::Destroy => run.destroy(&mut here).map(|_| ()),
            Command::Lint => run.lint().map(|(_, d)| deferred_lint.extend(d)),
            Command::Status => run.status().map(|_| ()),
            Command::Test => run.test().map(|_| ()),
            Command::Repos => run.repos().map(|_| ()),
            Command::Unittest => run.unittest().map(|_| ()),
            Command::Deps => run.deps().map(|_| ()),
        };
        if let Err(e) = run.trigger("cleanup", None, None, name) {
            (c.log)(LogLevel::Warn, &format!("warn: {e}\n"));
        }
        let summary = here.summary();
        if !summary.is_empty() {
            (c.log)(LogLevel::Info, &summary);
        }
        affected.upgraded.extend(here.upgraded);
        affected.deleted.extend(here.deleted);
        affected.failed.extend(here.failed);
        affected.delete_failed.extend(here.delete_failed);
        result.map_err(fail)?;
    }
    if !deferred_lint.is_empty() {
        let parts: Vec<String> = deferred_lint
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let indented: String = e.split('\n').map(|l| format!("  {l}\n")).collect();
                format!("Error {}:\n\n{indented}", i + 1)
            })
            .collect();
        return Err(ClusterError {
            message: format!(
                "Failed with {} errors:\n\n{}",
                deferred_lint.len(),
                parts.join("\n\n")
            ),
            code: 1,
        });
    }
    let detailed = c.options.detailed_exitcode;
    match command {
        Command::Diff if detailed && changed_any => Err(ClusterError {
            message: "Identified at least one change".into(),
            code: 2,
        }),
        Command::Apply if detailed && changed_any => Err(ClusterError {
            message: String::new(),
            code: 2,
        }),
        Command::Sync
            if detailed && !(affected.upgraded.is_empty() && affected.deleted.is_empty()) =>
        {
            Err(ClusterError {
                message: String::new(),
                code: 2,
            })
        }
        _ => Ok(affected),
    }
}

#[cfg(test)]
mod tests;
