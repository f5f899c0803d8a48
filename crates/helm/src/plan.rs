//! The order cluster commands work in (helmfile's `PlanReleases`): the `needs:` graph of a
//! state's releases cut down to the selected ones, in groups that can run together, each
//! after the groups its members need. Within a group releases keep their order in the
//! state file; `reverse` (deletions) runs the whole plan backwards.
//!
//! Needs of a selected release that are not selected are an error, unless they are
//! skipped (`--skip-needs`) or brought in (`--include-needs`, which follows needs of needs
//! too).

use capstan_state::release::Release;
use capstan_state::select::need_id;
use capstan_state::StateError;
use std::collections::{BTreeMap, BTreeSet};

/// What to plan.
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// Indexes (into the releases) of the releases to act on.
    pub selected: Vec<usize>,
    /// Reverse order (deletions: what is needed goes last).
    pub reverse: bool,
    /// The selected releases' needs are not added.
    pub skip_needs: bool,
    /// The selected releases' needs are added.
    pub include_needs: bool,
}

fn quoted_list(items: &[String]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    match q.len() {
        0..=2 => q.join(" and "),
        n => format!("{}, and {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// Groups of release indexes, in the order they run.
pub fn plan(releases: &[Release], o: &PlanOptions) -> Result<Vec<Vec<usize>>, StateError> {
    let ids: Vec<String> = releases.iter().map(Release::id).collect();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, id) in ids.iter().enumerate() {
        index.entry(id.as_str()).or_insert(i);
    }
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); releases.len()];
    let mut undefined: Vec<(String, Vec<String>)> = Vec::new();
    for (i, r) in releases.iter().enumerate() {
        for n in &r.needs {
            let id = need_id(r, n);
            match index.get(id.as_str()) {
                Some(&j) => deps[i].push(j),
                None => match undefined.iter_mut().find(|(u, _)| *u == id) {
                    Some((_, who)) => who.push(ids[i].clone()),
                    None => undefined.push((id, vec![ids[i].clone()])),
                },
            }
        }
    }
    if let Some((id, who)) = undefined.first() {
        let quoted: Vec<String> = who.iter().map(|w| format!("{w:?}")).collect();
        let name = id.rsplit('/').next().unwrap_or(id);
        return Err(format!(
            "release(s) {} depend(s) on an undefined release {id:?}. Perhaps you made a typo in \"needs\" or forgot defining a release named {name:?} with appropriate \"namespace\" and \"kubeContext\"?",
            quoted.join(", ")
        ).into());
    }
    let selected: BTreeSet<usize> = o.selected.iter().copied().collect();
    let mut included = selected.clone();
    if o.include_needs {
        let mut frontier: Vec<usize> = selected.iter().copied().collect();
        while let Some(i) = frontier.pop() {
            for &d in &deps[i] {
                if included.insert(d) {
                    frontier.push(d);
                }
            }
        }
    } else if !o.skip_needs {
        // The first need the selection leaves out, with every selected release needing it.
        let mut missing: Option<(usize, Vec<String>)> = None;
        for i in (0..releases.len()).filter(|i| selected.contains(i)) {
            for &d in &deps[i] {
                if included.contains(&d) {
                    continue;
                }
                match &mut missing {
                    None => missing = Some((d, vec![ids[i].clone()])),
                    Some((m, who)) if *m == d => who.push(ids[i].clone()),
                    Some(_) => {}
                }
            }
        }
        if let Some((d, who)) = missing {
            let name = &releases[d].name;
            return Err(format!(
                "release {} {} on {:?} which does not match the selectors. Please add a selector like \"--selector name={name}\", or indicate whether to skip (--skip-needs) or include (--include-needs) these dependencies",
                quoted_list(&who),
                if who.len() == 1 { "depends" } else { "depend" },
                ids[d]
            ).into());
        }
    }
    // Longest path to a release with no (included) needs = its group.
    let mut level: Vec<Option<usize>> = vec![None; releases.len()];
    let mut on_path = vec![false; releases.len()];
    fn level_of(
        i: usize,
        deps: &[Vec<usize>],
        included: &BTreeSet<usize>,
        level: &mut [Option<usize>],
        on_path: &mut [bool],
        ids: &[String],
    ) -> Result<usize, StateError> {
        if let Some(l) = level[i] {
            return Ok(l);
        }
        if on_path[i] {
            return Err(
                format!("cycle detected: {} needs itself through its needs", ids[i]).into(),
            );
        }
        on_path[i] = true;
        let mut l = 0;
        for &d in deps[i].iter().filter(|d| included.contains(d)) {
            l = l.max(
                capstan_value::stack::grow(|| level_of(d, deps, included, level, on_path, ids))?
                    + 1,
            );
        }
        on_path[i] = false;
        level[i] = Some(l);
        Ok(l)
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..releases.len() {
        if !included.contains(&i) {
            continue;
        }
        let l = level_of(i, &deps, &included, &mut level, &mut on_path, &ids)?;
        if groups.len() <= l {
            groups.resize(l + 1, Vec::new());
        }
        groups[l].push(i);
    }
    groups.retain(|g| !g.is_empty());
    if o.reverse {
        groups.reverse();
        for g in &mut groups {
            g.reverse();
        }
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(name: &str, needs: &[&str]) -> Release {
        Release {
            name: name.into(),
            needs: needs.iter().map(|s| s.to_string()).collect(),
            ..Release::default()
        }
    }

    #[test]
    fn groups_keep_file_order_and_reverse_whole() {
        let rs = [
            rel("db", &["log"]),
            rel("log", &[]),
            rel("proxy", &[]),
            rel("app", &["db", "log"]),
        ];
        let all = PlanOptions {
            selected: vec![0, 1, 2, 3],
            ..PlanOptions::default()
        };
        assert_eq!(plan(&rs, &all).unwrap(), vec![vec![1, 2], vec![0], vec![3]]);
        let rev = PlanOptions {
            reverse: true,
            ..all
        };
        assert_eq!(plan(&rs, &rev).unwrap(), vec![vec![3], vec![0], vec![2, 1]]);
    }

    #[test]
    fn unselected_needs_are_an_error_unless_skipped_or_included() {
        let rs = [rel("a", &[]), rel("b", &["a"])];
        let o = PlanOptions {
            selected: vec![1],
            ..PlanOptions::default()
        };
        let e = plan(&rs, &o).unwrap_err().message;
        assert!(
            e.starts_with("release \"b\" depends on \"a\" which does not match"),
            "{e}"
        );
        let skip = PlanOptions {
            skip_needs: true,
            ..o.clone()
        };
        assert_eq!(plan(&rs, &skip).unwrap(), vec![vec![1]]);
        let inc = PlanOptions {
            include_needs: true,
            ..o
        };
        assert_eq!(plan(&rs, &inc).unwrap(), vec![vec![0], vec![1]]);
    }

    #[test]
    fn undefined_needs_and_cycles() {
        let rs = [rel("a", &["nope"])];
        let o = PlanOptions {
            selected: vec![0],
            ..PlanOptions::default()
        };
        assert!(plan(&rs, &o)
            .unwrap_err()
            .message
            .contains("undefined release \"nope\""));
        let rs = [rel("a", &["b"]), rel("b", &["a"])];
        let o = PlanOptions {
            selected: vec![0, 1],
            ..PlanOptions::default()
        };
        assert!(plan(&rs, &o)
            .unwrap_err()
            .message
            .starts_with("cycle detected"));
    }
}
