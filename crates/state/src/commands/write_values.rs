//! `write-values`: each release's merged values as a file's content.

use crate::app::PreparedState;
use crate::commands::template::{path_template_data, render_path};
use crate::load::Settings;
use crate::release_values::HelmFlags;
use crate::StateError;
use capstan_value::Value;
use std::collections::BTreeMap;
use std::path::Path;

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
            let path = render_path(
                tmpl,
                &state_named_from_its_folder(path_template_data(s, ps, r, ""), &ps.state.file),
                "",
            )?;
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

/// The template data with `.State.BaseName` and `.State.Path` as helmfile has them
/// where it writes values: it runs in the state's folder, so its `FilePath` is the file's
/// own name (`pkg/state/state.go`, `GenerateOutputFilePath`: the path less its extension),
/// and the path is taken from that folder (a sub-helmfile's values are not written under
/// `sub/sub/`).
fn state_named_from_its_folder(data: Value, file: &str) -> Value {
    let name = file.rsplit('/').next().unwrap_or(file);
    let base = crate::commands::template::strip_ext(name);
    if let Some(Value::Map(state)) = data.get("State") {
        state.insert(capstan_value::Str::from("BaseName"), Value::from(base));
        state.insert(capstan_value::Str::from("Path"), Value::from(name));
    }
    data
}
