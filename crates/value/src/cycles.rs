//! Maps that contain themselves. Go maps are references, so a template can make a map
//! hold itself (`set $d "self" $d`, `set .Values "all" .Values`, a `merge` into a map
//! of a value that holds it). Go's `encoding/json` reports such a cycle; `fmt`,
//! copystructure (`deepCopy`), mergo and the YAML and TOML encoders recurse until the
//! process dies.
//!
//! capstan notes the moment a change to a map makes the map reach itself
//! ([`Map::insert`](crate::Map::insert)); until then every check here is one atomic
//! load. Afterwards each deep walk asks [`check`] first: the JSON family reports Go's
//! error, and the walks Go would die in stop with a [`Cycle`] panic, which the template
//! engine reports as the calling function's error and the command line as an error.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::{Map, Value};

/// Set once any map in this process was made to reach itself.
static MADE: AtomicBool = AtomicBool::new(false);

/// A value that reaches a map containing itself. `Display` is the text of Go's
/// `json.UnsupportedValueError` for it (`encountered a cycle via map[string]interface {}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The Go type of the map the walk came back to.
    pub go_type: String,
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "encountered a cycle via {}", self.go_type)
    }
}

impl Cycle {
    /// The message for a walk Go cannot finish (printing, copying, merging, YAML or
    /// TOML): Go's helm dies of a stack overflow or out of memory there.
    pub fn endless_walk(&self) -> String {
        format!("a map that contains itself cannot be walked here ({self})")
    }
}

/// Whether a caught panic payload is a [`Cycle`] (see [`assert_acyclic`]).
pub fn as_cycle(payload: &(dyn std::any::Any + Send)) -> Option<&Cycle> {
    payload.downcast_ref::<Cycle>()
}

fn map_id(m: &Map) -> usize {
    m as *const Map as usize
}

/// The containers directly inside `v`.
fn children(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Map(m) => out.extend(m.read().values().cloned()),
        Value::List(l) => out.extend(l.items.iter().cloned()),
        Value::AnyMap(m) => {
            for (k, x) in &m.entries {
                out.push(k.clone());
                out.push(x.clone());
            }
        }
        _ => {}
    }
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::Map(_) | Value::List(_) | Value::AnyMap(_))
}

/// Called before `value` is stored in `map`: notes when `value` reaches `map` (the
/// store makes a cycle). Walks each shared container once.
pub(crate) fn note_insert(map: &Map, value: &Value) {
    if MADE.load(Ordering::Relaxed) || !is_container(value) {
        return;
    }
    let target = map_id(map);
    // A container of scalars (the usual store: a fresh small map) reaches no map but
    // itself: no walk.
    let flat = match value {
        Value::Map(m) => {
            if map_id(m) == target {
                MADE.store(true, Ordering::Relaxed);
                return;
            }
            m.read().values().all(|v| !is_container(v))
        }
        Value::List(l) => l.items.iter().all(|v| !is_container(v)),
        Value::AnyMap(m) => m
            .entries
            .iter()
            .all(|(k, v)| !is_container(k) && !is_container(v)),
        _ => true,
    };
    if flat {
        return;
    }
    let mut seen: HashSet<usize> = HashSet::new();
    let mut todo = vec![value.clone()];
    let mut next = Vec::new();
    while let Some(v) = todo.pop() {
        if let Value::Map(m) = &v {
            let id = map_id(m);
            if id == target {
                MADE.store(true, Ordering::Relaxed);
                return;
            }
            if !seen.insert(id) {
                continue;
            }
        }
        next.clear();
        children(&v, &mut next);
        todo.extend(next.drain(..).filter(is_container));
    }
}

/// `Err` when `v` reaches a map that contains itself. One atomic load while no map in
/// this process was ever made to contain itself; then a walk that visits each map once.
pub fn check(v: &Value) -> Result<(), Cycle> {
    if !MADE.load(Ordering::Relaxed) || !is_container(v) {
        return Ok(());
    }
    find(vec![v.clone()], None)
}

