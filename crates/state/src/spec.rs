//! The state file model. A state is kept as the decoded YAML map (so `build` can print
//! it back and later issues can read any key), checked against the keys helmfile's Go
//! structs accept (`HelmState`, `ReleaseSpec`, …: an unknown key is an error, as in
//! helmfile v1), with typed accessors for what capstan acts on.

use crate::merge::Tree;
use capstan_value::{Str, Value};
use std::collections::BTreeMap;

/// Keys of `HelmState` (`ReleaseSetSpec`), in helmfile's field order: the order `build`
/// prints them in (what a state may hold is `crate::shape::STATE`).
pub const STATE_KEYS: &[&str] = &[
    "helmBinary",
    "kustomizeBinary",
    "values",
    "environments",
    "bases",
    "helmDefaults",
    "helmfiles",
    "charts",
    "kubeContext",
    "namespace",
    "chart",
    "repositories",
    "commonLabels",
    "releases",
    "llm",
    "apiVersions",
    "kubeVersion",
    "hooks",
    "templates",
    "defaultInherit",
    "missingFileHandler",
    "missingFileHandlerConfig",
    "lockFilePath",
];

/// `HelmState` fields without a YAML name that `build` prints under yaml.v3's lowercased
/// names (`filepath`, `renderedvalues`): helmfile reads them back without complaint (and
/// sets them itself), so a state printed by `build` or `fetch --write-output` loads.
pub const STATE_PRINTED_KEYS: &[&str] = &["filepath", "renderedvalues"];

/// Keys of `ReleaseSpec`, in helmfile's field order: the order `build` prints them in
/// (what a release may hold is `crate::shape::RELEASE`).
pub const RELEASE_KEYS: &[&str] = &[
    "chart",
    "chartPath",
    "directory",
    "version",
    "verify",
    "keyring",
    "devel",
    "wait",
    "waitRetries",
    "waitForJobs",
    "timeout",
    "recreatePods",
    "force",
    "installed",
    "atomic",
    "cleanupOnFail",
    "historyMax",
    "condition",
    "createNamespace",
    "disableOpenAPIValidation",
    "disableValidation",
    "disableValidationOnInstall",
    "missingFileHandler",
    "missingFileHandlerConfig",
    "needs",
    "hooks",
    "name",
    "namespace",
    "labels",
    "values",
    "secrets",
    "set",
    "setString",
    "valuesTemplate",
    "setTemplate",
    "apiVersions",
    "kubeVersion",
    "env",
    "valuesPathPrefix",
    "kubeContext",
    "verifyTemplate",
    "waitTemplate",
    "installedTemplate",
    "conditionTemplate",
    "dependencies",
    "jsonPatches",
    "strategicMergePatches",
    "transformers",
    "adopt",
    "forceGoGetter",
    "forceNamespace",
    "skipDeps",
    "skipRefresh",
    "postRenderer",
    "postRendererArgs",
    "skipSchemaValidation",
    "cascade",
    "suppressDiff",
    "suppressOutputLineRegex",
    "disableAutoDetectedKubeVersionForDiff",
    "deleteWait",
    "deleteTimeout",
    "syncReleaseLabels",
    "takeOwnership",
    "serverSide",
    "reuseValues",
    "enableDNS",
    "plainHttp",
    "insecureSkipTLSVerify",
    "updateStrategy",
    "forceConflicts",
    "rollbackOnFailure",
    "description",
    "unitTests",
    "inherit",
    "trackMode",
    "trackTimeout",
    "trackLogs",
    "trackFailedLogs",
    "helmStuckGrace",
    "trackKinds",
    "skipKinds",
    "trackResources",
    "kubedogQPS",
    "kubedogBurst",
    "trackFailOnError",
];

/// A string field (`""` when missing or not a string).
pub fn str_of(t: &Tree, key: &str) -> String {
    match t.get(key) {
        Some(Value::String(s)) => s.to_string(),
        Some(Value::Nil) | None => String::new(),
        Some(other) => crate::scalar_text(other),
    }
}

