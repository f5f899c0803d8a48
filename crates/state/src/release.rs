//! Releases as helmfile prepares them (`ExecuteTemplates`): `inherit:` of `templates:`,
//! state defaults (`helmDefaults.kubeContext`, `commonLabels`, `apiVersions`,
//! `kubeVersion`), then the template expressions in the release's fields rendered until
//! they stop changing (at most six passes), and the typed [`Release`] capstan acts on.

use crate::environment::Environment;
use crate::merge::Tree;
use crate::render::Renderer;
use crate::scalar_text;
use crate::spec::{bool_of, is_empty, list_of, map_of, str_of, strings_of};
use crate::StateError;
use capstan_value::{Str, Value};
use std::collections::BTreeMap;

/// One `set:`/`setString:` entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SetValue {
    /// The key path (`a.b[0]`).
    pub name: String,
    /// The value, as text.
    pub value: String,
    /// A file whose content is the value (`file:`).
    pub file: String,
    /// A list of values (`values:`), set as a list.
    pub values: Vec<String>,
}

impl SetValue {
    /// A `set:`/`setString:` entry as written.
    pub fn from_value(v: &Value) -> SetValue {
        let t = v.as_map().map(|m| m.snapshot()).unwrap_or_default();
        SetValue {
            name: str_of(&t, "name"),
            value: str_of(&t, "value"),
            file: str_of(&t, "file"),
            values: list_of(&t, "values").iter().map(set_list_item).collect(),
        }
    }
}

/// One item of a `set:` entry's `values:` as helmfile v1.7.4 passes it to helm
/// (`renderValsSecretsAny`, `pkg/state/state.go:5266`): a string as it is, anything else
/// (a map, a list, a number) as Go's `json.Marshal` writes it.
fn set_list_item(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => capstan_value::json::to_json(
            other,
            capstan_value::json::JsonStyle {
                escape_html: true,
                indent: None,
            },
        )
        .unwrap_or_else(|_| crate::scalar_text(other)),
    }
}

/// A release after templating.
#[derive(Clone, Debug, Default)]
pub struct Release {
    /// `name:`.
    pub name: String,
    /// `namespace:` (or the state's or `-n`'s).
    pub namespace: String,
    /// `chart:` (or `--chart`'s).
    pub chart: String,
    /// `version:`, the chart version constraint.
    pub version: String,
    /// `labels:`, with helmfile's `name`, `namespace` and `chart` added.
    pub labels: BTreeMap<String, String>,
    /// File paths (strings) and inline maps, in order.
    pub values: Vec<Value>,
    /// `secrets:`: sops files (paths or `{path:…}` entries), in order.
    pub secrets: Vec<Value>,
    /// `set:` entries.
    pub set: Vec<SetValue>,
    /// `setString:` entries.
    pub set_string: Vec<SetValue>,
    /// `installed:` (`None`: not written, installed).
    pub installed: Option<bool>,
    /// `condition:`: an environment value path that enables the release.
    pub condition: String,
    /// `needs:`, as written (`[KUBECONTEXT/][NAMESPACE/]NAME`).
    pub needs: Vec<String>,
    /// `kubeContext:` (or the state's).
    pub kube_context: String,
    /// `apiVersions:` for `.Capabilities.APIVersions`.
    pub api_versions: Vec<String>,
    /// `kubeVersion:` for `.Capabilities.KubeVersion`.
    pub kube_version: String,
    /// `missingFileHandler:` of the release's values files.
    pub missing_file_handler: String,
    /// `skipDeps:` (`None`: not written).
    pub skip_deps: Option<bool>,
    /// `skipSchemaValidation:` (`None`: not written).
    pub skip_schema_validation: Option<bool>,
    /// The templated spec with every key the user wrote (for `build`).
    pub raw: Tree,
}

impl Release {
    /// `Desired()`: not `installed: false`.
    pub fn desired(&self) -> bool {
        self.installed != Some(false)
    }

