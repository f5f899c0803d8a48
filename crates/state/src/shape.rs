//! The Go types of helmfile v1.7.4's state structs, and a state document checked
//! against them as yaml.v3 decodes a document into them with `KnownFields(true)`: an
//! unknown key anywhere (`field X not found in type state.HelmSpec`) or a value of the
//! wrong shape (`cannot unmarshal !!map into []interface {}`) is an error at the line of
//! the offending node, as helmfile reports it, never values silently dropped.
//!
//! The types are those of helmfile v1.7.4: `pkg/state/state.go` (`ReleaseSetSpec`,
//! `HelmSpec`, `ReleaseSpec`, `SubHelmfileSpec`, `RepositorySpec`, `SetValue`,
//! `Inherit`, `TrackResourceSpec`, `MissingFileHandlerConfig`), `pkg/state/environment.go`
//! (`EnvironmentSpec`), `pkg/state/helmx.go` (`Dependency`), `pkg/event/bus.go`
//! (`Hook`), `pkg/agent/llm/types.go` (`Config`). Where helmfile has its own
//! `UnmarshalYAML` (a sub-helmfile given as a string, `inherit` as one map,
//! `defaultInherit` as one string), the alternatives it accepts are accepted here.

use capstan_value::{Path, Segment, Value};

/// A Go type a state field decodes into.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    /// `string` (`*string`): any scalar.
    Str,
    /// `bool` (`*bool`): a boolean or a YAML 1.1 word.
    Bool,
    /// `int` (`*int`).
    Int,
    /// `float32`.
    Float,
    /// `time.Duration`: a Go duration text or an integer.
    Duration,
    /// `any`: anything.
    Any,
    /// `map[string]any`.
    AnyMap,
    /// `map[string]string`.
    StrMap,
    /// `[]T`.
    List(&'static Ty),
    /// `map[string]T`.
    Map(&'static Ty),
    /// A struct.
    Struct(&'static Struct),
    /// A `helmfiles:` entry: a path, or the struct.
    SubHelmfile,
    /// `inherit:`: a list of `Inherit`, or one (deprecated).
    Inherits,
    /// `defaultInherit:`: a list of names, or one.
    DefaultInherits,
}

/// A Go struct: its name as yaml.v3 prints it and its fields by YAML name.
#[derive(Debug)]
pub struct Struct {
    /// `state.ReleaseSpec`.
    pub go: &'static str,
    /// The fields.
    pub fields: &'static [(&'static str, Ty)],
}

const STR_LIST: Ty = Ty::List(&Ty::Str);
const INHERIT_LIST: Ty = Ty::List(&Ty::Struct(&INHERIT));
const ANY_LIST: Ty = Ty::List(&Ty::Any);

/// `pkg/state/state.go`: `MissingFileHandlerConfig`.
pub static MISSING_FILE_HANDLER_CONFIG: Struct = Struct {
    go: "state.MissingFileHandlerConfig",
    fields: &[("ignoreMissingGitBranch", Ty::Bool)],
};

/// `pkg/event/bus.go`: `Hook`.
pub static HOOK: Struct = Struct {
    go: "event.Hook",
    fields: &[
        ("name", Ty::Str),
        ("events", STR_LIST),
        ("command", Ty::Str),
        ("kubectlApply", Ty::StrMap),
        ("args", STR_LIST),
        ("showlogs", Ty::Bool),
    ],
};

/// `SetValue` (`set:`, `setString:`, `setTemplate:`, `env:`).
pub static SET_VALUE: Struct = Struct {
    go: "state.SetValue",
    fields: &[
        ("name", Ty::Str),
        ("value", Ty::Str),
        ("file", Ty::Str),
        ("values", ANY_LIST),
    ],
};

/// `pkg/state/helmx.go`: `Dependency`.
pub static DEPENDENCY: Struct = Struct {
    go: "state.Dependency",
    fields: &[("chart", Ty::Str), ("version", Ty::Str), ("alias", Ty::Str)],
};

/// `Inherit`.
pub static INHERIT: Struct = Struct {
    go: "state.Inherit",
    fields: &[("template", Ty::Str), ("except", STR_LIST)],
};

/// `TrackResourceSpec`.
pub static TRACK_RESOURCE: Struct = Struct {
    go: "state.TrackResourceSpec",
    fields: &[("kind", Ty::Str), ("name", Ty::Str), ("namespace", Ty::Str)],
};

