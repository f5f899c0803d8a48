//! The offline helmfile commands over a loaded run: `template`, `build`, `list`,
//! `write-values`, `print-env` and `show-dag`. Each returns what helmfile prints on
//! standard output (or the files it writes, for the CLI to write all at once), in
//! helmfile's formats.

use crate::app::PreparedState;
use crate::load::Settings;
use crate::merge::Tree;
use crate::release::Release;
use crate::release_values::{chart_input, HelmFlags};
use crate::select::{condition_enabled, dag_table, plan_batches};
use crate::StateError;
use capstan_value::json::{to_json, JsonStyle};
use capstan_value::{Str, Value};
use sha1::Digest;
use std::collections::BTreeMap;
use std::path::Path;

/// One release rendered by `template`.
#[derive(Clone, Debug)]
pub struct RenderedRelease {
    pub name: String,
    pub chart: String,
    /// The release's namespace (where its objects without one go).
    pub namespace: String,
    /// `helm template`'s standard output.
    pub manifest: String,
    /// The same documents named by their template (what `--output-dir` writes); empty
    /// unless [`HelmFlags::keep_documents`] asks for them.
    pub documents: Vec<(String, String)>,
}

/// A release `template` failed on, with the located chart error when there is one.
#[derive(Clone, Debug)]
pub struct ReleaseError {
    pub release: String,
    /// How helmfile names the release's state file in its errors
    /// ([`PreparedState::context`]); empty when the error is not about one state.
    pub state: std::sync::Arc<str>,
    pub message: String,
    pub location: Option<crate::Location>,
    /// For a manifest that is not valid YAML: every rendered file, as `helm template
    /// --debug` prints them.
    pub rendered: Option<String>,
}

impl std::fmt::Display for ReleaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // helmfile names the state file, not the release.
        if self.state.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.state, self.message)
        }
    }
}

/// Renders the active releases of every state, in order. Releases render in parallel
/// on up to `concurrency` threads (0: one per core); the result keeps helmfile's order.
pub fn template(
    s: &Settings,
    states: &[PreparedState],
    flags: &HelmFlags,
    concurrency: usize,
) -> Result<Vec<RenderedRelease>, ReleaseError> {
    template_reporting(s, states, flags, concurrency, &|_, _| {}, None)
}