    /// helmfile's `ReleaseToID`: `[kubeContext/][namespace/]name`.
    pub fn id(&self) -> String {
        let mut id = String::new();
        if !self.kube_context.is_empty() {
            id.push_str(&self.kube_context);
            id.push('/');
        }
        if !self.namespace.is_empty() {
            id.push_str(&self.namespace);
            id.push('/');
        } else if !self.kube_context.is_empty() {
            // helmfile's `kc//name`: not to be confused with namespace `kc`.
            id.push('/');
        }
        id.push_str(&self.name);
        id
    }

    /// The labels selectors see: the release's own plus `name`, `namespace` and `chart`
    /// (the chart name without its repository or directory).
    pub(crate) fn selector_labels(&self) -> BTreeMap<String, String> {
        let mut l = self.labels.clone();
        l.insert("name".into(), self.name.clone());
        l.insert("namespace".into(), self.namespace.clone());
        l.insert("chart".into(), chart_name(&self.chart));
        l
    }

    fn from_tree(t: &Tree) -> Release {
        let labels = map_of(t, "labels")
            .into_iter()
            .map(|(k, v)| (k.to_string(), scalar_text(&v)))
            .collect();
        Release {
            name: str_of(t, "name"),
            namespace: str_of(t, "namespace"),
            chart: str_of(t, "chart"),
            version: str_of(t, "version"),
            labels,
            values: list_of(t, "values"),
            secrets: list_of(t, "secrets"),
            set: list_of(t, "set").iter().map(SetValue::from_value).collect(),
            set_string: list_of(t, "setString")
                .iter()
                .map(SetValue::from_value)
                .collect(),
            installed: bool_of(t, "installed"),
            condition: str_of(t, "condition"),
            needs: strings_of(t, "needs"),
            kube_context: str_of(t, "kubeContext"),
            api_versions: strings_of(t, "apiVersions"),
            kube_version: str_of(t, "kubeVersion"),
            missing_file_handler: str_of(t, "missingFileHandler"),
            skip_deps: bool_of(t, "skipDeps"),
            skip_schema_validation: bool_of(t, "skipSchemaValidation"),
            raw: t.clone(),
        }
    }
}

/// The chart name without its repository prefix or directories (`stable/nginx` → `nginx`).
pub(crate) fn chart_name(chart: &str) -> String {
    // helmfile v1.7.4 (pkg/state/state.go, the implicit labels): the last part after
    // splitting on `/`, so `./` and `chart/` give an empty label.
    chart.rsplit('/').next().unwrap_or("").to_string()
}

/// The state's `defaultInherit:` template names (a list of strings), trimmed, blanks
/// left out.
fn default_inherit(doc: &Tree) -> Result<Vec<String>, StateError> {
    match doc.get("defaultInherit") {
        None | Some(Value::Nil) => Ok(Vec::new()),
        Some(Value::List(l)) => l
            .items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.trim().to_string()),
                other => Err(StateError::new(format!(
                    "defaultInherit: cannot unmarshal {} into string",
                    other.type_name()
                ))),
            })
            .filter(|n| !matches!(n, Ok(s) if s.is_empty()))
            .collect(),
        Some(other) => Err(format!(
            "defaultInherit: cannot unmarshal {} into []string",
            other.type_name()
        )
        .into()),
    }
}

/// helmfile's `applyDefaultInherit`: the default templates first (those the release does
/// not name itself), then the release's own non-blank `inherit:` entries.
fn with_default_inherit(r: &mut Tree, defaults: &[String]) {
    if defaults.is_empty() {
        return;
    }
    let own: Vec<Value> = list_of(r, "inherit")
        .into_iter()
        .filter(|i| {
            i.get("template")
                .is_some_and(|t| !t.to_string().trim().is_empty())
        })
        .collect();
    let named: Vec<String> = own
        .iter()
        .filter_map(|i| i.get("template").map(|t| t.to_string().trim().to_string()))
        .collect();
    let mut all: Vec<Value> = Vec::new();
    let mut seen = named.clone();
    for d in defaults {
        if !seen.contains(d) {
            let mut m = Tree::new();
            m.insert(
                capstan_value::static_str!("template"),
                Value::from(d.as_str()),
            );
            all.push(Value::map_from(m));
            seen.push(d.clone());
        }
    }
    all.extend(own);
    r.insert(capstan_value::static_str!("inherit"), Value::list_from(all));
}

