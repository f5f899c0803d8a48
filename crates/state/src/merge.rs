//! The ways helmfile merges value maps, each named after the Go code it reproduces:
//!
//! - [`merge_override`]: `mergo.Merge(&dst, src, mergo.WithOverride)` — between
//!   environment values files under `mergeStrategy: override`, and secrets over values.
//!   A later `null` erases, a later `{}` leaves a map alone, lists are replaced.
//! - [`merge_fallback`]: `mergeStrategy: fallback` — what is already there wins, a `null`
//!   there is filled, maps merge deeply, a list holding a `null` is filled element-wise.
//! - [`merge_maps`]: `maputil.MergeMaps` — the layers above the environment values
//!   (defaults, `--state-values-file`, `--state-values-set`): a `null` never erases, and
//!   lists are replaced unless sparse ([`ArrayMerge::Sparse`]) or always merged by index
//!   ([`ArrayMerge::ByIndex`], for `--state-values-set`).
//! - [`set_typed`]: `maputil.Set` for one `--state-values-set` item.

use crate::StateError;
use capstan_value::{Str, Value};
use std::collections::BTreeMap;

/// A string-keyed map of values.
pub type Tree = BTreeMap<Str, Value>;

fn entries(v: &Value) -> Option<Tree> {
    v.as_map().map(|m| m.snapshot())
}

/// `mergo.Merge(&dst, src, mergo.WithOverride)` on `map[string]any`.
pub(crate) fn merge_override(dst: &mut Tree, src: &Tree) {
    for (k, v) in src {
        if let (Some(sm), Some(Some(dm))) = (entries(v), dst.get(k).map(entries)) {
            if !dm.is_empty() {
                let mut dm = dm;
                merge_override(&mut dm, &sm);
                dst.insert(k.clone(), Value::map_from(dm));
                continue;
            }
        }
        dst.insert(k.clone(), v.clone());
    }
}

fn has_nil(items: &[Value]) -> bool {
    items.iter().any(|v| matches!(v, Value::Nil))
}

/// `mergeStrategy: fallback`: values already in `dst` win over `src`.
pub(crate) fn merge_fallback(dst: &mut Tree, src: &Tree) {
    for (k, v) in src {
        let merged = match dst.get(k) {
            None | Some(Value::Nil) => v.clone(),
            Some(existing) => match (existing, v) {
                (Value::Map(_), Value::Map(_)) => {
                    let mut dm = entries(existing).unwrap_or_default();
                    merge_fallback(&mut dm, &entries(v).unwrap_or_default());
                    Value::map_from(dm)
                }
                (Value::List(dl), Value::List(sl)) if has_nil(&dl.items) => {
                    let len = dl.items.len().max(sl.items.len());
                    let items = (0..len)
                        .map(|i| match dl.items.get(i) {
                            Some(Value::Nil) | None => {
                                sl.items.get(i).cloned().unwrap_or(Value::Nil)
                            }
                            Some(d) => d.clone(),
                        })
                        .collect();
                    Value::list_from(items)
                }
                _ => continue,
            },
        };
        dst.insert(k.clone(), merged);
    }
}

/// How [`merge_maps`] treats two lists under the same key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayMerge {
    /// A list holding a `null` is merged by index; any other list replaces.
    Sparse,
    /// Always merged by index (`--state-values-set`).
    ByIndex,
}