/// [`template`], calling `done(finished, total)` as each release finishes (from the
/// rendering threads), for a progress display.
pub fn template_reporting(
    s: &Settings,
    states: &[PreparedState],
    flags: &HelmFlags,
    concurrency: usize,
    done: &(dyn Fn(usize, usize) + Sync),
    emit: Option<&(dyn Fn(RenderedRelease) + Sync)>,
) -> Result<Vec<RenderedRelease>, ReleaseError> {
    let mut jobs: Vec<(&PreparedState, &Release)> = Vec::new();
    for ps in states {
        let active = ps.active().map_err(|e| ReleaseError {
            release: String::new(),
            state: ps.context.as_str().into(),
            message: e.message,
            location: e.location,
            rendered: None,
        })?;
        // helmfile renders a state's releases in the order of their `needs:`.
        for i in crate::select::dag_order(&active) {
            jobs.push((ps, active[i]));
        }
    }
    // The first failure in the states' order is the error; nothing after it is kept.
    let kept = std::sync::Mutex::new(Ok(Vec::new()));
    parallel_in_order(
        &jobs,
        concurrency,
        |(ps, r)| render_one(s, ps, r, flags),
        done,
        &|result| {
            let Ok(mut kept) = kept.lock() else { return };
            let Ok(so_far) = kept.as_mut() else { return };
            match result {
                Some(Ok(r)) => match emit {
                    Some(emit) => emit(r),
                    None => so_far.push(r),
                },
                Some(Err(e)) => *kept = Err(e),
                None => {
                    *kept = Err(ReleaseError {
                        release: String::new(),
                        state: "".into(),
                        message: "a rendering thread stopped".into(),
                        location: None,
                        rendered: None,
                    })
                }
            }
        },
    );
    kept.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// `f` over every job on `concurrency` threads (0: one per core), the results in the jobs'
/// order (`None` where a thread stopped); `done(finished, total)` after each job. Each
/// thread has the large reserved stack renders need.
fn parallel_map<T: Sync, R: Send>(
    jobs: &[T],
    concurrency: usize,
    f: impl Fn(&T) -> R + Sync,
    done: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Option<R>> {
    let results = std::sync::Mutex::new(Vec::with_capacity(jobs.len()));
    parallel_in_order(jobs, concurrency, f, done, &|r| {
        if let Ok(mut all) = results.lock() {
            all.push(r);
        }
    });
    results.into_inner().unwrap_or_default()
}

/// [`parallel_map`] handing each result to `emit` in the jobs' order as soon as it and
/// every earlier one are done (`None` for a job whose thread stopped), so that a result
/// need not wait in memory for the slowest job; `emit` runs on one thread at a time.
fn parallel_in_order<T: Sync, R: Send>(
    jobs: &[T],
    concurrency: usize,
    f: impl Fn(&T) -> R + Sync,
    done: &(dyn Fn(usize, usize) + Sync),
    emit: &(dyn Fn(Option<R>) + Sync),
) {
    let workers = if concurrency == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    } else {
        concurrency
    }
    .clamp(1, jobs.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    // The next job to emit; whoever holds it emits every finished result from there.
    let emitted = std::sync::Mutex::new(0usize);
    let drain = || {
        let Ok(mut at) = emitted.lock() else { return };
        while let Some(r) = results
            .get(*at)
            .and_then(|slot| slot.lock().ok().and_then(|mut s| s.take()))
        {
            emit(Some(r));
            *at += 1;
        }
    };
    let work = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(job) = jobs.get(i) else { break };
        let out = f(job);
        if let Ok(mut slot) = results[i].lock() {
            *slot = Some(out);
        }
        done(
            finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
            jobs.len(),
        );
        drain();
    };
    capstan_value::stack::deep_workers(workers, "capstan-render", work);
    // What is left follows a job whose thread stopped.
    let from = emitted.into_inner().unwrap_or_else(|e| e.into_inner());
    for slot in results.into_iter().skip(from) {
        emit(slot.into_inner().ok().flatten());
    }
}

/// Renders one release of a state (its values computed, its chart loaded and rendered).
pub fn render_one(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    flags: &HelmFlags,
) -> Result<RenderedRelease, ReleaseError> {
    let fail = |message: String, location| ReleaseError {
        release: r.name.clone(),
        state: ps.context.as_str().into(),
        message,
        location,
        rendered: None,
    };
    // The release is named once, by `ReleaseError`.
    let located = |e: StateError| {
        let location = e
            .location
            .clone()
            .or_else(|| crate::app::locate(s, &ps.state.file, &e));
        fail(e.message, location)
    };
    let input = chart_input(s, ps, r, flags).map_err(located)?;
    if !input.local {
        let mut out = render_with_helm(s, ps, r, &input).map_err(located)?;
        if !flags.show_only.is_empty() {
            out.manifest = capstan_chart::manifests::show_only(&out.manifest, &flags.show_only)
                .map_err(|e| fail(e.0, None))?;
        }
        // helm printed it: its `# Source:` lines are all there is to name files by
        // (`output_files` keeps them inside the output directory).
        if flags.keep_documents {
            out.documents = capstan_chart::manifests::documents_of(&out.manifest);
        }
        return Ok(out);
    }
    // Paths are relative to the host's working directory; the host resolves them.
    let fs = crate::host::HostFs(s.host.as_ref());
    let rendered = capstan_chart::template::template_in(
        &fs,
        Path::new(&input.chart),
        Path::new(""),
        &input.options,
    )
    .map_err(|e| {
        // Locations are shown (and read back for snippets) from the process's own
        // directory: make them absolute under the working directory.
        let location = e.location.clone().map(|mut l| {
            l.file = crate::host::join(&s.root, &l.file)
                .to_string_lossy()
                .into_owned();
            l
        });
        ReleaseError {
            rendered: e.rendered.clone(),
            ..fail(e.to_string(), location)
        }
    })?;
    let (manifest, documents) = if flags.show_only.is_empty() {
        (rendered.manifest, rendered.documents)
    } else {
        // `helm template --show-only`, as helmfile passes it to every release.
        let text = capstan_chart::manifests::show_only(&rendered.manifest, &flags.show_only)
            .map_err(|e| fail(e.0, None))?;
        let docs = capstan_chart::manifests::documents_of(&text);
        (text, docs)
    };
    Ok(RenderedRelease {
        name: r.name.clone(),
        chart: r.chart.clone(),
        namespace: r.namespace.clone(),
        manifest,
        documents: if flags.keep_documents {
            documents
        } else {
            Vec::new()
        },
    })
}

/// A chart that is not on disk: `helm template` renders it, as helmfile does, with the
/// values files written to a private directory removed afterwards.
fn render_with_helm(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    input: &crate::release_values::ChartInput,
) -> Result<RenderedRelease, StateError> {
    let named = crate::release_values::overlay_for_helm(input);
    let dir = s.host.write_private(&named).map_err(|e| {
        format!(
            "chart {:?} is not a local chart, and its values could not be written for helm: {e}",
            r.chart
        )
    })?;
    let args = crate::release_values::helm_template_args(input, &dir);
    let helm = if s.helm_binary.is_empty() {
        crate::spec::str_of(&ps.state.doc, "helmBinary")
    } else {
        s.helm_binary.clone()
    };
    let helm = if helm.is_empty() {
        "helm".to_string()
    } else {
        helm
    };
    let out = s
        .host
        .exec(&helm, &args, &[], None, Path::new(&ps.state.base));
    let _ = s.host.remove_private(&dir);
    let manifest = out.map_err(|e| match e {
        crate::host::ExecError::NotStarted { .. } => StateError::new(format!(
            "chart {:?} is not a local chart: rendering it needs helm ({helm}), which is not installed ({e})",
            r.chart
        )),
        e => e.into(),
    })?;
    Ok(RenderedRelease {
        name: r.name.clone(),
        chart: r.chart.clone(),
        namespace: r.namespace.clone(),
        manifest,
        documents: Vec::new(),
    })
}

fn sha8(s: &Settings, file: &str) -> String {
    let abs = absolute(&s.root, file);
    let digest = sha1::Sha1::digest(abs.to_string_lossy().as_bytes());
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

fn strip_ext(file: &str) -> &str {
    let name_start = file.rfind('/').map(|i| i + 1).unwrap_or(0);
    match file[name_start..].rfind('.') {
        Some(i) => &file[..name_start + i],
        None => file,
    }
}

/// The data of `--output-dir-template` / `--output-file-template`.
pub fn path_template_data(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    output_dir: &str,
) -> Value {
    let file = &ps.state.file;
    let abs = absolute(&s.root, file);
    let mut state = BTreeMap::new();
    state.insert(Str::from("BaseName"), Value::from(strip_ext(file)));
    state.insert(Str::from("Path"), Value::from(file.as_str()));
    state.insert(
        Str::from("AbsPath"),
        Value::from(abs.to_string_lossy().into_owned()),
    );
    state.insert(Str::from("AbsPathSHA1"), Value::from(sha8(s, file)));
    let mut release = BTreeMap::new();
    release.insert(Str::from("Name"), Value::from(r.name.as_str()));
    release.insert(Str::from("Namespace"), Value::from(r.namespace.as_str()));
    release.insert(Str::from("Chart"), Value::from(r.chart.as_str()));
    release.insert(Str::from("Version"), Value::from(r.version.as_str()));
    release.insert(
        Str::from("KubeContext"),
        Value::from(r.kube_context.as_str()),
    );
    let env = &ps.state.env;
    let mut environment = BTreeMap::new();
    environment.insert(Str::from("Name"), Value::from(env.name.as_str()));
    environment.insert(
        Str::from("KubeContext"),
        Value::from(env.kube_context.as_str()),
    );
    environment.insert(
        Str::from("Values"),
        Value::map_from(ps.state.values.clone()),
    );
    let mut m = BTreeMap::new();
    m.insert(Str::from("OutputDir"), Value::from(output_dir));
    m.insert(Str::from("State"), Value::map_from(state));
    m.insert(Str::from("Release"), Value::map_from(release));
    m.insert(Str::from("Environment"), Value::map_from(environment));
    Value::map_from(m)
}

/// Renders a plain Go template (no helmfile functions) as helmfile does for paths.
///
/// What the data brings in (a release name, a label, a namespace) cannot climb out of the
/// folder the template names: a `..` component, or an absolute path, that neither the
/// template's own text nor `output_dir` (the `--output-dir` the user gave) writes is an
/// error.
pub fn render_path(template: &str, data: &Value, output_dir: &str) -> Result<String, StateError> {
    let mut t = capstan_gotmpl::Templates::new(Default::default());
    t.parse("output", template)?;
    let path = t.execute("output", data).map_err(|e| e.to_string())?;
    let climbs = |p: &str| p.split(['/', '\\']).filter(|c| *c == "..").count();
    let absolute = |p: &str| p.starts_with('/') || p.starts_with('\\');
    let literal: String = template
        .split("{{")
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part
            } else {
                part.split_once("}}").map_or("", |(_, rest)| rest)
            }
        })
        .collect();
    let allowed = climbs(&literal) + climbs(output_dir);
    let may_be_absolute = absolute(template) || absolute(output_dir);
    if climbs(&path) > allowed || (absolute(&path) && !may_be_absolute) {
        return Err(format!(
            "refusing to write to {path:?}: the values put into {template:?} would leave the folder it names"
        ).into());
    }
    Ok(path)
}