/// `releaseWithInheritedTemplate`: the release with its `inherit:` templates applied.
/// Why a release's `inherit:` could not be resolved: helmfile's text, and whether a cycle
/// is the cause (helmfile then names the release that started it).
#[derive(Debug)]
struct InheritError {
    message: String,
    cyclic: bool,
}

impl InheritError {
    fn other(message: String) -> InheritError {
        InheritError {
            message,
            cyclic: false,
        }
    }
}

fn inherit(r: &Tree, templates: &Tree, path: &[String]) -> Result<Tree, InheritError> {
    let name = str_of(r, "name");
    let mut merged = Tree::new();
    for inh in list_of(r, "inherit") {
        let it = inh.as_map().map(|m| m.snapshot()).unwrap_or_default();
        let template_name = str_of(&it, "template");
        if template_name.is_empty() {
            return Ok(r.clone());
        }
        let mut next = path.to_vec();
        next.push(template_name.clone());
        if path.contains(&template_name) {
            return Err(InheritError {
                message: format!("cyclic inheritance detected: {}", next.join("->")),
                cyclic: true,
            });
        }
        let Some(Value::Map(t)) = templates.get(template_name.as_str()) else {
            return Err(InheritError::other(format!(
                "release {name:?} tried to inherit inexistent release template {template_name:?}"
            )));
        };
        let mut src = inherit(&t.snapshot(), templates, &next).map_err(|e| InheritError {
            message: format!(
                "unable to load release template {template_name:?}: {}",
                e.message
            ),
            cyclic: e.cyclic,
        })?;
        for k in strings_of(&it, "except") {
            match k.as_str() {
                "labels" => {
                    src.insert(capstan_value::static_str!("labels"), Value::empty_map());
                }
                "values" | "valuesTemplate" | "setTemplate" | "set" | "setString" | "secrets" => {
                    src.remove(k.as_str());
                }
                other => {
                    return Err(InheritError::other(format!(
                        "{other:?} is not allowed under `inherit`. Allowed values are \"set\", \"setTemplate\", \"values\", \"valuesTemplate\", \"secrets\", and \"labels\""
                    )))
                }
            }
        }
        override_with(&mut merged, &src);
    }
    override_with(&mut merged, r);
    merged.remove("inherit");
    Ok(merged)
}

/// `mergo.Merge(dst, src, WithAppendSlice, WithOverride)` on `ReleaseSpec`s (how
/// helmfile layers inherited templates, then the release, over each other): a field of
/// `src` that is set replaces `dst`'s, lists are appended, maps merged key by key. An
/// empty string, list or map, `false` and `0` are not set, except for the pointer
/// fields (`installed: false`, `timeout: 0`), which are set once written.
fn override_with(dst: &mut Tree, src: &Tree) {
    for (k, v) in src {
        let pointer = crate::spec::RELEASE_BOOL_KEYS.contains(&k.as_ref())
            || matches!(k.as_ref(), "timeout" | "historyMax" | "waitRetries");
        let unset = match v {
            Value::Bool(_) | Value::Int(_) | Value::Int64(_) if pointer => false,
            other => is_empty(other),
        };
        if unset {
            continue;
        }
        match (dst.get(k), v) {
            (Some(Value::List(a)), Value::List(b)) => {
                let items = a.items.iter().chain(b.items.iter()).cloned().collect();
                dst.insert(k.clone(), Value::list_from(items));
            }
            (Some(Value::Map(a)), Value::Map(b)) => {
                let mut m = a.snapshot();
                override_with(&mut m, &b.snapshot());
                dst.insert(k.clone(), Value::map_from(m));
            }
            _ => {
                dst.insert(k.clone(), v.clone());
            }
        }
    }
}

