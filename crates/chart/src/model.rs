//! The chart model: a chart with its metadata (`Chart.yaml`), values, templates, files
//! and subcharts, the `dependencies:` entries, a load failure, and the chart's values
//! read for explaining. Data only: loading is [`crate::load`]'s and [`crate::archive`]'s.

pub use crate::fs::FileData;
use capstan_value::{Str, Value};
use capstan_yaml::{NumberTrap, SpanTree};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

capstan_source::message_error!(
    /// A `Chart.yaml` field of the wrong type (Go's `encoding/json` unmarshal text).
    FieldError
);

pub(crate) type Map = BTreeMap<Str, Value>;

/// A file of a chart, named by its path inside the chart (`templates/cm.yaml`).
#[derive(Clone, Debug)]
pub struct ChartFile {
    /// The path inside the chart.
    pub name: String,
    /// Shared: a chart is cloned for every release and its files handed to every render.
    pub data: FileData,
}

/// One entry of `dependencies:` in `Chart.yaml`.
#[derive(Clone, Debug, Default)]
pub struct Dependency {
    /// The subchart's name.
    pub name: String,
    /// The version constraint.
    pub version: String,
    /// Where it comes from (`https://…`, `oci://…`, `file://…`, `@repo`).
    pub repository: String,
    /// `condition:`: values paths (comma-separated) that enable or disable it.
    pub condition: String,
    /// `tags:`: tags under `.Values.tags` that enable or disable it.
    pub tags: Vec<String>,
    /// `alias:`: the name it is rendered under.
    pub alias: String,
    /// `import-values:` (strings or `child`/`parent` maps).
    pub import_values: Vec<Value>,
    /// Whether conditions and tags left it enabled (set while processing).
    pub enabled: bool,
}

/// `Chart.yaml`: the raw document (for `.Chart`) and the fields capstan uses.
#[derive(Clone, Debug, Default)]
pub struct Metadata {
    /// The whole document, as `.Chart` shows it.
    pub raw: Map,
    /// `name`.
    pub name: String,
    /// `version`.
    pub version: String,
    /// `apiVersion` (`v1` or `v2`).
    pub api_version: String,
    /// `kubeVersion`: the constraint the cluster's version must meet.
    pub kube_version: String,
    /// `type` (`application`, `library`).
    pub chart_type: String,
    /// `dependencies`.
    pub dependencies: Vec<Dependency>,
}

/// A loaded chart with its subcharts.
#[derive(Clone, Debug, Default)]
pub struct Chart {
    /// `Chart.yaml`.
    pub metadata: Metadata,
    /// `values.yaml`, decoded as Helm does.
    pub values: Map,
    /// `values.yaml` as written (for positions and warnings).
    pub values_text: Arc<str>,
    /// `values.yaml` read for explaining (decoded, positions, number traps): computed the
    /// first time a release asks, shared by every copy of this chart in the run.
    pub(crate) defaults_layer: Arc<OnceLock<DefaultsLayer>>,
    /// For a subchart: its entry under the parent's `charts/` (folder or archive name).
    pub dir: String,
    /// `values.schema.json`, when there is one.
    pub schema: Option<Arc<[u8]>>,
    /// Files under `templates/`, in path order (shared by every copy of the chart).
    pub templates: Arc<Vec<ChartFile>>,
    /// Every other file (including `crds/`), in path order (shared like the templates).
    pub files: Arc<Vec<ChartFile>>,
    /// `.Files` over [`Chart::files`]: made by the first render, shared by every copy.
    pub(crate) files_value: Arc<OnceLock<Value>>,
    /// The subcharts (`charts/`), loaded.
    pub dependencies: Vec<Chart>,
}