/// `helm template --output-dir`: each document written to `DIR/<its template path>`
/// (documents of one template together, each after `---`), named from the template the
/// document came from, never from the rendered text. A path that would leave `DIR`
/// (absolute, or with `..`) is an error.
pub fn output_files(
    dir: &str,
    documents: &[(String, String)],
) -> Result<Vec<(String, String)>, StateError> {
    let mut files: Vec<(String, String)> = Vec::new();
    for (source, content) in documents {
        let inside = !source.is_empty()
            && !source.starts_with('/')
            && !source.starts_with('\\')
            && source
                .split(['/', '\\'])
                .all(|c| !c.is_empty() && c != ".." && c != ".");
        if !inside {
            return Err(format!(
                "refusing to write manifest {source:?}: its path would leave the output directory {dir:?}"
            ).into());
        }
        let path = format!("{}/{}", dir.trim_end_matches('/'), source);
        // Helm 4.3's --output-dir: each document as rendered, then a newline.
        let text = format!("---\n# Source: {source}\n{content}\n");
        match files.iter_mut().find(|(p, _)| *p == path) {
            Some((_, existing)) => existing.push_str(&text),
            None => files.push((path, text)),
        }
    }
    Ok(files)
}

/// `list`'s rows: name, namespace, enabled, installed, labels, chart, version.
pub fn list_rows(states: &[PreparedState]) -> Result<Vec<[String; 7]>, StateError> {
    let mut rows = Vec::new();
    for ps in states {
        for i in ps.selected.iter().copied() {
            let r = &ps.releases[i];
            // The release's labels with the implicit `chart`, `name` and `namespace`.
            let labels: Vec<String> = r
                .selector_labels()
                .iter()
                .map(|(k, v)| format!("{k}:{v}"))
                .collect();
            rows.push([
                r.name.clone(),
                r.namespace.clone(),
                condition_enabled(r, &ps.state.values)?.to_string(),
                r.desired().to_string(),
                labels.join(","),
                r.chart.clone(),
                r.version.clone(),
            ]);
        }
    }
    // helmfile lists releases by namespace, then name (in state order otherwise).
    rows.sort_by(|a, b| (&a[1], &a[0]).cmp(&(&b[1], &b[0])));
    Ok(rows)
}

/// `list` as a table (gosuri/uitable: cells padded to the column width, tab-separated,
/// trailing blanks trimmed).
pub fn list_table(rows: &[[String; 7]]) -> String {
    let header = [
        "NAME",
        "NAMESPACE",
        "ENABLED",
        "INSTALLED",
        "LABELS",
        "CHART",
        "VERSION",
    ]
    .map(String::from);
    let all: Vec<&[String; 7]> = std::iter::once(&header).chain(rows.iter()).collect();
    let widths: Vec<usize> = (0..7)
        .map(|c| all.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in all {
        let line: Vec<String> = (0..7)
            .map(|c| format!("{:<w$}", r[c], w = widths[c]))
            .collect();
        out.push_str(line.join("\t").trim_end());
        out.push('\n');
    }
    out
}

/// `list --output json`.
pub fn list_json(rows: &[[String; 7]]) -> String {
    let items: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut m = BTreeMap::new();
            m.insert(Str::from("name"), Value::from(r[0].as_str()));
            m.insert(Str::from("namespace"), Value::from(r[1].as_str()));
            m.insert(Str::from("enabled"), Value::Bool(r[2] == "true"));
            m.insert(Str::from("installed"), Value::Bool(r[3] == "true"));
            m.insert(Str::from("labels"), Value::from(r[4].as_str()));
            m.insert(Str::from("chart"), Value::from(r[5].as_str()));
            m.insert(Str::from("version"), Value::from(r[6].as_str()));
            Value::map_from(m)
        })
        .collect();
    // Go's struct field order: name, namespace, enabled, installed, labels, chart, version.
    let mut out = String::from("[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('{');
        let keys = [
            "name",
            "namespace",
            "enabled",
            "installed",
            "labels",
            "chart",
            "version",
        ];
        for (j, k) in keys.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            let v = item.get(k).unwrap_or(Value::Nil);
            out.push_str(&format!(
                "\"{k}\":{}",
                to_json(
                    &v,
                    JsonStyle {
                        escape_html: true,
                        indent: None
                    }
                )
                .unwrap_or_default()
            ));
        }
        out.push('}');
    }
    out.push_str("]\n");
    out
}

/// One state file's environment values, explained (`print-env --explain`).
pub struct ExplainedEnv {
    /// The state file.
    pub file: String,
    /// The environment's name.
    pub environment: String,
    /// Every leaf of its values, with the layer that set it and the ones it overrode.
    pub leaves: Vec<capstan_values::provenance::Explained>,
}