/// What release templates see (`releaseTemplateData`).
pub fn release_template_data(
    env: &Environment,
    values: &Tree,
    r: &Tree,
    overrides: &Overrides,
) -> Value {
    use capstan_value::static_str;
    // A string field shares its text; anything else is printed as helmfile reads it.
    let text = |key: &str| match r.get(key) {
        Some(Value::String(s)) => Value::String(s.clone()),
        _ => Value::from(str_of(r, key)),
    };
    // Both maps are built from their entries in key order (no search per entry).
    let rel = BTreeMap::from([
        (static_str!("Chart"), text("chart")),
        (static_str!("ChartVersion"), text("version")),
        (static_str!("KubeContext"), text("kubeContext")),
        (
            static_str!("Labels"),
            r.get("labels").cloned().unwrap_or_else(Value::empty_map),
        ),
        (static_str!("Name"), text("name")),
        (static_str!("Namespace"), text("namespace")),
    ]);
    let v = Value::map_from(values.clone());
    Value::map_from(BTreeMap::from([
        (static_str!("Chart"), Value::from(overrides.chart.as_str())),
        (static_str!("Environment"), env.template_value()),
        (
            static_str!("KubeContext"),
            Value::from(overrides.kube_context.as_str()),
        ),
        (
            static_str!("Namespace"),
            Value::from(overrides.namespace.as_str()),
        ),
        (static_str!("Release"), Value::map_from(rel)),
        (static_str!("StateValues"), v.clone()),
        (static_str!("Values"), v),
    ]))
}

/// The state-wide overrides (`kubeContext:`/`namespace:`/`chart:` or `-n`/`--kube-context`).
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `kubeContext:` of the state, or `--kube-context`.
    pub kube_context: String,
    /// `namespace:` of the state, or `-n`.
    pub namespace: String,
    /// `--chart`: the chart every release uses.
    pub chart: String,
}

/// What release templates see, built the first time a template needs it (most releases
/// have no template expression in their fields).
type LazyData<'a> = std::cell::LazyCell<Value, &'a dyn Fn() -> Value>;

fn render_str(
    r: &Renderer,
    data: &LazyData,
    text: &str,
    what: impl FnOnce() -> String,
) -> Result<String, StateError> {
    if !text.contains("{{") {
        return Ok(text.to_string());
    }
    Ok(r.render(text, data)
        .map_err(|e| format!("{}: {e}", what()))?)
}