/// A list field's items (empty when missing).
pub fn list_of(t: &Tree, key: &str) -> Vec<Value> {
    match t.get(key) {
        Some(Value::List(l)) => l.items.clone(),
        _ => Vec::new(),
    }
}

/// A map field's entries (empty when missing).
pub fn map_of(t: &Tree, key: &str) -> Tree {
    match t.get(key) {
        Some(Value::Map(m)) => m.snapshot(),
        _ => Tree::new(),
    }
}

/// A list of strings field.
pub fn strings_of(t: &Tree, key: &str) -> Vec<String> {
    list_of(t, key).iter().map(crate::scalar_text).collect()
}

/// An optional boolean field, read as yaml.v3 decodes into a Go `bool`: a boolean, or
/// one of YAML 1.1's words (`yes`/`no`, `on`/`off`, `y`/`n` in their spellings).
pub fn bool_of(t: &Tree, key: &str) -> Option<bool> {
    match t.get(key) {
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::String(s)) => yaml11_bool(s),
        _ => None,
    }
}

/// yaml.v3's compatibility with YAML 1.1 booleans when the target is a `bool`.
pub(crate) fn yaml11_bool(s: &str) -> Option<bool> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

/// The `*bool` fields of helmfile's `ReleaseSpec` (and `TemplateSpec`).
pub const RELEASE_BOOL_KEYS: &[&str] = &[
    "verify",
    "devel",
    "wait",
    "waitForJobs",
    "recreatePods",
    "force",
    "installed",
    "atomic",
    "cleanupOnFail",
    "createNamespace",
    "disableOpenAPIValidation",
    "disableValidation",
    "disableValidationOnInstall",
    "skipDeps",
    "skipRefresh",
    "skipSchemaValidation",
    "reuseValues",
    "enableDNS",
    "hideNotes",
    "takeOwnership",
    "syncReleaseLabels",
    "deleteWait",
    "forceConflicts",
    "rollbackOnFailure",
    "suppressDiff",
    "disableAutoDetectedKubeVersionForDiff",
    "trackLogs",
    "trackFailedLogs",
    "trackFailOnError",
];

/// The `bool` fields of helmfile's `HelmSpec` (`helmDefaults:`).
pub const HELM_DEFAULTS_BOOL_KEYS: &[&str] = &[
    "verify",
    "devel",
    "wait",
    "waitForJobs",
    "recreatePods",
    "force",
    "atomic",
    "cleanupOnFail",
    "createNamespace",
    "disableOpenAPIValidation",
    "disableValidation",
    "disableValidationOnInstall",
    "skipDeps",
    "skipRefresh",
    "skipSchemaValidation",
    "reuseValues",
    "enableDNS",
    "hideNotes",
    "takeOwnership",
    "syncReleaseLabels",
    "deleteWait",
    "insecureSkipTLSVerify",
    "plainHttp",
    "forceConflicts",
    "rollbackOnFailure",
    "skipCRDs",
];

/// Whether `t` has any of `keys` (one pass over its entries: most releases set none of
/// their boolean fields, and a lookup per field costs more than the pass).
fn has_any(t: &Tree, keys: &[&str]) -> bool {
    t.keys().any(|k| keys.contains(&&**k))
}