/// Explains the environment values of each state from the layers recorded while loading
/// (`s.env_journal` must have been set before the states were loaded).
pub fn explain_env(s: &Settings, states: &[PreparedState]) -> Vec<ExplainedEnv> {
    let journal = s
        .env_journal
        .as_ref()
        .and_then(|j| j.lock().ok().map(|j| j.clone()))
        .unwrap_or_default();
    states
        .iter()
        .map(|ps| {
            // A file is loaded again for each `---` part: its last recording holds what
            // was merged last.
            let mut kept: Vec<&crate::envvals::EnvLayer> = Vec::new();
            for l in journal
                .iter()
                .filter(|l| l.state_file.is_empty() || l.state_file == ps.state.file)
            {
                kept.retain(|k| (k.tier, &k.kind, &k.label) != (l.tier, &l.kind, &l.label));
                kept.push(l);
            }
            kept.sort_by_key(|l| l.tier);
            let layers: Vec<capstan_values::provenance::Layer> = kept
                .into_iter()
                .map(|l| capstan_values::provenance::Layer {
                    label: l.label.clone(),
                    kind: l.kind.clone(),
                    prefix: Vec::new(),
                    values: l.values.clone(),
                    spans: l.spans.clone(),
                    origins: l.origins.clone(),
                })
                .collect();
            let mut leaves = capstan_values::provenance::explain(&ps.state.values, &layers);
            let lookup = leaves.clone();
            crate::template_chain::Chains::new(s.host.as_ref(), &lookup).follow(&mut leaves);
            ExplainedEnv {
                file: ps.state.file.clone(),
                environment: ps.state.env.name.clone(),
                leaves,
            }
        })
        .collect()
}

/// `print-env` documents.
pub fn print_env(s: &Settings, states: &[PreparedState], json: bool) -> Result<String, StateError> {
    let mut docs = Vec::new();
    for ps in states {
        let mut m = BTreeMap::new();
        let abs = absolute(&s.root, &ps.state.file);
        m.insert(
            Str::from("filePath"),
            Value::from(abs.to_string_lossy().into_owned()),
        );
        m.insert(Str::from("name"), Value::from(ps.state.env.name.as_str()));
        // helmfile v1.7 leaves an empty kubeContext out.
        if !ps.state.env.kube_context.is_empty() {
            m.insert(
                Str::from("kubeContext"),
                Value::from(ps.state.env.kube_context.as_str()),
            );
        }
        m.insert(
            Str::from("values"),
            Value::map_from(ps.state.values.clone()),
        );
        docs.push(Value::map_from(m));
    }
    if json {
        let mut out = String::from("[\n");
        for (i, d) in docs.iter().enumerate() {
            if i > 0 {
                out.push_str(",\n");
            }
            let text = to_json(
                d,
                JsonStyle {
                    escape_html: true,
                    indent: Some("  "),
                },
            )?;
            out.push_str("  ");
            out.push_str(&text.replace('\n', "\n  "));
        }
        out.push_str("\n]\n");
        return Ok(out);
    }
    let mut out = String::new();
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&capstan_yaml::encode_helmfile(d).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// `show-dag` for every state.
pub fn show_dag(states: &[PreparedState]) -> Result<String, crate::select::NeedsError> {
    let mut out = String::new();
    for ps in states {
        let releases: Vec<Release> = ps
            .selected
            .iter()
            .map(|&i| ps.releases[i].clone())
            .collect();
        if releases.is_empty() {
            continue;
        }
        let batches = plan_batches(&releases).map_err(|e| needs_error(ps, e))?;
        out.push_str(&dag_table(&releases, &batches));
    }
    Ok(out)
}

/// A `needs:` problem of state `ps`, named as helmfile names it.
fn needs_error(ps: &PreparedState, e: crate::select::NeedsError) -> crate::select::NeedsError {
    crate::select::NeedsError {
        file: ps.state.file.clone(),
        message: format!("{}: {}", ps.context, e.message),
        ..e
    }
}

/// Checks the `needs:` graph of every state (cycles and unknown releases are errors).
pub fn check_needs(states: &[PreparedState]) -> Result<(), crate::select::NeedsError> {
    for ps in states {
        plan_batches(&ps.releases).map_err(|e| needs_error(ps, e))?;
    }
    Ok(())
}

/// The fields of helmfile's `HelmSpec` (`helmDefaults:`) in the struct's order.
const HELM_SPEC_ORDER: &[&str] = &[
    "kubeContext",
    "args",
    "verify",
    "keyring",
    "enableDNS",
    "devel",
    "wait",
    "waitForJobs",
    "timeout",
    "recreatePods",
    "force",
    "atomic",
    "cleanupOnFail",
    "historyMax",
    "createNamespace",
    "skipDeps",
    "reuseValues",
    "postRenderer",
    "cascade",
    "disableValidation",
    "disableOpenAPIValidation",
    "insecureSkipTLSVerify",
    "deleteWait",
    "deleteTimeout",
];

/// The field order of the Go structs `build` prints inside a state or a release:
/// `helmDefaults` (`HelmSpec`) and `hooks` (`[]event.Hook`). Keys not listed follow,
/// sorted.
fn struct_order(key: &str) -> Option<&'static [&'static str]> {
    match key {
        "helmDefaults" => Some(HELM_SPEC_ORDER),
        "hooks" => Some(&[
            "name",
            "events",
            "command",
            "kubectlApply",
            "args",
            "showlogs",
        ]),
        _ => None,
    }
}

/// A map's entries in `order`, then the rest in key order.
fn ordered_entries(m: &BTreeMap<Str, Value>, order: &[&str]) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = order
        .iter()
        .filter_map(|k| m.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    out.extend(
        m.iter()
            .filter(|(k, _)| !order.contains(&k.as_ref()))
            .map(|(k, v)| (k.to_string(), v.clone())),
    );
    out
}

/// A struct-like mapping in field order, as yaml.v3 writes a Go struct: each `(key,
/// value)` becomes `key: value` with the value in helmfile's YAML (a nested struct of
/// [`struct_order`] in its own field order).
fn struct_yaml(fields: &[(String, Value)]) -> Result<String, StateError> {
    let mut out = String::new();
    for (k, v) in fields {
        if let Some(order) = struct_order(k) {
            match v {
                Value::Map(m) if !m.is_empty() => {
                    out.push_str(&format!(
                        "{k}:
"
                    ));
                    for line in struct_yaml(&ordered_entries(&m.read(), order))?.lines() {
                        out.push_str(&format!("  {line}\n"));
                    }
                    continue;
                }
                Value::List(l) if !l.items.is_empty() && l.items.iter().all(Value::is_map) => {
                    let items: Vec<Vec<(String, Value)>> = l
                        .items
                        .iter()
                        .filter_map(|i| i.as_map().map(|m| ordered_entries(&m.read(), order)))
                        .collect();
                    out.push_str(&struct_list_yaml(k, &items)?);
                    continue;
                }
                _ => {}
            }
        }
        let mut one = BTreeMap::new();
        one.insert(Str::from(k.as_str()), v.clone());
        out.push_str(
            &capstan_yaml::encode_helmfile(&Value::map_from(one)).map_err(|e| e.to_string())?,
        );
    }
    Ok(out)
}

