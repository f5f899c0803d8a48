//! Which releases a command acts on: `-l/--selector` label filters (several flags are
//! OR'ed, the `k=v,k2!=v2` terms of one flag AND'ed), `condition:` against the state
//! values, and the `needs:` graph with its batches (`show-dag`) and cycle errors.

use crate::merge::Tree;
use crate::release::Release;
use crate::StateError;
use capstan_value::Value;
use std::collections::BTreeMap;

/// One `-l` flag: all of its terms must hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    terms: Vec<(String, String, bool)>,
}

impl Selector {
    /// Parses `key=value,key2!=value2` as helmfile's `ParseLabels`: each term is
    /// `K=V` or `K!=V` with both sides one or more of `[a-zA-Z0-9_/.+-]`; the error names
    /// the last malformed term.
    pub fn parse(s: &str) -> Result<Selector, StateError> {
        let word = |w: &str| {
            !w.is_empty()
                && w.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'/' | b'.' | b'+' | b'-')
                })
        };
        let mut terms = Vec::new();
        let mut malformed = None;
        for part in s.split(',') {
            let term =
                if let Some((k, v)) = part.split_once("!=").filter(|(k, v)| word(k) && word(v)) {
                    Some((k, v, false))
                } else {
                    part.split_once('=')
                        .filter(|(k, v)| word(k) && word(v))
                        .map(|(k, v)| (k, v, true))
                };
            match term {
                Some((k, v, positive)) => terms.push((k.to_string(), v.to_string(), positive)),
                None => malformed = Some(part),
            }
        }
        match malformed {
            Some(part) => {
                Err(format!("malformed label: {part}. Expected label in form k=v or k!=v").into())
            }
            None => Ok(Selector { terms }),
        }
    }

    /// Whether a release with `labels` matches every term of this selector.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.terms.iter().all(|(k, v, positive)| {
            let actual = labels.get(k).map(String::as_str).unwrap_or("");
            (actual == v) == *positive
        })
    }
}

/// Whether a release passes any of the selectors (all pass when there are none).
pub fn selected(r: &Release, selectors: &[Selector]) -> bool {
    if selectors.is_empty() {
        return true;
    }
    let labels = r.selector_labels();
    selectors.iter().any(|s| s.matches(&labels))
}

/// helmfile's `ConditionEnabled` (v1.7.4 `pkg/state/state.go:3488`): `condition:
/// true|false` (any case), or `a.b.enabled` looked up in the state values (a missing or
/// non-boolean `enabled` is false).
pub fn condition_enabled(r: &Release, values: &Tree) -> Result<bool, StateError> {
    if r.condition.is_empty() {
        return Ok(true);
    }
    match r.condition.to_ascii_lowercase().as_str() {
        "true" => return Ok(true),
        "false" => return Ok(false),
        _ => {}
    }
    let keys: Vec<&str> = r.condition.split('.').collect();
    if keys.last() != Some(&"enabled") {
        return Err("Condition value must be in the form 'foo.enabled' where 'foo' can be modified as necessary".into());
    }
    let mut cur = Value::map_from(values.clone());
    let mut shown = String::new();
    for k in &keys[..keys.len() - 1] {
        shown.push('.');
        shown.push_str(k);
        match cur.get(k) {
            Some(v @ Value::Map(_)) => cur = v,
            Some(_) => {
                return Err(format!("environment values field '{shown}' is not a map").into())
            }
            None => return Err(format!("environment values field '{shown}' not found").into()),
        }
    }
    Ok(matches!(cur.get("enabled"), Some(Value::Bool(true))))
}

/// The full ID a `needs:` entry names, completed with the needing release's namespace
/// and kube context.
pub fn need_id(r: &Release, need: &str) -> String {
    let parts: Vec<&str> = need.split('/').collect();
    // The ID as `ReleaseToID` spells it: `kc//name` when there is a context but no
    // namespace.
    let with = |kc: &str, ns: &str, name: &str| {
        let mut id = String::new();
        if !kc.is_empty() {
            id.push_str(kc);
            id.push('/');
        }
        if !ns.is_empty() {
            id.push_str(ns);
            id.push('/');
        } else if !kc.is_empty() {
            id.push('/');
        }
        id.push_str(name);
        id
    };
    match parts.as_slice() {
        [name] => with(&r.kube_context, &r.namespace, name),
        [ns, name] => with(&r.kube_context, ns, name),
        _ => need.to_string(),
    }
}

