//! Helm's dependency processing before rendering: checking that every dependency in
//! `Chart.yaml` is present in `charts/`, aliases (a renamed copy of the subchart), tags
//! and conditions (disabled subcharts are dropped), and `import-values` (a child's values
//! copied into the parent's, below the parent's own).

use crate::load::{Chart, Dependency};
use capstan_value::{Str, Value};
use capstan_values::{merge_tables, merge_values, ChartValues};
use std::collections::{BTreeMap, BTreeSet};

type Map = BTreeMap<Str, Value>;

/// The subset of a chart coalescing needs.
pub fn chart_values(c: &Chart) -> ChartValues {
    ChartValues {
        name: c.name().to_string(),
        values: c.values.clone(),
        dependencies: c.dependencies.iter().map(chart_values).collect(),
    }
}

capstan_source::message_error!(
    /// Why a chart's dependencies could not be built, checked or processed (Helm's text).
    DependencyError
);

impl From<capstan_values::TypeMismatch> for DependencyError {
    fn from(e: capstan_values::TypeMismatch) -> Self {
        DependencyError(e.to_string())
    }
}

/// Fetches a dependency `Chart.yaml` names that `charts/` lacks (what `helm dependency
/// build` downloads), given the chart's directory: `Ok(None)` leaves it missing.
pub type BuildFn =
    dyn Fn(&std::path::Path, &Dependency) -> Result<Option<Chart>, DependencyError> + Send + Sync;

/// helmfile's `helm dependency build` before rendering a local chart.
#[derive(Clone)]
pub struct DependencyBuilder(pub std::sync::Arc<BuildFn>);

impl std::fmt::Debug for DependencyBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DependencyBuilder")
    }
}

/// Adds to `c` the dependencies `builder` finds for those missing from `charts/`.
pub(crate) fn build_missing(
    c: &mut Chart,
    chart_dir: &std::path::Path,
    builder: &DependencyBuilder,
) -> Result<(), DependencyError> {
    let missing: Vec<Dependency> = c
        .metadata
        .dependencies
        .iter()
        .filter(|r| !c.dependencies.iter().any(|d| d.name() == r.name))
        .cloned()
        .collect();
    for dep in missing {
        if let Some(mut sub) = (builder.0)(chart_dir, &dep)? {
            if sub.dir.is_empty() {
                sub.dir = format!("{}-{}.tgz", sub.metadata.name, sub.metadata.version);
            }
            c.dependencies.push(sub);
        }
    }
    Ok(())
}

/// Helm's `CheckDependencies`: every dependency named in `Chart.yaml` must be in `charts/`.
pub(crate) fn check_dependencies(c: &Chart) -> Result<(), DependencyError> {
    let missing: Vec<&str> = c
        .metadata
        .dependencies
        .iter()
        .filter(|r| !c.dependencies.iter().any(|d| d.name() == r.name))
        .map(|r| r.name.as_str())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "an error occurred while checking for chart dependencies. You may need to run 'helm dependency build' to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: {}",
        missing.join(", ")
    ).into())
}

/// Helm's `ProcessDependenciesWithMerge`: enables/disables and renames subcharts, then
/// imports values. `user` is the merged user values.
pub fn process_dependencies(c: &mut Chart, user: &Map) -> Result<(), DependencyError> {
    process_enabled(c, user, "")?;
    import_values_rec(c)
}

fn compatible(constraint: &str, version: &str) -> bool {
    !constraint.trim().is_empty()
        && capstan_gocompat::semver::semver_compare(constraint, version).unwrap_or(false)
}

fn process_enabled(c: &mut Chart, user: &Map, path: &str) -> Result<(), DependencyError> {
    if c.metadata.dependencies.is_empty() {
        return Ok(());
    }
    let mut existing: Vec<Option<Chart>> = std::mem::take(&mut c.dependencies)
        .into_iter()
        .map(Some)
        .collect();
    let fits = |e: &Chart, r: &Dependency| {
        e.name() == r.name && compatible(&r.version, &e.metadata.version)
    };
    // Which loaded chart each requirement takes (the first that fits), and how many
    // requirements take each: a chart is moved to its last taker, copied for the others.
    let taken: Vec<Option<usize>> = c
        .metadata
        .dependencies
        .iter()
        .map(|r| {
            existing
                .iter()
                .position(|e| e.as_ref().is_some_and(|e| fits(e, r)))
        })
        .collect();
    let mut takers = vec![0usize; existing.len()];
    for &i in taken.iter().flatten() {
        takers[i] += 1;
    }
    // Charts no requirement names stay, first (Helm keeps them).
    let mut deps: Vec<Chart> = Vec::with_capacity(existing.len());
    for e in existing.iter_mut() {
        let named = e
            .as_ref()
            .is_some_and(|e| c.metadata.dependencies.iter().any(|r| fits(e, r)));
        if !named {
            deps.extend(e.take());
        }
    }
    for (req, found) in c.metadata.dependencies.iter_mut().zip(&taken) {
        if let Some(i) = *found {
            takers[i] -= 1;
            let found = if takers[i] == 0 {
                existing[i].take()
            } else {
                existing[i].clone()
            };
            if let Some(mut copy) = found {
                if !req.alias.is_empty() {
                    copy.metadata.name = req.alias.clone();
                }
                deps.push(copy);
            }
        }
        if !req.alias.is_empty() {
            req.name = req.alias.clone();
        }
        req.enabled = true;
    }
    c.dependencies = deps;

    let mut warnings = Vec::new();
    let cvals = capstan_values::coalesce_values(&chart_values(c), user, &mut warnings)?;
    apply_tags(&mut c.metadata.dependencies, &cvals);
    apply_conditions(&mut c.metadata.dependencies, &cvals, path);
    let removed: BTreeSet<String> = c
        .metadata
        .dependencies
        .iter()
        .filter(|r| !r.enabled)
        .map(|r| r.name.clone())
        .collect();
    c.dependencies.retain(|d| !removed.contains(d.name()));
    c.metadata
        .dependencies
        .retain(|r| !removed.contains(&r.name));
    for d in c.dependencies.iter_mut() {
        let sub_path = format!("{path}{}.", d.name());
        process_enabled(d, &cvals, &sub_path)?;
    }
    Ok(())
}

