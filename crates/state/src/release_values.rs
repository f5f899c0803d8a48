//! What helmfile hands `helm template` for one release: the values files in order
//! (`.gotmpl` files rendered with the release's template data, inline maps written as
//! YAML, decrypted secrets), then `set:` as `--set`/`--set-file`, `setString:` as
//! `--set-string` — held in memory as capstan's chart renderer takes them.

/// What a decrypted secrets file is named after, in values layers and explain output
/// (`secrets.yaml (decrypted)`): explain hides the values such layers set.
pub const DECRYPTED: &str = " (decrypted)";
use crate::app::PreparedState;
use crate::envvals::{join_shown, MissingFileHandler, ValuesLoader};
use crate::host::join;
use crate::load::Settings;
use crate::release::{release_template_data, Release};
use crate::StateError;
use capstan_chart::TemplateOptions;
use capstan_value::Value;
use capstan_values::UserValues;
use std::path::Path;

/// Flags of `helmfile template` that reach helm.
#[derive(Clone, Debug, Default)]
pub struct HelmFlags {
    /// `--include-crds`.
    pub include_crds: bool,
    /// `--skip-tests`.
    pub skip_tests: bool,
    /// `--kube-version`.
    pub kube_version: String,
    /// `--api-versions`.
    pub api_versions: Vec<String>,
    /// The cluster's version and API versions, replacing the two above (a diff renders
    /// as `helm upgrade` would on that cluster).
    pub cluster: Option<std::sync::Arc<capstan_chart::capabilities::ClusterCapabilities>>,
    /// `--skip-schema-validation`.
    pub skip_schema_validation: bool,
    /// `--set` given to helmfile itself (applied to every release).
    pub set: Vec<String>,
    /// `--values` given to helmfile itself.
    pub values: Vec<String>,
    /// `--post-renderer` / `--post-renderer-args` given to helmfile itself (over the
    /// release's and `helmDefaults`' own).
    pub post_renderer: String,
    /// The post-renderer's arguments.
    pub post_renderer_args: Vec<String>,
    /// `--no-hooks`: hooks left out of the output.
    pub no_hooks: bool,
    /// `--show-only`: only the manifests of these templates.
    pub show_only: Vec<String>,
    /// helm's other value flags given through `--args` (after the release's own).
    pub set_string: Vec<String>,
    /// `--set-json` given through `--args`.
    pub set_json: Vec<String>,
    /// `--set-file` given through `--args`.
    pub set_file: Vec<String>,
    /// `--set-literal` given through `--args`.
    pub set_literal: Vec<String>,
    /// `--is-upgrade`: `.Release.IsUpgrade` instead of `.Release.IsInstall`.
    pub is_upgrade: bool,
    /// `--skip-deps`: no `helm dependency build` for local charts (a dependency missing
    /// from `charts/` is then Helm's error).
    pub skip_deps: bool,
    /// Keep each rendered release's documents named by their template (`--output-dir`
    /// writes them); otherwise only the manifest text is kept.
    pub keep_documents: bool,
    /// Find each release's value traps (`template` warns about them): the chart's values
    /// are then read with their layers.
    pub value_traps: bool,
}

/// A release ready for the chart renderer.
#[derive(Clone, Debug)]
pub struct ChartInput {
    /// The chart directory or archive (relative to the working directory, as shown), or
    /// the chart reference as written when it is not local.
    pub chart: String,
    /// Whether `chart` is on disk (else only helm can render it).
    pub local: bool,
    /// The chart version constraint (`version:`), for helm.
    pub version: String,
    /// Helm's render options for the release (name, namespace, values layers…).
    pub options: TemplateOptions,
    /// The post-renderer command and its arguments, as given, when there is one.
    pub post_renderer: Option<(String, Vec<String>)>,
}

/// helmfile's `escape` for `--set` values: `{`, `}` and `,` get a backslash.
pub fn escape_set(v: &str) -> String {
    v.replace('{', "\\{")
        .replace('}', "\\}")
        .replace(',', "\\,")
}

/// Whether `chart` (relative to `base`) is a chart on disk rather than `repo/name` or
/// an OCI reference.
pub(crate) fn local_chart(s: &Settings, base: &str, chart: &str) -> Option<String> {
    if chart.starts_with("oci://") {
        return None;
    }
    let path = join_shown(base, chart);
    let p = Path::new(&path);
    if s.host.is_dir(p) || (s.host.is_file(p) && chart.ends_with(".tgz")) {
        Some(path)
    } else {
        None
    }
}