/// Rewrites the YAML 1.1 words of `bool` fields (`installed: no`) as booleans, as the
/// decoded Go struct holds them (and `build` prints them).
pub(crate) fn normalize_bools(doc: &mut Tree) {
    fn fix(t: &mut Tree, keys: &[&str]) {
        for k in keys {
            if let Some(Value::String(s)) = t.get(*k) {
                if let Some(b) = yaml11_bool(s) {
                    t.insert(Str::from(*k), Value::Bool(b));
                }
            }
        }
    }
    let fix_map = |v: &Value, keys: &[&str]| -> Value {
        match v {
            Value::Map(m) if has_any(&m.read(), keys) => {
                let mut t = m.snapshot();
                fix(&mut t, keys);
                Value::map_from(t)
            }
            other => other.clone(),
        }
    };
    if let Some(v) = doc.get("helmDefaults").cloned() {
        doc.insert(
            Str::from("helmDefaults"),
            fix_map(&v, HELM_DEFAULTS_BOOL_KEYS),
        );
    }
    if let Some(Value::List(l)) = doc.get("releases").cloned() {
        let items = l
            .items
            .iter()
            .map(|r| fix_map(r, RELEASE_BOOL_KEYS))
            .collect();
        doc.insert(Str::from("releases"), Value::list_from(items));
    }
    if let Some(Value::Map(m)) = doc.get("templates").cloned() {
        let t: Tree = m
            .snapshot()
            .into_iter()
            .map(|(k, v)| (k, fix_map(&v, RELEASE_BOOL_KEYS)))
            .collect();
        doc.insert(Str::from("templates"), Value::map_from(t));
    }
}

/// The Go zero value test mergo uses (`isEmptyValue`).
pub fn is_empty(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(i) | Value::Int64(i) => *i == 0,
        Value::Uint64(u) => *u == 0,
        Value::Float64(f) => *f == 0.0,
        Value::Float32(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        Value::List(l) => l.items.is_empty(),
        Value::Map(m) => m.is_empty(),
        _ => false,
    }
}

/// An environment's settings (`environments.NAME`).
#[derive(Clone, Debug, Default)]
pub struct EnvironmentSpec {
    /// `defaults:`: entries like `values:`, merged before them (the environments
    /// documentation's lowest environment layer).
    pub defaults: Vec<Value>,
    /// `values:`: files, inline maps and remote sources, in order.
    pub values: Vec<Value>,
    /// `secrets:`: sops files, in order.
    pub secrets: Vec<Value>,
    /// `kubeContext:`.
    pub kube_context: String,
    /// `missingFileHandler:`.
    pub missing_file_handler: String,
    /// `mergeStrategy:` (`override` or `fallback`).
    pub merge_strategy: String,
}

impl EnvironmentSpec {
    /// The settings read from the environment's map.
    pub fn from_value(v: &Value) -> EnvironmentSpec {
        let t = v.as_map().map(|m| m.snapshot()).unwrap_or_default();
        EnvironmentSpec {
            defaults: list_of(&t, "defaults"),
            values: list_of(&t, "values"),
            secrets: list_of(&t, "secrets"),
            kube_context: str_of(&t, "kubeContext"),
            missing_file_handler: str_of(&t, "missingFileHandler"),
            merge_strategy: str_of(&t, "mergeStrategy"),
        }
    }
}

/// A `helmfiles:` entry.
#[derive(Clone, Debug, Default)]
pub struct SubHelmfileSpec {
    /// `path:` (a file, a glob or a remote source).
    pub path: String,
    /// `selectors:` (`None`: not written).
    pub selectors: Option<Vec<String>>,
    /// `selectorsInherited:`: the command line's selectors apply.
    pub selectors_inherited: bool,
    /// `values:` passed to the sub-helmfile.
    pub values: Vec<Value>,
}

impl SubHelmfileSpec {
    /// The entry read from its map (or a plain path).
    pub fn from_value(v: &Value) -> SubHelmfileSpec {
        match v {
            Value::Map(m) => {
                let t = m.snapshot();
                SubHelmfileSpec {
                    path: str_of(&t, "path"),
                    selectors: t.get("selectors").map(|_| strings_of(&t, "selectors")),
                    selectors_inherited: bool_of(&t, "selectorsInherited").unwrap_or(false),
                    values: list_of(&t, "values"),
                }
            }
            other => SubHelmfileSpec {
                path: crate::scalar_text(other),
                ..Default::default()
            },
        }
    }
}

/// A map from pairs.
pub fn tree(pairs: impl IntoIterator<Item = (&'static str, Value)>) -> Tree {
    pairs
        .into_iter()
        .map(|(k, v)| (Str::from(k), v))
        .collect::<BTreeMap<_, _>>()
}