/// Helm's `Values.Table`: the map at a dotted path.
fn table(v: &Map, path: &str) -> Option<Map> {
    let mut cur = v.clone();
    for part in path.split('.') {
        let next = cur.get(part)?.as_map()?.snapshot();
        cur = next;
    }
    Some(cur)
}

/// Helm's `Values.PathValue`: a non-map value at a dotted path.
fn path_value(v: &Map, path: &str) -> Option<Value> {
    let (parent, key) = match path.rsplit_once('.') {
        Some((p, k)) => (table(v, p)?, k),
        None => (v.clone(), path),
    };
    parent.get(key).filter(|x| !x.is_map()).cloned()
}

fn apply_tags(reqs: &mut [Dependency], cvals: &Map) {
    let Some(tags) = table(cvals, "tags") else {
        return;
    };
    for r in reqs.iter_mut() {
        let (mut has_true, mut has_false) = (false, false);
        for t in &r.tags {
            match tags.get(t.as_str()) {
                Some(Value::Bool(true)) => has_true = true,
                Some(Value::Bool(false)) => has_false = true,
                _ => {}
            }
        }
        r.enabled = has_true || !has_false;
    }
}

fn apply_conditions(reqs: &mut [Dependency], cvals: &Map, path: &str) {
    for r in reqs.iter_mut() {
        for cond in r.condition.trim().split(',') {
            if cond.is_empty() {
                continue;
            }
            if let Some(Value::Bool(b)) = path_value(cvals, &format!("{path}{cond}")) {
                r.enabled = b;
                break;
            }
        }
    }
}

fn import_values_rec(c: &mut Chart) -> Result<(), DependencyError> {
    for d in c.dependencies.iter_mut() {
        import_values_rec(d)?;
    }
    import_values(c)
}

/// Builds `{a: {b: data}}` for the parent path `a.b` (`.` means the top).
fn path_to_map(path: &str, data: Map) -> Map {
    if path == "." {
        return data;
    }
    let mut out = data;
    for part in path.split('.').collect::<Vec<_>>().into_iter().rev() {
        let mut m = Map::new();
        m.insert(Str::from(part), Value::map_from(out));
        out = m;
    }
    out
}

/// One `import-values` entry of a processed chart's dependency, with what it imports.
pub(crate) struct Import {
    /// The dependency as the parent's values name it (its alias when it has one).
    pub dependency: String,
    /// The path in the dependency's values (`exports.data`, `exported`).
    pub child: String,
    /// Where it goes in the parent's values (`.` for the top).
    pub parent: String,
    /// The dependency's values at `child`.
    pub values: Map,
}

/// The `import-values` of a processed chart's dependencies (entries normalized by
/// [`process_dependencies`]), each with the values it imports, for explaining them.
pub(crate) fn imports(c: &Chart) -> Vec<Import> {
    // Without `import-values` there is nothing to read (the merge would be thrown away).
    if c.metadata
        .dependencies
        .iter()
        .all(|r| r.import_values.is_empty())
    {
        return Vec::new();
    }
    let mut warnings = Vec::new();
    let Ok(cvals) = merge_values(&chart_values(c), &Map::new(), &mut warnings) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in &c.metadata.dependencies {
        for iv in &r.import_values {
            let Value::Map(m) = iv else { continue };
            let get = |k: &str| m.get(k).map(|v| v.to_string()).unwrap_or_default();
            let (child, parent) = (get("child"), get("parent"));
            if let Some(values) = table(&cvals, &format!("{}.{child}", r.name)) {
                out.push(Import {
                    dependency: r.name.clone(),
                    child,
                    parent,
                    values,
                });
            }
        }
    }
    out
}

fn import_values(c: &mut Chart) -> Result<(), DependencyError> {
    if c.metadata.dependencies.is_empty() {
        return Ok(());
    }
    let mut warnings = Vec::new();
    let cvals = merge_values(&chart_values(c), &Map::new(), &mut warnings)?;
    let mut imported = Map::new();
    for r in c.metadata.dependencies.iter_mut() {
        let mut normalized = Vec::new();
        for iv in &r.import_values {
            let (child, parent) = match iv {
                Value::Map(m) => {
                    let get = |k: &str| {
                        m.get(k)
                            .map(|v| v.to_string())
                            .unwrap_or_else(|| "<nil>".into())
                    };
                    (get("child"), get("parent"))
                }
                Value::String(s) => (format!("exports.{s}"), ".".to_string()),
                _ => continue,
            };
            let mut entry = Map::new();
            entry.insert("child".into(), Value::from(child.as_str()));
            entry.insert("parent".into(), Value::from(parent.as_str()));
            normalized.push(Value::map_from(entry));
            if let Some(t) = table(&cvals, &format!("{}.{child}", r.name)) {
                merge_tables(&mut imported, &path_to_map(&parent, t));
            }
        }
        r.import_values = normalized;
    }
    let mut values = cvals;
    merge_tables(&mut values, &imported);
    c.values = values;
    Ok(())
}