/// The version constraint a release's chart is resolved with: `version:`, else with
/// `devel: true` (the release's or `helmDefaults`') helm's `--devel`, which is the
/// constraint `>0.0.0-0` (pre-releases too), else none (the latest stable).
pub fn chart_version(doc: &crate::merge::Tree, r: &Release) -> String {
    if !r.version.is_empty() {
        return r.version.clone();
    }
    let devel = match r.raw.get("devel") {
        Some(Value::Bool(b)) => *b,
        _ => matches!(
            crate::spec::map_of(doc, "helmDefaults").get("devel"),
            Some(Value::Bool(true))
        ),
    };
    if devel {
        ">0.0.0-0".to_string()
    } else {
        String::new()
    }
}

/// Whether building a release's input may download its chart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Charts {
    /// Fetch repository and OCI charts (rendering needs them).
    Fetch,
    /// Leave remote charts as named: commands helmfile runs without preparing charts
    /// (`write-values`) need only the values.
    Offline,
}

/// Builds the renderer input for a release, or the error helmfile would print.
pub(crate) fn chart_input(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    flags: &HelmFlags,
) -> Result<ChartInput, StateError> {
    chart_input_with(s, ps, r, flags, Charts::Fetch)
}

/// [`chart_input`], downloading remote charts only with [`Charts::Fetch`].
pub fn chart_input_with(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    flags: &HelmFlags,
    charts: Charts,
) -> Result<ChartInput, StateError> {
    let base = ps.state.base.as_str();
    let (chart, local) = resolve_chart(s, ps, r, charts)?;
    let renderer = ps.renderer(s);
    let post_renderer = post_renderer_of(&ps.state.doc, r, flags);
    if post_renderer.is_some() && flags.post_renderer.is_empty() {
        refuse_state_post_renderer(s, r)?;
    }
    let dependency_builder =
        (local && !skips_deps(&ps.state.doc, r, flags) && s.host.is_dir(Path::new(&chart)))
            .then(|| dependency_builder(s, &ps.state.doc));
    let patches = patches_of(s, r, &chart, local)?;
    let mut options = TemplateOptions {
        release_name: r.name.clone(),
        // helm's namespace when helmfile passes none (the kube context's default).
        namespace: if r.namespace.is_empty() {
            "default".to_string()
        } else {
            r.namespace.clone()
        },
        include_crds: flags.include_crds,
        is_upgrade: flags.is_upgrade,
        dependency_builder,
        skip_tests: flags.skip_tests,
        no_hooks: flags.no_hooks,
        keep_documents: flags.keep_documents,
        kube_version: match &flags.cluster {
            Some(c) => c.git_version.clone(),
            None if flags.kube_version.is_empty() => r.kube_version.clone(),
            None => flags.kube_version.clone(),
        },
        cluster: flags.cluster.clone(),
        api_versions: r
            .api_versions
            .iter()
            .chain(flags.api_versions.iter())
            .cloned()
            .collect(),
        skip_schema_validation: flags.skip_schema_validation
            || r.skip_schema_validation == Some(true),
        post_renderer: post_renderer
            .as_ref()
            .map(|(cmd, args)| command_post_renderer(s.host.clone(), &s.root, cmd, args)),
        patches,
        chart_cache: Some(s.charts.clone()),
        ..Default::default()
    };
    let missing = MissingFileHandler::parse(&r.missing_file_handler, &ps.state.file);
    let env = ps.state.env.clone();
    let mut loader = ValuesLoader {
        renderer: &renderer,
        base,
        missing,
        context: &env,
        strategy: Default::default(),
        hcl: s.hcl,
        warnings: Vec::new(),
        decrypted: Default::default(),
        recorder: None,
    };
    let data = release_template_data(&ps.state.env, &ps.state.values, &r.raw, &ps.overrides);
    let mut values = UserValues::default();
    for (i, entry) in r.values.iter().enumerate() {
        match entry {
            Value::String(path) => {
                for f in loader.resolve("values", path)? {
                    let text = if f.ends_with(".gotmpl") {
                        renderer
                            .render_file(&f, &f, &data)
                            .map_err(|e| {
                                e.context(format_args!("failed to render values files \"{f}\""))
                            })?
                            .into_bytes()
                    } else {
                        renderer.read_bytes(&f)?
                    };
                    options.overlay.insert(f.clone(), text);
                    values.files.push(f);
                }
            }
            other => {
                // Inline values: named after the state file and the entry (their lines
                // count within the entry).
                let name = format!("{} (release {} values[{i}])", ps.state.file, r.name);
                let text = capstan_yaml::encode_helmfile(other).map_err(|e| e.to_string())?;
                options.overlay.insert(name.clone(), text.into_bytes());
                values.files.push(name);
            }
        }
    }
    for entry in &r.secrets {
        let path = crate::scalar_text(entry);
        for f in loader.resolve("secrets", &path)? {
            let text = (s.secrets)(&renderer, &f)?;
            let name = format!("{f}{DECRYPTED}");
            options.overlay.insert(name.clone(), text.into_bytes());
            values.files.push(name);
        }
    }
    for f in &flags.values {
        values.files.push(f.clone());
    }
    add_set_values(r, flags, base, &mut values);
    options.values = values;
    options.extra_dependencies = extra_dependencies(s, ps, r)?;
    for w in &loader.warnings {
        s.host.warn(w);
    }
    Ok(ChartInput {
        chart,
        local,
        version: r.version.clone(),
        options,
        post_renderer,
    })
}

