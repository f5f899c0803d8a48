//! `template`: every active release rendered (in parallel, in the states' and `needs:`
//! order), one release's render (natively, or by helm for what only helm renders), and
//! the paths of `--output-dir`.

use crate::app::PreparedState;
use crate::load::Settings;
use crate::release::Release;
use crate::release_values::{chart_input, HelmFlags};
use crate::StateError;
use capstan_value::{Str, Value};
use sha1::Digest;
use std::collections::BTreeMap;
use std::path::Path;

/// Whether a chart reference is a path, which helm never looks up in a repository.
fn is_path(chart: &str) -> bool {
    chart == "."
        || chart == ".."
        || chart.starts_with("./")
        || chart.starts_with("../")
        || chart.starts_with('/')
}

/// One release rendered by `template`.
#[derive(Clone, Debug)]
pub struct RenderedRelease {
    /// The release's name.
    pub name: String,
    /// The chart as the release names it.
    pub chart: String,
    /// The release's namespace (where its objects without one go).
    pub namespace: String,
    /// `helm template`'s standard output.
    pub manifest: String,
    /// The same documents named by their template (what `--output-dir` writes); empty
    /// unless [`HelmFlags::keep_documents`] asks for them.
    pub documents: Vec<(String, String)>,
    /// The value traps of the release (with [`HelmFlags::value_traps`], for a chart
    /// capstan renders itself).
    pub traps: Vec<capstan_values::provenance::Trap>,
}

/// The numbers in a release's inline values that Helm prints differently.
fn inline_traps(ps: &PreparedState, r: &Release) -> Vec<capstan_values::provenance::Trap> {
    ps.state
        .value_traps
        .iter()
        .filter(|t| t.release == r.name)
        .map(|t| t.trap(&ps.state.file))
        .collect()
}

/// A release's value traps: numbers in its inline values, those its values files and
/// flags hold, and the lists and `null`s of its layers that replace or delete a lower
/// layer's value; inline values named at the state file's lines (through `chains`, or
/// one made when a trap needs it).
pub(crate) fn release_traps(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    layers: &capstan_chart::explain::Layers,
    chains: Option<&crate::template_chain::Chains>,
) -> Vec<capstan_values::provenance::Trap> {
    let mut traps = inline_traps(ps, r);
    // The inline values' file helm reads already has the number helmfile made of them:
    // the state file's own place is the one to name.
    let inline = traps.len();
    for w in &layers.warnings {
        if !traps[..inline].iter().any(|t| t.path == w.path) {
            traps.push(w.clone());
        }
    }
    traps.extend(capstan_values::provenance::traps(
        &layers.layers,
        layers.user_from,
    ));
    if traps.iter().any(|t| t.message.contains(" (release ")) {
        let own;
        let chains = match chains {
            Some(c) => c,
            None => {
                own = crate::template_chain::Chains::new(s.host.as_ref(), &[]);
                &own
            }
        };
        for t in &mut traps {
            chains.locate_trap(t);
        }
    }
    traps
}

/// A release `template` failed on, with the located chart error when there is one.
#[derive(Clone, Debug)]
pub struct ReleaseError {
    /// The release that failed (empty for a failure of the state itself).
    pub release: String,
    /// How helmfile names the release's state file in its errors
    /// ([`PreparedState::context`]); empty when the error is not about one state.
    pub state: std::sync::Arc<str>,
    /// helmfile's or Helm's message.
    pub message: String,
    /// The place in a file the message is about, when known.
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
pub(crate) fn parallel_map<T: Sync, R: Send>(
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
    // A path (`./…`, `../…`, `/…`) that is not on disk: helm's own error (helm would
    // fail with it after helmfile's dump of its argv), pointed at the `chart:` line.
    if !input.local && is_path(&r.chart) {
        return Err(located(
            StateError::new(format!(
                "path {} not found",
                capstan_gocompat::quote::go_quote(&r.chart)
            ))
            .about(r.chart.clone()),
        ));
    }
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
    if s.host.shows_debug() {
        // What helmfile would run; capstan renders it in this process (values held in
        // memory are named under `<memory>`).
        let args = crate::release_values::helm_template_args(&input, Path::new("<memory>"));
        s.host.debug(&format!(
            "rendering in-process what helmfile runs as: helm {}",
            args.join(" ")
        ));
    }
    // Paths are relative to the host's working directory; the host resolves them.
    let fs = crate::host::HostFs(s.host.as_ref());
    let chart = Path::new(&input.chart);
    let rendered = if flags.value_traps {
        capstan_chart::template::template_with_layers(&fs, chart, Path::new(""), &input.options)
            .map(|(rendered, layers)| (rendered, release_traps(s, ps, r, &layers, None)))
    } else {
        capstan_chart::template::template_in(&fs, chart, Path::new(""), &input.options)
            .map(|rendered| (rendered, Vec::new()))
    };
    let (rendered, traps) = rendered.map_err(|e| {
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
        traps,
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
        // helm read the values: only the numbers of the state file are known here.
        traps: inline_traps(ps, r),
    })
}

fn sha8(s: &Settings, file: &str) -> String {
    let abs = absolute(&s.root, file);
    let digest = sha1::Sha1::digest(abs.to_string_lossy().as_bytes());
    capstan_gocompat::hex::encode(&digest[..4])
}

pub(crate) fn strip_ext(file: &str) -> &str {
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

/// The absolute path of a state file (`filepath.Abs`).
pub(crate) fn absolute(root: &std::path::Path, file: &str) -> std::path::PathBuf {
    let joined = crate::host::join(root, file);
    let abs = std::path::absolute(&joined).unwrap_or(joined);
    crate::host::clean(&abs)
}