/// A list of struct-like mappings under `key:` (block style, two-space indent).
fn struct_list_yaml(key: &str, items: &[Vec<(String, Value)>]) -> Result<String, StateError> {
    if items.is_empty() {
        return Ok(String::new());
    }
    let mut out = format!("{key}:\n");
    for item in items {
        let body = struct_yaml(item)?;
        for (i, line) in body.lines().enumerate() {
            out.push_str(if i == 0 { "  - " } else { "    " });
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

fn release_fields(r: &Release) -> Vec<(String, Value)> {
    let mut raw = r.raw.clone();
    let mut labels: BTreeMap<Str, Value> = r
        .labels
        .iter()
        .map(|(k, v)| (Str::from(k.as_str()), Value::from(v.as_str())))
        .collect();
    labels.insert(
        Str::from("chart"),
        Value::from(crate::release::chart_name(&r.chart)),
    );
    labels.insert(Str::from("name"), Value::from(r.name.as_str()));
    labels.insert(Str::from("namespace"), Value::from(r.namespace.as_str()));
    raw.insert(Str::from("labels"), Value::map_from(labels));
    raw.insert(Str::from("name"), Value::from(r.name.as_str()));
    raw.insert(Str::from("chart"), Value::from(r.chart.as_str()));
    if !r.namespace.is_empty() {
        raw.insert(Str::from("namespace"), Value::from(r.namespace.as_str()));
    }
    // `set:`/`setString:` entries are Go structs of strings (`SetValue`).
    for key in ["set", "setString"] {
        let entries = if key == "set" { &r.set } else { &r.set_string };
        if entries.is_empty() {
            continue;
        }
        let items = entries
            .iter()
            .map(|sv| {
                let mut m: BTreeMap<Str, Value> = BTreeMap::new();
                m.insert(Str::from("name"), Value::from(sv.name.as_str()));
                for (k, v) in [("value", &sv.value), ("file", &sv.file)] {
                    if !v.is_empty() {
                        m.insert(Str::from(k), Value::from(v.as_str()));
                    }
                }
                if !sv.values.is_empty() {
                    m.insert(
                        Str::from("values"),
                        Value::list_from(
                            sv.values.iter().map(|x| Value::from(x.as_str())).collect(),
                        ),
                    );
                }
                Value::map_from(m)
            })
            .collect();
        raw.insert(Str::from(key), Value::list_from(items));
    }
    if !r.kube_context.is_empty() {
        raw.insert(
            Str::from("kubeContext"),
            Value::from(r.kube_context.as_str()),
        );
    }
    // `needs:` as the full IDs helmfile completes them to (`kc/ns/name`).
    if !r.needs.is_empty() {
        raw.insert(
            Str::from("needs"),
            Value::list_from(
                r.needs
                    .iter()
                    .map(|n| Value::from(crate::select::need_id(r, n)))
                    .collect(),
            ),
        );
    }
    if let Some(hooks) = raw.get("hooks").map(hooks_as_structs) {
        raw.insert(Str::from("hooks"), hooks);
    }
    crate::spec::RELEASE_KEYS
        .iter()
        .filter_map(|k| {
            // `*bool` fields are printed when set, `false` included.
            raw.get(*k)
                .filter(|v| {
                    !crate::spec::is_empty(v)
                        || *k == "labels"
                        || (matches!(v, Value::Bool(_))
                            && crate::spec::RELEASE_BOOL_KEYS.contains(k))
                })
                .map(|v| (k.to_string(), v.clone()))
        })
        .collect()
}

/// `hooks:` as helmfile prints its `event.Hook` structs: `name`, `events`, `command`,
/// (`kubectlApply` when set), `args` and `showlogs`, the empty ones included (keys sorted, as
/// helmfile v0.166 prints them).
fn hooks_as_structs(hooks: &Value) -> Value {
    let Some(list) = hooks.as_list() else {
        return hooks.clone();
    };
    let items = list
        .items
        .iter()
        .map(|h| {
            let Some(m) = h.as_map().map(|m| m.snapshot()) else {
                return h.clone();
            };
            let mut out: Vec<(Str, Value)> = Vec::new();
            let get = |k: &str| m.get(k).cloned().filter(|v| !matches!(v, Value::Nil));
            out.push((
                "name".into(),
                get("name").unwrap_or_else(|| Value::from("")),
            ));
            out.push((
                "events".into(),
                get("events").unwrap_or_else(|| Value::list_from(Vec::new())),
            ));
            out.push((
                "command".into(),
                get("command").unwrap_or_else(|| Value::from("")),
            ));
            if let Some(k) = get("kubectlApply") {
                out.push(("kubectlApply".into(), k));
            }
            out.push((
                "args".into(),
                get("args").unwrap_or_else(|| Value::list_from(Vec::new())),
            ));
            out.push((
                "showlogs".into(),
                get("showlogs").unwrap_or(Value::Bool(false)),
            ));
            // Anything else the hook carries (a newer helmfile's field) after them.
            for (k, v) in &m {
                if !out.iter().any(|(o, _)| o == k) {
                    out.push((k.clone(), v.clone()));
                }
            }
            Value::map_from(out.into_iter().collect())
        })
        .collect();
    Value::list_from(items)
}

/// `helmDefaults` as helmfile prints its `HelmSpec`: the fields without `omitempty`
/// (booleans and numbers) always, with what else was set (keys sorted, as helmfile
/// v0.166 prints them); nothing at all when every field is empty (yaml's `omitempty` on
/// the struct).
fn helm_defaults_struct(v: &Value) -> Option<Value> {
    let m = v.as_map()?.snapshot();
    if m.values().all(crate::spec::is_empty) {
        return None;
    }
    const ALWAYS: &[(&str, bool)] = &[
        ("verify", true),
        ("enableDNS", true),
        ("devel", true),
        ("wait", true),
        ("waitForJobs", true),
        ("timeout", false),
        ("recreatePods", true),
        ("force", true),
        ("atomic", true),
        ("skipDeps", true),
        ("reuseValues", true),
        ("deleteWait", true),
        ("deleteTimeout", false),
    ];
    const ORDER: &[&str] = HELM_SPEC_ORDER;
    let mut out: Vec<(Str, Value)> = Vec::new();
    for k in ORDER {
        match (m.get(*k), ALWAYS.iter().find(|(a, _)| a == k)) {
            (Some(v), _) if !matches!(v, Value::Nil) => out.push((Str::from(*k), v.clone())),
            (_, Some((_, is_bool))) => out.push((
                Str::from(*k),
                if *is_bool {
                    Value::Bool(false)
                } else {
                    Value::Int(0)
                },
            )),
            _ => {}
        }
    }
    for (k, v) in &m {
        if !ORDER.contains(&k.as_ref()) && !crate::spec::is_empty(v) {
            out.push((k.clone(), v.clone()));
        }
    }
    Some(Value::map_from(out.into_iter().collect()))
}

/// `build`: every state as helmfile prints it (`---`, a `#  Source:` comment, the state
/// as YAML). With `embed_values`, release values files are loaded into the output.
pub fn build(
    s: &Settings,
    states: &[PreparedState],
    embed_values: bool,
) -> Result<String, StateError> {
    build_with_charts(s, states, embed_values, &ChartPaths::new())
}

/// Where `fetch --write-output` put each release's chart: `(state index, release id)`
/// to the chart's directory.
pub type ChartPaths = std::collections::HashMap<(usize, String), String>;

/// [`build`] with the `chart:` of the releases in `charts` replaced by their fetched
/// directory (`fetch --write-output`, for air-gapped installs).
pub fn build_with_charts(
    s: &Settings,
    states: &[PreparedState],
    embed_values: bool,
    charts: &ChartPaths,
) -> Result<String, StateError> {
    let mut out = String::new();
    for (state_index, ps) in states.iter().enumerate() {
        let abs = absolute(&s.root, &ps.state.file);
        out.push_str(&format!("---\n#  Source: {}\n\n", abs.display()));
        let mut fields: Vec<(String, Value)> = vec![
            (
                "filepath".into(),
                Value::from(ps.state.file.rsplit('/').next().unwrap_or(&ps.state.file)),
            ),
            (
                "helmBinary".into(),
                Value::from(non_empty(
                    &crate::spec::str_of(&ps.state.doc, "helmBinary"),
                    "helm",
                )),
            ),
            (
                "kustomizeBinary".into(),
                Value::from(non_empty(
                    &crate::spec::str_of(&ps.state.doc, "kustomizeBinary"),
                    "kustomize",
                )),
            ),
        ];
        // `--kube-context` is the state's kube context as helmfile prints it: in
        // `helmDefaults`, as the state's `kubeContext` and in every release.
        let mut doc = ps.state.doc.clone();
        if !s.kube_context.is_empty() {
            let mut defaults = doc
                .get("helmDefaults")
                .and_then(|d| d.as_map().map(|m| m.snapshot()))
                .unwrap_or_default();
            defaults.insert("kubeContext".into(), Value::from(s.kube_context.as_str()));
            doc.insert("helmDefaults".into(), Value::map_from(defaults));
            doc.insert("kubeContext".into(), Value::from(s.kube_context.as_str()));
        }
        for k in crate::spec::STATE_KEYS {
            if matches!(
                *k,
                "helmBinary" | "kustomizeBinary" | "releases" | "templates"
            ) {
                continue;
            }
            let Some(v) = doc.get(*k).filter(|v| !crate::spec::is_empty(v)) else {
                continue;
            };
            match *k {
                "helmDefaults" => {
                    if let Some(d) = helm_defaults_struct(v) {
                        fields.push((k.to_string(), d));
                    }
                }
                "hooks" => fields.push((k.to_string(), hooks_as_structs(v))),
                _ => fields.push((k.to_string(), v.clone())),
            }
        }
        out.push_str(&struct_yaml(&fields)?);
        let mut releases = Vec::new();
        // The releases the selectors pick (all of them without selectors), as helmfile
        // filters the state before printing it.
        for r in ps.selected.iter().map(|&i| &ps.releases[i]) {
            let mut f = release_fields(r);
            if let Some(path) = charts.get(&(state_index, r.id())) {
                if let Some(slot) = f.iter_mut().find(|(k, _)| k == "chart") {
                    slot.1 = Value::from(path.as_str());
                }
            }
            if embed_values {
                for (key, secrets) in [("values", false), ("secrets", true)] {
                    let list = if secrets { &r.secrets } else { &r.values };
                    if list.is_empty() {
                        continue;
                    }
                    let embedded = crate::release_values::embedded_entries(s, ps, r, secrets)?;
                    match f.iter_mut().find(|(k, _)| k == key) {
                        Some(slot) => slot.1 = embedded,
                        None => f.push((key.into(), embedded)),
                    }
                }
            }
            releases.push(f);
        }
        out.push_str(&struct_list_yaml("releases", &releases)?);
        let templates = ps
            .state
            .doc
            .get("templates")
            .cloned()
            .unwrap_or_else(Value::empty_map);
        out.push_str(&struct_yaml(&[
            ("templates".into(), templates),
            (
                "renderedvalues".into(),
                Value::map_from(ps.state.values.clone()),
            ),
        ])?);
    }
    Ok(out)
}

fn non_empty<'a>(s: &'a str, default: &'a str) -> &'a str {
    if s.is_empty() {
        default
    } else {
        s
    }
}

/// `write-values`: the merged values of each active release, keyed by the output path
/// (`--output-file-template`, default `{{ .State.BaseName }}-{{ .State.AbsPathSHA1 }}/{{ .Release.Name }}.yaml`).
pub fn write_values(
    s: &Settings,
    states: &[PreparedState],
    flags: &HelmFlags,
    output_file_template: &str,
) -> Result<Vec<(String, String)>, StateError> {
    let tmpl = if output_file_template.is_empty() {
        "{{ .State.BaseName }}-{{ .State.AbsPathSHA1 }}/{{ .Release.Name }}.yaml"
    } else {
        output_file_template
    };
    let mut files = Vec::new();
    for ps in states {
        let in_state = |e: StateError| e.context(&ps.context);
        for r in ps.active().map_err(in_state)? {
            // Only the values: helmfile writes them without preparing charts.
            let input = crate::release_values::chart_input_with(
                s,
                ps,
                r,
                flags,
                crate::release_values::Charts::Offline,
            )
            .map_err(in_state)?;
            // helmfile's `WriteReleasesValues`: the release's values and secrets files and
            // `--values` (not `set:`), each read as helmfile reads YAML, merged in order
            // (maps deeply, anything else replaced).
            let fs = crate::host::HostFs(s.host.as_ref());
            let mut merged = BTreeMap::new();
            for f in &input.options.values.files {
                let bytes = input
                    .options
                    .values_file(&fs, Path::new(""), f)
                    .map_err(|e| in_state(StateError::new(e.to_string())))?;
                let doc = capstan_yaml::decode_helmfile(&String::from_utf8_lossy(&bytes))
                    .map_err(|e| in_state(StateError::new(format!("{f}: {e}"))))?;
                if let Some(m) = doc.as_map() {
                    merged = capstan_value::merge_maps(&merged, &m.read());
                }
            }
            let text = capstan_yaml::encode_helmfile(&Value::map_from(merged))
                .map_err(|e| e.to_string())?;
            // Relative to the state file's directory, where helmfile runs.
            let path = render_path(tmpl, &path_template_data(s, ps, r, ""), "")?;
            let path = match ps.state.base.as_str() {
                "" | "." => path,
                _ if path.starts_with('/') => path,
                base => crate::envvals::join_shown(base, &path),
            };
            files.push((path, text));
        }
    }
    Ok(files)
}

/// The absolute path of a state file (`filepath.Abs`).
fn absolute(root: &std::path::Path, file: &str) -> std::path::PathBuf {
    let joined = crate::host::join(root, file);
    let abs = std::path::absolute(&joined).unwrap_or(joined);
    crate::host::clean(&abs)
}

/// helmfile's `DefaultFetchOutputDirTemplate`.
const FETCH_OUTPUT_DIR_TEMPLATE: &str = "{{ .OutputDir }}{{ if .Release.Namespace }}/{{ .Release.Namespace }}{{ end }}{{ if .Release.KubeContext }}/{{ .Release.KubeContext }}{{ end }}/{{ .Release.Name }}/{{ .ChartName }}/{{ or .Release.Version \"latest\" }}";

/// What `fetch` does for one release whose chart is not on disk.
pub struct FetchedChart {
    /// The index of the release's state among those loaded, and the release's id.
    pub state: usize,
    pub id: String,
    pub release: String,
    pub chart: String,
    /// The directory the chart goes to: `DIR/CHARTNAME` for a remote chart (as
    /// `helm pull --untar` unpacks it), `DIR` itself for a local chart's copy.
    pub dir: String,
    /// The chart's files, named inside the chart.
    pub files: Vec<capstan_chart::load::ChartFile>,
}

/// `fetch`: the chart of every active release under `output_dir` along
/// `--output-dir-template` (helmfile's default: namespace, kube context, release, chart
/// name, version): a remote chart (helm repository or OCI) unpacked as `helm pull
/// --untar` does, a local chart (directory or `.tgz`) copied as it is.
pub fn fetch(
    s: &Settings,
    states: &[PreparedState],
    output_dir: &str,
    output_dir_template: &str,
) -> Result<Vec<FetchedChart>, StateError> {
    let tmpl = if output_dir_template.is_empty() {
        FETCH_OUTPUT_DIR_TEMPLATE
    } else {
        output_dir_template
    };
    let mut out = Vec::new();
    for (state_index, ps) in states.iter().enumerate() {
        for r in ps.active()? {
            let base = ps.state.base.as_str();
            let chart_name = r.chart.rsplit('/').next().unwrap_or(&r.chart).to_string();
            let dir_of = |chart_name: &str| -> Result<String, StateError> {
                let mut data = path_template_data(s, ps, r, output_dir)
                    .as_map()
                    .map(|m| m.snapshot())
                    .unwrap_or_default();
                data.insert(Str::from("ChartName"), Value::from(chart_name));
                render_path(tmpl, &Value::map_from(data), output_dir)
            };
            if let Some(path) = crate::release_values::local_chart(s, base, &r.chart) {
                // helmfile builds a local chart's dependencies, then copies the chart.
                s.host.progress(&format!(
                    "Building dependency release={}, chart={}",
                    r.name, r.chart
                ));
                let files = local_chart_files(s, &path)
                    .map_err(|e| format!("release \"{}\": {e}", r.name))?;
                out.push(FetchedChart {
                    state: state_index,
                    id: r.id(),
                    release: r.name.clone(),
                    chart: r.chart.clone(),
                    dir: dir_of(&chart_name)?.trim_end_matches('/').to_string(),
                    files,
                });
                continue;
            }
            let archive = crate::charts::repo_chart(
                s.host.as_ref(),
                &ps.state.doc,
                base,
                &r.chart,
                &crate::release_values::chart_version(&ps.state.doc, r),
            )
            .map_err(|e| format!("release \"{}\": {e}", r.name))?
            .ok_or_else(|| {
                format!(
                    "release \"{}\": chart \"{}\" is neither on disk nor in a listed repository",
                    r.name, r.chart
                )
            })?;
            let data = s
                .host
                .read_file(&archive)
                .map_err(|e| format!("{}: {e}", archive.display()))?;
            let files = capstan_chart::archive::read_archive(&data)
                .map_err(|e| format!("release \"{}\": {}", r.name, e.message))?;
            let dir = dir_of(&chart_name)?;
            out.push(FetchedChart {
                state: state_index,
                id: r.id(),
                release: r.name.clone(),
                chart: r.chart.clone(),
                dir: format!("{}/{chart_name}", dir.trim_end_matches('/')),
                files,
            });
        }
    }
    Ok(out)
}

/// The files of a local chart, named inside it: a directory's files (every one, as a
/// copy of the directory; at most 10,000 and 64 levels deep), or a `.tgz`'s.
fn local_chart_files(
    s: &Settings,
    path: &str,
) -> Result<Vec<capstan_chart::load::ChartFile>, StateError> {
    use capstan_chart::fs::ChartFs;
    let p = Path::new(path);
    if !s.host.is_dir(p) {
        let data = s.host.read_file(p).map_err(|e| format!("{path}: {e}"))?;
        return Ok(capstan_chart::archive::read_archive(&data).map_err(|e| e.message)?);
    }
    let fs = crate::host::HostFs(s.host.as_ref());
    let mut files = Vec::new();
    let mut stack = vec![(String::new(), 0usize)];
    while let Some((rel, depth)) = stack.pop() {
        let here = if rel.is_empty() {
            p.to_path_buf()
        } else {
            p.join(&rel)
        };
        let entries = fs
            .read_dir(&here)
            .map_err(|e| format!("{}: {e}", here.display()))?;
        for (name, is_dir) in entries {
            let inner = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if is_dir {
                if depth >= 64 {
                    return Err(format!("{path}: directories nest too deep at {inner}").into());
                }
                stack.push((inner, depth + 1));
            } else {
                if files.len() >= 10_000 {
                    return Err(format!("{path}: more than 10000 files").into());
                }
                let data = fs
                    .read(&p.join(&inner))
                    .map_err(|e| format!("{}/{inner}: {e}", path))?;
                files.push(capstan_chart::load::ChartFile {
                    name: inner,
                    data: data.into(),
                });
            }
        }
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// One release's final values and where each came from.
pub struct ExplainedRelease {
    pub name: String,
    /// helmfile's ID of the release (`[KUBECONTEXT/][NAMESPACE/]NAME`): unique among the
    /// releases of a run where the name alone is not.
    pub id: String,
    pub namespace: String,
    pub chart: String,
    /// The coalesced `.Values` the chart's templates see.
    pub values: Tree,
    /// The layers (chart defaults, subchart defaults, the release's values files,
    /// inline values, secrets, `set`), lowest first.
    pub layers: capstan_chart::explain::Layers,
    /// Every leaf of `values` with its layers and, for a value a values template wrote,
    /// the chain back to the environment value it read (when the environment layers were
    /// recorded: [`Settings::env_journal`]).
    pub leaves: Vec<capstan_values::provenance::Explained>,
    /// The traps in these values: the layers' warnings, lists replaced whole, `null`s
    /// that delete a default.
    pub traps: Vec<capstan_values::provenance::Trap>,
}

/// `values`: the final values of every active release with their layers, for charts
/// capstan renders itself (a chart only helm can render is an error naming it). Each
/// release is handed to `keep` on the thread that explained it (to format what the caller
/// prints of it, say), and only what `keep` returns stays in memory; the results are in
/// the states' order.
pub fn explain_values<R: Send>(
    s: &Settings,
    states: &[PreparedState],
    flags: &HelmFlags,
    keep: &(dyn Fn(ExplainedRelease) -> Result<R, StateError> + Sync),
) -> Result<Vec<R>, StateError> {
    let mut jobs: Vec<(&PreparedState, &Release)> = Vec::new();
    for ps in states {
        for r in ps.active()? {
            jobs.push((ps, r));
        }
    }
    let envs = explain_env(s, states);
    let chains: Vec<(&str, crate::template_chain::Chains)> = envs
        .iter()
        .map(|e| {
            (
                e.file.as_str(),
                crate::template_chain::Chains::new(s.host.as_ref(), &e.leaves),
            )
        })
        .collect();
    let no_env = crate::template_chain::Chains::new(s.host.as_ref(), &[]);
    let explain = |(ps, r): &(&PreparedState, &Release)| -> Result<R, StateError> {
        let fail = |e: StateError| e.context(format_args!("release \"{}\"", r.name));
        let mut input = chart_input(s, ps, r, flags).map_err(fail)?;
        if !input.local {
            return Err(fail(StateError::new(format!(
                "chart {:?} is not a local chart: its values need helm",
                r.chart
            ))));
        }
        input.options.post_renderer = None;
        let fs = crate::host::HostFs(s.host.as_ref());
        let chart = Path::new(&input.chart);
        let (values, layers) =
            capstan_chart::template::values_and_layers(&fs, chart, Path::new(""), &input.options)
                .map_err(|e| fail(e.into()))?;
        let mut leaves = capstan_values::provenance::explain(&values, &layers.layers);
        let chain = chains
            .iter()
            .find(|(file, _)| *file == ps.state.file)
            .map_or(&no_env, |(_, c)| c);
        chain.follow(&mut leaves);
        chain.locate_inline(&mut leaves);
        let mut traps = layers.warnings.clone();
        traps.extend(capstan_values::provenance::traps_of(
            &leaves,
            &layers.layers,
            layers.user_from,
        ));
        keep(ExplainedRelease {
            name: r.name.clone(),
            id: r.id(),
            namespace: input.options.namespace.clone(),
            chart: r.chart.clone(),
            values,
            layers,
            leaves,
            traps,
        })
        .map_err(fail)
    };
    // Releases in parallel (their values templates and charts are independent), results in
    // the state's order; the first failing release (in that order) is the error.
    parallel_map(&jobs, 0, explain, &|_, _| {})
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("a values thread stopped".into())))
        .collect()
}

/// For each leaf path of a release's values (`a.b[0]`), where it came from.
pub type ValueOrigins = BTreeMap<String, String>;

/// A release's user-supplied values (what helm records as the release's values: the
/// release's values files, inline values, secrets and `set:` merged, chart defaults
/// left out) and, for each leaf (`a.b[0]`), where it came from (`file:line:col` or the
/// flag).
pub fn user_values_explained(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
) -> Result<(Tree, ValueOrigins), StateError> {
    let input = chart_input(s, ps, r, &HelmFlags::default())
        .map_err(|e| e.context(format_args!("release \"{}\"", r.name)))?;
    let fs = crate::host::HostFs(s.host.as_ref());
    let read = |p: &str| match input.options.overlay.get(p) {
        Some(bytes) => Ok(bytes.clone()),
        None => s
            .host
            .read_file(Path::new(p))
            .map_err(|e| capstan_values::ReadError(format!("open {p}: {e}"))),
    };
    let user = input.options.values.merge(&read).map_err(|e| e.message)?;
    let origins = if input.local {
        let layers = capstan_chart::explain::layers_in(
            &fs,
            Path::new(&input.chart),
            Path::new(""),
            &input.options,
        )?;
        let mut leaves =
            capstan_values::provenance::explain(&user, &layers.layers[layers.user_from..]);
        // A value a template wrote from the environment (`{{ .Values.x }}`) comes from
        // the layer that set the environment value (`--state-values-set`, a values
        // file…): follow the chain, and name inline values by their source lines.
        let env = explain_env(s, std::slice::from_ref(ps));
        let env_leaves = env.first().map_or(&[][..], |e| &e.leaves[..]);
        let chains = crate::template_chain::Chains::new(s.host.as_ref(), env_leaves);
        chains.follow(&mut leaves);
        chains.locate_inline(&mut leaves);
        leaves
            .into_iter()
            .filter_map(|e| {
                let w = e.winner?;
                let here = format!("{} ({})", w.origin, w.kind);
                let origin = match e.through.last() {
                    Some(root) if !root.starts_with("computed in ") && e.through.len() > 1 => {
                        format!("{root}, through {here}")
                    }
                    _ => here,
                };
                Some((e.path.to_string(), origin))
            })
            .collect()
    } else {
        BTreeMap::new()
    };
    Ok((user, origins))
}
