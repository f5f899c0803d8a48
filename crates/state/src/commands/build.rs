//! `build`: each state printed as helmfile prints its `ReleaseSpec`s and settings (Go
//! struct field order), values files embedded on request, charts repointed for `fetch
//! --write-output`.

use crate::app::PreparedState;
use crate::commands::template::absolute;
use crate::load::Settings;
use crate::release::Release;
use crate::StateError;
use capstan_value::{Str, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The fields of helmfile's `HelmSpec` (`helmDefaults:`) in the struct's order.
const HELM_SPEC_ORDER: &[&str] = &[
    "kubeContext",
    "args",
    "diffArgs",
    "syncArgs",
    "templateArgs",
    "verify",
    "keyring",
    "enableDNS",
    "skipSchemaValidation",
    "devel",
    "wait",
    "waitRetries",
    "waitForJobs",
    "timeout",
    "recreatePods",
    "force",
    "atomic",
    "rollbackOnFailure",
    "cleanupOnFail",
    "forceConflicts",
    "historyMax",
    "createNamespace",
    "skipCRDs",
    "skipDeps",
    "skipRefresh",
    "reuseValues",
    "postRenderer",
    "postRendererArgs",
    "cascade",
    "suppressOutputLineRegex",
    "disableAutoDetectedKubeVersionForDiff",
    "disableValidation",
    "disableOpenAPIValidation",
    "insecureSkipTLSVerify",
    "plainHttp",
    "deleteWait",
    "deleteTimeout",
    "syncReleaseLabels",
    "takeOwnership",
    "serverSide",
    "trackMode",
    "helmStuckGrace",
];

/// The pointer fields of `HelmSpec` (helmfile v1.7.4, `pkg/state/state.go`): printed
/// when set, `false` and `0` included. Its other `omitempty` fields are left out when
/// empty (`cleanupOnFail: false` is not printed).
const HELM_SPEC_POINTERS: &[&str] = &[
    "skipSchemaValidation",
    "historyMax",
    "createNamespace",
    "postRenderer",
    "cascade",
    "disableAutoDetectedKubeVersionForDiff",
    "disableValidation",
    "disableOpenAPIValidation",
    "syncReleaseLabels",
    "takeOwnership",
    "serverSide",
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
        // `values:` is `[]any` in v1.7.4's `SetValue`: printed as written.
        let written = crate::spec::list_of(&r.raw, key);
        let items = entries
            .iter()
            .enumerate()
            .map(|(i, sv)| {
                let mut m: BTreeMap<Str, Value> = BTreeMap::new();
                m.insert(Str::from("name"), Value::from(sv.name.as_str()));
                for (k, v) in [("value", &sv.value), ("file", &sv.file)] {
                    if !v.is_empty() {
                        m.insert(Str::from(k), Value::from(v.as_str()));
                    }
                }
                let as_written = written
                    .get(i)
                    .and_then(|w| w.get("values"))
                    .filter(|v| v.as_list().is_some());
                if let Some(values) = as_written {
                    m.insert(Str::from("values"), values);
                } else if !sv.values.is_empty() {
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
            (Some(v), always)
                if !matches!(v, Value::Nil)
                    && (always.is_some()
                        || HELM_SPEC_POINTERS.contains(k)
                        || !crate::spec::is_empty(v)) =>
            {
                out.push((Str::from(*k), v.clone()))
            }
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

/// `helmfiles:` as helmfile prints its `[]SubHelmfileSpec`: each entry a struct (`path`,
/// then the set ones of `selectors`, `selectorsInherited`, `inherits`, `values`), a glob
/// replaced by an entry for each file it matches, named from the state's folder.
fn helmfiles_as_structs(s: &Settings, ps: &PreparedState, v: &Value) -> Value {
    let Some(list) = v.as_list() else {
        return v.clone();
    };
    let mut out = Vec::new();
    for entry in &list.items {
        let spec = crate::spec::SubHelmfileSpec::from_value(entry);
        let mut rest: Vec<(Str, Value)> = Vec::new();
        if let Some(m) = entry.as_map().map(|m| m.snapshot()) {
            for k in ["selectors", "selectorsInherited", "inherits", "values"] {
                if let Some(v) = m.get(k).filter(|v| !crate::spec::is_empty(v)) {
                    rest.push((Str::from(k), v.clone()));
                }
            }
        }
        let paths = if capstan_fetch::is_remote(&spec.path) {
            vec![spec.path.clone()]
        } else {
            let pattern = crate::envvals::join_shown(&ps.state.base, &spec.path);
            let found = crate::host::glob(s.host.as_ref(), &pattern);
            if found.is_empty() {
                vec![spec.path.clone()]
            } else {
                found
                    .iter()
                    .map(|f| match ps.state.base.as_str() {
                        "" | "." => f.clone(),
                        base => f
                            .strip_prefix(base)
                            .and_then(|r| r.strip_prefix('/'))
                            .unwrap_or(f)
                            .to_string(),
                    })
                    .collect()
            }
        };
        for path in paths {
            let mut fields = vec![(Str::from("path"), Value::from(path))];
            fields.extend(rest.iter().cloned());
            out.push(Value::map_from(fields.into_iter().collect()));
        }
    }
    Value::list_from(out)
}

/// `environments:` as helmfile prints its `map[string]EnvironmentSpec`: every field is
/// `omitempty` (helmfile v1.7.4 `pkg/state/environment.go`), so an empty `values: []` is
/// left out; the two pointer fields are printed when set.
fn environments_as_structs(v: &Value) -> Value {
    let Some(envs) = v.as_map().map(|m| m.snapshot()) else {
        return v.clone();
    };
    let out: BTreeMap<Str, Value> = envs
        .into_iter()
        .map(|(name, env)| {
            let Some(fields) = env.as_map().map(|m| m.snapshot()) else {
                return (name, Value::map_from(BTreeMap::new()));
            };
            let kept: BTreeMap<Str, Value> = fields
                .into_iter()
                .filter(|(k, v)| match &**k {
                    "missingFileHandler" | "missingFileHandlerConfig" => !matches!(v, Value::Nil),
                    _ => !crate::spec::is_empty(v),
                })
                .collect();
            (name, Value::map_from(kept))
        })
        .collect();
    Value::map_from(out)
}

/// Whether helmfile takes `chart` for a local chart (`isLocalChart`, helmfile v1.7.4
/// `pkg/state/util.go`): `./` or `../` first; never a URL; else empty, absolute, without
/// a `/`, or not of the `repo/chart` or `oci-host/path/chart` shape (2 or 3 parts).
fn is_local_chart(chart: &str) -> bool {
    if chart.starts_with("./") || chart.starts_with("../") {
        return true;
    }
    if chart.contains("://") {
        return false;
    }
    let parts = chart.split('/').count();
    chart.is_empty() || chart.starts_with('/') || !chart.contains('/') || (parts != 2 && parts != 3)
}

/// The `chartPath` helmfile prints for a release whose chart is a local folder written
/// otherwise than its clean path (`./chart` → `chart`): helmfile v1.7.4 prepares the
/// chart of each release to install whose condition holds as `normalizeChart` names it (`pkg/state/util.go`: joined to the state's folder,
/// where helmfile runs) and records it when it differs from `chart:` (`pkg/app/run.go`,
/// `rel.ChartPath = chart`).
fn local_chart_path(s: &Settings, ps: &PreparedState, r: &Release) -> Option<String> {
    let chart = r.chart.as_str();
    if chart.is_empty() || !is_local_chart(chart) || Path::new(chart).is_absolute() {
        return None;
    }
    let clean = capstan_sprig::path_clean(chart);
    // Only the charts helmfile prepares: releases to install whose condition holds.
    let prepared =
        r.desired() && crate::select::condition_enabled(r, &ps.state.values).unwrap_or(false);
    if clean == chart || !prepared {
        return None;
    }
    s.host
        .is_dir(&crate::host::join(Path::new(&ps.state.base), chart))
        .then_some(clean)
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
                "helmfiles" => fields.push((k.to_string(), helmfiles_as_structs(s, ps, v))),
                "environments" => fields.push((k.to_string(), environments_as_structs(v))),
                _ => fields.push((k.to_string(), v.clone())),
            }
        }
        out.push_str(&struct_yaml(&fields)?);
        let mut releases = Vec::new();
        // The releases the selectors pick (all of them without selectors), as helmfile
        // filters the state before printing it.
        for r in ps.selected.iter().map(|&i| &ps.releases[i]) {
            let mut f = release_fields(r);
            if let Some(path) = local_chart_path(s, ps, r) {
                let at = f
                    .iter()
                    .position(|(k, _)| k == "chart")
                    .map_or(0, |i| i + 1);
                f.insert(at, ("chartPath".into(), Value::from(path)));
            }
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