/// The fields of `ReleaseSpec` (also `TemplateSpec`, which inlines it), in helmfile
/// v1.7.4's order.
const RELEASE_FIELDS: &[(&str, Ty)] = &[
    ("chart", Ty::Str),
    ("chartPath", Ty::Str),
    ("directory", Ty::Str),
    ("version", Ty::Str),
    ("verify", Ty::Bool),
    ("keyring", Ty::Str),
    ("enableDNS", Ty::Bool),
    ("devel", Ty::Bool),
    ("wait", Ty::Bool),
    ("waitRetries", Ty::Int),
    ("waitForJobs", Ty::Bool),
    ("timeout", Ty::Int),
    ("recreatePods", Ty::Bool),
    ("force", Ty::Bool),
    ("installed", Ty::Bool),
    ("updateStrategy", Ty::Str),
    ("atomic", Ty::Bool),
    ("rollbackOnFailure", Ty::Bool),
    ("cleanupOnFail", Ty::Bool),
    ("forceConflicts", Ty::Bool),
    ("historyMax", Ty::Int),
    ("condition", Ty::Str),
    ("createNamespace", Ty::Bool),
    ("reuseValues", Ty::Bool),
    ("disableOpenAPIValidation", Ty::Bool),
    ("disableValidation", Ty::Bool),
    ("disableValidationOnInstall", Ty::Bool),
    ("missingFileHandler", Ty::Str),
    (
        "missingFileHandlerConfig",
        Ty::Struct(&MISSING_FILE_HANDLER_CONFIG),
    ),
    ("needs", STR_LIST),
    ("hooks", Ty::List(&Ty::Struct(&HOOK))),
    ("unitTests", STR_LIST),
    ("name", Ty::Str),
    ("description", Ty::Str),
    ("namespace", Ty::Str),
    ("labels", Ty::StrMap),
    ("values", ANY_LIST),
    ("secrets", ANY_LIST),
    ("set", Ty::List(&Ty::Struct(&SET_VALUE))),
    ("setString", Ty::List(&Ty::Struct(&SET_VALUE))),
    ("valuesTemplate", ANY_LIST),
    ("setTemplate", Ty::List(&Ty::Struct(&SET_VALUE))),
    ("apiVersions", STR_LIST),
    ("kubeVersion", Ty::Str),
    ("env", Ty::List(&Ty::Struct(&SET_VALUE))),
    ("valuesPathPrefix", Ty::Str),
    ("kubeContext", Ty::Str),
    ("insecureSkipTLSVerify", Ty::Bool),
    ("plainHttp", Ty::Bool),
    ("verifyTemplate", Ty::Str),
    ("waitTemplate", Ty::Str),
    ("installedTemplate", Ty::Str),
    ("conditionTemplate", Ty::Str),
    ("dependencies", Ty::List(&Ty::Struct(&DEPENDENCY))),
    ("jsonPatches", ANY_LIST),
    ("strategicMergePatches", ANY_LIST),
    ("transformers", ANY_LIST),
    ("adopt", STR_LIST),
    ("forceGoGetter", Ty::Bool),
    ("forceNamespace", Ty::Str),
    ("skipDeps", Ty::Bool),
    ("skipRefresh", Ty::Bool),
    ("postRenderer", Ty::Str),
    ("skipSchemaValidation", Ty::Bool),
    ("postRendererArgs", STR_LIST),
    ("cascade", Ty::Str),
    ("suppressOutputLineRegex", STR_LIST),
    ("disableAutoDetectedKubeVersionForDiff", Ty::Bool),
    ("inherit", Ty::Inherits),
    ("suppressDiff", Ty::Bool),
    ("deleteWait", Ty::Bool),
    ("deleteTimeout", Ty::Int),
    ("syncReleaseLabels", Ty::Bool),
    ("takeOwnership", Ty::Bool),
    ("serverSide", Ty::Str),
    ("trackMode", Ty::Str),
    ("trackTimeout", Ty::Int),
    ("trackLogs", Ty::Bool),
    ("trackFailedLogs", Ty::Bool),
    ("helmStuckGrace", Ty::Int),
    ("trackKinds", STR_LIST),
    ("skipKinds", STR_LIST),
    ("trackResources", Ty::List(&Ty::Struct(&TRACK_RESOURCE))),
    ("kubedogQPS", Ty::Float),
    ("kubedogBurst", Ty::Int),
    ("trackFailOnError", Ty::Bool),
];

