//! What the cluster commands ask of helm (helmfile's `helmexec.Interface`): one method
//! per helm operation, with the flags the release settings became. [`ProcessHelm`] runs
//! the real `helm` binary through [`crate::exec::Execer`] and a [`Runner`]; tests use a
//! recording stand-in.

use crate::exec::{Execer, HelmCall, LogLevel, RunFailure, Runner};
use crate::version::HelmVersion;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Per-call settings (helmfile's `HelmContext`).
#[derive(Clone, Debug, Default)]
pub struct HelmContext {
    /// `--history-max` for `helm upgrade` (helmfile's default: 10).
    pub history_max: i64,
}

/// A helm operation that failed: its message and, when helm ran and exited, its code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HelmError {
    /// The message.
    pub message: String,
    /// helm's exit code, when it ran and exited.
    pub exit_code: Option<i32>,
    /// What the command printed on stdout before failing (helm-diff prints the diff and
    /// exits with 2).
    pub stdout: String,
}

impl HelmError {
    /// A failure with `message`, no exit code and no output.
    pub fn new(message: impl Into<String>) -> HelmError {
        HelmError {
            message: message.into(),
            exit_code: None,
            stdout: String::new(),
        }
    }

    /// helm said the release does not exist (`Error: release: not found`). helm's output
    /// is the only interface a helm process has, and helmfile decides on the same text.
    pub(crate) fn release_not_found(&self) -> bool {
        self.message.contains("release: not found")
    }

    /// The API server refused the change (`... is forbidden`, an immutable field): what
    /// helmfile's `updateStrategy: reinstallIfForbidden` looks for in helm's output.
    pub fn forbidden(&self) -> bool {
        self.message.to_lowercase().contains("forbidden")
    }
}

impl From<Box<RunFailure>> for HelmError {
    fn from(f: Box<RunFailure>) -> HelmError {
        HelmError {
            message: f.to_string(),
            exit_code: Some(f.code),
            stdout: f.stdout.clone(),
        }
    }
}