/// `ExecuteTemplateExpressions`: one pass over the release's templated fields.
fn execute_once(r: &Renderer, data: &LazyData, spec: &Tree) -> Result<Tree, StateError> {
    let name = str_of(spec, "name");
    let mut out = spec.clone();
    for field in [
        "name",
        "chart",
        "namespace",
        "version",
        "waitTemplate",
        "installedTemplate",
        "conditionTemplate",
        "verifyTemplate",
    ] {
        if let Some(Value::String(ts)) = spec.get(field) {
            let v = render_str(r, data, ts, || {
                format!("failed executing template expressions in release \"{name}\".{field} = \"{ts}\"")
            })?;
            out.insert(Str::from(field), Value::from(v));
        }
    }
    if let Some(Value::Map(labels)) = spec.get("labels") {
        let mut m = BTreeMap::new();
        for (k, v) in labels.snapshot() {
            let ts = scalar_text(&v);
            let s = render_str(r, data, &ts, || {
                format!("failed executing template expressions in release \"{name}\".labels[{k}] = \"{ts}\"")
            })?;
            m.insert(k, Value::from(s));
        }
        out.insert(capstan_value::static_str!("labels"), Value::map_from(m));
    }
    let mut values = Vec::new();
    for (i, t) in list_of(spec, "valuesTemplate").into_iter().enumerate() {
        match &t {
            Value::Map(_) | Value::AnyMap(_) => {
                let serialized = capstan_yaml::encode_helmfile(&t).map_err(|e| e.to_string())?;
                let fail = |e: String| {
                    format!("failed executing template expressions in release \"{name}\".values[{i}] = \"{serialized}\": {e}")
                };
                let s = r.render(&serialized, data).map_err(|e| fail(e.message))?;
                let v = capstan_yaml::decode_helmfile(&s).map_err(|e| fail(e.to_string()))?;
                values.push(v);
            }
            other => values.push(other.clone()),
        }
    }
    for (i, t) in list_of(spec, "values").into_iter().enumerate() {
        match &t {
            Value::String(ts) => {
                let s = render_str(r, data, ts, || {
                    format!("failed executing template expressions in release \"{name}\".values[{i}] = \"{ts}\"")
                })?;
                values.push(Value::from(s));
            }
            Value::AnyMap(_) => {
                values.push(capstan_yaml::stringify_keys(&t).map_err(|e| e.to_string())?)
            }
            other => values.push(other.clone()),
        }
    }
    if spec.contains_key("values") || spec.contains_key("valuesTemplate") {
        out.insert(
            capstan_value::static_str!("values"),
            Value::list_from(values),
        );
    }
    out.remove("valuesTemplate");
    if let Some(Value::List(secrets)) = spec.get("secrets") {
        let mut list = Vec::new();
        for (i, t) in secrets.items.iter().enumerate() {
            match t {
                Value::String(ts) => list.push(Value::from(render_str(r, data, ts, || {
                    format!("failed executing template expressions in release \"{name}\".secrets[{i}] = \"{ts}\"")
                })?)),
                other => list.push(other.clone()),
            }
        }
        out.insert(
            capstan_value::static_str!("secrets"),
            Value::list_from(list),
        );
    }
    let mut set = Vec::new();
    for (i, t) in list_of(spec, "setTemplate").into_iter().enumerate() {
        let mut m = t.as_map().map(|m| m.snapshot()).unwrap_or_default();
        for field in ["name", "value", "file"] {
            let ts = str_of(&m, field);
            let s = render_str(r, data, &ts, || {
                format!("failed executing template expressions in release \"{name}\".set[{i}].{field} = \"{ts}\"")
            })?;
            if !s.is_empty() || m.contains_key(field) {
                m.insert(Str::from(field), Value::from(s));
            }
        }
        if let Some(Value::List(vs)) = m.get("values").cloned() {
            let mut rendered = Vec::new();
            for (j, v) in vs.items.iter().enumerate() {
                let ts = scalar_text(v);
                rendered.push(Value::from(render_str(r, data, &ts, || {
                    format!("failed executing template expressions in release \"{name}\".set[{i}].values[{j}] = \"{ts}\"")
                })?));
            }
            m.insert(
                capstan_value::static_str!("values"),
                Value::list_from(rendered),
            );
        }
        set.push(Value::map_from(m));
    }
    if !set.is_empty() {
        set.extend(list_of(spec, "set"));
        out.insert(capstan_value::static_str!("set"), Value::list_from(set));
    }
    out.remove("setTemplate");
    if let Some(Value::List(needs)) = spec.get("needs") {
        let mut list = Vec::new();
        for (i, n) in needs.items.iter().enumerate() {
            let ts = scalar_text(n);
            list.push(Value::from(render_str(r, data, &ts, || {
                format!("failed executing template expressions in release \"{name}\".needs[{i}] = \"{ts}\"")
            })?));
        }
        out.insert(capstan_value::static_str!("needs"), Value::list_from(list));
    }
    Ok(out)
}

fn templated_bool(t: &mut Tree, template_key: &str, key: &str) -> Result<(), StateError> {
    if let Some(v) = t.remove(template_key) {
        let s = scalar_text(&v);
        let parsed = capstan_yaml::decode_helmfile_value(&s)
            .map_err(|e| format!("{template_key}: failed deserialising string {s}: {e}"))?;
        match parsed {
            Value::Bool(b) => {
                t.insert(Str::from(key), Value::Bool(b));
            }
            other => {
                return Err(format!(
                    "{template_key}: failed deserialising string {s}: yaml: unmarshal errors:\n  line 1: cannot unmarshal {} `{s}` into bool",
                    crate::go_kind(&other)
                ).into())
            }
        }
    }
    Ok(())
}

/// Everything [`prepare_releases`] needs from the loaded state.
pub struct StateContext<'a> {
    /// The state file, as helmfile names it.
    pub file: &'a str,
    /// The merged state document.
    pub doc: &'a Tree,
    /// The environment.
    pub env: &'a Environment,
    /// `.Values` of the state.
    pub values: &'a Tree,
    /// The renderer of the state's directory.
    pub renderer: &'a Renderer,
    /// The state-wide overrides.
    pub overrides: &'a Overrides,
}