/// A `needs:` problem: helmfile's text (its `Display`), the name of the release it is
/// about (the one whose need is undefined, or where the cycle starts), and the state
/// file holding it (set by the caller that knows it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct NeedsError {
    /// helmfile's message.
    pub message: String,
    /// The release it is about.
    pub release: String,
    /// The state file holding the release.
    pub file: String,
}

/// Groups releases into batches that can run together, each after the ones its members
/// need (`PlanReleases`). Cycles and unknown needs are errors.
pub(crate) fn plan_batches(releases: &[Release]) -> Result<Vec<Vec<usize>>, NeedsError> {
    let ids: Vec<String> = releases.iter().map(Release::id).collect();
    let index: BTreeMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); releases.len()];
    for (i, r) in releases.iter().enumerate() {
        for n in &r.needs {
            let id = need_id(r, n);
            match index.get(id.as_str()) {
                Some(&j) => deps[i].push(j),
                None => {
                    return Err(NeedsError {
                        message: format!(
                            "release(s) \"{}\" depend(s) on an undefined release \"{id}\". Perhaps you made a typo in \"needs\" or forgot defining a release named \"{}\" with appropriate \"namespace\" and \"kubeContext\"?",
                            ids[i],
                            id.rsplit('/').next().unwrap_or(&id)
                        ),
                        release: r.name.clone(),
                        file: String::new(),
                    })
                }
            }
        }
    }
    // Cycle detection with the path, in declaration order.
    fn visit(
        i: usize,
        deps: &[Vec<usize>],
        ids: &[String],
        state: &mut [u8],
        stack: &mut Vec<usize>,
    ) -> Result<(), (String, usize)> {
        if state[i] == 2 {
            return Ok(());
        }
        if state[i] == 1 {
            let start = stack.iter().position(|&x| x == i).unwrap_or(0);
            let mut path: Vec<&str> = stack[start..].iter().map(|&x| ids[x].as_str()).collect();
            path.push(ids[i].as_str());
            return Err((
                format!("cycle detected: {}", path.join(" -> ")),
                stack[start],
            ));
        }
        state[i] = 1;
        stack.push(i);
        for &d in &deps[i] {
            visit(d, deps, ids, state, stack)?;
        }
        stack.pop();
        state[i] = 2;
        Ok(())
    }
    let mut state = vec![0u8; releases.len()];
    for i in 0..releases.len() {
        visit(i, &deps, &ids, &mut state, &mut Vec::new()).map_err(|(message, at)| NeedsError {
            message,
            release: releases[at].name.clone(),
            file: String::new(),
        })?;
    }
    let mut level = vec![usize::MAX; releases.len()];
    fn level_of(i: usize, deps: &[Vec<usize>], level: &mut [usize]) -> usize {
        if level[i] != usize::MAX {
            return level[i];
        }
        let l = deps[i]
            .iter()
            .map(|&d| level_of(d, deps, level) + 1)
            .max()
            .unwrap_or(0);
        level[i] = l;
        l
    }
    let mut batches: Vec<Vec<usize>> = Vec::new();
    for i in 0..releases.len() {
        let l = level_of(i, &deps, &mut level);
        if batches.len() <= l {
            batches.resize(l + 1, Vec::new());
        }
        batches[l].push(i);
    }
    // Each group keeps the releases' definition order (helmfile v0.166 show-dag).
    Ok(batches)
}