impl Chart {
    /// The chart's name (`Chart.yaml`'s).
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// `crds/*.yaml|yml|json` files of this chart and its subcharts.
    pub(crate) fn crd_files(&self, prefix: &str) -> Vec<(String, &ChartFile)> {
        let path = format!("{prefix}{}", self.name());
        let mut out: Vec<(String, &ChartFile)> = self
            .files
            .iter()
            .filter(|f| {
                f.name.starts_with("crds/")
                    && [".yaml", ".yml", ".json"]
                        .iter()
                        .any(|e| f.name.ends_with(e))
            })
            .map(|f| (format!("{path}/{}", f.name), f))
            .collect();
        for d in &self.dependencies {
            out.extend(d.crd_files(&format!("{path}/charts/")));
        }
        out
    }
}

/// A loading failure, with Helm's text, and where it is when known.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct LoadError {
    /// Helm's text.
    pub message: String,
    /// The file inside the chart (`values.yaml`, `charts/db/Chart.yaml`).
    pub file: Option<String>,
    /// Where in that file, when known.
    pub pos: Option<capstan_source::Pos>,
}

impl LoadError {
    /// A failure with Helm's `message`, nowhere in particular.
    pub fn new(message: impl Into<String>) -> Self {
        LoadError {
            message: message.into(),
            file: None,
            pos: None,
        }
    }

    pub(crate) fn in_file(mut self, file: &str, pos: Option<capstan_source::Pos>) -> Self {
        self.file = Some(file.to_string());
        self.pos = pos;
        self
    }
}

/// A scalar as sigs.k8s.io/yaml makes it a string for a Go `string` target (see
/// [`string_field`]); `None` for a list or map, and for null.
pub(crate) fn scalar_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) | Value::Int64(i) => i.to_string(),
        Value::Uint64(u) => u.to_string(),
        // Helm's decoder reads every number as a float64: one that is an integer was an
        // integer in the file (yaml.v2 decodes it as one, formatted in decimal).
        Value::Float64(f) if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => {
            format!("{}", *f as i64)
        }
        Value::Float64(f) => capstan_gocompat::strconv::format_float(*f, 'g', -1, 32),
        _ => return None,
    })
}

/// A `string` field of a Go struct that sigs.k8s.io/yaml decodes (Helm's `Chart.yaml`,
/// a manifest's head): absent or null is empty; a number or boolean is made a string as
/// that library makes it for a string field (`yamlToJSONTarget`: `version: 1.10` is
/// `"1.1"`, the float's shortest text at 32 bits; `alias: yes` is `"true"`); a list or map
/// is encoding/json's type error.
pub(crate) fn string_field(m: &Map, key: &str, ty: &str) -> Result<String, FieldError> {
    let Some(v) = m.get(key) else {
        return Ok(String::new());
    };
    match scalar_text(v) {
        Some(text) => Ok(text),
        None if matches!(v, Value::Nil) => Ok(String::new()),
        None => Err(format!(
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go struct field {ty}.{key} of type string",
            capstan_value::json::json_kind(v)
        ).into()),
    }
}

/// A YAML values file read for explaining: its values, node positions and number traps.
#[derive(Clone, Debug)]
pub(crate) struct DefaultsLayer {
    pub(crate) values: Map,
    pub(crate) spans: Option<Arc<SpanTree>>,
    pub(crate) traps: Vec<NumberTrap>,
}

/// Why a chart's `values.yaml` could not be read for explaining: the message and where.
#[derive(Debug)]
pub(crate) struct DefaultsError {
    pub(crate) message: String,
    /// The file (the label it was read under).
    pub(crate) file: String,
    pub(crate) pos: Option<(u32, u32)>,
}

impl DefaultsLayer {
    /// Reads `text` (named `label` in errors).
    pub(crate) fn read(label: &str, text: &str) -> Result<DefaultsLayer, DefaultsError> {
        let (values, spans, traps) =
            capstan_yaml::decode_helm_explained(text).map_err(|e| DefaultsError {
                message: format!("{label}: {e}"),
                file: label.to_string(),
                pos: e.pos.map(|p| (p.line, p.column)),
            })?;
        Ok(DefaultsLayer {
            values: values.into_map_entries().unwrap_or_default(),
            spans: spans.map(Arc::new),
            traps,
        })
    }
}
