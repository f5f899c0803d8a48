//! `helm template` for a local chart directory, in-process: merge the user's values,
//! load the chart, check and process its dependencies, coalesce values, render, sort and
//! print. Errors carry Helm's texts (render errors with Helm's `--debug` hint).

use crate::dependencies::{chart_values, check_dependencies, process_dependencies};
use crate::manifests::sort_manifests;
use crate::render::{render, RenderContext};
use capstan_value::{Str, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Map = BTreeMap<Str, Value>;

use crate::options::ReleaseNameError;
pub use crate::options::{
    ErrorKind, Location, Rendered, TemplateError, TemplateOptions, DEFAULT_KUBE_VERSION,
    HELM_GIT_COMMIT, HELM_GO_VERSION, HELM_KUBE_CLIENT_VERSION, HELM_VERSION,
};

const HOOK_TEST: &str = "test";

fn release_object(o: &TemplateOptions) -> Value {
    use capstan_value::static_str;
    // In key order: the map is built without a search per entry.
    Value::map_from(Map::from([
        (static_str!("IsInstall"), Value::Bool(!o.is_upgrade)),
        (static_str!("IsUpgrade"), Value::Bool(o.is_upgrade)),
        (static_str!("Name"), Value::from(o.release_name.as_str())),
        (static_str!("Namespace"), Value::from(o.namespace.as_str())),
        (static_str!("Revision"), Value::Int(1)),
        (static_str!("Service"), Value::from("Helm")),
    ]))
}

fn capabilities(o: &TemplateOptions) -> Result<(Value, String), TemplateError> {
    use crate::capabilities::{ApiVersions, KubeVersion};
    use std::sync::{Arc, OnceLock};
    // Without a cluster or flags, every render sees the same Kubernetes version and
    // API set: parsed and listed once per process (both are read-only to templates).
    static DEFAULTS: OnceLock<(Arc<KubeVersion>, Arc<ApiVersions>)> = OnceLock::new();
    let (kube, api) =
        if o.cluster.is_none() && o.kube_version.is_empty() && o.api_versions.is_empty() {
            let (kube, api) = DEFAULTS.get_or_init(|| {
                let kube = KubeVersion::parse(DEFAULT_KUBE_VERSION)
                    .expect("the default Kubernetes version parses");
                let api = ApiVersions(crate::capabilities::default_api_versions());
                (Arc::new(kube), Arc::new(api))
            });
            (kube.clone(), api.clone())
        } else {
            let (kube, api) = cluster_or_flags(o)?;
            (Arc::new(kube), Arc::new(api))
        };
    let normalized = kube.normalized.clone();
    let mut caps = Map::new();
    caps.insert(capstan_value::static_str!("KubeVersion"), Value::Host(kube));
    caps.insert(
        capstan_value::static_str!("HelmVersion"),
        Value::Host(std::sync::Arc::new(crate::capabilities::HelmVersion {
            version: HELM_VERSION,
            git_commit: HELM_GIT_COMMIT,
            git_tree_state: "clean",
            go_version: HELM_GO_VERSION,
            kube_client_version: HELM_KUBE_CLIENT_VERSION,
        })),
    );
    caps.insert(capstan_value::static_str!("APIVersions"), Value::Host(api));
    Ok((Value::map_from(caps), normalized))
}

/// The Kubernetes version and API set of a render given a cluster or flags.
fn cluster_or_flags(
    o: &TemplateOptions,
) -> Result<
    (
        crate::capabilities::KubeVersion,
        crate::capabilities::ApiVersions,
    ),
    TemplateError,
> {
    let requested = match &o.cluster {
        Some(c) => &c.git_version,
        None if o.kube_version.is_empty() => DEFAULT_KUBE_VERSION,
        None => &o.kube_version,
    };
    let mut kube = crate::capabilities::KubeVersion::parse(requested)
        .map_err(|e| TemplateError::values(format!("invalid kube version '{requested}': {e}")))?;
    let api = match &o.cluster {
        Some(c) => {
            // The server's own major and minor (a provider's `28+` stays as it is).
            if !c.major.is_empty() && !c.minor.is_empty() {
                kube.major = c.major.clone();
                kube.minor = c.minor.clone();
            }
            c.api_versions.clone()
        }
        None => {
            let mut api = crate::capabilities::default_api_versions();
            api.extend(o.api_versions.iter().cloned());
            api
        }
    };
    Ok((kube, crate::capabilities::ApiVersions(api)))
}

/// `path` seen from the process: as given when `cwd` is the current directory.
fn relative_to(cwd: &Path, path: &str) -> PathBuf {
    if cwd == Path::new(".") {
        PathBuf::from(path)
    } else {
        cwd.join(path)
    }
}

/// Reads a `-f`/`--set-file` path relative to `cwd`, failing with Go's `open` text.
pub fn read_file(cwd: &Path, p: &str) -> Result<Vec<u8>, capstan_values::ReadError> {
    read_file_in(&crate::fs::OsFs, cwd, p)
}

/// [`read_file`] through `fs`.
impl TemplateOptions {
    /// The bytes of `-f` file `p`: held in [`TemplateOptions::overlay`], else read from
    /// `fs` relative to `cwd`.
    pub fn values_file(
        &self,
        fs: &dyn crate::fs::ChartFs,
        cwd: &Path,
        p: &str,
    ) -> Result<Vec<u8>, capstan_values::ReadError> {
        match self.overlay.get(p) {
            Some(bytes) => Ok(bytes.clone()),
            None => read_file_in(fs, cwd, p),
        }
    }
}

/// The bytes of values file `p` (relative to `cwd`) read through `fs`, with Go's `open P:
/// no such file or directory` when it is missing.
pub fn read_file_in(
    fs: &dyn crate::fs::ChartFs,
    cwd: &Path,
    p: &str,
) -> Result<Vec<u8>, capstan_values::ReadError> {
    fs.read(&cwd.join(p)).map_err(|e| {
        let reason = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
            _ => e.to_string(),
        };
        capstan_values::ReadError(format!("open {p}: {reason}"))
    })
}

