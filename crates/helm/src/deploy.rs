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
use capstan_value::{Str, Value};
use std::collections::BTreeSet;

/// The options of the cluster commands (helmfile's `*ConfigProvider`s), one struct for all.
#[derive(Clone, Debug, Default)]
pub struct ClusterOptions {
    /// Releases handled at once within a group (0: all of the group).
    pub concurrency: usize,
    pub skip_needs: bool,
    pub include_needs: bool,
    pub include_transitive_needs: bool,
    pub detailed_exitcode: bool,
    /// `--args`: extra helm arguments.
    pub args: String,
    /// `--set` and `--values` for every release.
    pub set: Vec<String>,
    pub values: Vec<String>,
    pub upgrade: UpgradeOptions,
    pub skip_crds: bool,
    pub reuse_values: bool,
    pub reset_values: bool,
    // diff
    pub context: usize,
    pub diff_output: String,
    pub color: bool,
    pub no_color: bool,
    pub diff_args: String,
    pub skip_diff_on_install: bool,
    pub strip_trailing_cr: bool,
    pub include_tests: bool,
    pub suppress: Vec<String>,
    pub suppress_secrets: bool,
    pub show_secrets: bool,
    pub no_hooks: bool,
    pub suppress_diff: bool,
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
    pub cascade: String,
    pub delete_wait: bool,
    pub delete_timeout: i64,
    // unittest
    pub fail_fast: bool,
    pub debug_plugin: bool,
    // test
    pub cleanup: bool,
    pub logs: bool,
    /// `helmfile test --timeout` (seconds); `None`: the releases' own.
    pub test_timeout: Option<i64>,
}

/// A release that was upgraded, deleted or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffectedRelease {
    pub name: String,
    pub namespace: String,
    pub chart: String,
    pub version: String,
    pub seconds: u64,
}

/// What a command did (helmfile's `AffectedReleases`).
#[derive(Clone, Debug, Default)]
pub struct Affected {
    pub upgraded: Vec<AffectedRelease>,
    pub deleted: Vec<AffectedRelease>,
    pub failed: Vec<AffectedRelease>,
    pub delete_failed: Vec<AffectedRelease>,
}

impl Affected {
    /// helmfile's summary tables (`UPDATED RELEASES:` ...), empty when nothing happened.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let mut table = |title: &str, rows: &[AffectedRelease], with_chart: bool| {
            if rows.is_empty() {
                return;
            }
            out.push_str(&format!("\n{title}\n"));
            let mut lines: Vec<Vec<String>> = Vec::new();
            let mut header = vec!["NAME", "NAMESPACE"];
            if with_chart {
                header.extend(["CHART", "VERSION"]);
            }
            header.push("DURATION");
            lines.push(header.iter().map(|s| s.to_string()).collect());
            for r in rows {
                let mut l = vec![r.name.clone(), r.namespace.clone()];
                if with_chart {
                    l.extend([redact_chart(&r.chart), r.version.clone()]);
                }
                l.push(go_seconds(r.seconds));
                lines.push(l);
            }
            let cols = lines[0].len();
            let width: Vec<usize> = (0..cols)
                .map(|c| {
                    let min = if c == 0 || c == cols - 1 { 0 } else { 6 };
                    lines
                        .iter()
                        .map(|l| l[c].chars().count())
                        .max()
                        .unwrap_or(0)
                        .max(min)
                })
                .collect();
            for l in &lines {
                let mut cells = Vec::new();
                for (c, cell) in l.iter().enumerate() {
                    if c == cols - 1 {
                        cells.push(format!("{cell:>w$}", w = width[c]));
                    } else {
                        cells.push(format!("{cell:<w$}", w = width[c]));
                    }
                }
                out.push_str(cells.join("   ").trim_end());
                out.push('\n');
            }
            // helmfile logs the table's text (which ends in a newline) as one line.
            out.push('\n');
        };
        table("UPDATED RELEASES:", &self.upgraded, true);
        table("DELETED RELEASES:", &self.deleted, false);
        table("FAILED RELEASES:", &self.failed, true);
        table("FAILED TO DELETE RELEASES:", &self.delete_failed, false);
        out
    }
}

/// Go's `time.Duration` text for whole seconds (`0s`, `5s`, `1m5s`, `1h0m0s`).
fn go_seconds(s: u64) -> String {
    let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
    if h > 0 {
        format!("{h}h{m}m{sec}s")
    } else if m > 0 {
        format!("{m}m{sec}s")
    } else {
        format!("{sec}s")
    }
}

fn redact_chart(chart: &str) -> String {
    crate::exec::redact_url(chart).replace(":xxxxx@", ":---@")
}

/// A failure of a cluster command, as helmfile words it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ClusterError {
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
    pub settings: &'a capstan_state::load::Settings,
    pub helm: &'a dyn Helm,
    pub options: &'a ClusterOptions,
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

/// The hook runner of [`Cluster::exec`]: program, arguments, directory → its output.
pub type HookExec<'a> = dyn Fn(&str, &[String], &str) -> Result<String, StateError> + Sync + 'a;

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

