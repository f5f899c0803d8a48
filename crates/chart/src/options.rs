//! What a `helm template` run is given ([`TemplateOptions`]) and gives back
//! ([`Rendered`], [`TemplateError`]), and the Helm version it stands for. Data only: the
//! run is [`crate::template`]'s.

use capstan_value::{Str, Value};
use capstan_values::UserValues;
use std::collections::BTreeMap;
use std::path::PathBuf;

type Map = BTreeMap<Str, Value>;

/// Helm v4.3.1's defaults for what `helm template` reports as the cluster (its client-go
/// version, v0.37).
pub const DEFAULT_KUBE_VERSION: &str = "v1.37.0";
/// `.Capabilities.HelmVersion` of the Helm capstan renders as: the real v4.3.1 release
/// binary's build information (`helm version`).
pub const HELM_VERSION: &str = "v4.3.1";
/// The git commit of Helm v4.3.1's release build.
pub const HELM_GIT_COMMIT: &str = "c0d08d0d6d9424d4a14febb5e8a3e51b0dd00dff";
/// The Go toolchain Helm v4.3.1's release binary was built with.
pub const HELM_GO_VERSION: &str = "go1.27.2";
/// The client-go minor version Helm v4.3.1 is built with (`HelmVersion.KubeClientVersion`).
pub const HELM_KUBE_CLIENT_VERSION: &str = "v1.37";

/// The options of one `helm template` run.
#[derive(Clone, Debug, Default)]
pub struct TemplateOptions {
    /// The release's name (`.Release.Name`).
    pub release_name: String,
    /// The release's namespace (`.Release.Namespace`).
    pub namespace: String,
    /// `-f`, `--set` and the rest, in order.
    pub values: UserValues,
    /// `--include-crds`: the charts' `crds/` files come first in the output.
    pub include_crds: bool,
    /// `--is-upgrade` (`.Release.IsUpgrade`).
    pub is_upgrade: bool,
    /// `--skip-tests`: test hooks are left out.
    pub skip_tests: bool,
    /// `--no-hooks`: hooks are left out of the output.
    pub no_hooks: bool,
    /// Keep the rendered documents one by one ([`crate::template::Rendered`]'s
    /// `documents`: what an output directory writes) besides the manifest text.
    pub keep_documents: bool,
    /// `--kube-version`; [`DEFAULT_KUBE_VERSION`] when empty.
    pub kube_version: String,
    /// `--api-versions`, added to the default set.
    pub api_versions: Vec<String>,
    /// The cluster's own version and API versions (a diff against a cluster renders as
    /// `helm upgrade` would there); when set, the two fields above are not read.
    pub cluster: Option<std::sync::Arc<crate::capabilities::ClusterCapabilities>>,
    /// `--skip-schema-validation`.
    pub skip_schema_validation: bool,
    /// `-f` files held in memory (helmfile's temporary values files), by the name used
    /// in `values.files`; other names are read from disk.
    pub overlay: std::collections::BTreeMap<String, Vec<u8>>,
    /// Dependencies added to the chart before rendering (helmfile's release
    /// `dependencies:`, which it adds with chartify): the `Chart.yaml` entry and the
    /// loaded subchart.
    pub extra_dependencies: Vec<(crate::load::Dependency, crate::load::Chart)>,
    /// helmfile's `helm dependency build` for a chart directory: dependencies missing
    /// from `charts/` are fetched through it before Helm's check (none when `None`, as
    /// with `--skip-deps`).
    pub dependency_builder: Option<crate::dependencies::DependencyBuilder>,
    /// `--post-renderer`: run over the rendered manifests (hooks included).
    pub post_renderer: Option<crate::postrender::PostRenderer>,
    /// helmfile's `strategicMergePatches`/`jsonPatches`, applied before post-rendering.
    pub patches: crate::patch::Patches,
    /// The run's loaded charts, shared by its releases (none: load from disk).
    pub chart_cache: Option<crate::cache::ChartCache>,
}

/// What a successful run produced.
#[derive(Debug)]
pub struct Rendered {
    /// The coalesced `.Values` of the top chart.
    pub values: Map,
    /// `helm template`'s standard output.
    pub manifest: String,
    /// The same documents with the template each came from (`chart/templates/cm.yaml`),
    /// in output order: what `--output-dir` names files after, never the rendered text.
    /// Empty unless [`TemplateOptions::keep_documents`] asks for them.
    pub documents: Vec<(String, String)>,
}

capstan_source::message_error!(
    /// A release name Helm refuses (its text).
    ReleaseNameError
);

/// Which step of `helm template` failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Reading or merging the values.
    Values,
    /// Loading the chart.
    Load,
    /// Checking or processing its dependencies.
    Dependencies,
    /// Rendering and sorting; Helm adds its `--debug` hint to these.
    Render,
}

pub use capstan_source::Location;

/// Why `helm template` failed; `Display` is what Helm prints after `Error: `.
#[derive(Debug)]
pub struct TemplateError {
    /// The step that failed.
    pub kind: ErrorKind,
    /// Helm's text.
    pub message: String,
    /// Where the problem is, when it is in a file on disk.
    pub location: Option<Location>,
    /// For a manifest that is not valid YAML: every rendered file as `helm template
    /// --debug` prints them before the error (in path order).
    pub rendered: Option<String>,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ErrorKind::Render => write!(
                f,
                "{}\n\nUse --debug flag to render out invalid YAML",
                self.message
            ),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TemplateError {}

impl TemplateError {
    fn new(kind: ErrorKind, message: String) -> Self {
        TemplateError {
            kind,
            message,
            location: None,
            rendered: None,
        }
    }
    pub(crate) fn values(message: impl ToString) -> Self {
        Self::new(ErrorKind::Values, message.to_string())
    }
    pub(crate) fn load(message: impl ToString) -> Self {
        Self::new(ErrorKind::Load, message.to_string())
    }
    pub(crate) fn dependencies(message: impl ToString) -> Self {
        Self::new(ErrorKind::Dependencies, message.to_string())
    }
    pub(crate) fn render(message: impl ToString) -> Self {
        Self::new(ErrorKind::Render, message.to_string())
    }
    pub(crate) fn at(mut self, file: PathBuf, line: u32, column: u32) -> Self {
        self.location = Some(Location::new(file.display().to_string(), line, column));
        self
    }
}