/// Runs `helm template NAME CHART_DIR` with `cwd` as the directory `-f` paths are
/// relative to.
pub fn template(
    chart_dir: &Path,
    cwd: &Path,
    o: &TemplateOptions,
) -> Result<Rendered, TemplateError> {
    template_in(&crate::fs::OsFs, chart_dir, cwd, o)
}

/// [`template`] reading the chart and values files through `fs`.
/// Helm's `ValidateReleaseName`: DNS-1123 labels joined by dots (so a release name can
/// never be a path such as `../x`), at most 53 characters (Helm v4.3.1 refuses a longer
/// one in `helm template`; the helm-values corpus, from Helm's main branch, renders a
/// 76-character name: the binary wins, see COMPATIBILITY.md).
pub(crate) fn validate_release_name(name: &str) -> Result<(), ReleaseNameError> {
    let label_ok = |l: &str| {
        let b = l.as_bytes();
        let edge = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        !b.is_empty()
            && edge(b[0])
            && edge(b[b.len() - 1])
            && b.iter().all(|&c| edge(c) || c == b'-')
    };
    if name.len() <= 53 && name.split('.').all(label_ok) {
        return Ok(());
    }
    Err(format!(
        "release name check failed: release name {name:?}: invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53"
    ).into())
}

/// A chart loaded and processed for a release, and its final values.
struct Prepared {
    /// As loaded (dependencies built), before conditions and tags: kept only with layers,
    /// and only for a chart with subcharts (otherwise processing changes nothing).
    raw: Option<crate::load::Chart>,
    chart: crate::load::Chart,
    values: Map,
    /// The `-f` files' layers, when they were read for explaining.
    files: Option<crate::explain::FileLayers>,
}