/// [`check`] of a map's entries, the map itself on the path.
pub(crate) fn check_map(m: &Map) -> Result<(), Cycle> {
    if !MADE.load(Ordering::Relaxed) {
        return Ok(());
    }
    let entries: Vec<Value> = m
        .read()
        .values()
        .filter(|v| is_container(v))
        .cloned()
        .collect();
    let root = (map_id(m), format!("map[string]{}", m.elem.go_name()));
    find(entries, Some(root))
}

/// How deep Go's `encoding/json` goes before it starts remembering containers
/// (`startDetectingCyclesAfter`): it remembers containers from the next one down and
/// reports the first one it meets again, so the error names the Go type of the
/// container at that depth (0-based: this index in the walk).
const GO_JSON_DETECTS_AFTER: usize = 1000;

/// Depth-first over `roots` in Go's order (map keys sorted, list items in order), each
/// map once; `Err` on coming back to a map on the path (`root`, with its Go type, is on
/// the path from the start). The error names the container Go's `encoding/json` would
/// name going round the same cycle.
fn find(roots: Vec<Value>, root: Option<(usize, String)>) -> Result<(), Cycle> {
    enum Step {
        Enter(Value),
        Leave,
    }
    // The containers from the root down to the current one: map id (0 for lists) and
    // Go type.
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut on_path: HashMap<usize, usize> = HashMap::new();
    let mut done: HashSet<usize> = HashSet::new();
    if let Some((id, go_type)) = root {
        on_path.insert(id, 0);
        path.push((id, go_type));
    }
    let mut todo: Vec<Step> = roots.into_iter().rev().map(Step::Enter).collect();
    let mut next = Vec::new();
    while let Some(step) = todo.pop() {
        let v = match step {
            Step::Leave => {
                if let Some((id, _)) = path.pop() {
                    if id != 0 {
                        on_path.remove(&id);
                        done.insert(id);
                    }
                }
                continue;
            }
            Step::Enter(v) => v,
        };
        let mut id = 0;
        if let Value::Map(m) = &v {
            id = map_id(m);
            if let Some(&start) = on_path.get(&id) {
                // Go walks `path`, then the cycle `path[start..]` round and round.
                let depth = GO_JSON_DETECTS_AFTER;
                let at = if depth < path.len() {
                    depth
                } else {
                    start + (depth - start) % (path.len() - start)
                };
                let go_type = path.get(at).map(|(_, t)| t.clone()).unwrap_or_default();
                return Err(Cycle { go_type });
            }
            if done.contains(&id) {
                continue;
            }
            on_path.insert(id, path.len());
        }
        path.push((id, v.type_name()));
        todo.push(Step::Leave);
        next.clear();
        children(&v, &mut next);
        todo.extend(next.drain(..).rev().filter(is_container).map(Step::Enter));
    }
    Ok(())
}

/// Stops the walk Go could not finish: panics with the [`Cycle`] when `v` reaches a
/// map that contains itself.
pub fn assert_acyclic(v: &Value) {
    if let Err(c) = check(v) {
        std::panic::panic_any(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn dict() -> Value {
        Value::map_from(BTreeMap::new())
    }

    #[test]
    fn shared_maps_are_not_cycles_and_self_holding_ones_are() {
        let a = dict();
        let shared = dict();
        let Value::Map(am) = &a else { unreachable!() };
        am.insert("x".into(), shared.clone());
        am.insert("y".into(), Value::list_from(vec![shared.clone(), shared]));
        assert_eq!(check(&a), Ok(()));
        // Through a list inside another map.
        let b = dict();
        let Value::Map(bm) = &b else { unreachable!() };
        bm.insert("up".into(), Value::list_from(vec![a.clone()]));
        am.insert("down".into(), b.clone());
        let err = check(&a).expect_err("a -> b -> [a]");
        assert_eq!(
            err.to_string(),
            "encountered a cycle via map[string]interface {}"
        );
        assert!(check(&b).is_err());
        // A value beside the cycle is still fine.
        assert_eq!(check(&Value::list_from(vec![dict(), dict()])), Ok(()));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| assert_acyclic(&a)))
            .expect_err("panics");
        assert!(as_cycle(caught.as_ref()).is_some());
    }
}
