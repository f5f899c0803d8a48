//! What helmfile hands `helm template` for one release: the values files in order
//! (`.gotmpl` files rendered with the release's template data, inline maps written as
//! YAML, decrypted secrets), then `set:` as `--set`/`--set-file`, `setString:` as
//! `--set-string` — held in memory as capstan's chart renderer takes them.

use crate::envvals::{join_shown, MissingFileHandler, ValuesLoader};
use crate::host::join;
use crate::load::Settings;
use crate::release::{release_template_data, Release};
use crate::app::PreparedState;
use capstan_chart::TemplateOptions;
use capstan_value::Value;
use capstan_values::UserValues;
use std::path::{Path, PathBuf};

/// Flags of `helmfile template` that reach helm.
#[derive(Clone, Debug, Default)]
pub struct HelmFlags {
    pub include_crds: bool,
    pub skip_tests: bool,
    pub kube_version: String,
    pub api_versions: Vec<String>,
    pub skip_schema_validation: bool,
    /// `--set` given to helmfile itself (applied to every release).
    pub set: Vec<String>,
    /// `--values` given to helmfile itself.
    pub values: Vec<String>,
}

/// A release ready for the chart renderer.
#[derive(Clone, Debug)]
pub struct ChartInput {
    /// The chart directory or archive (relative to the working directory, as shown).
    pub chart: String,
    pub options: TemplateOptions,
}

/// helmfile's `escape` for `--set` values: `{`, `}` and `,` get a backslash.
pub fn escape_set(v: &str) -> String {
    v.replace('{', "\\{").replace('}', "\\}").replace(',', "\\,")
}

/// Whether `chart` (relative to `base`) is a chart on disk rather than `repo/name` or
/// an OCI reference.
pub fn local_chart(s: &Settings, base: &str, chart: &str) -> Option<String> {
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

/// Builds the renderer input for a release, or the error helmfile would print.
pub fn chart_input(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    flags: &HelmFlags,
) -> Result<ChartInput, String> {
    let base = ps.state.base.as_str();
    let Some(chart) = local_chart(s, base, &r.chart) else {
        return Err(format!(
            "release \"{}\": chart \"{}\" is not a local chart directory; fetching charts from repositories needs helm, which capstan runs only for cluster commands so far",
            r.name, r.chart
        ));
    };
    let renderer = ps.renderer(s);
    let mut options = TemplateOptions {
        release_name: r.name.clone(),
        namespace: r.namespace.clone(),
        include_crds: flags.include_crds,
        skip_tests: flags.skip_tests,
        kube_version: if flags.kube_version.is_empty() {
            r.kube_version.clone()
        } else {
            flags.kube_version.clone()
        },
        api_versions: r
            .api_versions
            .iter()
            .chain(flags.api_versions.iter())
            .cloned()
            .collect(),
        skip_schema_validation: flags.skip_schema_validation
            || r.skip_schema_validation == Some(true),
        ..Default::default()
    };
    let missing = MissingFileHandler::parse(if r.missing_file_handler.is_empty() {
        "Error"
    } else {
        &r.missing_file_handler
    });
    let env = ps.state.env.clone();
    let mut loader = ValuesLoader {
        renderer: &renderer,
        base,
        missing,
        context: &env,
        strategy: Default::default(),
        hcl: s.hcl,
        warnings: Vec::new(),
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
                            .map_err(|e| format!("failed to render values files \"{f}\": {e}"))?
                    } else {
                        renderer.read(&f)?
                    };
                    options.overlay.insert(f.clone(), text);
                    values.files.push(f);
                }
            }
            other => {
                let name = format!("{}/values[{i}] of release {}", base, r.name);
                let text = capstan_yaml::encode_helmfile(other).map_err(|e| e.to_string())?;
                options.overlay.insert(name.clone(), text);
                values.files.push(name);
            }
        }
    }
    for entry in &r.secrets {
        let path = crate::scalar_text(entry);
        for f in loader.resolve("secrets", &path)? {
            let text = (s.secrets)(&renderer, &f)?;
            let name = format!("{f} (decrypted)");
            options.overlay.insert(name.clone(), text);
            values.files.push(name);
        }
    }
    for f in &flags.values {
        values.files.push(f.clone());
    }
    for sv in &r.set {
        if !sv.value.is_empty() {
            values.set.push(format!("{}={}", sv.name, escape_set(&sv.value)));
        } else if !sv.file.is_empty() {
            let p = join(Path::new(base), &sv.file);
            values.set_file.push(format!("{}={}", sv.name, p.display()));
        } else if !sv.values.is_empty() {
            let items: Vec<String> = sv.values.iter().map(|v| escape_set(v)).collect();
            values.set.push(format!("{}={{{}}}", sv.name, items.join(",")));
        } else {
            values.set.push(format!("{}=", sv.name));
        }
    }
    for sv in &r.set_string {
        values.set_string.push(format!("{}={}", sv.name, escape_set(&sv.value)));
    }
    values.set.extend(flags.set.iter().cloned());
    options.values = values;
    Ok(ChartInput { chart, options })
}

/// The chart path as a filesystem path under the host's root.
pub fn chart_path(root: &Path, chart: &str) -> PathBuf {
    join(root, chart)
}
