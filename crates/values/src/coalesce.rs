//! Helm's coalescing of a chart's values with the user's (`CoalesceValues`): chart
//! defaults fill in what the user did not set, a user `null` deletes a default, maps merge
//! and anything else is replaced, globals are copied down to every subchart, and each
//! subchart's section is coalesced with that subchart's own defaults.
//!
//! Helm's warnings ("skipped value … Not a table") are returned as data, not printed.

use capstan_value::{Str, Value};
use std::collections::BTreeMap;

type Map = BTreeMap<Str, Value>;

/// The part of a chart coalescing needs: its name, its `values.yaml`, its (enabled)
/// subcharts under the names the parent uses for them (an alias when one is set).
#[derive(Clone, Debug, Default)]
pub struct ChartValues {
    /// The chart's name (or the alias its parent gives it).
    pub name: String,
    /// Its `values.yaml`.
    pub values: Map,
    /// Its enabled subcharts.
    pub dependencies: Vec<ChartValues>,
}

const GLOBAL: &str = "global";

fn concat(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Helm's coalescing error: a subchart's section of the parent's values is not a map.
/// `Display` is Helm's `type mismatch on KEY: %t` text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("type mismatch on {key}: {value}")]
pub struct TypeMismatch {
    /// The dotted key whose value is not a map.
    pub key: String,
    /// The value as Go's `%t` verb prints it.
    pub value: String,
}

fn as_map(v: &Value) -> Option<Map> {
    v.as_map().map(|m| m.snapshot())
}

/// Helm's `CoalesceValues(chart, vals)`: the values templates see. Errors are Helm's
/// ("type mismatch on …").
pub fn coalesce_values(
    chart: &ChartValues,
    user: &Map,
    warnings: &mut Vec<String>,
) -> Result<Map, TypeMismatch> {
    coalesce_root(chart, user, false, warnings)
}

/// Helm's `MergeValues(chart, vals)`: like [`coalesce_values`] but a `null` is kept (it
/// does not delete the default), as import-values processing needs.
pub fn merge_values(
    chart: &ChartValues,
    user: &Map,
    warnings: &mut Vec<String>,
) -> Result<Map, TypeMismatch> {
    coalesce_root(chart, user, true, warnings)
}

fn coalesce_root(
    chart: &ChartValues,
    user: &Map,
    merge: bool,
    warnings: &mut Vec<String>,
) -> Result<Map, TypeMismatch> {
    let mut dest = user.clone();
    coalesce(chart, &mut dest, "", merge, warnings)?;
    Ok(dest)
}

/// Helm's `MergeTables(dst, src)`: `src` fills in what `dst` lacks, maps merge deeply,
/// `dst` wins everywhere else and its `null`s stay.
pub fn merge_tables(dst: &mut Map, src: &Map) {
    let mut warnings = Vec::new();
    coalesce_tables(dst, src, "", true, &mut warnings);
}

fn coalesce(
    chart: &ChartValues,
    dest: &mut Map,
    prefix: &str,
    merge: bool,
    warnings: &mut Vec<String>,
) -> Result<(), TypeMismatch> {
    coalesce_chart_values(chart, dest, prefix, merge, warnings);
    coalesce_deps(chart, dest, prefix, merge, warnings)
}

fn coalesce_deps(
    chart: &ChartValues,
    dest: &mut Map,
    prefix: &str,
    merge: bool,
    warnings: &mut Vec<String>,
) -> Result<(), TypeMismatch> {
    for sub in &chart.dependencies {
        let mut section = match dest.get(sub.name.as_str()) {
            None => Map::new(),
            Some(v) => match as_map(v) {
                Some(m) => m,
                None => {
                    return Err(TypeMismatch {
                        key: sub.name.clone(),
                        value: go_bool_verb(v),
                    })
                }
            },
        };
        let sub_prefix = concat(prefix, &chart.name);
        coalesce_globals(&mut section, dest, &sub_prefix, warnings);
        coalesce(sub, &mut section, &sub_prefix, merge, warnings)?;
        dest.insert(Str::from(sub.name.as_str()), Value::map_from(section));
    }
    Ok(())
}

/// Go's `%t` of a non-bool value, as Helm's type-mismatch error prints it.
fn go_bool_verb(v: &Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        other => capstan_value::printf::sprintf("%t", std::slice::from_ref(other)),
    }
}