/// The release's chart: a local directory or archive, a repository chart's archive in
/// the cache (downloaded with [`Charts::Fetch`]), or the reference as written when only
/// helm can find it; and whether it is on disk.
fn resolve_chart(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    charts: Charts,
) -> Result<(String, bool), StateError> {
    let base = ps.state.base.as_str();
    Ok(match local_chart(s, base, &r.chart) {
        Some(path) => (path, true),
        None if charts == Charts::Offline => (r.chart.clone(), false),
        None => match crate::charts::repo_chart(
            s.host.as_ref(),
            &ps.state.doc,
            base,
            &r.chart,
            &chart_version(&ps.state.doc, r),
        )? {
            Some(archive) => (archive.to_string_lossy().into_owned(), true),
            None => (r.chart.clone(), false),
        },
    })
}

/// The release's patches (`strategicMergePatches`, `jsonPatches`, `forceNamespace`);
/// kustomize transformers, and patches on a chart only helm renders, are refused.
fn patches_of(
    s: &Settings,
    r: &Release,
    chart: &str,
    local: bool,
) -> Result<capstan_chart::patch::Patches, StateError> {
    let patches = capstan_chart::patch::Patches {
        strategic: crate::spec::list_of(&r.raw, "strategicMergePatches"),
        json: crate::spec::list_of(&r.raw, "jsonPatches"),
        force_namespace: crate::spec::str_of(&r.raw, "forceNamespace"),
        manifests: local
            && capstan_chart::load::is_manifest_dir(
                &crate::host::HostFs(s.host.as_ref()),
                Path::new(chart),
            ),
    };
    // chartify puts a directory of manifests in the release's namespace.
    let patches = if patches.manifests && patches.force_namespace.is_empty() {
        capstan_chart::patch::Patches {
            force_namespace: r.namespace.clone(),
            ..patches
        }
    } else {
        patches
    };
    if !crate::spec::list_of(&r.raw, "transformers").is_empty() {
        return Err(
            "transformers: kustomize transformers are not supported (capstan applies strategicMergePatches and jsonPatches itself)"
                .into(),
        );
    }
    if !patches.is_empty() && !local {
        return Err(format!(
            "release \"{}\": strategicMergePatches/jsonPatches/forceNamespace on chart {:?}, which only helm can render: not supported",
            r.name, r.chart
        ).into());
    }
    Ok(patches)
}

/// One entry of a release's `set:` or `setString:` as the helm flag it becomes.
pub(crate) struct SetEntry {
    /// `--set`, `--set-file` or `--set-string`.
    pub flag: &'static str,
    /// The flag's expression (`name=value`).
    pub expr: String,
    /// `set` or `setString`: the list it is in.
    pub list: &'static str,
    /// Its index in that list.
    pub index: usize,
}