/// `ExecuteTemplates` over every release of a state.
pub(crate) fn prepare_releases(c: &StateContext) -> Result<Vec<Release>, StateError> {
    let templates = map_of(c.doc, "templates");
    let helm_defaults = map_of(c.doc, "helmDefaults");
    let common_labels = map_of(c.doc, "commonLabels");
    let api_versions = list_of(c.doc, "apiVersions");
    let kube_version = str_of(c.doc, "kubeVersion");
    let default_inherit = default_inherit(c.doc)?;
    let mut out = Vec::new();
    for rv in list_of(c.doc, "releases") {
        let mut r = rv.as_map().map(|m| m.snapshot()).unwrap_or_default();
        with_default_inherit(&mut r, &default_inherit);
        let name = str_of(&r, "name");
        let mut release = inherit(&r, &templates, &[]).map_err(|e| {
            if e.cyclic {
                format!(
                    "unable to load release {name:?} with template: {}",
                    e.message
                )
            } else {
                e.message
            }
        })?;
        if str_of(&release, "kubeContext").is_empty() {
            let kc = str_of(&helm_defaults, "kubeContext");
            if !kc.is_empty() {
                release.insert(capstan_value::static_str!("kubeContext"), Value::from(kc));
            }
        }
        let mut labels = map_of(&release, "labels");
        for (k, v) in &common_labels {
            labels.insert(k.clone(), v.clone());
        }
        if !labels.is_empty() {
            release.insert(
                capstan_value::static_str!("labels"),
                Value::map_from(labels),
            );
        }
        if list_of(&release, "apiVersions").is_empty() && !api_versions.is_empty() {
            release.insert(
                capstan_value::static_str!("apiVersions"),
                Value::list_from(api_versions.clone()),
            );
        }
        if str_of(&release, "kubeVersion").is_empty() && !kube_version.is_empty() {
            release.insert(
                capstan_value::static_str!("kubeVersion"),
                Value::from(kube_version.clone()),
            );
        }
        let mut prev = release.clone();
        let mut done = None;
        for _ in 0..6 {
            let make = || release_template_data(c.env, c.values, &prev, c.overrides);
            let data = LazyData::new(&make);
            let mut next = execute_once(c.renderer, &data, &release).map_err(|e| {
                StateError::new(format!(
                    "failed executing templates in release \"{}\".\"{name}\": {e}",
                    c.file
                ))
                .about(format!("name: {name}"))
            })?;
            if next == prev {
                for (tk, k) in [
                    ("installedTemplate", "installed"),
                    ("waitTemplate", "wait"),
                    ("verifyTemplate", "verify"),
                ] {
                    templated_bool(&mut next, tk, k).map_err(|e| {
                        StateError::new(format!(
                            "failed executing templates in release \"{}\".\"{name}\": {e}",
                            c.file
                        ))
                        .about(format!("name: {name}"))
                    })?;
                }
                // helmfile v1.7.4 (pkg/state/state_exec_tmpl.go:61): a rendered
                // `conditionTemplate` becomes `condition: "true"|"false"`.
                templated_bool(&mut next, "conditionTemplate", "condition").map_err(|e| {
                    StateError::new(format!(
                        "failed executing templates in release \"{}\".\"{name}\": {e}",
                        c.file
                    ))
                    .about(format!("name: {name}"))
                })?;
                if let Some(Value::Bool(b)) = next.get("condition").cloned() {
                    next.insert(Str::from("condition"), Value::from(b.to_string()));
                }
                done = Some(next);
                break;
            }
            prev = next;
        }
        let Some(templated) = done else {
            return Err(format!(
                "failed executing templates in release \"{}\".\"{name}\": recursive references can't be resolved",
                c.file
            ).into());
        };
        let rel = Release::from_tree(&templated);
        if rel.chart.is_empty() {
            return Err(format!(
                "encountered empty chart while reading release {:?}",
                rel.name
            )
            .into());
        }
        // Release names and charts are helm's positional arguments: one that starts with
        // `-` would be read as a flag (`chart: --post-renderer=./x` runs a program).
        for (what, text) in [("name", &rel.name), ("chart", &rel.chart)] {
            if text.starts_with('-') {
                return Err(format!(
                    "release {:?}: {what} {text:?} starts with \"-\" and helm would read it as a flag",
                    rel.name
                )
                .into());
            }
        }
        out.push(rel);
    }
    Ok(out)
}