/// Loads the chart and computes its final values (the first half of `template_in`);
/// `with_layers` also keeps what explaining them needs (the `-f` files' layers, the chart
/// before processing).
fn prepare(
    fs: &dyn crate::fs::ChartFs,
    chart_dir: &Path,
    cwd: &Path,
    o: &TemplateOptions,
    with_layers: bool,
) -> Result<Prepared, TemplateError> {
    validate_release_name(&o.release_name).map_err(TemplateError::load)?;
    // Explaining reads each `-f` file once, for its values and its positions; a file that
    // does not read cleanly is left to the merge, which reports it as Helm does.
    let files = with_layers
        .then(|| crate::explain::file_layers(fs, cwd, o).ok())
        .flatten();
    let decoded: Option<Vec<_>> = files
        .as_ref()
        .map(|(layers, _)| layers.iter().map(|l| l.values.clone()).collect());
    let user = o
        .values
        .merge_with(&|p: &str| o.values_file(fs, cwd, p), decoded.as_deref())
        .map_err(|e| {
            let err = TemplateError::values(e.message);
            match (e.file, e.pos) {
                (Some(f), Some(p)) => err.at(relative_to(cwd, &f), p.line, p.column),
                _ => err,
            }
        })?;
    let mut chart =
        crate::cache::load_for(fs, chart_dir, o.patches.manifests, o.chart_cache.as_ref())
            .map_err(|e| {
                let err = TemplateError::load(e.message);
                match (e.file, e.pos) {
                    (Some(f), Some(p)) if fs.is_dir(chart_dir) => {
                        err.at(chart_dir.join(f), p.line, p.column)
                    }
                    _ => err,
                }
            })?;
    if !chart.metadata.chart_type.is_empty() && chart.metadata.chart_type != "application" {
        return Err(TemplateError::load(format!(
            "{} charts are not installable",
            chart.metadata.chart_type
        )));
    }
    if let Some(b) = &o.dependency_builder {
        crate::dependencies::build_missing(&mut chart, chart_dir, b)
            .map_err(TemplateError::dependencies)?;
    }
    for (dep, sub) in &o.extra_dependencies {
        chart.metadata.dependencies.push(dep.clone());
        chart.dependencies.push(sub.clone());
    }
    check_dependencies(&chart).map_err(TemplateError::dependencies)?;
    // Without subcharts, processing changes nothing the layers read.
    let raw = (with_layers && !chart.dependencies.is_empty()).then(|| chart.clone());
    process_dependencies(&mut chart, &user).map_err(|e| {
        TemplateError::dependencies(format!("chart dependencies processing failed: {e}"))
    })?;
    let mut warnings = Vec::new();
    let values = capstan_values::coalesce_values(&chart_values(&chart), &user, &mut warnings)
        .map_err(TemplateError::values)?;
    if !o.skip_schema_validation {
        crate::schema::validate_chart(&chart, &values).map_err(|report| {
            TemplateError::values(format!(
                "values don't meet the specifications of the schema(s) in the following chart(s):\n{report}"
            ))
        })?;
    }
    Ok(Prepared {
        raw,
        chart,
        values,
        files,
    })
}

/// The final `.Values` of a chart rendered with `o` (what `template_in` renders with,
/// without rendering a template) and the layers they came from
/// ([`crate::explain::layers_in`]), from one load of the chart and one read of the values
/// files.
pub fn values_and_layers(
    fs: &dyn crate::fs::ChartFs,
    chart_dir: &Path,
    cwd: &Path,
    o: &TemplateOptions,
) -> Result<(Map, crate::explain::Layers), TemplateError> {
    let (p, layers) = prepared_with_layers(fs, chart_dir, cwd, o)?;
    Ok((p.values, layers))
}

/// The chart prepared for rendering (kept unprocessed beside it) and its value layers.
fn prepared_with_layers(
    fs: &dyn crate::fs::ChartFs,
    chart_dir: &Path,
    cwd: &Path,
    o: &TemplateOptions,
) -> Result<(Prepared, crate::explain::Layers), TemplateError> {
    let mut p = prepare(fs, chart_dir, cwd, o, true)?;
    let files = p.files.take();
    let raw = p.raw.as_ref().unwrap_or(&p.chart);
    let layers = crate::explain::layers_of(raw, &p.chart, chart_dir, cwd, fs, o, files)
        .map_err(TemplateError::values)?;
    Ok((p, layers))
}

/// Renders a chart as `helm template` does.
pub fn template_in(
    fs: &dyn crate::fs::ChartFs,
    chart_dir: &Path,
    cwd: &Path,
    o: &TemplateOptions,
) -> Result<Rendered, TemplateError> {
    let prepared = prepare(fs, chart_dir, cwd, o, false)?;
    render_prepared(fs, chart_dir, o, prepared)
}