/// The release's settings as written, with the name, namespace, context and chart it
/// ended up with.
fn release_tree(r: &Release) -> Tree {
    let mut t = r.raw.clone();
    for (k, v) in [
        ("name", &r.name),
        ("namespace", &r.namespace),
        ("kubeContext", &r.kube_context),
        ("chart", &r.chart),
        ("version", &r.version),
    ] {
        if v.is_empty() {
            t.remove(k);
        } else {
            t.insert(Str::from(k), Value::from(v.as_str()));
        }
    }
    t
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

    /// Deletes a group's releases (up to `--concurrency` at once), recording the outcome.
    fn delete_group(
        &self,
        group: &[usize],
        for_sync: bool,
        affected: &mut Affected,
    ) -> Vec<StateFailure> {
        let outcomes = parallel(group.len(), self.o().concurrency, |k| {
            let mut one = Affected::default();
            let r = if for_sync {
                self.delete_for_sync(group[k], &mut one)
            } else {
                self.delete(group[k], &mut one)
            };
            (one, r)
        });
        let mut errs = Vec::new();
        for (one, r) in outcomes {
            affected.deleted.extend(one.deleted);
            affected.delete_failed.extend(one.delete_failed);
            if let Err(e) = r {
                errs.push(e);
            }
        }
        errs
    }

    /// `DeleteReleasesForSync` of one release: `presync`, `preuninstall`, `helm delete`,
    /// `postuninstall`, then `postsync` and `cleanup` hooks.
    fn delete_for_sync(&self, i: usize, affected: &mut Affected) -> Result<(), StateFailure> {
        let r = self.r(i);
        let hook_err = |e: StateError| StateFailure::Release {
            name: r.name.clone(),
            message: e.message,
            code: 0,
        };
        let mut flags = Vec::new();
        if !r.namespace.is_empty() {
            flags.extend(["--namespace".into(), r.namespace.clone()]);
        }
        self.delete_wait_flags(i, &mut flags);
        flags.extend(self.connection_flags(i));
        self.cascade_flags(i, &mut flags);
        let started = std::time::Instant::now();
        let result = self
            .trigger("presync", Some(i), None, "sync")
            .map_err(hook_err)
            .and_then(|_| {
                self.trigger("preuninstall", Some(i), None, "sync")
                    .map_err(hook_err)?;
                self.c
                    .helm
                    .delete_release(&self.context(i), &r.name, &flags)
                    .map_err(|e| StateFailure::release(r, e))?;
                self.trigger("postuninstall", Some(i), None, "sync")
                    .map_err(hook_err)
            });
        match &result {
            Ok(_) => affected.deleted.push(self.affected(i, started)),
            Err(_) => affected.delete_failed.push(self.affected(i, started)),
        }
        let err_text = result.as_ref().err().map(|e| e.text());
        if let Err(e) = self.trigger("postsync", Some(i), err_text.as_deref(), "sync") {
            (self.c.log)(LogLevel::Warn, &format!("warn: {e}\n"));
        }
        self.cleanup(&[i], "sync");
        result.map(|_| ())
    }

    /// `DeleteReleases` (destroy) of one release, between its `preuninstall` and
    /// `postuninstall` hooks.
    fn delete(&self, i: usize, affected: &mut Affected) -> Result<(), StateFailure> {
        let r = self.r(i);
        let hook_err = |e: StateError| StateFailure::Release {
            name: r.name.clone(),
            message: e.message,
            code: 0,
        };
        let mut flags = self.connection_flags(i);
        self.cascade_flags(i, &mut flags);
        self.delete_wait_flags(i, &mut flags);
        if !r.namespace.is_empty() {
            flags.extend(["--namespace".into(), r.namespace.clone()]);
        }
        let started = std::time::Instant::now();
        let result = self
            .trigger("preuninstall", Some(i), None, self.command)
            .map_err(hook_err)
            .and_then(|_| {
                self.c
                    .helm
                    .delete_release(&self.context(i), &r.name, &flags)
                    .map_err(|e| StateFailure::release(r, e))?;
                self.trigger("postuninstall", Some(i), None, self.command)
                    .map_err(hook_err)
            });
        match result {
            Ok(_) => {
                affected.deleted.push(self.affected(i, started));
                Ok(())
            }
            Err(e) => {
                affected.delete_failed.push(self.affected(i, started));
                Err(e)
            }
        }
    }

    /// The `helm upgrade` flags of a release (`prepareSyncReleases`).
    fn upgrade_flags(&self, i: usize) -> Result<Vec<String>, StateFailure> {
        let files = self.values_files(i)?;
        let mut flags = self
            .with_flags(i, &files, |src| src.upgrade_flags(&self.o().upgrade))
            .map_err(|e| StateFailure::Release {
                name: self.r(i).name.clone(),
                message: e.0,
                code: 0,
            })?;
        self.extra_values_and_set(&mut flags);
        if self.o().skip_crds {
            flags.push("--skip-crds".into());
        }
        self.values_control(&mut flags);
        Ok(flags)
    }

    /// `SyncReleases` over one group: flags for all first, then `helm upgrade` each.
    fn sync_group(&self, group: &[usize], affected: &mut Affected) -> Vec<StateFailure> {
        let mut prepared = Vec::new();
        let mut errs = Vec::new();
        for &i in group {
            match self.upgrade_flags(i) {
                Ok(f) => prepared.push((i, f)),
                Err(e) => errs.push(e),
            }
        }
        if !errs.is_empty() {
            return errs;
        }
        let outcomes = parallel(prepared.len(), self.o().concurrency, |k| {
            let (i, flags) = &prepared[k];
            let r = self.r(*i);
            let hook_err = |e: StateError| StateFailure::Release {
                name: r.name.clone(),
                message: e.message,
                code: 0,
            };
            let started = std::time::Instant::now();
            let mut result = self
                .trigger("presync", Some(*i), None, "sync")
                .map_err(hook_err)
                .and_then(|_| self.chart_arg(r))
                .and_then(|chart| {
                    let ctx = self.context(*i);
                    let first =
                        self.c
                            .helm
                            .sync_release(&ctx, &r.name, &chart, &r.namespace, flags);
                    match first {
                        // `updateStrategy: reinstallIfForbidden`: an upgrade the API
                        // server forbids (an immutable field, say) becomes an uninstall
                        // and a fresh install.
                        Err(e)
                            if str_of(&r.raw, "updateStrategy") == "reinstallIfForbidden"
                                && e.forbidden() =>
                        {
                            (self.c.log)(
                                LogLevel::Info,
                                &format!("release {}: upgrade forbidden, reinstalling it", r.name),
                            );
                            let mut del = self.connection_flags(*i);
                            if !r.namespace.is_empty() {
                                del.extend(["--namespace".into(), r.namespace.clone()]);
                            }
                            self.c
                                .helm
                                .delete_release(&ctx, &r.name, &del)
                                .and_then(|_| {
                                    self.c.helm.sync_release(
                                        &ctx,
                                        &r.name,
                                        &chart,
                                        &r.namespace,
                                        flags,
                                    )
                                })
                        }
                        other => other,
                    }
                    .map_err(|e| StateFailure::release(r, e))
                });
            // helmfile's summary shows the chart version helm installed, read back from
            // the release (`getDeployedVersion`), not the `version:` asked for.
            let mut deployed_version = None;
            if result.is_ok() {
                let mut query = self.connection_flags(*i);
                if !r.namespace.is_empty() {
                    query.extend(["--namespace".into(), r.namespace.clone()]);
                }
                deployed_version = self.c.helm.deployed_chart_version(&r.name, &query);
            }
            let err_text = result.as_ref().err().map(|e| e.text());
            if let Err(e) = self.trigger("postsync", Some(*i), err_text.as_deref(), "sync") {
                if result.is_ok() {
                    result = Err(hook_err(e));
                } else {
                    (self.c.log)(LogLevel::Warn, &format!("warn: {e}\n"));
                }
            }
            if let Err(e) = self.trigger("cleanup", Some(*i), None, "sync") {
                if result.is_ok() {
                    result = Err(hook_err(e));
                } else {
                    (self.c.log)(LogLevel::Warn, &format!("warn: {e}\n"));
                }
            }
            let mut done = self.affected(*i, started);
            if let Some(v) = deployed_version {
                done.version = v;
            }
            (done, result)
        });
        for (done, result) in outcomes {
            match result {
                Ok(()) => affected.upgraded.push(done),
                Err(e) => {
                    affected.failed.push(done);
                    errs.push(e);
                }
            }
        }
        errs
    }

    /// helm-diff's flags shared by every release (`commonDiffFlags`).
    fn common_diff_flags(&self, detailed: bool) -> Vec<String> {
        let o = self.o();
        let mut flags = Vec::new();
        self.values_control(&mut flags);
        if detailed {
            flags.push("--detailed-exitcode".into());
        }
        if o.strip_trailing_cr {
            flags.push("--strip-trailing-cr".into());
        }
        if o.include_tests {
            flags.push("--include-tests".into());
        }
        for s in &o.suppress {
            flags.extend(["--suppress".into(), s.clone()]);
        }
        if o.suppress_secrets {
            flags.push("--suppress-secrets".into());
        }
        if o.show_secrets {
            flags.push("--show-secrets".into());
        }
        if o.no_hooks {
            flags.push("--no-hooks".into());
        }
        if o.no_color {
            flags.push("--no-color".into());
        } else if o.color {
            flags.push("--color".into());
        }
        if o.context > 0 {
            flags.extend(["--context".into(), o.context.to_string()]);
        }
        if !o.diff_output.is_empty() {
            flags.extend(["--output".into(), o.diff_output.clone()]);
        }
        for s in &o.set {
            flags.extend(["--set".into(), s.clone()]);
        }
        if !o.diff_args.is_empty() {
            flags.extend(collect_args(&o.diff_args));
        } else if self.defaults.contains_key("diffArgs") {
            flags.extend(collect_args(
                &strings_of(&self.defaults, "diffArgs").join(" "),
            ));
        }
        flags
    }

    /// `flagsForDiff`: the release's own helm-diff flags.
    fn diff_flags(&self, i: usize, disable_validation: bool) -> Result<Vec<String>, StateFailure> {
        let files = self.values_files(i)?;
        let u = &self.o().upgrade;
        let opt = DiffOptions {
            post_renderer: u.post_renderer.clone(),
            post_renderer_args: u.post_renderer_args.clone(),
            skip_schema_validation: u.skip_schema_validation,
            suppress_output_line_regex: self.o().suppress_output_line_regex.clone(),
        };
        self.with_flags(i, &files, |src| src.diff_flags(&opt, disable_validation))
            .map_err(|e| StateFailure::Release {
                name: self.r(i).name.clone(),
                message: e.0,
                code: 0,
            })
    }

    /// `DiffReleases`: the releases among `which` helm-diff finds changed, and errors.
    /// Up to `--concurrency` diffs run at once; their output is printed in release order.
    fn diff_releases(&self, which: &[usize], detailed: bool) -> (Vec<usize>, Vec<StateFailure>) {
        let common = self.common_diff_flags(detailed);
        let cache: std::sync::Mutex<std::collections::BTreeMap<usize, bool>> = Default::default();
        let installed = |i: usize| -> bool {
            if let Some(v) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&i) {
                return *v;
            }
            match self.installed(i) {
                Ok(v) => {
                    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(i, v);
                    v
                }
                Err(e) => {
                    (self.c.log)(
                        LogLevel::Warn,
                        &format!(
                            "confirming if the release is already installed or not: {}",
                            e.text()
                        ),
                    );
                    false
                }
            }
        };
        let desired: Vec<usize> = which.iter().copied().filter(|&i| self.desired(i)).collect();
        // (changed, error, output to print) per release.
        let outcomes = parallel(
            desired.len(),
            self.o().concurrency,
            |k| -> (bool, Option<StateFailure>, String) {
                let i = desired[k];
                let r = self.r(i);
                let suppress =
                    bool_of(&r.raw, "suppressDiff") == Some(true) || self.o().suppress_diff;
                if self.o().skip_diff_on_install && !installed(i) {
                    return (true, None, String::new());
                }
                if !self.o().diff_plugin {
                    return self.native_diff(i, suppress);
                }
                let disable_validation =
                    bool_of(&r.raw, "disableValidationOnInstall") == Some(true) && !installed(i);
                let mut flags = match self.diff_flags(i, disable_validation) {
                    Ok(f) => f,
                    Err(e) => return (false, Some(e), String::new()),
                };
                for v in &self.o().values {
                    flags.extend(["--values".into(), v.clone()]);
                }
                flags.extend(common.iter().cloned());
                let chart = match self.chart_arg(r) {
                    Ok(c) => c,
                    Err(e) => return (false, Some(e), String::new()),
                };
                let shown = |out: &str| {
                    if suppress || out.is_empty() {
                        String::new()
                    } else {
                        format!("{out}\n")
                    }
                };
                match self.c.helm.diff_release(
                    &self.context(i),
                    &r.name,
                    &chart,
                    &r.namespace,
                    suppress,
                    &flags,
                ) {
                    // With --detailed-exitcode helmfile prints only diffs that found changes.
                    Ok(out) => (
                        false,
                        None,
                        if detailed { String::new() } else { shown(&out) },
                    ),
                    Err(e) => {
                        let changed = e.exit_code == Some(2);
                        let out = if changed {
                            shown(&e.stdout)
                        } else {
                            String::new()
                        };
                        (changed, Some(StateFailure::release(r, e)), out)
                    }
                }
            },
        );
        let mut changed = Vec::new();
        let mut errs = Vec::new();
        for (k, (c, e, out)) in outcomes.into_iter().enumerate() {
            if c {
                changed.push(desired[k]);
            }
            errs.extend(e);
            if !out.is_empty() {
                (self.c.print)(&out);
            }
        }
        (changed, errs)
    }

    /// capstan's own diff of one release: `helm get manifest` against the rendering.
    fn native_diff(&self, i: usize, suppress: bool) -> (bool, Option<StateFailure>, String) {
        let r = self.r(i);
        let mut flags = self.connection_flags(i);
        if !r.namespace.is_empty() {
            flags.extend(["--namespace".into(), r.namespace.clone()]);
        }
        let o = self.o();
        // helm-diff's sides: the latest revision's manifest and hooks against the
        // rendering with hooks, tests left out of both (unless --include-tests).
        let old = match self
            .c
            .helm
            .get_manifest(&self.context(i), &r.name, &flags, !o.no_hooks)
        {
            Ok(m) => m,
            Err(e) => return (false, Some(StateFailure::release(r, e)), String::new()),
        };
        let how = RenderFor {
            is_upgrade: old.is_some(),
            hooks: !o.no_hooks,
            cluster: self.c.helm.cluster_capabilities(&flags),
        };
        let new = match (self.c.render)(self.ps, r, &how) {
            Ok(m) => m,
            Err(e) => {
                return (
                    false,
                    Some(StateFailure::Release {
                        name: r.name.clone(),
                        message: e.message,
                        code: 1,
                    }),
                    String::new(),
                )
            }
        };
        // helm-diff's --suppress-secrets suppresses the kind Secret.
        let mut suppress_kinds = o.suppress.clone();
        if o.suppress_secrets {
            suppress_kinds.push("Secret".into());
        }
        let style = crate::manifest_diff::DiffStyle {
            context: (o.context > 0).then_some(o.context),
            show_secrets: o.show_secrets,
            suppress_kinds,
            color: o.color && !o.no_color,
            simple: o.diff_output == "simple",
        };
        let ns = if r.namespace.is_empty() {
            "default"
        } else {
            &r.namespace
        };
        let side = |text: &str| {
            let text = if o.strip_trailing_cr {
                std::borrow::Cow::Owned(text.replace("\r\n", "\n"))
            } else {
                std::borrow::Cow::Borrowed(text)
            };
            let mut resources = crate::manifest_diff::parse(&text, ns);
            if !o.include_tests {
                resources.retain(|r| !r.is_test_hook());
            }
            resources
        };
        let (mut text, changed) =
            crate::manifest_diff::diff(&side(old.as_deref().unwrap_or("")), &side(&new), &style);
        if o.show_values {
            match self.values_change(i, &flags) {
                Ok(lines) if !lines.is_empty() => {
                    text.push_str(&format!("{ns}, {}: values that change:\n", r.name));
                    for l in lines {
                        text.push_str(&l);
                        text.push('\n');
                    }
                    text.push('\n');
                }
                Ok(_) => {}
                Err(e) => return (false, Some(e), String::new()),
            }
        }
        let out = if suppress || text.is_empty() {
            String::new()
        } else {
            text
        };
        if changed {
            let e = StateFailure::Release {
                name: r.name.clone(),
                message: "changes found".into(),
                code: 2,
            };
            (true, Some(e), out)
        } else {
            (false, None, out)
        }
    }

    /// The release's values that change: deployed (`helm get values`) against computed.
    fn values_change(&self, i: usize, flags: &[String]) -> Result<Vec<String>, StateFailure> {
        let r = self.r(i);
        let old = self
            .c
            .helm
            .get_values(&self.context(i), &r.name, flags)
            .map_err(|e| StateFailure::release(r, e))?
            .unwrap_or(serde_json::Value::Object(Default::default()));
        let (new, origins) =
            (self.c.user_values)(self.ps, r).map_err(|e| StateFailure::Release {
                name: r.name.clone(),
                message: e.message,
                code: 1,
            })?;
        let new = crate::values_diff::to_json(&Value::map_from(new));
        Ok(crate::values_diff::values_diff(
            &old,
            &new,
            &origins,
            self.o().show_secrets && !self.o().suppress_secrets,
        ))
    }

    /// `Run.diff`: changed releases to upgrade and existing disabled ones to delete, or
    /// the errors that are not "changes found".
    fn diff_plan(
        &self,
        which: &[usize],
        detailed: bool,
    ) -> Result<(Vec<usize>, Vec<usize>), Vec<StateFailure>> {
        let (changed, mut errs) = self.diff_releases(which, detailed);
        let mut deleting = Vec::new();
        for &i in which {
            if self.desired(i) {
                continue;
            }
            match self.installed(i) {
                Ok(true) => deleting.push(i),
                Ok(false) => {}
                Err(e) => errs.push(e),
            }
        }
        let fatal: Vec<StateFailure> = errs
            .into_iter()
            .filter(|e| !matches!(e, StateFailure::Release { code: 2, .. }))
            .collect();
        if !fatal.is_empty() {
            return Err(fatal);
        }
        let updated: Vec<usize> = changed
            .into_iter()
            .filter(|i| !deleting.contains(i))
            .collect();
        Ok((updated, deleting))
    }

    fn info_affected(&self, level: LogLevel, updated: &[usize], deleted: &[usize]) -> String {
        let mut names: Vec<String> = updated
            .iter()
            .map(|&i| format!("  {} ({}) UPDATED", self.r(i).name, self.r(i).chart))
            .chain(
                deleted
                    .iter()
                    .map(|&i| format!("  {} ({}) DELETED", self.r(i).name, self.r(i).chart)),
            )
            .collect();
        names.sort();
        let msg = format!("Affected releases are:\n{}\n", names.join("\n"));
        if !self.o().interactive || level == LogLevel::Info {
            (self.c.log)(level, &msg);
        }
        msg
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

    /// Deletions in reverse needs order, then upgrades in needs order.
    fn converge(
        &self,
        to_delete: &[usize],
        to_update: &[usize],
        affected: &mut Affected,
    ) -> Vec<StateFailure> {
        let mut errs = Vec::new();
        if !to_delete.is_empty() {
            match self.plan(to_delete.to_vec(), true, true, false) {
                Err(e) => return vec![StateFailure::Plain(e)],
                Ok(groups) => {
                    for g in groups {
                        let ge = self.delete_group(&g, true, affected);
                        if !ge.is_empty() {
                            errs.extend(ge);
                            break;
                        }
                    }
                }
            }
        }
        if !to_update.is_empty() {
            let deps = self.build_dependencies(to_update);
            if !deps.is_empty() {
                errs.extend(deps);
                return errs;
            }
            match self.plan(to_update.to_vec(), false, true, false) {
                Err(e) => errs.push(StateFailure::Plain(e)),
                Ok(groups) => {
                    for g in groups {
                        let g: Vec<usize> =
                            g.into_iter().filter(|i| !to_delete.contains(i)).collect();
                        let ge = self.sync_group(&g, affected);
                        if !ge.is_empty() {
                            errs.extend(ge);
                            break;
                        }
                    }
                }
            }
        }
        errs
    }

    /// `a.sync`: whether anything was selected, and the errors.
    fn sync(&self, affected: &mut Affected) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        let with_needs = self.selected_with_needs(self.include())?;
        self.prepare(&with_needs, "sync")?;
        let mut to_delete = Vec::new();
        for &i in &with_needs {
            if !self.desired(i) && self.installed(i).map_err(|e| vec![e])? {
                to_delete.push(i);
            }
        }
        let to_update: Vec<usize> = with_needs
            .iter()
            .copied()
            .filter(|i| !to_delete.contains(i) && self.desired(*i))
            .collect();
        let unchanged: Vec<usize> = with_needs
            .iter()
            .copied()
            .filter(|i| !to_delete.contains(i) && !to_update.contains(i))
            .collect();
        self.cleanup(&unchanged, "sync");
        let msg = self.info_affected(LogLevel::Debug, &to_update, &to_delete);
        if self.o().interactive
            && !(self.c.confirm)(&format!(
                "{msg}\nDo you really want to sync?\n  Helmfile will sync all your releases, as shown above.\n\n"
            ))
        {
            return Ok(true);
        }
        self.c.helm.set_extra_args(self.extra_args());
        if !self.o().skip_repos && !to_update.is_empty() {
            self.sync_repos()?;
        }
        let errs = self.converge(&to_delete, &to_update, affected);
        if errs.is_empty() {
            Ok(true)
        } else {
            Err(errs)
        }
    }

    /// `a.apply`: (selected anything, changed anything), or the errors.
    fn apply(&self, affected: &mut Affected) -> Result<(bool, bool), Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok((false, false));
        }
        let with_needs = self.selected_with_needs(self.include())?;
        self.prepare(&with_needs, "apply")?;
        self.c.helm.set_extra_args(self.extra_args());
        let (to_update, to_delete) = self.diff_plan(&with_needs, true)?;
        let unchanged: Vec<usize> = with_needs
            .iter()
            .copied()
            .filter(|i| !to_delete.contains(i) && !to_update.contains(i))
            .collect();
        if to_update.is_empty() && to_delete.is_empty() {
            self.cleanup(&unchanged, "apply");
            return Ok((true, false));
        }
        let msg = self.info_affected(LogLevel::Debug, &to_update, &to_delete);
        if self.o().interactive
            && !(self.c.confirm)(&format!(
                "{msg}\nDo you really want to apply?\n  Helmfile will apply all your changes, as shown above.\n\n"
            ))
        {
            self.cleanup(&unchanged, "apply");
            return Ok((true, false));
        }
        // `preapply` hooks of every release applied, in reverse needs order.
        let reversed = self
            .plan(with_needs.clone(), true, true, false)
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        for i in reversed.concat() {
            self.trigger("preapply", Some(i), None, "apply")
                .map_err(|e| vec![StateFailure::Plain(e)])?;
        }
        if !self.o().skip_repos && !to_update.is_empty() {
            self.sync_repos()?;
        }
        let errs = self.converge(&to_delete, &to_update, affected);
        self.cleanup(&unchanged, "apply");
        if errs.is_empty() {
            Ok((true, true))
        } else {
            Err(errs)
        }
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

    /// `a.diff`: whether anything changed, or the errors.
    fn diff(&self) -> Result<(bool, bool), Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok((false, false));
        }
        let rels = self.with_needs(true)?;
        self.prepare(&rels, "diff")?;
        self.c.helm.set_extra_args(self.extra_args());
        let planned = self.diff_plan(&rels, self.o().detailed_exitcode);
        let diffed: Vec<usize> = rels.iter().copied().filter(|&i| self.desired(i)).collect();
        self.cleanup(&diffed, "diff");
        let (updated, deleted) = planned?;
        if updated.is_empty() && deleted.is_empty() {
            if self.o().detailed_exitcode {
                (self.c.log)(LogLevel::Info, "No affected releases");
            }
            return Ok((true, false));
        }
        self.info_affected(LogLevel::Info, &updated, &deleted);
        Ok((true, true))
    }

    /// `a.lint`: lint errors (deferred) and other errors.
    fn lint(&self) -> Result<(bool, Vec<String>), Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok((false, Vec::new()));
        }
        let rels = self.with_needs(false)?;
        self.prepare(&rels, "lint")?;
        self.c.helm.set_extra_args(self.extra_args());
        let mut errs = Vec::new();
        let mut deferred = Vec::new();
        let linted: Vec<usize> = rels.iter().copied().filter(|&i| self.desired(i)).collect();
        // helmfile prepares charts first: the repositories are added, a repository's
        // chart is fetched into a directory (`helm lint` takes only a path), and a local
        // chart's dependencies are built, so `helm lint` lints its subcharts too.
        if !self.o().skip_repos {
            self.sync_repos()?;
        }
        let fetched = LintCharts::new(self.c.settings.host.as_ref());
        let mut charts = Vec::new();
        for &i in &linted {
            match self.lint_chart(i, &fetched) {
                Ok(c) => charts.push(c),
                Err(e) => return Err(vec![e]),
            }
        }
        let built = self.build_dependencies(&linted);
        if !built.is_empty() {
            return Err(built);
        }
        for (i, chart) in linted.iter().copied().zip(charts) {
            let files = match self.values_files(i) {
                Ok(f) => f,
                Err(e) => {
                    errs.push(e);
                    continue;
                }
            };
            let mut flags = match self.with_flags(i, &files, |src| src.lint_flags()) {
                Ok(f) => f,
                Err(e) => {
                    errs.push(StateFailure::Plain(e.0.into()));
                    continue;
                }
            };
            self.extra_values_and_set(&mut flags);
            if errs.is_empty() {
                let r = self.r(i);
                if let Err(e) = self.c.helm.lint(&r.name, &chart, &flags) {
                    match e.exit_code {
                        Some(c) if c > 0 => deferred.push(e.message),
                        _ => errs.push(StateFailure::Plain(e.message.into())),
                    }
                }
            }
        }
        self.cleanup(&linted, "lint");
        if errs.is_empty() {
            Ok((true, deferred))
        } else {
            Err(errs)
        }
    }

    /// The chart `helm lint` is given for release `i`: a local chart's directory, an OCI
    /// chart's pulled archive, or a repository's chart fetched by helm as helmfile does
    /// (`helm fetch CHART [--version V] [--devel] --untar --untardir
    /// TMP/[NAMESPACE/]NAME/CHART/VERSION`, then `…/BASENAME`).
    fn lint_chart(&self, i: usize, fetched: &LintCharts) -> Result<String, StateFailure> {
        let r = self.r(i);
        let local = self.prepared_chart(r);
        let oci = self
            .repo_of(&r.chart)
            .is_some_and(|t| bool_of(&t, "oci") == Some(true));
        if self.c.settings.host.is_dir(std::path::Path::new(&local))
            || oci
            || r.chart.contains("://")
            || !r.chart.contains('/')
        {
            return if oci { self.chart_arg(r) } else { Ok(local) };
        }
        let version = str_of(&r.raw, "version");
        let mut dir = fetched.dir().map_err(|e| StateFailure::Release {
            name: r.name.clone(),
            message: format!("making a directory for the chart: {e}"),
            code: 0,
        })?;
        // Each part a plain name: nothing in the state may lead helm outside the
        // private directory.
        let parts = [
            r.namespace.as_str(),
            &r.name,
            &r.chart,
            if version.is_empty() {
                "latest"
            } else {
                &version
            },
        ];
        for part in parts
            .iter()
            .flat_map(|p| p.split('/'))
            .filter(|p| !p.is_empty())
        {
            dir.push(if part == ".." || part == "." {
                "_"
            } else {
                part
            });
        }
        let mut flags = Vec::new();
        if !version.is_empty() {
            flags.extend(["--version".into(), version.clone()]);
        }
        if bool_of(&r.raw, "devel") == Some(true) {
            flags.push("--devel".into());
        }
        flags.extend([
            "--untar".into(),
            "--untardir".into(),
            dir.display().to_string(),
        ]);
        self.c
            .helm
            .fetch_chart(&r.chart, &flags)
            .map_err(|e| StateFailure::release(r, e))?;
        let base = r.chart.rsplit('/').next().unwrap_or(&r.chart);
        Ok(dir.join(base).display().to_string())
    }

    /// `a.deps`: `helm dependency update` of each local chart, then the state's lock file
    /// (`helmfile.lock` beside `helmfile.yaml`): the repository charts its releases use,
    /// resolved by `helm dependency update` of a chart that depends on all of them.
    fn deps(&self) -> Result<bool, Vec<StateFailure>> {
        let which: Vec<usize> = if self.rs.selected.is_empty() {
            return Ok(false);
        } else {
            self.rs.selected.clone()
        };
        self.c.helm.set_extra_args(self.extra_args());
        // The repositories first (unless --skip-repos), as helmfile: a local chart's
        // dependencies may come from them.
        if !self.o().skip_repos {
            self.sync_repos()?;
        }
        let mut errs = Vec::new();
        let mut wanted: Vec<(String, String, String)> = Vec::new();
        for &i in &which {
            let r = self.r(i);
            let chart = chart_for_helm(&self.ps.state.base, &r.chart);
            if self.c.settings.host.is_dir(std::path::Path::new(&chart)) {
                if let Err(e) = self.c.helm.update_deps(&chart) {
                    errs.push(StateFailure::release(r, e));
                }
                continue;
            }
            let Some((repo, name)) = r.chart.split_once('/') else {
                continue;
            };
            let Some(url) = self.repo_of(&r.chart).map(|t| str_of(&t, "url")) else {
                continue;
            };
            if url.is_empty() || url.starts_with("oci://") || name.contains('/') {
                let _ = repo;
                continue;
            }
            let version = if r.version.is_empty() {
                "*".to_string()
            } else {
                r.version.clone()
            };
            let entry = (name.to_string(), url, version);
            if !wanted.contains(&entry) {
                wanted.push(entry);
            }
        }
        if !errs.is_empty() {
            return Err(errs);
        }
        if wanted.is_empty() {
            return Ok(true);
        }
        let lock = crate::lock::resolve(self.c.helm, self.c.settings, &wanted)
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        let path = crate::lock::lock_path(&self.ps.state.file);
        self.c
            .settings
            .host
            .write_file(std::path::Path::new(&path), lock.as_bytes())
            .map_err(|e| vec![StateFailure::Plain(format!("writing {path}: {e}").into())])?;
        (self.c.log)(LogLevel::Info, &format!("Updated {path}"));
        Ok(true)
    }

    /// `a.unittest`: the helm-unittest plugin for each release with `unitTests:` (each
    /// entry a directory of `*_test.yaml` files).
    fn unittest(&self) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        let rels = self.with_needs(false)?;
        self.prepare(&rels, "unittest")?;
        self.c.helm.set_extra_args(self.extra_args());
        let mut errs = Vec::new();
        let tested: Vec<usize> = rels.iter().copied().filter(|&i| self.desired(i)).collect();
        for &i in &tested {
            let r = self.r(i);
            let dirs = strings_of(&r.raw, "unitTests");
            if dirs.is_empty() {
                continue;
            }
            let files = match self.values_files(i) {
                Ok(f) => f,
                Err(e) => {
                    errs.push(e);
                    continue;
                }
            };
            let mut flags = match self.with_flags(i, &files, |src| src.namespace_and_values()) {
                Ok(f) => f,
                Err(e) => {
                    errs.push(StateFailure::Plain(e.0.into()));
                    continue;
                }
            };
            self.extra_values_and_set(&mut flags);
            if self.o().fail_fast {
                flags.push("--failfast".into());
            }
            // helm-unittest for Helm 4 has no --color.
            if self.o().color && self.c.helm.version().is_helm3() {
                flags.push("--color".into());
            }
            if self.o().debug_plugin {
                flags.push("--debugPlugin".into());
            }
            for d in dirs {
                flags.extend([
                    "--file".into(),
                    format!("{}/*_test.yaml", d.trim_end_matches('/')),
                ]);
            }
            let chart = chart_for_helm(&self.ps.state.base, &r.chart);
            if let Err(e) = self.c.helm.unittest(&r.name, &chart, &flags) {
                errs.push(StateFailure::release(r, e));
            }
        }
        self.cleanup(&tested, "unittest");
        if errs.is_empty() {
            Ok(true)
        } else {
            Err(errs)
        }
    }

    /// `a.delete` (destroy).
    fn destroy(&self, affected: &mut Affected) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        // helmfile prepares the charts before deleting too (`prepare` hooks, the
        // repositories, `helm dependency build`), unless `--skip-charts`.
        if !self.o().skip_charts {
            self.prepare(&self.rs.selected, self.command)?;
            self.c.helm.set_extra_args(self.extra_args());
            if !self.o().skip_repos {
                self.sync_repos()?;
            }
            let errs = self.build_dependencies(&self.rs.selected);
            if !errs.is_empty() {
                return Err(errs);
            }
        }
        let mut to_delete = Vec::new();
        for &i in &self.rs.selected {
            if self.installed(i).map_err(|e| vec![e])? {
                to_delete.push(i);
            }
        }
        let kept: Vec<usize> = self
            .rs
            .selected
            .iter()
            .copied()
            .filter(|i| !to_delete.contains(i))
            .collect();
        self.cleanup(&kept, self.command);
        if self.o().interactive {
            let names: Vec<String> = self
                .rs
                .selected
                .iter()
                .map(|&i| format!("  {} ({})", self.r(i).name, self.r(i).chart))
                .collect();
            let question = format!(
                "Affected releases are:\n{}\n\nDo you really want to delete?\n  Helmfile will delete all your releases, as shown above.\n\n",
                names.join("\n")
            );
            if !(self.c.confirm)(&question) {
                return Ok(true);
            }
        }
        self.c.helm.set_extra_args(self.extra_args());
        if to_delete.is_empty() {
            return Ok(true);
        }
        let groups = self
            .plan(to_delete, true, true, false)
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        for g in groups {
            let errs = self.delete_group(&g, false, affected);
            if !errs.is_empty() {
                return Err(errs);
            }
        }
        Ok(true)
    }

    /// `a.status`.
    fn status(&self) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        // helmfile prepares the charts first, running `prepare` hooks (not building
        // dependencies).
        self.prepare(&self.rs.selected, self.command)?;
        let to_status: Vec<usize> = self
            .rs
            .selected
            .iter()
            .copied()
            .filter(|&i| self.desired(i))
            .collect();
        self.c.helm.set_extra_args(self.extra_args());
        let groups = self
            .plan(to_status, false, true, false)
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        for g in groups {
            let mut errs = Vec::new();
            for i in g {
                let r = self.r(i);
                let mut flags = Vec::new();
                if !r.namespace.is_empty() {
                    flags.extend(["--namespace".into(), r.namespace.clone()]);
                }
                flags.extend(self.connection_flags(i));
                if let Err(e) = self
                    .c
                    .helm
                    .release_status(&self.context(i), &r.name, &flags)
                {
                    errs.push(StateFailure::Plain(e.message.into()));
                }
            }
            if !errs.is_empty() {
                return Err(errs);
            }
        }
        Ok(true)
    }

    /// `a.test`.
    fn test(&self) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        self.prepare(&self.rs.selected, self.command)?;
        self.c.helm.set_extra_args(self.extra_args());
        let mut errs = Vec::new();
        for &i in &self.rs.selected {
            if !self.desired(i) {
                continue;
            }
            let r = self.r(i);
            let mut flags = Vec::new();
            if !r.namespace.is_empty() {
                flags.extend(["--namespace".into(), r.namespace.clone()]);
            }
            if self.o().logs {
                flags.push("--logs".into());
            }
            let timeout = match self.o().test_timeout {
                Some(t) => t,
                None => crate::flags::int_of(&r.raw, "timeout")
                    .or_else(|| crate::flags::int_of(&self.defaults, "timeout"))
                    .unwrap_or(0),
            };
            if timeout != 0 {
                flags.extend(["--timeout".into(), format!("{timeout}s")]);
            }
            flags.extend(self.connection_flags(i));
            if let Err(e) = self.c.helm.test_release(&self.context(i), &r.name, &flags) {
                errs.push(StateFailure::Plain(e.message.into()));
            }
        }
        if errs.is_empty() {
            Ok(true)
        } else {
            Err(errs)
        }
    }
}