/// The release's `set:` then `setString:` entries as helm flags, in helmfile's order.
pub(crate) fn set_entries(r: &Release, base: &str) -> Vec<SetEntry> {
    let mut out = Vec::new();
    for (index, sv) in r.set.iter().enumerate() {
        let (flag, expr) = if !sv.value.is_empty() {
            ("--set", format!("{}={}", sv.name, escape_set(&sv.value)))
        } else if !sv.file.is_empty() {
            let p = join(Path::new(base), &sv.file);
            ("--set-file", format!("{}={}", sv.name, p.display()))
        } else if !sv.values.is_empty() {
            let items: Vec<String> = sv.values.iter().map(|v| escape_set(v)).collect();
            ("--set", format!("{}={{{}}}", sv.name, items.join(",")))
        } else {
            ("--set", format!("{}=", sv.name))
        };
        out.push(SetEntry {
            flag,
            expr,
            list: "set",
            index,
        });
    }
    for (index, sv) in r.set_string.iter().enumerate() {
        out.push(SetEntry {
            flag: "--set-string",
            expr: format!("{}={}", sv.name, escape_set(&sv.value)),
            list: "setString",
            index,
        });
    }
    out
}

/// The release's `set:` and `setString:`, then the command line's value flags.
fn add_set_values(r: &Release, flags: &HelmFlags, base: &str, values: &mut UserValues) {
    for e in set_entries(r, base) {
        match e.flag {
            "--set-file" => values.set_file.push(e.expr),
            "--set-string" => values.set_string.push(e.expr),
            _ => values.set.push(e.expr),
        }
    }
    values.set.extend(flags.set.iter().cloned());
    values.set_string.extend(flags.set_string.iter().cloned());
    values.set_json.extend(flags.set_json.iter().cloned());
    values.set_file.extend(flags.set_file.iter().cloned());
    values.set_literal.extend(flags.set_literal.iter().cloned());
}

/// The release's in-memory values files ([`TemplateOptions::overlay`]) as helm gets
/// them: named `values-N.yaml` in the overlay's order, to write to a private directory.
///
/// [`TemplateOptions::overlay`]: capstan_chart::TemplateOptions::overlay
pub fn overlay_for_helm(input: &ChartInput) -> Vec<(String, Vec<u8>)> {
    input
        .options
        .overlay
        .values()
        .enumerate()
        .map(|(i, bytes)| (format!("values-{i}.yaml"), bytes.clone()))
        .collect()
}

/// The name [`overlay_for_helm`] gives values file `f`, if it is held in memory.
pub fn overlay_name(input: &ChartInput, f: &str) -> Option<String> {
    input
        .options
        .overlay
        .keys()
        .position(|name| name == f)
        .map(|i| format!("values-{i}.yaml"))
}

/// The `helm template` command line helmfile runs for a release whose chart is not local,
/// with the values files written under `values_dir` (named as in `files`).
pub(crate) fn helm_template_args(input: &ChartInput, values_dir: &Path) -> Vec<String> {
    let o = &input.options;
    let mut args = vec![
        "template".to_string(),
        o.release_name.clone(),
        input.chart.clone(),
    ];
    if !input.version.is_empty() {
        args.extend(["--version".into(), input.version.clone()]);
    }
    if !o.namespace.is_empty() && o.namespace != "default" {
        args.extend(["--namespace".into(), o.namespace.clone()]);
    }
    for f in &o.values.files {
        let path = match overlay_name(input, f) {
            Some(name) => values_dir.join(name).display().to_string(),
            None => f.clone(),
        };
        args.extend(["--values".into(), path]);
    }
    for (flag, items) in [
        ("--set-json", &o.values.set_json),
        ("--set", &o.values.set),
        ("--set-string", &o.values.set_string),
        ("--set-file", &o.values.set_file),
        ("--set-literal", &o.values.set_literal),
    ] {
        for i in items {
            args.extend([flag.to_string(), i.clone()]);
        }
    }
    if o.include_crds {
        args.push("--include-crds".into());
    }
    if o.is_upgrade {
        args.push("--is-upgrade".into());
    }
    if o.no_hooks {
        args.push("--no-hooks".into());
    }
    if o.skip_tests {
        args.push("--skip-tests".into());
    }
    if !o.kube_version.is_empty() {
        args.extend(["--kube-version".into(), o.kube_version.clone()]);
    }
    for a in &o.api_versions {
        args.extend(["--api-versions".into(), a.clone()]);
    }
    if o.skip_schema_validation {
        args.push("--skip-schema-validation".into());
    }
    if let Some((cmd, extra)) = &input.post_renderer {
        args.extend(["--post-renderer".into(), cmd.clone()]);
        for a in extra {
            args.extend(["--post-renderer-args".into(), a.clone()]);
        }
    }
    args
}