/// `ReleaseSpec`.
pub static RELEASE: Struct = Struct {
    go: "state.ReleaseSpec",
    fields: RELEASE_FIELDS,
};

/// `TemplateSpec` (a `ReleaseSpec` inlined).
pub static TEMPLATE: Struct = Struct {
    go: "state.TemplateSpec",
    fields: RELEASE_FIELDS,
};

/// `HelmSpec` (`helmDefaults:`).
pub static HELM_DEFAULTS: Struct = Struct {
    go: "state.HelmSpec",
    fields: &[
        ("kubeContext", Ty::Str),
        ("args", STR_LIST),
        ("diffArgs", STR_LIST),
        ("syncArgs", STR_LIST),
        ("templateArgs", STR_LIST),
        ("verify", Ty::Bool),
        ("keyring", Ty::Str),
        ("enableDNS", Ty::Bool),
        ("skipSchemaValidation", Ty::Bool),
        ("devel", Ty::Bool),
        ("wait", Ty::Bool),
        ("waitRetries", Ty::Int),
        ("waitForJobs", Ty::Bool),
        ("timeout", Ty::Int),
        ("recreatePods", Ty::Bool),
        ("force", Ty::Bool),
        ("atomic", Ty::Bool),
        ("rollbackOnFailure", Ty::Bool),
        ("cleanupOnFail", Ty::Bool),
        ("forceConflicts", Ty::Bool),
        ("historyMax", Ty::Int),
        ("createNamespace", Ty::Bool),
        ("skipCRDs", Ty::Bool),
        ("skipDeps", Ty::Bool),
        ("skipRefresh", Ty::Bool),
        ("reuseValues", Ty::Bool),
        ("postRenderer", Ty::Str),
        ("postRendererArgs", STR_LIST),
        ("cascade", Ty::Str),
        ("suppressOutputLineRegex", STR_LIST),
        ("disableAutoDetectedKubeVersionForDiff", Ty::Bool),
        ("disableValidation", Ty::Bool),
        ("disableOpenAPIValidation", Ty::Bool),
        ("insecureSkipTLSVerify", Ty::Bool),
        ("plainHttp", Ty::Bool),
        ("deleteWait", Ty::Bool),
        ("deleteTimeout", Ty::Int),
        ("syncReleaseLabels", Ty::Bool),
        ("takeOwnership", Ty::Bool),
        ("serverSide", Ty::Str),
        ("trackMode", Ty::Str),
        ("helmStuckGrace", Ty::Int),
    ],
};

/// `pkg/state/environment.go`: `EnvironmentSpec`.
pub static ENVIRONMENT: Struct = Struct {
    go: "state.EnvironmentSpec",
    fields: &[
        // Not a field of v1.7.4's struct, but in helmfile's docs/environments.md:
        // capstan follows the document (COMPATIBILITY.md).
        ("defaults", ANY_LIST),
        ("values", ANY_LIST),
        ("secrets", STR_LIST),
        ("kubeContext", Ty::Str),
        ("missingFileHandler", Ty::Str),
        (
            "missingFileHandlerConfig",
            Ty::Struct(&MISSING_FILE_HANDLER_CONFIG),
        ),
        ("mergeStrategy", Ty::Str),
    ],
};

/// `RepositorySpec`.
pub static REPOSITORY: Struct = Struct {
    go: "state.RepositorySpec",
    fields: &[
        ("name", Ty::Str),
        ("url", Ty::Str),
        ("caFile", Ty::Str),
        ("certFile", Ty::Str),
        ("keyFile", Ty::Str),
        ("username", Ty::Str),
        ("password", Ty::Str),
        ("registryConfig", Ty::Str),
        ("managed", Ty::Str),
        ("oci", Ty::Bool),
        ("verify", Ty::Bool),
        ("keyring", Ty::Str),
        ("passCredentials", Ty::Bool),
        ("skipTLSVerify", Ty::Bool),
        ("plainHttp", Ty::Bool),
    ],
};

