//! `fetch`: each release's chart, as files under its output directory.

use crate::app::PreparedState;
use crate::commands::template::{path_template_data, render_path};
use crate::load::Settings;
use crate::StateError;
use capstan_value::{Str, Value};
use std::path::Path;

/// helmfile's `DefaultFetchOutputDirTemplate`.
const FETCH_OUTPUT_DIR_TEMPLATE: &str = "{{ .OutputDir }}{{ if .Release.Namespace }}/{{ .Release.Namespace }}{{ end }}{{ if .Release.KubeContext }}/{{ .Release.KubeContext }}{{ end }}/{{ .Release.Name }}/{{ .ChartName }}/{{ or .Release.Version \"latest\" }}";

/// What `fetch` does for one release whose chart is not on disk.
pub struct FetchedChart {
    /// The index of the release's state among those loaded, and the release's id.
    pub state: usize,
    /// helmfile's ID of the release (`[KUBECONTEXT/][NAMESPACE/]NAME`).
    pub id: String,
    /// The release's name.
    pub release: String,
    /// The chart as the release names it.
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