/// The helm operations of helmfile's cluster commands.
pub trait Helm: Send + Sync {
    /// The helm version the calls are built for.
    fn version(&self) -> HelmVersion;
    /// helmfile's `--args`, appended to every later command.
    fn set_extra_args(&self, args: Vec<String>);
    /// `helm upgrade --install NAME CHART FLAGS`.
    fn sync_release(
        &self,
        ctx: &HelmContext,
        name: &str,
        chart: &str,
        namespace: &str,
        flags: &[String],
    ) -> Result<(), HelmError>;
    /// `helm diff upgrade` (the helm-diff plugin): `Err` with exit code 2 when it found
    /// changes under `--detailed-exitcode`. Returns what it printed.
    fn diff_release(
        &self,
        ctx: &HelmContext,
        name: &str,
        chart: &str,
        namespace: &str,
        suppress_diff: bool,
        flags: &[String],
    ) -> Result<String, HelmError>;
    /// `helm delete NAME FLAGS`.
    fn delete_release(
        &self,
        ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<(), HelmError>;
    /// `helm list --filter FILTER FLAGS`, its header line removed: empty when no release
    /// matched.
    fn list(&self, ctx: &HelmContext, filter: &str, flags: &[String]) -> Result<String, HelmError>;
    /// `helm status NAME FLAGS`.
    fn release_status(
        &self,
        ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<(), HelmError>;
    /// `helm test NAME FLAGS`.
    fn test_release(
        &self,
        ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<(), HelmError>;
    /// `helm lint CHART FLAGS`.
    fn lint(&self, name: &str, chart: &str, flags: &[String]) -> Result<(), HelmError>;
    /// `helm fetch CHART FLAGS` (helmfile fetches a repository's chart this way before
    /// linting it).
    fn fetch_chart(&self, chart: &str, _flags: &[String]) -> Result<(), HelmError> {
        Err(HelmError::new(format!("cannot fetch chart {chart:?} here")))
    }
    /// The user-supplied values of the deployed release (`helm get values -o json`);
    /// `None` when it does not exist.
    fn get_values(
        &self,
        _ctx: &HelmContext,
        name: &str,
        _flags: &[String],
    ) -> Result<Option<serde_json::Value>, HelmError> {
        Err(HelmError::new(format!(
            "cannot read the values of release {name:?} here"
        )))
    }
    /// `helm unittest CHART FLAGS` (the helm-unittest plugin).
    fn unittest(&self, name: &str, _chart: &str, _flags: &[String]) -> Result<(), HelmError> {
        Err(HelmError::new(format!(
            "cannot unit test release {name:?} here"
        )))
    }
    /// `helm dependency update CHART`.
    fn update_deps(&self, chart: &str) -> Result<(), HelmError> {
        Err(HelmError::new(format!(
            "cannot update the dependencies of {chart:?} here"
        )))
    }
    /// `helm dependency build CHART FLAGS`.
    fn build_deps(&self, release: &str, _chart: &str, _flags: &[String]) -> Result<(), HelmError> {
        Err(HelmError::new(format!(
            "cannot build the dependencies of release {release:?} here"
        )))
    }
    /// `helm repo add` (or `az acr helm repo add`).
    fn add_repo(&self, r: &crate::exec::RepoAdd) -> Result<(), HelmError> {
        Err(HelmError::new(format!(
            "cannot add repository {:?} here",
            r.name
        )))
    }
    /// `helm registry login` (password on stdin).
    fn registry_login(&self, l: &crate::exec::RegistryLogin) -> Result<(), HelmError> {
        Err(HelmError::new(format!(
            "cannot log in to {:?} here",
            l.host
        )))
    }
    /// The version and API versions of the cluster the flags (kube context) name, read
    /// once per context and run, for `.Capabilities` as `helm upgrade` sees them there;
    /// `None` when they cannot be read here (the defaults are used then).
    fn cluster_capabilities(
        &self,
        _flags: &[String],
    ) -> Option<Arc<capstan_chart::capabilities::ClusterCapabilities>> {
        None
    }
    /// The chart version of release `name`'s latest revision, as helmfile reads it after
    /// an upgrade for its summary (`getDeployedVersion`); `None` when it cannot be read.
    fn deployed_chart_version(&self, _name: &str, _flags: &[String]) -> Option<String> {
        None
    }
    /// `helm get manifest NAME FLAGS` of the latest revision, followed by `helm get hooks`
    /// when `hooks` (helm-diff's "current" side): `None` when the release does not exist.
    fn get_manifest(
        &self,
        _ctx: &HelmContext,
        name: &str,
        _flags: &[String],
        _hooks: bool,
    ) -> Result<Option<String>, HelmError> {
        Err(HelmError::new(format!(
            "cannot read the deployed manifest of release {name:?}: this helm has no `get manifest`"
        )))
    }
}

/// Where [`ProcessHelm`] writes: log lines (stderr) and command output (stdout).
pub trait Output: Send + Sync {
    /// A log line (standard error).
    fn log(&self, text: &str);
    /// Command output (standard output).
    fn stdout(&self, text: &str);
}

/// The real helm: argv from [`Execer`], run by a [`Runner`]. Deployed manifests are read
/// from the API server directly when it can ([`crate::kube`]: one request per
/// namespace), else with `helm get manifest`.
pub struct ProcessHelm {
    execer: Mutex<Execer>,
    runner: Box<dyn Runner>,
    level: LogLevel,
    out: Box<dyn Output>,
    /// The kubeconfig helm uses (empty: helm's default).
    kubeconfig: std::path::PathBuf,
    /// Per kube context: the API client (or why there is none), and per namespace the
    /// deployed manifests (or why they could not be listed).
    kube: Mutex<BTreeMap<String, KubeContextCache>>,
}

#[derive(Default)]
struct KubeContextCache {
    client: Option<Result<Arc<crate::kube::KubeClient>, crate::kube::KubeError>>,
    /// The cluster's version and API versions (or why not).
    capabilities: Option<
        Result<Arc<capstan_chart::capabilities::ClusterCapabilities>, crate::kube::KubeError>,
    >,
    namespaces: BTreeMap<
        String,
        Result<Arc<BTreeMap<String, crate::kube::Deployed>>, crate::kube::KubeError>,
    >,
}

/// The kubeconfig helm reads: `--kubeconfig`, else the first of `KUBECONFIG`, else
/// `~/.kube/config`.
pub fn kubeconfig_path(flag: &str) -> std::path::PathBuf {
    if !flag.is_empty() {
        std::path::PathBuf::from(flag)
    } else if let Some(first) = std::env::var_os("KUBECONFIG")
        .and_then(|k| std::env::split_paths(&k).find(|p| !p.as_os_str().is_empty()))
    {
        first
    } else {
        std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".kube/config")
    }
}

impl ProcessHelm {
    /// The real helm of `execer`, run by `runner`, logging at `level` to `out`.
    pub fn new(
        execer: Execer,
        runner: Box<dyn Runner>,
        level: LogLevel,
        out: Box<dyn Output>,
    ) -> ProcessHelm {
        let kubeconfig = kubeconfig_path(&execer.kubeconfig);
        ProcessHelm {
            execer: Mutex::new(execer),
            runner,
            level,
            out,
            kubeconfig,
            kube: Mutex::new(BTreeMap::new()),
        }
    }

    /// The API client of `context` (made once), or why there is none.
    fn client(
        &self,
        context: &str,
    ) -> Result<Arc<crate::kube::KubeClient>, crate::kube::KubeError> {
        let mut cache = self.kube.lock().unwrap_or_else(|e| e.into_inner());
        let entry = cache.entry(context.to_string()).or_default();
        entry
            .client
            .get_or_insert_with(|| {
                crate::kube::KubeClient::from_kubeconfig(&self.kubeconfig, context).map(Arc::new)
            })
            .clone()
    }

    /// The deployed manifests of `namespace` in `context` from the API server, or why not.
    fn deployed(
        &self,
        context: &str,
        namespace: &str,
    ) -> Result<Arc<BTreeMap<String, crate::kube::Deployed>>, crate::kube::KubeError> {
        let driver = std::env::var("HELM_DRIVER").unwrap_or_default();
        if !matches!(driver.as_str(), "" | "secret" | "secrets") {
            return Err(format!("HELM_DRIVER={driver} is left to helm").into());
        }
        if let Some(Ok(ns)) = self
            .kube
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(context)
            .and_then(|entry| entry.namespaces.get(namespace))
        {
            return Ok(ns.clone());
        }
        let client = self.client(context)?;
        let listed = client.deployed_releases(namespace).map(Arc::new);
        let mut cache = self.kube.lock().unwrap_or_else(|e| e.into_inner());
        let entry = cache.entry(context.to_string()).or_default();
        entry
            .namespaces
            .insert(namespace.to_string(), listed.clone());
        listed
    }

    fn execer(&self) -> Execer {
        self.execer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Runs a call, logging it as helmfile does; returns its standard output.
    fn run(&self, call: HelmCall) -> Result<String, HelmError> {
        let before = crate::exec::render_log(&call.before, self.level);
        if !before.is_empty() {
            self.out.log(&before);
        }
        let result = self.runner.run(&call);
        let stdout = match &result {
            Ok(s) => s.clone(),
            Err(f) => f.stdout.clone(),
        };
        let after = call.log(&stdout, self.level);
        if after.len() > before.len() {
            self.out.log(&after[before.len()..]);
        }
        if call.output == crate::exec::OutputUse::Stdout && !stdout.is_empty() {
            self.out.stdout(&format!("{stdout}\n"));
        }
        result.map_err(HelmError::from)
    }
}

/// `hooks` (as `helm get hooks` prints them) after a release's `manifest`, on a line of
/// their own.
fn then_hooks(manifest: &mut String, hooks: &str) {
    if hooks.is_empty() {
        return;
    }
    if !manifest.is_empty() && !manifest.ends_with('\n') {
        manifest.push('\n');
    }
    manifest.push_str(hooks);
}

/// The kube context and namespace a command's flags name (the execer's context and
/// `default` when they name none).
fn target(execer: &Execer, flags: &[String]) -> (String, String) {
    let flag = |f: &str| {
        flags
            .iter()
            .position(|x| x == f)
            .and_then(|i| flags.get(i + 1))
            .cloned()
    };
    (
        flag("--kube-context").unwrap_or_else(|| execer.kube_context.clone()),
        flag("--namespace").unwrap_or_else(|| "default".into()),
    )
}

impl Helm for ProcessHelm {
    fn version(&self) -> HelmVersion {
        self.execer().version
    }

    fn set_extra_args(&self, args: Vec<String>) {
        self.execer.lock().unwrap_or_else(|e| e.into_inner()).extra = args;
    }

    fn sync_release(
        &self,
        ctx: &HelmContext,
        name: &str,
        chart: &str,
        namespace: &str,
        flags: &[String],
    ) -> Result<(), HelmError> {
        let call = self
            .execer()
            .sync_release(name, chart, namespace, flags, ctx.history_max);
        self.run(call).map(|_| ())
    }

    fn diff_release(
        &self,
        _ctx: &HelmContext,
        name: &str,
        chart: &str,
        namespace: &str,
        suppress_diff: bool,
        flags: &[String],
    ) -> Result<String, HelmError> {
        let mut call = self.execer().diff_release(name, chart, namespace, flags);
        // The caller prints diffs in release order (or not at all when suppressed).
        let _ = suppress_diff;
        call.output = crate::exec::OutputUse::Discard;
        self.run(call)
    }

    fn delete_release(
        &self,
        _ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<(), HelmError> {
        let call = self.execer().delete_release(name, flags);
        self.run(call).map(|_| ())
    }

    fn list(
        &self,
        _ctx: &HelmContext,
        filter: &str,
        flags: &[String],
    ) -> Result<String, HelmError> {
        let mut call = self.execer().list(filter, flags);
        // The output decides whether the release exists: not printed.
        call.output = crate::exec::OutputUse::Discard;
        let out = self.run(call)?;
        Ok(out.split('\n').skip(1).collect::<Vec<_>>().join("\n"))
    }

    fn release_status(
        &self,
        _ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<(), HelmError> {
        let call = self.execer().release_status(name, flags);
        self.run(call).map(|_| ())
    }

    fn test_release(
        &self,
        _ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<(), HelmError> {
        let call = self.execer().test_release(name, flags);
        self.run(call).map(|_| ())
    }

    fn lint(&self, name: &str, chart: &str, flags: &[String]) -> Result<(), HelmError> {
        let call = self.execer().lint(name, chart, flags);
        self.run(call).map(|_| ())
    }

    fn fetch_chart(&self, chart: &str, flags: &[String]) -> Result<(), HelmError> {
        let call = self.execer().fetch(chart, flags);
        self.run(call).map(|_| ())
    }

    fn cluster_capabilities(
        &self,
        flags: &[String],
    ) -> Option<Arc<capstan_chart::capabilities::ClusterCapabilities>> {
        let (context, _) = target(&self.execer(), flags);
        let cached = self
            .kube
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&context)
            .and_then(|entry| entry.capabilities.clone());
        let read = match cached {
            Some(read) => read,
            None => {
                let read = self
                    .client(&context)
                    .and_then(|c| c.capabilities())
                    .map(Arc::new);
                self.kube
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .entry(context.clone())
                    .or_default()
                    .capabilities = Some(read.clone());
                if let Err(why) = &read {
                    if self.level <= LogLevel::Debug {
                        self.out.log(&format!(
                            "the cluster's version and APIs could not be read ({why}): rendering with helm's defaults\n"
                        ));
                    }
                }
                read
            }
        };
        read.ok()
    }

    fn get_values(
        &self,
        _ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<Option<serde_json::Value>, HelmError> {
        let execer = self.execer();
        let (context, namespace) = target(&execer, flags);
        if let Ok(releases) = self.deployed(&context, &namespace) {
            return Ok(releases.get(name).map(|d| d.values.clone()));
        }
        match self.run(execer.get_values(name, flags)) {
            Ok(text) => serde_json::from_str(&text)
                .map(|v: serde_json::Value| {
                    Some(if v.is_null() {
                        serde_json::json!({})
                    } else {
                        v
                    })
                })
                .map_err(|e| HelmError::new(format!("helm get values {name}: {e}"))),
            Err(e) if e.release_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn unittest(&self, name: &str, chart: &str, flags: &[String]) -> Result<(), HelmError> {
        let call = self.execer().unittest(name, chart, flags);
        self.run(call).map(|_| ())
    }

    fn update_deps(&self, chart: &str) -> Result<(), HelmError> {
        let call = self.execer().update_deps(chart);
        self.run(call).map(|_| ())
    }

    fn build_deps(&self, release: &str, chart: &str, flags: &[String]) -> Result<(), HelmError> {
        let call = self.execer().build_deps(release, chart, flags);
        self.run(call).map(|_| ())
    }

    fn add_repo(&self, r: &crate::exec::RepoAdd) -> Result<(), HelmError> {
        let call = self
            .execer()
            .add_repo(r)
            .map_err(|e| HelmError::new(e.message))?;
        self.run(call).map(|_| ())
    }

    fn registry_login(&self, l: &crate::exec::RegistryLogin) -> Result<(), HelmError> {
        match self.execer().registry_login(l) {
            Some(call) => self.run(call).map(|_| ()),
            None => Ok(()),
        }
    }

    fn deployed_chart_version(&self, name: &str, flags: &[String]) -> Option<String> {
        let (context, namespace) = target(&self.execer(), flags);
        let client = self.client(&context).ok()?;
        match client.chart_version(&namespace, name) {
            Ok(v) => v,
            Err(why) => {
                if self.level <= LogLevel::Debug {
                    self.out.log(&format!(
                        "reading release {name:?}'s chart version: {why}\n"
                    ));
                }
                None
            }
        }
    }

    fn get_manifest(
        &self,
        _ctx: &HelmContext,
        name: &str,
        flags: &[String],
        hooks: bool,
    ) -> Result<Option<String>, HelmError> {
        let execer = self.execer();
        let (context, namespace) = target(&execer, flags);
        match self.deployed(&context, &namespace) {
            Ok(releases) => {
                return Ok(releases.get(name).map(|d| {
                    let mut text = d.manifest.clone();
                    if hooks {
                        then_hooks(&mut text, &d.hooks);
                    }
                    text
                }))
            }
            Err(why) => {
                let line = format!("reading release {name:?} with helm: {why}\n");
                if self.level <= LogLevel::Debug {
                    self.out.log(&line);
                }
            }
        }
        let call = execer.get_manifest(name, flags);
        let mut manifest = match self.run(call) {
            Ok(m) => m,
            Err(e) if e.release_not_found() => return Ok(None),
            Err(e) => return Err(e),
        };
        if hooks {
            then_hooks(&mut manifest, &self.run(execer.get_hooks(name, flags))?);
        }
        Ok(Some(manifest))
    }
}
