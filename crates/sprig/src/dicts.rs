//! Dictionary functions: `dict`, `get`, `set`, `unset`, `hasKey`, `pluck`, `keys`,
//! `values`, `pick`, `omit`, `merge`, `mergeOverwrite` (mergo's deep merges), `dig`.
//!
//! Go maps are references: `set`, `unset` and the merges change the map in place, so every
//! holder of it (a variable, `.Values`, a list item) sees the change, as in Go.

use crate::convert::{s, string_list, strval};
use crate::{reg, regv};
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::cycles::Cycle;
use capstan_value::{Map, Str, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

fn entries(v: &Value) -> BTreeMap<Str, Value> {
    v.as_map().map(Map::snapshot).unwrap_or_default()
}

/// mergo's `Merge` (dst wins) or `Merge(WithOverride)` (src wins), deep over maps, in
/// place: nested maps of `dst` are changed where they are.
pub fn mergo(dst: &Map, src: &BTreeMap<Str, Value>, overwrite: bool) {
    mergo_level(dst, src, overwrite, &mut Vec::new());
}

/// One level of [`mergo`]; `path` holds the (destination, source) map pairs being merged
/// above this one: meeting a pair again means both maps contain themselves and the merge
/// would never end (Go's mergo dies of a stack overflow), a [`Cycle`] panic.
fn mergo_level(
    dst: &Map,
    src: &BTreeMap<Str, Value>,
    overwrite: bool,
    path: &mut Vec<(usize, usize)>,
) {
    for (k, sv) in src {
        // A nil source value is never copied by `Merge` (mergo skips a nil interface
        // unless overwriting); `Merge(WithOverride)` sets it.
        if matches!(sv, Value::Nil) {
            if overwrite {
                dst.insert(k.clone(), Value::Nil);
            }
            continue;
        }
        let current = dst.get(k);
        match current {
            Some(Value::Map(dm)) if matches!(sv, Value::Map(_)) => {
                if let Value::Map(sm) = sv {
                    let pair = (Arc::as_ptr(&dm) as usize, Arc::as_ptr(sm) as usize);
                    if path.contains(&pair) {
                        std::panic::panic_any(Cycle {
                            go_type: sv.type_name(),
                        });
                    }
                    let inner = sm.snapshot();
                    path.push(pair);
                    capstan_value::stack::grow(|| mergo_level(&dm, &inner, overwrite, path));
                    path.pop();
                }
            }
            Some(dv) => {
                if crate::defaults::empty(&dv) || overwrite {
                    dst.insert(k.clone(), sv.clone());
                }
            }
            None => {
                dst.insert(k.clone(), sv.clone());
            }
        }
    }
}

fn nil_map_error() -> String {
    "assignment to entry in nil map".into()
}

pub fn register(m: &mut FuncMap) {
    regv(m, "dict", &[], Ty::Any, |a| {
        let mut d = BTreeMap::new();
        for pair in a.chunks(2) {
            let k = Str::from(strval(&pair[0]));
            d.insert(k, pair.get(1).cloned().unwrap_or_else(|| Value::from("")));
        }
        Ok(Value::map_from(d))
    });
    reg(m, "get", &[Ty::Map, Ty::String], |a| {
        Ok(a[0].get(&s(&a[1])).unwrap_or_else(|| Value::from("")))
    });
    reg(m, "set", &[Ty::Map, Ty::String, Ty::Any], |a| {
        let Value::Map(d) = &a[0] else {
            return Err(nil_map_error().into());
        };
        d.insert(Str::from(s(&a[1])), a[2].clone());
        Ok(a[0].clone())
    });
    reg(m, "unset", &[Ty::Map, Ty::String], |a| {
        if let Value::Map(d) = &a[0] {
            d.remove(&s(&a[1]));
        }
        Ok(a[0].clone())
    });
    reg(m, "hasKey", &[Ty::Map, Ty::String], |a| {
        Ok(Value::Bool(a[0].get(&s(&a[1])).is_some()))
    });
    regv(m, "pluck", &[Ty::String], Ty::Map, |a| {
        let k = s(&a[0]);
        Ok(Value::list_from(
            a[1..].iter().filter_map(|d| d.get(&k)).collect(),
        ))
    });
    regv(m, "keys", &[], Ty::Map, |a| {
        let mut ks = Vec::new();
        for d in &a {
            ks.extend(entries(d).keys().map(|k| k.to_string()));
        }
        Ok(string_list(ks))
    });
    reg(m, "values", &[Ty::Map], |a| {
        Ok(Value::list_from(entries(&a[0]).into_values().collect()))
    });
    regv(m, "pick", &[Ty::Map], Ty::String, |a| {
        let d = entries(&a[0]);
        let keep: Vec<String> = a[1..].iter().map(|x| s(x).into_owned()).collect();
        Ok(Value::map_from(
            d.into_iter()
                .filter(|(k, _)| keep.iter().any(|x| **x == **k))
                .collect(),
        ))
    });
    regv(m, "omit", &[Ty::Map], Ty::String, |a| {
        let d = entries(&a[0]);
        let drop: Vec<String> = a[1..].iter().map(|x| s(x).into_owned()).collect();
        Ok(Value::map_from(
            d.into_iter()
                .filter(|(k, _)| !drop.iter().any(|x| **x == **k))
                .collect(),
        ))
    });
    for (name, overwrite) in [
        ("merge", false),
        ("mustMerge", false),
        ("mergeOverwrite", true),
        ("mustMergeOverwrite", true),
    ] {
        regv(m, name, &[Ty::Map], Ty::Map, move |a| {
            let Value::Map(d) = &a[0] else {
                return Err(nil_map_error().into());
            };
            for src in &a[1..] {
                mergo(d, &entries(src), overwrite);
            }
            Ok(a[0].clone())
        });
    }
    regv(m, "dig", &[], Ty::Any, |a| {
        if a.len() < 3 {
            return Err("dig needs at least three arguments".into());
        }
        let dict = &a[a.len() - 1];
        let default = &a[a.len() - 2];
        let keys = &a[..a.len() - 2];
        let mut cur = dict.clone();
        for k in keys {
            let Value::String(k) = k else {
                return Err(format!("dig: key is not a string: {k}").into());
            };
            let Value::Map(m) = &cur else {
                return Err(format!(
                    "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
                    cur.type_name()
                )
                .into());
            };
            let next = m.get(k);
            match next {
                Some(v) => cur = v,
                None => return Ok(default.clone()),
            }
        }
        Ok(cur)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, Value)]) -> BTreeMap<Str, Value> {
        pairs
            .iter()
            .map(|(k, v)| (Str::from(*k), v.clone()))
            .collect()
    }

    /// What the real Helm 4.3.1 printed for the same merges (`helm template` of a chart
    /// with `merge (dict "y" 2) (dict "n" nil "z" nil "y" nil) (dict "x" 1 "n" nil)`,
    /// `mergeOverwrite (dict "y" 2 "w" 3) (dict "n" nil "y" nil)` and `mustMerge (dict "e"
    /// nil) (dict "e" 5)`): `map[x:1 y:2]`, `map[n:<nil> w:3 y:<nil>]`, `map[e:5]`.
    #[test]
    fn nil_values_are_merged_as_mergo_merges_them() {
        let merged = |dst: &[(&str, Value)], srcs: &[&[(&str, Value)]], overwrite: bool| {
            let d = Value::map_from(map(dst));
            let Value::Map(m) = &d else { unreachable!() };
            for src in srcs {
                mergo(m, &map(src), overwrite);
            }
            m.snapshot()
        };
        let n = Value::Nil;
        let i = |x: i64| Value::Int(x);
        assert_eq!(
            merged(
                &[("y", i(2))],
                &[
                    &[("n", n.clone()), ("z", n.clone()), ("y", n.clone())],
                    &[("x", i(1)), ("n", n.clone())]
                ],
                false
            ),
            map(&[("x", i(1)), ("y", i(2))])
        );
        assert_eq!(
            merged(
                &[("y", i(2)), ("w", i(3))],
                &[&[("n", n.clone()), ("y", n.clone())]],
                true
            ),
            map(&[("n", n.clone()), ("w", i(3)), ("y", n.clone())])
        );
        assert_eq!(
            merged(&[("e", n.clone())], &[&[("e", i(5))]], false),
            map(&[("e", i(5))])
        );
    }
}