/// A post-renderer that runs `cmd args` with the manifests on standard input, as helm
/// does; a path with a slash is taken from `root` (the working directory).
pub fn command_post_renderer(
    host: std::sync::Arc<dyn crate::host::Host>,
    root: &Path,
    cmd: &str,
    args: &[String],
) -> capstan_chart::postrender::PostRenderer {
    let cmd = if cmd.contains('/') {
        // Still a path after joining (`./x` under `.` is `x`, which would be looked
        // up in PATH).
        let joined = join(root, cmd).to_string_lossy().into_owned();
        if joined.contains('/') {
            joined
        } else {
            format!("./{joined}")
        }
    } else {
        cmd.to_string()
    };
    let args = args.to_vec();
    capstan_chart::postrender::PostRenderer(std::sync::Arc::new(move |manifests: &str| {
        host.exec(&cmd, &args, &[], Some(manifests), Path::new(""))
            .map_err(|e| capstan_chart::postrender::PostRenderError(e.to_string()))
    }))
}

/// A state's `postRenderer` runs a program the repository chose: refused in untrusted
/// mode and under `HELMFILE_DISABLE_INSECURE_FEATURES` (Helm 4 itself takes only
/// post-renderer plugins; `--post-renderer` on the command line stays the user's).
fn refuse_state_post_renderer(s: &Settings, r: &Release) -> Result<(), StateError> {
    if s.host.tenant().is_some() {
        return Err(crate::tenant::Refused(format!(
            "release {:?}: postRenderer runs a program, and commands do not run",
            r.name
        ))
        .into());
    }
    if crate::render::env_true(s.host.as_ref(), "HELMFILE_DISABLE_INSECURE_FEATURES") {
        return Err(StateError::new(format!(
            "release {:?}: postRenderer runs a program, which HELMFILE_DISABLE_INSECURE_FEATURES disables",
            r.name
        )));
    }
    Ok(())
}

/// The post-renderer for a release, as helmfile picks it: the command line's
/// `--post-renderer`, else the release's `postRenderer`, else `helmDefaults`'; the
/// arguments likewise.
fn post_renderer_of(
    doc: &crate::merge::Tree,
    r: &Release,
    flags: &HelmFlags,
) -> Option<(String, Vec<String>)> {
    let defaults = crate::spec::map_of(doc, "helmDefaults");
    let strings = |t: &crate::merge::Tree, k: &str| -> Vec<String> {
        crate::spec::list_of(t, k)
            .iter()
            .map(crate::scalar_text)
            .collect()
    };
    let cmd = [
        flags.post_renderer.clone(),
        crate::spec::str_of(&r.raw, "postRenderer"),
        crate::spec::str_of(&defaults, "postRenderer"),
    ]
    .into_iter()
    .find(|c| !c.is_empty())?;
    let args = [
        flags.post_renderer_args.clone(),
        strings(&r.raw, "postRendererArgs"),
        strings(&defaults, "postRendererArgs"),
    ]
    .into_iter()
    .find(|a| !a.is_empty())
    .unwrap_or_default();
    Some((cmd, args))
}

/// helmfile's release `dependencies:` (`chart`, `version`, `alias`, `condition`): each
/// chart (a local directory or `repo/chart`) loaded as an extra subchart.
/// helmfile's `LoadYAMLForEmbedding` (`build --embed-values`): the release's `values:`
/// (or `secrets:`) entries with each file replaced by its content as YAML — a `.gotmpl`
/// file rendered, any other file as it is on disk (secrets stay encrypted); inline maps
/// as they are.
pub(crate) fn embedded_entries(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    secrets: bool,
) -> Result<Value, StateError> {
    let renderer = ps.renderer(s);
    let env = ps.state.env.clone();
    let mut loader = ValuesLoader {
        renderer: &renderer,
        base: ps.state.base.as_str(),
        missing: MissingFileHandler::parse(&r.missing_file_handler, &ps.state.file),
        context: &env,
        strategy: Default::default(),
        hcl: s.hcl,
        warnings: Vec::new(),
        decrypted: Default::default(),
        recorder: None,
    };
    let data = release_template_data(&ps.state.env, &ps.state.values, &r.raw, &ps.overrides);
    let entries = if secrets { &r.secrets } else { &r.values };
    let mut out = Vec::new();
    for entry in entries {
        let Value::String(path) = entry else {
            out.push(entry.clone());
            continue;
        };
        let files = loader.resolve("values", path)?;
        if files.len() > 1 {
            return Err("glob patterns in release values and secrets is not supported yet. please submit a feature request if necessary".into());
        }
        let Some(f) = files.first() else { continue };
        let text = if f.ends_with(".gotmpl") {
            renderer
                .render_file(f, f, &data)
                .map_err(|e| e.context(format_args!("failed to render values files \"{path}\"")))?
        } else {
            renderer.read(f)?
        };
        out.push(capstan_yaml::decode_helmfile(&text).map_err(|e| format!("{f}: {e}"))?);
    }
    Ok(Value::list_from(out))
}