/// Copies the parent's `global` into the subchart section's `global`.
fn coalesce_globals(dest: &mut Map, src: &Map, prefix: &str, warnings: &mut Vec<String>) {
    let mut dg = match dest.get(GLOBAL) {
        None => Map::new(),
        Some(v) => match as_map(v) {
            Some(m) => m,
            None => {
                warnings.push(format!(
                    "warning: skipping globals because destination {GLOBAL} is not a table."
                ));
                return;
            }
        },
    };
    let sg = match src.get(GLOBAL) {
        None => Map::new(),
        Some(v) => match as_map(v) {
            Some(m) => m,
            None => {
                warnings.push(format!(
                    "warning: skipping globals because source {GLOBAL} is not a table."
                ));
                return;
            }
        },
    };
    for (key, val) in &sg {
        if let Some(vv) = as_map(val) {
            match dg.get(key) {
                None => {
                    dg.insert(key.clone(), Value::map_from(vv));
                }
                Some(destv) => match as_map(destv) {
                    None => warnings.push(format!(
                        "Conflict: cannot merge map onto non-map for {key:?}. Skipping."
                    )),
                    Some(destvmap) => {
                        let mut merged = vv;
                        coalesce_tables(
                            &mut merged,
                            &destvmap,
                            &concat(prefix, key),
                            true,
                            warnings,
                        );
                        dg.insert(key.clone(), Value::map_from(merged));
                    }
                },
            }
        } else if dg.get(key).is_some_and(Value::is_map) {
            warnings.push(format!("key {key} is table. Skipping"));
        } else {
            dg.insert(key.clone(), val.clone());
        }
    }
    dest.insert(Str::from(GLOBAL), Value::map_from(dg));
}

/// Fills `v` (the user's values for this chart) from the chart's defaults.
fn coalesce_chart_values(
    chart: &ChartValues,
    v: &mut Map,
    prefix: &str,
    merge: bool,
    warnings: &mut Vec<String>,
) {
    let sub_prefix = concat(prefix, &chart.name);
    for (key, val) in &chart.values {
        match v.get(key).cloned() {
            Some(Value::Nil) if !merge => {
                v.remove(key);
            }
            Some(value) => {
                if let Some(mut dest) = as_map(&value) {
                    match as_map(val) {
                        None => {
                            if !matches!(val, Value::Nil) {
                                warnings.push(format!(
                                    "warning: skipped value for {sub_prefix}.{key}: Not a table."
                                ));
                            }
                        }
                        Some(src) => {
                            let merge =
                                merge || chart.dependencies.iter().any(|d| *d.name == **key);
                            coalesce_tables(
                                &mut dest,
                                &src,
                                &concat(&sub_prefix, key),
                                merge,
                                warnings,
                            );
                            v.insert(key.clone(), Value::map_from(dest));
                        }
                    }
                }
            }
            None => {
                if let Some(x) = default_value(val, merge) {
                    v.insert(key.clone(), x);
                }
            }
        }
    }
}

/// A chart default copied where the user set nothing. When coalescing, a `null` in
/// chart values is no value at all (Helm v4 drops it, also inside maps); merging keeps it.
fn default_value(val: &Value, merge: bool) -> Option<Value> {
    if merge {
        return Some(val.clone());
    }
    match val {
        Value::Nil => None,
        Value::Map(m) => {
            let kept: Map = m
                .snapshot()
                .into_iter()
                .filter_map(|(k, v)| default_value(&v, false).map(|v| (k, v)))
                .collect();
            Some(Value::map_from(kept))
        }
        other => Some(other.clone()),
    }
}

/// Helm's `coalesceTablesFullKey`: `dst` wins; `src` fills in; a `null` in `dst` deletes
/// (unless merging).
fn coalesce_tables(
    dst: &mut Map,
    src: &Map,
    prefix: &str,
    merge: bool,
    warnings: &mut Vec<String>,
) {
    for (key, val) in src {
        let full = concat(prefix, key);
        match dst.get(key).cloned() {
            Some(Value::Nil) if !merge => {
                dst.remove(key);
            }
            None => {
                if let Some(v) = default_value(val, merge) {
                    dst.insert(key.clone(), v);
                }
            }
            Some(dv) => {
                if let Some(sv) = as_map(val) {
                    if let Some(mut dvm) = as_map(&dv) {
                        coalesce_tables(&mut dvm, &sv, &full, merge, warnings);
                        dst.insert(key.clone(), Value::map_from(dvm));
                    } else {
                        warnings.push(format!(
                            "warning: cannot overwrite table with non table for {full} ({val})"
                        ));
                    }
                } else if dv.is_map() && !matches!(val, Value::Nil) {
                    warnings.push(format!("warning: destination for {full} is a table. Ignoring non-table value ({val})"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn y(text: &str) -> Map {
        // A tiny YAML-free builder: key=value pairs for tests.
        let mut m = Map::new();
        for part in text.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            let path = capstan_value::Path::parse(k).unwrap_or_default();
            let mut root = Value::map_from(m);
            let val = if v == "null" {
                Value::Nil
            } else {
                Value::from(v)
            };
            path.set(&mut root, val);
            m = root.as_map().map(|x| x.snapshot()).unwrap_or_default();
        }
        m
    }

    #[test]
    fn defaults_user_values_null_and_globals() {
        let sub = ChartValues {
            name: "db".into(),
            values: y("host=localhost,port=5432"),
            dependencies: vec![],
        };
        let chart = ChartValues {
            name: "parent".into(),
            values: y("a=1,b.c=2,b.d=3,global.g=x"),
            dependencies: vec![sub],
        };
        let mut w = Vec::new();
        let out = coalesce_values(&chart, &y("b.c=9,b.d=null,db.port=1"), &mut w).unwrap();
        let v = Value::map_from(out);
        assert_eq!(
            v.to_string(),
            "map[a:1 b:map[c:9] db:map[global:map[g:x] host:localhost port:1] global:map[g:x]]"
        );
        assert!(w.is_empty());
    }
}