/// The map form of a `helmfiles:` entry (`SubHelmfileSpec.UnmarshalYAML`'s own struct,
/// with `SubhelmfileEnvironmentSpec` inlined).
pub static SUB_HELMFILE: Struct = Struct {
    go: "struct { Path string \"yaml:\\\"path\\\"\"; Selectors []string \"yaml:\\\"selectors\\\"\"; SelectorsInherited bool \"yaml:\\\"selectorsInherited\\\"\"; Inherits []string \"yaml:\\\"inherits\\\"\"; Environment state.SubhelmfileEnvironmentSpec \"yaml:\\\",inline\\\"\" }",
    fields: &[
        ("path", Ty::Str),
        ("selectors", STR_LIST),
        ("selectorsInherited", Ty::Bool),
        ("inherits", STR_LIST),
        ("values", ANY_LIST),
    ],
};

/// `pkg/agent/llm/types.go`: `Config` (`llm:`).
pub static LLM: Struct = Struct {
    go: "llm.Config",
    fields: &[
        ("baseURL", Ty::Str),
        ("apiKey", Ty::Str),
        ("model", Ty::Str),
        ("timeout", Ty::Duration),
        ("maxTokens", Ty::Int),
        ("temperature", Ty::Float),
    ],
};

/// `HelmState` (with `ReleaseSetSpec` inlined), and the two fields without a YAML name
/// that `build` prints under yaml.v3's lowercased names (helmfile reads them back).
pub static STATE: Struct = Struct {
    go: "state.HelmState",
    fields: &[
        ("helmBinary", Ty::Str),
        ("kustomizeBinary", Ty::Str),
        ("values", ANY_LIST),
        ("environments", Ty::Map(&Ty::Struct(&ENVIRONMENT))),
        ("bases", STR_LIST),
        ("helmDefaults", Ty::Struct(&HELM_DEFAULTS)),
        ("helmfiles", Ty::List(&Ty::SubHelmfile)),
        ("kubeContext", Ty::Str),
        ("namespace", Ty::Str),
        ("chart", Ty::Str),
        ("repositories", Ty::List(&Ty::Struct(&REPOSITORY))),
        ("commonLabels", Ty::StrMap),
        ("releases", Ty::List(&Ty::Struct(&RELEASE))),
        ("llm", Ty::Struct(&LLM)),
        ("apiVersions", STR_LIST),
        ("kubeVersion", Ty::Str),
        ("hooks", Ty::List(&Ty::Struct(&HOOK))),
        ("templates", Ty::Map(&Ty::Struct(&TEMPLATE))),
        ("defaultInherit", Ty::DefaultInherits),
        ("missingFileHandler", Ty::Str),
        (
            "missingFileHandlerConfig",
            Ty::Struct(&MISSING_FILE_HANDLER_CONFIG),
        ),
        ("lockFilePath", Ty::Str),
        ("filepath", Ty::Str),
        ("renderedvalues", Ty::AnyMap),
    ],
};

/// One place a document does not decode: where (the node's path, and whether the
/// key's line is meant rather than the value's) and yaml.v3's message.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeError {
    /// The node's path from the document's root.
    pub path: Path,
    /// Whether the error is about the key (an unknown field) rather than the value.
    pub at_key: bool,
    /// yaml.v3's message (`field x not found in type state.HelmSpec`).
    pub message: String,
}

/// yaml.v3's name of a Go type.
fn go_name(ty: &Ty) -> String {
    match ty {
        Ty::Str => "string".into(),
        Ty::Bool => "bool".into(),
        Ty::Int => "int".into(),
        Ty::Float => "float32".into(),
        Ty::Duration => "time.Duration".into(),
        Ty::Any => "interface {}".into(),
        Ty::AnyMap => "map[string]interface {}".into(),
        Ty::StrMap => "map[string]string".into(),
        Ty::List(t) => format!("[]{}", go_name(t)),
        Ty::Map(t) => format!("map[string]{}", go_name(t)),
        Ty::Struct(s) => s.go.into(),
        Ty::SubHelmfile => "state.SubHelmfileSpec".into(),
        Ty::Inherits => "state.Inherits".into(),
        Ty::DefaultInherits => "state.DefaultInherits".into(),
    }
}

/// yaml.v3's text for a node that does not fit: `!!map`, `!!seq`, or a scalar's tag
/// and text (`!!str `x``).
fn node_text(v: &Value) -> String {
    match v {
        Value::Map(_) => "!!map".into(),
        Value::List(_) => "!!seq".into(),
        Value::Bool(b) => format!("!!bool `{b}`"),
        Value::Int(_) | Value::Int64(_) | Value::Uint64(_) => format!("!!int `{v}`"),
        Value::Float64(_) | Value::Float32(_) => format!("!!float `{}`", crate::scalar_text(v)),
        other => format!("!!str `{}`", crate::scalar_text(other)),
    }
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Map(_) | Value::List(_))
}