/// The private directory `lint` fetches repository charts into: made on first use,
/// removed when dropped.
struct LintCharts<'h> {
    host: &'h dyn capstan_state::host::Host,
    dir: std::sync::Mutex<Option<std::path::PathBuf>>,
}

impl<'h> LintCharts<'h> {
    fn new(host: &'h dyn capstan_state::host::Host) -> Self {
        LintCharts {
            host,
            dir: std::sync::Mutex::new(None),
        }
    }

    fn dir(&self) -> std::io::Result<std::path::PathBuf> {
        let mut dir = self.dir.lock().unwrap_or_else(|e| e.into_inner());
        if dir.is_none() {
            *dir = Some(self.host.write_private(&[])?);
        }
        Ok(dir.clone().unwrap_or_default())
    }
}

impl Drop for LintCharts<'_> {
    fn drop(&mut self) {
        if let Some(d) = self.dir.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = self.host.remove_private(&d);
        }
    }
}

/// What running hooks needs: the settings (for rendering), the command runner and the log.
pub struct Hooks<'a> {
    pub settings: &'a capstan_state::load::Settings,
    pub exec: &'a HookExec<'a>,
    pub log: &'a (dyn Fn(LogLevel, &str) + Sync),
}

/// helmfile's hooks for `event`: the release's `hooks:` (or the state's, for `release`
/// None),
/// each whose `events` name it, its `command` and `args` rendered with the release's
/// template data, `.Event` and `.HelmfileCommand`, then run. Returns whether one ran.
pub fn run_hooks(
    h: &Hooks,
    ps: &PreparedState,
    release: Option<&Release>,
    event: &str,
    error: Option<&str>,
    command: &str,
) -> Result<bool, StateError> {
    let hooks = match release {
        Some(r) => capstan_state::spec::list_of(&r.raw, "hooks"),
        None => capstan_state::spec::list_of(&ps.state.doc, "hooks"),
    };
    let mut ran = false;
    for entry in hooks {
        let Some(hook) = entry.as_map().map(|m| m.snapshot()) else {
            continue;
        };
        if !strings_of(&hook, "events").iter().any(|e| e == event) {
            continue;
        }
        let mut program = str_of(&hook, "command");
        // `kubectlApply: {filename: F}` (or `{kustomize: DIR}`): `kubectl apply -f F`
        // (`-k DIR`) instead of the command, as helmfile's hooks.
        let kubectl = match hook.get("kubectlApply") {
            Some(Value::Map(m)) => Some(m.snapshot()),
            _ => None,
        };
        let name = match str_of(&hook, "name") {
            n if !n.is_empty() => n,
            _ if kubectl.is_some() => "kubectlApply".to_string(),
            _ => program.clone(),
        };
        // `HELMFILE_DISABLE_HOOKS` (helmfile #2691): a hook that would run is an error,
        // in every command; a helmfile without hooks for the event is not affected.
        if capstan_state::render::env_true(h.settings.host.as_ref(), "HELMFILE_DISABLE_HOOKS") {
            return Err(format!(
                "hook[{name}]: HELMFILE_DISABLE_HOOKS is active, hooks are disabled"
            )
            .into());
        }
        (h.log)(
            LogLevel::Debug,
            &format!(
                "hook[{name}]: stateFilePath={}, basePath={}\n",
                ps.state.file, ps.state.base
            ),
        );
        let mut data = match release {
            Some(r) => capstan_state::release::release_template_data(
                &ps.state.env,
                &ps.state.values,
                &release_tree(r),
                &ps.overrides,
            ),
            None => Value::map_from(
                [(
                    Str::from("Values"),
                    Value::map_from(ps.state.values.clone()),
                )]
                .into_iter()
                .collect(),
            ),
        };
        if let Value::Map(m) = &mut data {
            let mut t = m.snapshot();
            t.insert(Str::from("HelmfileCommand"), Value::from(command));
            t.insert(
                Str::from("Event"),
                Value::map_from(
                    [
                        (Str::from("Name"), Value::from(event)),
                        (
                            Str::from("Error"),
                            // helmfile's `Error error`: a nil error prints `<nil>`.
                            error.map(Value::from).unwrap_or_else(|| {
                                Value::Host(std::sync::Arc::new(capstan_value::NilError))
                            }),
                        ),
                    ]
                    .into_iter()
                    .collect(),
                ),
            );
            data = Value::map_from(t);
        }
        (h.log)(
            LogLevel::Debug,
            &format!("hook[{name}]: triggered by event \"{event}\"\n"),
        );
        let mut args = strings_of(&hook, "args");
        if let Some(k) = &kubectl {
            if !program.is_empty() {
                (h.log)(
                    LogLevel::Warn,
                    &format!(
                        "warn: ignoring command '{program}' given within a kubectlApply hook\n"
                    ),
                );
            }
            let (file, kustomize) = (str_of(k, "filename"), str_of(k, "kustomize"));
            let (flag, target) = match (file.is_empty(), kustomize.is_empty()) {
                (false, false) => {
                    return Err(format!(
                        "hook[{name}]: kustomize & filename cannot be used together"
                    )
                    .into())
                }
                (false, true) => ("-f", file),
                (true, false) => ("-k", kustomize),
                (true, true) => {
                    return Err(
                        format!("hook[{name}]: either kustomize or filename must be given").into(),
                    )
                }
            };
            program = "kubectl".to_string();
            args = vec!["apply".to_string(), flag.to_string(), target];
        }
        let renderer = ps.renderer(h.settings);
        let program = renderer
            .render(&program, &data)
            .map_err(|e| format!("hook[{name}]: {e}"))?;
        let args = args
            .iter()
            .map(|a| renderer.render(a, &data))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("hook[{name}]: {e}"))?;
        let result = (h.exec)(&program, &args, &ps.state.base);
        let out = match &result {
            Ok(o) => o.clone(),
            Err(_) => String::new(),
        };
        (h.log)(LogLevel::Debug, &format!("hook[{name}]: {out}\n"));
        if bool_of(&hook, "showlogs") == Some(true) {
            let prefix = format!("\nhook[{event}] logs | ");
            (h.log)(
                LogLevel::Info,
                &format!("{prefix}{}", out.replace('\n', &prefix)),
            );
        }
        if let Err(e) = result {
            return Err(format!("hook[{name}]: command `{program}` failed: {e}").into());
        }
        ran = true;
    }
    Ok(ran)
}

