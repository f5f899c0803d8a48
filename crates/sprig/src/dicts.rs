//! Dictionary functions: `dict`, `get`, `set`, `unset`, `hasKey`, `pluck`, `keys`,
//! `values`, `pick`, `omit`, `merge`, `mergeOverwrite` (mergo's deep merges), `dig`.
//!
//! Go maps are references: `set`/`unset`/`merge` change the map every holder sees. Here
//! values are shared immutably, so these functions return the changed map and the
//! original holders keep theirs (see COMPATIBILITY.md).

use crate::convert::{s, string_list, strval};
use crate::{reg, regv};
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::{Str, Value};
use std::collections::BTreeMap;

fn entries(v: &Value) -> BTreeMap<Str, Value> {
    v.as_map().map(|m| m.entries.clone()).unwrap_or_default()
}

/// mergo's `Merge` (dst wins) or `Merge(WithOverride)` (src wins), deep over maps.
pub fn mergo(dst: &mut BTreeMap<Str, Value>, src: &BTreeMap<Str, Value>, overwrite: bool) {
    for (k, sv) in src {
        match dst.get_mut(k) {
            Some(dv) => {
                if let (Value::Map(_), Value::Map(sm)) = (&*dv, sv) {
                    let mut inner = entries(dv);
                    mergo(&mut inner, &sm.entries, overwrite);
                    *dv = Value::map_from(inner);
                } else if crate::defaults::empty(dv) || overwrite {
                    *dv = sv.clone();
                }
            }
            None => {
                dst.insert(k.clone(), sv.clone());
            }
        }
    }
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
        Ok(a[0]
            .get(&s(&a[1]))
            .cloned()
            .unwrap_or_else(|| Value::from("")))
    });
    reg(m, "set", &[Ty::Map, Ty::String, Ty::Any], |a| {
        let mut d = entries(&a[0]);
        d.insert(Str::from(s(&a[1])), a[2].clone());
        Ok(Value::map_from(d))
    });
    reg(m, "unset", &[Ty::Map, Ty::String], |a| {
        let mut d = entries(&a[0]);
        d.remove(s(&a[1]).as_str());
        Ok(Value::map_from(d))
    });
    reg(m, "hasKey", &[Ty::Map, Ty::String], |a| {
        Ok(Value::Bool(a[0].get(&s(&a[1])).is_some()))
    });
    regv(m, "pluck", &[Ty::String], Ty::Map, |a| {
        let k = s(&a[0]);
        Ok(Value::list_from(
            a[1..].iter().filter_map(|d| d.get(&k).cloned()).collect(),
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
        let keep: Vec<String> = a[1..].iter().map(s).collect();
        Ok(Value::map_from(
            d.into_iter()
                .filter(|(k, _)| keep.iter().any(|x| **x == **k))
                .collect(),
        ))
    });
    regv(m, "omit", &[Ty::Map], Ty::String, |a| {
        let d = entries(&a[0]);
        let drop: Vec<String> = a[1..].iter().map(s).collect();
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
            let mut d = entries(&a[0]);
            for src in &a[1..] {
                mergo(&mut d, &entries(src), overwrite);
            }
            Ok(Value::map_from(d))
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
                return Err(format!("dig: key is not a string: {k}"));
            };
            let Value::Map(m) = &cur else {
                return Err(format!(
                    "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
                    cur.type_name()
                ));
            };
            match m.entries.get(&**k) {
                Some(v) => cur = v.clone(),
                None => return Ok(default.clone()),
            }
        }
        Ok(cur)
    });
}