/// Checks a state document against `HelmState`; every error, in the order of the
/// checked fields.
pub fn check_state(doc: &Value) -> Vec<ShapeError> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    check(doc, &Ty::Struct(&STATE), &mut path, &mut out);
    out
}

fn mismatch(v: &Value, ty: &Ty, path: &[Segment], out: &mut Vec<ShapeError>) {
    out.push(ShapeError {
        path: Path(path.to_vec()),
        at_key: false,
        message: format!("cannot unmarshal {} into {}", node_text(v), go_name(ty)),
    });
}

/// Whether a Go duration text parses (yaml.v3 decodes `time.Duration` from one).
fn is_duration(s: &str) -> bool {
    capstan_gocompat::time::parse_duration(s).is_ok()
}

fn check(v: &Value, ty: &Ty, path: &mut Vec<Segment>, out: &mut Vec<ShapeError>) {
    if matches!(v, Value::Nil) {
        return;
    }
    match ty {
        Ty::Any => {}
        Ty::Str => {
            if !is_scalar(v) {
                mismatch(v, ty, path, out)
            }
        }
        Ty::Bool => match v {
            Value::Bool(_) => {}
            Value::String(s) if crate::spec::yaml11_bool(s).is_some() => {}
            _ => mismatch(v, ty, path, out),
        },
        Ty::Int => {
            if !matches!(v, Value::Int(_) | Value::Int64(_) | Value::Uint64(_)) {
                mismatch(v, ty, path, out)
            }
        }
        Ty::Float => {
            if !matches!(
                v,
                Value::Int(_)
                    | Value::Int64(_)
                    | Value::Uint64(_)
                    | Value::Float64(_)
                    | Value::Float32(_)
            ) {
                mismatch(v, ty, path, out)
            }
        }
        Ty::Duration => match v {
            Value::Int(_) | Value::Int64(_) | Value::Uint64(_) => {}
            Value::String(s) if is_duration(s) => {}
            _ => mismatch(v, ty, path, out),
        },
        Ty::AnyMap => {
            if !matches!(v, Value::Map(_)) {
                mismatch(v, ty, path, out)
            }
        }
        Ty::StrMap => match v {
            Value::Map(m) => {
                for (k, item) in m.snapshot() {
                    path.push(Segment::Key(k));
                    check(&item, &Ty::Str, path, out);
                    path.pop();
                }
            }
            _ => mismatch(v, ty, path, out),
        },
        Ty::List(item_ty) => match v {
            Value::List(l) => {
                for (i, item) in l.items.iter().enumerate() {
                    path.push(Segment::Index(i));
                    check(item, item_ty, path, out);
                    path.pop();
                }
            }
            _ => mismatch(v, ty, path, out),
        },
        Ty::Map(item_ty) => match v {
            Value::Map(m) => {
                for (k, item) in m.snapshot() {
                    path.push(Segment::Key(k));
                    check(&item, item_ty, path, out);
                    path.pop();
                }
            }
            _ => mismatch(v, ty, path, out),
        },
        Ty::Struct(s) => check_struct(v, s, ty, path, out),
        Ty::SubHelmfile => match v {
            Value::Map(_) => check_struct(v, &SUB_HELMFILE, ty, path, out),
            Value::String(_) => {}
            // helmfile's UnmarshalYAML ignores other scalars (an entry without a path).
            _ if is_scalar(v) => {}
            _ => mismatch(v, &Ty::Struct(&SUB_HELMFILE), path, out),
        },
        Ty::Inherits => match v {
            Value::List(_) => check(v, &INHERIT_LIST, path, out),
            // The deprecated single map.
            _ => check(v, &Ty::Struct(&INHERIT), path, out),
        },
        Ty::DefaultInherits => match v {
            Value::List(_) => check(v, &STR_LIST, path, out),
            _ => check(v, &Ty::Str, path, out),
        },
    }
}