/// A cluster command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Sync,
    Apply,
    Diff,
    Destroy,
    Lint,
    Status,
    Test,
    Repos,
    Unittest,
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
mod tests {
    use super::*;

    #[test]
    fn parallel_keeps_order_and_limits() {
        let running = std::sync::atomic::AtomicUsize::new(0);
        let most = std::sync::atomic::AtomicUsize::new(0);
        let out = parallel(20, 3, |i| {
            let now = running.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            most.fetch_max(now, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(2));
            running.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            i * 2
        });
        assert_eq!(out, (0..20).map(|i| i * 2).collect::<Vec<_>>());
        assert!(most.load(std::sync::atomic::Ordering::SeqCst) <= 3);
        assert_eq!(parallel(5, 0, |i| i), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn summary_tables_as_helmfile_prints_them() {
        let a = Affected {
            upgraded: vec![AffectedRelease {
                name: "web".into(),
                namespace: "apps".into(),
                chart: "https://u:p@h/c.tgz".into(),
                version: "1.0.0".into(),
                seconds: 65,
            }],
            ..Affected::default()
        };
        assert_eq!(
            a.summary(),
            "\nUPDATED RELEASES:\nNAME   NAMESPACE   CHART                   VERSION   DURATION\nweb    apps        https://u:---@h/c.tgz   1.0.0         1m5s\n\n"
        );
    }
}