/// Whether helmfile skips `helm dependency build` for the release: `--skip-deps`, else
/// the release's `skipDeps:`, else `helmDefaults.skipDeps`.
fn skips_deps(doc: &crate::merge::Tree, r: &Release, flags: &HelmFlags) -> bool {
    flags.skip_deps
        || r.skip_deps.unwrap_or_else(|| {
            matches!(
                crate::spec::map_of(doc, "helmDefaults").get("skipDeps"),
                Some(Value::Bool(true))
            )
        })
}

/// `helm dependency build` done natively: each dependency a local chart's `charts/`
/// lacks is fetched (see [`crate::charts::dependency_chart`]) and loaded, in memory
/// (nothing is written into the chart's directory).
fn dependency_builder(
    s: &Settings,
    doc: &crate::merge::Tree,
) -> capstan_chart::dependencies::DependencyBuilder {
    let host = s.host.clone();
    let doc = doc.clone();
    capstan_chart::dependencies::DependencyBuilder(std::sync::Arc::new(
        move |chart_dir: &Path, dep: &capstan_chart::load::Dependency| {
            let fail = |e: String| {
                capstan_chart::dependencies::DependencyError(format!(
                    "building dependency {:?} of {}: {e}",
                    dep.name,
                    chart_dir.display()
                ))
            };
            let Some(path) = crate::charts::dependency_chart(
                host.as_ref(),
                &doc,
                chart_dir,
                &dep.name,
                &dep.version,
                &dep.repository,
            )
            .map_err(|e| fail(e.message))?
            else {
                return Ok(None);
            };
            let fs = crate::host::HostFs(host.as_ref());
            let chart =
                capstan_chart::load::load_dir_in(&fs, &path).map_err(|e| fail(e.message))?;
            Ok(Some(chart))
        },
    ))
}

fn extra_dependencies(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
) -> Result<Vec<(capstan_chart::load::Dependency, capstan_chart::load::Chart)>, StateError> {
    let base = ps.state.base.as_str();
    let mut out = Vec::new();
    for d in crate::spec::list_of(&r.raw, "dependencies") {
        let Some(t) = d.as_map().map(|m| m.snapshot()) else {
            continue;
        };
        let chart = crate::spec::str_of(&t, "chart");
        let version = crate::spec::str_of(&t, "version");
        let fs = crate::host::HostFs(s.host.as_ref());
        let fail = |e: String| format!("release \"{}\": dependency \"{chart}\": {e}", r.name);
        let loaded = match local_chart(s, base, &chart) {
            Some(path) => capstan_chart::load::load_dir_in(&fs, Path::new(&path))
                .map_err(|e| fail(e.message))?,
            None => {
                let archive = crate::charts::repo_chart(
                    s.host.as_ref(),
                    &ps.state.doc,
                    base,
                    &chart,
                    &version,
                )
                .map_err(|e| fail(e.message))?
                .ok_or_else(|| fail("not a local chart and not in a listed repository".into()))?;
                capstan_chart::load::load_dir_in(&fs, &archive).map_err(|e| fail(e.message))?
            }
        };
        let repository = chart
            .split_once('/')
            .and_then(|(repo, _)| {
                crate::spec::list_of(&ps.state.doc, "repositories")
                    .iter()
                    .find_map(|x| {
                        let t = x.as_map()?.snapshot();
                        (crate::spec::str_of(&t, "name") == repo)
                            .then(|| crate::spec::str_of(&t, "url"))
                    })
            })
            .unwrap_or_default();
        let dep = capstan_chart::load::Dependency {
            name: loaded.metadata.name.clone(),
            version: if version.is_empty() {
                loaded.metadata.version.clone()
            } else {
                version
            },
            repository,
            condition: crate::spec::str_of(&t, "condition"),
            alias: crate::spec::str_of(&t, "alias"),
            enabled: true,
            ..Default::default()
        };
        out.push((dep, loaded));
    }
    Ok(out)
}