fn check_struct(
    v: &Value,
    s: &Struct,
    ty: &Ty,
    path: &mut Vec<Segment>,
    out: &mut Vec<ShapeError>,
) {
    let Value::Map(m) = v else {
        return mismatch(v, ty, path, out);
    };
    for (k, item) in m.snapshot() {
        path.push(Segment::Key(k.clone()));
        match s.fields.iter().find(|(name, _)| **name == *k) {
            Some((_, field_ty)) => check(&item, field_ty, path, out),
            None => out.push(ShapeError {
                path: Path(path.clone()),
                at_key: true,
                message: format!("field {k} not found in type {}", s.go),
            }),
        }
        path.pop();
    }
}

/// The keys of a struct, for callers that list them.
pub fn keys_of(s: &Struct) -> impl Iterator<Item = &'static str> {
    s.fields.iter().map(|(k, _)| *k)
}

/// A key path as text (`releases[0].values`), for messages.
pub fn path_text(p: &Path) -> String {
    let mut out = String::new();
    for seg in &p.0 {
        match seg {
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(yaml: &str) -> Vec<String> {
        let v = capstan_yaml::decode_helmfile_value(yaml).expect("yaml");
        check_state(&v)
            .into_iter()
            .map(|e| format!("{}: {}", path_text(&e.path), e.message))
            .collect()
    }

    #[test]
    fn wrong_shapes_are_errors_at_their_place() {
        assert_eq!(
            errors("releases:\n- name: a\n  values: {a: 1}\n"),
            ["releases[0].values: cannot unmarshal !!map into []interface {}"]
        );
        assert_eq!(
            errors("releases:\n- name: a\n  set: {a: 1}\n"),
            ["releases[0].set: cannot unmarshal !!map into []state.SetValue"]
        );
        assert_eq!(
            errors("releases:\n- name: a\n  needs: ns/b\n"),
            ["releases[0].needs: cannot unmarshal !!str `ns/b` into []string"]
        );
        assert_eq!(
            errors("environments:\n  e:\n    values: {a: 1}\n"),
            ["environments.e.values: cannot unmarshal !!map into []interface {}"]
        );
        assert_eq!(
            errors("environments:\n  e:\n    defaults: {a: 1}\n"),
            ["environments.e.defaults: cannot unmarshal !!map into []interface {}"]
        );
        assert_eq!(
            errors("environments:\n  e:\n    valuez: []\n"),
            ["environments.e.valuez: field valuez not found in type state.EnvironmentSpec"]
        );
        assert_eq!(
            errors("helmDefaults:\n  waitx: true\n"),
            ["helmDefaults.waitx: field waitx not found in type state.HelmSpec"]
        );
        assert_eq!(
            errors("hooks:\n- commandd: x\n"),
            ["hooks[0].commandd: field commandd not found in type event.Hook"]
        );
        assert_eq!(
            errors("releases:\n- name: a\n  timeout: soon\n"),
            ["releases[0].timeout: cannot unmarshal !!str `soon` into int"]
        );
        assert_eq!(
            errors("releases: {a: 1}\n"),
            ["releases: cannot unmarshal !!map into []state.ReleaseSpec"]
        );
        assert_eq!(
            errors("llm:\n  timeout: 3 days\n"),
            ["llm.timeout: cannot unmarshal !!str `3 days` into time.Duration"]
        );
    }

    #[test]
    fn every_v1_7_key_and_helmfiles_own_alternatives_load() {
        let state = "helmDefaults:\n  serverSide: auto\n  skipCRDs: true\n  disableAutoDetectedKubeVersionForDiff: true\n  trackMode: kubedog\n  helmStuckGrace: 30\nllm:\n  baseURL: https://x/v1\n  model: m\n  timeout: 30s\n  maxTokens: 100\n  temperature: 0.1\nhelmfiles:\n- sub/helmfile.yaml\n- path: b.yaml\n  inherits: [repositories]\n  values: [{a: 1}]\ndefaultInherit: base\nreleases:\n- name: a\n  chart: ./c\n  serverSide: \"true\"\n  conditionTemplate: '{{ true }}'\n  condition: a.enabled\n  trackFailOnError: true\n  trackFailedLogs: true\n  helmStuckGrace: 5\n  kubedogQPS: 1.5\n  kubedogBurst: 3\n  disableAutoDetectedKubeVersionForDiff: true\n  inherit: {template: t}\n  set:\n  - name: x\n    values: [{a: 1}]\n  trackResources:\n  - kind: Deployment\n    name: a\ntemplates:\n  t:\n    inherit:\n    - template: u\n";
        assert_eq!(errors(state), Vec::<String>::new());
    }
}