/// [`template_in`] and the layers its values came from ([`crate::explain::layers_in`]),
/// from one load of the chart and one read of the values files.
pub fn template_with_layers(
    fs: &dyn crate::fs::ChartFs,
    chart_dir: &Path,
    cwd: &Path,
    o: &TemplateOptions,
) -> Result<(Rendered, crate::explain::Layers), TemplateError> {
    let (prepared, layers) = prepared_with_layers(fs, chart_dir, cwd, o)?;
    Ok((render_prepared(fs, chart_dir, o, prepared)?, layers))
}

/// Renders a prepared chart: templates, patches, post-renderer, Helm's manifest order.
fn render_prepared(
    fs: &dyn crate::fs::ChartFs,
    chart_dir: &Path,
    o: &TemplateOptions,
    prepared: Prepared,
) -> Result<Rendered, TemplateError> {
    let Prepared { chart, values, .. } = prepared;
    let (caps, kube) = capabilities(o)?;
    if !chart.metadata.kube_version.is_empty()
        && !capstan_gocompat::semver::semver_compare(&chart.metadata.kube_version, &kube)
            .unwrap_or(false)
    {
        return Err(TemplateError::render(format!(
            "chart requires kubeVersion: {} which is incompatible with Kubernetes {kube}",
            chart.metadata.kube_version
        )));
    }
    let ctx = RenderContext {
        release: release_object(o),
        capabilities: caps,
    };
    let values_value = Value::map_from(values.clone());
    let mut files = render(&chart, &values_value, &ctx).map_err(|e| {
        let err = TemplateError::render(e.message);
        match e.at {
            Some((f, line, col)) if fs.is_dir(chart_dir) => err.at(chart_dir.join(f), line, col),
            _ => err,
        }
    })?;
    files.retain(|k, _| !k.ends_with("NOTES.txt"));
    if !o.patches.is_empty() {
        files = crate::patch::apply(&files, &chart.metadata.name, &o.patches)
            .map_err(TemplateError::render)?;
    }
    if let Some(pr) = &o.post_renderer {
        files = crate::postrender::post_render(&files, pr).map_err(TemplateError::render)?;
    }
    let sorted = sort_manifests(&files).map_err(|e| {
        let mut err = TemplateError::render(e);
        err.rendered = Some(
            crate::manifests::manifest_files(&files)
                .map(|(path, content)| format!("---\n# Source: {path}\n{content}\n"))
                .collect(),
        );
        err
    })?;

    // `---`, the `# Source:` line, the document and a newline, for each document.
    let push_document = |out: &mut String, path: &str, content: &str| {
        out.push_str("---\n# Source: ");
        out.push_str(path);
        out.push('\n');
        out.push_str(content);
        out.push('\n');
    };
    let crds = if o.include_crds {
        chart.crd_files("")
    } else {
        Vec::new()
    };
    let crd_texts: Vec<(String, std::borrow::Cow<str>)> = crds
        .into_iter()
        .map(|(path, f)| Ok((path, crate::render::lossy_text(f.data.get()?))))
        .collect::<Result<_, String>>()
        .map_err(TemplateError::render)?;
    let size = crd_texts
        .iter()
        .map(|(p, c)| p.len() + c.len() + 16)
        .sum::<usize>()
        + sorted
            .manifests
            .iter()
            .chain(&sorted.hooks)
            .map(|m| m.source.len() + m.content.len() + 16)
            .sum::<usize>();
    let mut manifest = String::with_capacity(size + 1);
    let mut documents = Vec::new();
    for (path, content) in &crd_texts {
        push_document(&mut manifest, path, content);
        if o.keep_documents {
            documents.push((path.clone(), content.to_string()));
        }
    }
    for m in &sorted.manifests {
        push_document(&mut manifest, m.source, m.content);
        if o.keep_documents {
            documents.push((m.source.to_string(), m.content.to_string()));
        }
    }
    // Helm trims the resources' text (a chart without any prints a lone newline).
    manifest.truncate(manifest.trim_end().len());
    manifest.push('\n');
    for h in &sorted.hooks {
        if o.no_hooks || (o.skip_tests && h.events.iter().any(|e| e == HOOK_TEST)) {
            continue;
        }
        push_document(&mut manifest, h.source, h.content);
        if o.keep_documents {
            documents.push((h.source.to_string(), h.content.to_string()));
        }
    }
    Ok(Rendered {
        values,
        manifest,
        documents,
    })
}