/// `maputil.MergeMaps(a, b)`: `b` over `a`.
pub fn merge_maps(a: &Tree, b: &Tree, arrays: ArrayMerge) -> Tree {
    let mut out = a.clone();
    for (k, v) in b {
        match v {
            Value::Nil => {
                out.entry(k.clone()).or_insert(Value::Nil);
            }
            Value::Map(bm) => {
                let merged = match out.get(k) {
                    Some(Value::Map(am)) => {
                        Value::map_from(merge_maps(&am.snapshot(), &bm.snapshot(), arrays))
                    }
                    _ => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::List(bl) => {
                let merged = match out.get(k) {
                    Some(Value::List(al)) => merge_lists(&al.items, &bl.items, arrays),
                    _ => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}

fn merge_lists(base: &[Value], over: &[Value], arrays: ArrayMerge) -> Value {
    if arrays == ArrayMerge::Sparse && !has_nil(over) {
        return Value::list_from(over.to_vec());
    }
    let mut result: Vec<Value> = base.to_vec();
    result.resize(base.len().max(over.len()), Value::Nil);
    for (i, o) in over.iter().enumerate() {
        match (o, base.get(i)) {
            (Value::Nil, _) => {}
            (Value::Map(om), Some(Value::Map(bm))) => {
                result[i] = Value::map_from(merge_maps(&bm.snapshot(), &om.snapshot(), arrays));
            }
            _ => result[i] = o.clone(),
        }
    }
    Value::list_from(result)
}

/// `maputil.ParseKey`: splits a `--state-values-set` key on dots, `\.` escaping one.
pub(crate) fn parse_key(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut escaped = false;
    for c in key.chars() {
        if !escaped && c == '\\' {
            escaped = true;
            continue;
        }
        if c == '.' && !escaped {
            parts.push(std::mem::take(&mut part));
        } else {
            part.push(c);
        }
        escaped = false;
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

use capstan_values::strvals::typed_value;

/// The largest list index a `--state-values-set` key may name (Helm's strvals limit).
const MAX_INDEX: usize = 65536;

/// One path segment of a `--state-values-set` key: `name` or `name[index]`.
enum Cursor {
    Key(String),
    Indexed(String, usize),
}

/// `getCursor`: Go's `fmt.Sscanf(key, "%s %d")` after `[` and `]` become spaces.
fn cursor(key: &str) -> Cursor {
    let spaced = key.replace(['[', ']'], " ");
    let mut words = spaced.split_whitespace();
    if let (Some(name), Some(index)) = (words.next(), words.next()) {
        if let Ok(i) = index.parse::<usize>() {
            return Cursor::Indexed(name.to_string(), i);
        }
    }
    Cursor::Key(spaced)
}

fn unexpected(v: &Value) -> String {
    format!("unexpected type: {v}({})", v.type_name())
}

/// `maputil.Set(m, ParseKey(key), value, keepString)`.
pub(crate) fn set_typed(
    m: &mut Tree,
    key: &str,
    value: &str,
    keep_string: bool,
) -> Result<(), StateError> {
    let path = parse_key(key);
    if path.is_empty() {
        return Err(format!("bug: unexpected length of key: {}", path.len()).into());
    }
    set_at(m, &path, typed_value(value, keep_string))
}

fn set_at(m: &mut Tree, path: &[String], value: Value) -> Result<(), StateError> {
    let (first, rest) = path
        .split_first()
        .expect("set_at is called with a non-empty path");
    match cursor(first) {
        Cursor::Key(k) => {
            if rest.is_empty() {
                m.insert(Str::from(k), value);
                return Ok(());
            }
            let slot = m.entry(Str::from(k)).or_insert_with(Value::empty_map);
            let Some(child) = slot.map_entries_mut() else {
                return Err(unexpected(slot).into());
            };
            set_at(child, rest, value)
        }
        Cursor::Indexed(k, i) => {
            // helmfile allocates the whole list (and dies on a huge index); capstan stops
            // at Helm's strvals limit with Helm's message.
            if i > MAX_INDEX {
                return Err(format!(
                    "index of {i} is greater than maximum supported index of {MAX_INDEX}"
                )
                .into());
            }
            let key = Str::from(k);
            let slot = m
                .entry(key.clone())
                .or_insert_with(|| Value::list_from(vec![Value::Nil; i + 1]));
            let Some(items) = slot.list_items_mut() else {
                return Err(unexpected(slot).into());
            };
            // Go grows a short list into a new one that, when a deeper path follows, is
            // never stored back: the change is lost. Setting the element itself stores it.
            if items.len() <= i {
                if !rest.is_empty() {
                    return Ok(());
                }
                items.resize(i + 1, Value::Nil);
            }
            if rest.is_empty() {
                items[i] = value;
                return Ok(());
            }
            if matches!(items[i], Value::Nil) {
                items[i] = Value::empty_map();
            }
            let elem = &mut items[i];
            let Some(child) = elem.map_entries_mut() else {
                return Err(unexpected(elem).into());
            };
            set_at(child, rest, value)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(yaml: &str) -> Tree {
        capstan_yaml::decode_helmfile(yaml)
            .expect("test YAML parses")
            .as_map()
            .expect("a map")
            .snapshot()
    }

    fn yaml(t: &Tree) -> String {
        capstan_yaml::encode_helmfile(&Value::map_from(t.clone())).expect("encodes")
    }

    #[test]
    fn override_erases_with_null_and_keeps_maps_on_empty() {
        let mut d = tree("x: 1\nm: {a: 1}\nl: [1, 2]\n");
        merge_override(&mut d, &tree("x: null\nm: {}\nl: [3]\n"));
        assert_eq!(yaml(&d), "l:\n  - 3\nm:\n  a: 1\nx: null\n");
    }

    #[test]
    fn fallback_keeps_earlier_and_fills_sparse_lists() {
        let mut d = tree("a: 0\nn: null\nl: [null, b]\nm: {k: 1}\n");
        merge_fallback(
            &mut d,
            &tree("a: 5\nn: 2\nl: [x, y, z]\nm: {k: 2, j: 3}\nnew: 1\n"),
        );
        assert_eq!(
            yaml(&d),
            "a: 0\nl:\n  - x\n  - b\n  - z\nm:\n  j: 3\n  k: 1\n\"n\": 2\nnew: 1\n"
        );
    }

    #[test]
    fn merge_maps_never_erases_and_merges_sparse_lists() {
        let out = merge_maps(
            &tree("x: keep\nl: [1, 2, 3]\n"),
            &tree("x: null\nl: [null, 5]\ny: null\n"),
            ArrayMerge::Sparse,
        );
        assert_eq!(
            yaml(&out),
            "l:\n  - 1\n  - 5\n  - 3\nx: keep\n\"y\": null\n"
        );
    }

    #[test]
    fn huge_indexes_stop_at_helms_limit() {
        let mut t = Tree::new();
        let e = set_typed(&mut t, "a[99999999999]", "1", false).unwrap_err();
        assert_eq!(
            e,
            "index of 99999999999 is greater than maximum supported index of 65536".into()
        );
        assert!(set_typed(&mut t, "b[65536]", "1", false).is_ok());
        assert!(set_typed(&mut t, "c[65537].d", "1", false).is_err());
    }

    #[test]
    fn set_typed_follows_maputil() {
        let mut m = Tree::new();
        set_typed(&mut m, "a.b", "007", false).unwrap();
        set_typed(&mut m, "l[2]", "true", false).unwrap();
        set_typed(&mut m, "o[0].n", "12", false).unwrap();
        set_typed(&mut m, "e\\.f", "x", true).unwrap();
        assert_eq!(
            yaml(&m),
            "a:\n  b: \"007\"\ne.f: x\nl:\n  - null\n  - null\n  - true\no:\n  - \"n\": 12\n"
        );
        assert!(matches!(typed_value("12", false), Value::Int64(12)));
        assert!(matches!(typed_value("1.5", false), Value::String(_)));
        assert!(matches!(typed_value("NULL", false), Value::Nil));
    }
}
