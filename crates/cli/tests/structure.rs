//! The workspace's shape, checked: no two files of a crate import each other, directly
//! or around a circle (a `crate::…` path in one file's code, comments and test modules
//! aside, is an import of the module it names).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, by module path (`a::b` for `a/b.rs` or `a/b/mod.rs`).
fn modules(dir: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(dir).expect("under dir").with_extension("");
                let mut name = rel.to_string_lossy().replace('/', "::");
                if let Some(parent) = name.strip_suffix("::mod") {
                    name = parent.to_string();
                }
                out.insert(name, p);
            }
        }
    }
    out
}

/// The code of a file: up to its test module, comment lines left out.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("read");
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules of `mods` that `module`'s code names through `crate::` paths.
fn imports(module: &str, text: &str, mods: &BTreeMap<String, PathBuf>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        if text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let path: String = text[i + 7..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let parts: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        for k in (1..=parts.len()).rev() {
            let candidate = parts[..k].join("::");
            if mods.contains_key(&candidate) {
                if candidate != module && !module.starts_with(&format!("{candidate}::")) {
                    out.insert(candidate);
                }
                break;
            }
        }
    }
    out
}

/// The circles of a graph (strongly connected parts of more than one node).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Two nodes are in one circle when each reaches the other.
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(n) = stack.pop() {
            for m in graph.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|k| (k, reach(k))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for (k, r) in &reached {
        if done.contains(*k) || !r.contains(*k) {
            continue;
        }
        let circle: Vec<String> = r
            .iter()
            .filter(|m| reached.get(m).is_some_and(|back| back.contains(*k)))
            .cloned()
            .collect();
        if circle.len() > 1 {
            done.extend(circle.iter().cloned());
            out.push(circle);
        }
    }
    out
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut checked = 0;
    for e in std::fs::read_dir(&crates).expect("crates").flatten() {
        let src = e.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let mods = modules(&src);
        let graph: BTreeMap<String, BTreeSet<String>> = mods
            .iter()
            .map(|(m, p)| (m.clone(), imports(m, &code(p), &mods)))
            .collect();
        checked += graph.len();
        for c in circles(&graph) {
            found.push(format!(
                "{}: {}",
                e.file_name().to_string_lossy(),
                c.join(" → ")
            ));
        }
    }
    assert!(
        checked > 100,
        "only {checked} files found under {}",
        crates.display()
    );
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn a_circle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(circles(&graph), vec![vec!["a", "b", "c"]]);
}