/// The order helmfile renders a set of releases in (`withNeeds`: the batches of
/// `PlanReleases`, each in definition order): the indexes of `releases`, ordered by how
/// deep their `needs:` within the set go. Needs outside the set do not count.
pub fn dag_order(releases: &[&Release]) -> Vec<usize> {
    let ids: Vec<String> = releases.iter().map(|r| r.id()).collect();
    let deps: Vec<Vec<usize>> = releases
        .iter()
        .map(|r| {
            r.needs
                .iter()
                .filter_map(|n| {
                    let id = need_id(r, n);
                    ids.iter().position(|x| *x == id)
                })
                .collect()
        })
        .collect();
    // Levels by relaxation (a cycle, already refused by `plan_batches`, stops at n).
    let mut level = vec![0usize; releases.len()];
    for _ in 0..releases.len() {
        let mut changed = false;
        for i in 0..releases.len() {
            let l = deps[i].iter().map(|&d| level[d] + 1).max().unwrap_or(0);
            if l > level[i] {
                level[i] = l;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut order: Vec<usize> = (0..releases.len()).collect();
    order.sort_by_key(|&i| (level[i], i));
    order
}

/// helmfile's `show-dag` table (Go's tabwriter with padding 1): one row per release,
/// its group (batch), its id and its `needs:` as full IDs.
pub(crate) fn dag_table(releases: &[Release], batches: &[Vec<usize>]) -> String {
    let mut rows: Vec<[String; 3]> = vec![[
        "GROUP".to_string(),
        "RELEASE".to_string(),
        "DEPENDENCIES".to_string(),
    ]];
    for (i, b) in batches.iter().enumerate() {
        for &j in b {
            rows.push([
                (i + 1).to_string(),
                releases[j].id(),
                releases[j]
                    .needs
                    .iter()
                    .map(|n| need_id(&releases[j], n))
                    .collect::<Vec<_>>()
                    .join(", "),
            ]);
        }
    }
    tab_table(&rows)
}

/// Go's `text/tabwriter` (minwidth 0, padding 1, blanks) over rows whose cells are all
/// tab-terminated but the last: every cell but the last padded to its column's width
/// plus one.
pub(crate) fn tab_table<const N: usize>(rows: &[[String; N]]) -> String {
    let widths: Vec<usize> = (0..N)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in rows {
        for (c, cell) in r.iter().enumerate() {
            out.push_str(cell);
            if c + 1 < N {
                out.push_str(&" ".repeat(widths[c] + 1 - cell.chars().count()));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_are_literals_or_an_enabled_value() {
        let with = |c: &str| Release {
            condition: c.into(),
            ..Default::default()
        };
        let values: Tree =
            capstan_yaml::decode_helmfile_value("a:\n  enabled: true\nb:\n  enabled: x\nc: 1\n")
                .expect("yaml")
                .as_map()
                .expect("a map")
                .snapshot();
        for (c, want) in [
            ("", true),
            ("true", true),
            ("TRUE", true),
            ("False", false),
            ("a.enabled", true),
            ("b.enabled", false),
            ("z.y.enabled", false),
        ] {
            let got = condition_enabled(&with(c), &values);
            match c {
                "z.y.enabled" => assert_eq!(
                    got.unwrap_err().message,
                    "environment values field '.z' not found"
                ),
                _ => assert_eq!(got.unwrap(), want, "{c}"),
            }
        }
        assert_eq!(
            condition_enabled(&with("c.x.enabled"), &values)
                .unwrap_err()
                .message,
            "environment values field '.c' is not a map"
        );
        assert!(condition_enabled(&with("a.on"), &values).is_err());
    }

    fn rel(name: &str, needs: &[&str]) -> Release {
        Release {
            name: name.into(),
            namespace: "ns".into(),
            chart: "c".into(),
            needs: needs.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn batches_follow_needs_and_cycles_fail() {
        let rs = vec![rel("a", &["b"]), rel("b", &[]), rel("c", &["ns/a"])];
        assert_eq!(plan_batches(&rs).unwrap(), vec![vec![1], vec![0], vec![2]]);
        let cyc = vec![rel("a", &["b"]), rel("b", &["a"])];
        assert_eq!(
            plan_batches(&cyc).unwrap_err().message,
            "cycle detected: ns/a -> ns/b -> ns/a"
        );
        assert!(plan_batches(&[rel("a", &["zz"])])
            .unwrap_err()
            .message
            .contains("undefined release \"ns/zz\""));
    }

    #[test]
    fn releases_render_in_needs_order() {
        let rs = [
            rel("web", &["api"]),
            rel("api", &["db"]),
            rel("db", &[]),
            rel("x", &["ns/zz"]),
        ];
        let refs: Vec<&Release> = rs.iter().collect();
        assert_eq!(dag_order(&refs), vec![2, 3, 1, 0]);
    }

    #[test]
    fn selectors_and_or() {
        let r = rel("web", &[]);
        let s = |x: &str| Selector::parse(x).unwrap();
        assert!(selected(&r, &[s("name=web,namespace=ns")]));
        assert!(!selected(&r, &[s("name=web,namespace!=ns")]));
        assert!(selected(&r, &[s("name=db"), s("chart=c")]));
        assert!(Selector::parse("oops").is_err());
        // helmfile's ParseLabels: both sides from [a-zA-Z0-9_/.+-], the last bad term named.
        for good in ["a=b", "a.b/c_d-e=f+g", "a!=1.2.3"] {
            assert!(Selector::parse(good).is_ok(), "{good}");
        }
        for bad in ["=a", "a=", "a=b=c", "!=x", "a:b=c", "a=b c", "a=é", "a=b,"] {
            assert!(Selector::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Selector::parse("=x,a=b,=y").unwrap_err().message,
            "malformed label: =y. Expected label in form k=v or k!=v"
        );
    }
}
