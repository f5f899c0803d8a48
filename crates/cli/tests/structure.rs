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

/// Every `.rs` file under `dir` (recursively), `target` directories aside.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && p.file_name().is_some_and(|n| n != "target") {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The phrase a file over 1,000 lines writes at its top to say why it is one file.
const LONG_FILE_REASON: &str = "Why one file of over 1,000 lines:";

#[test]
fn no_file_over_a_thousand_lines_without_a_reason_at_its_top() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["crates", "tools", "fuzz", "benches"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "only {} files found", files.len());
    let unexplained: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(p).ok()?;
            let lines = text.lines().count();
            let top: String = text
                .lines()
                .take_while(|l| l.starts_with("//!") || l.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            (lines > 1000 && !top.contains(LONG_FILE_REASON))
                .then(|| format!("{} ({lines} lines)", p.display()))
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "files over 1,000 lines without \"{LONG_FILE_REASON}\" at their top:\n{}",
        unexplained.join("\n")
    );
}

/// Each function of `text` (a line starting `fn`, `pub fn`, `pub(crate) fn`…) with its
/// length in lines, from its `fn` line to its closing brace (strings and comments aside).
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub(super) "))
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        let Some(rest) = t.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let (mut depth, mut started) = (0i64, false);
        for (j, l) in lines[i..].iter().enumerate() {
            let code = strip_strings_and_comment(l);
            depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            started |= code.contains('{');
            if (started && depth <= 0) || (!started && code.trim_end().ends_with(';')) {
                out.push((name.clone(), j + 1));
                break;
            }
        }
    }
    out
}

/// A line of code without its string and char literals and its `//` comment.
fn strip_strings_and_comment(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '\'' => {
                // A char literal ('x', '\n', '{'), not a lifetime ('a).
                let ahead: String = chars.clone().take(3).collect();
                if ahead.starts_with('\\') || ahead.chars().nth(1) == Some('\'') {
                    for d in chars.by_ref() {
                        if d == '\'' {
                            break;
                        }
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => break,
            _ => out.push(c),
        }
    }
    out
}

#[test]
fn the_cli_crate_holds_no_function_over_a_hundred_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .flat_map(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            function_lengths(&text)
                .into_iter()
                .filter(|(_, n)| *n > 100)
                .map(move |(f, n)| format!("{}: {f} ({n} lines)", p.display()))
        })
        .collect();
    assert!(
        files.len() > 5,
        "only {} files under {}",
        files.len(),
        src.display()
    );
    assert!(
        long.is_empty(),
        "functions over 100 lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn function_lengths_count_from_fn_to_the_closing_brace() {
    let text = "fn a() {\n    let s = \"}\";\n    let c = '{';\n}\npub(crate) fn b(x: &'a str) -> u8 { 1 }\n";
    assert_eq!(
        function_lengths(text),
        vec![("a".to_string(), 4), ("b".to_string(), 1)]
    );
}

#[test]
fn the_readme_names_every_fuzz_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let listed = readme
        .split("(targets: ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .expect("README lists the fuzz targets as `(targets: …)`");
    let mut listed: Vec<&str> = listed
        .split(", ")
        .map(|t| t.trim().trim_matches('`'))
        .collect();
    listed.sort();
    let mut targets: Vec<String> = std::fs::read_dir(root.join("fuzz/fuzz_targets"))
        .expect("fuzz targets")
        .flatten()
        .filter_map(|e| {
            e.path()
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .collect();
    targets.sort();
    assert_eq!(listed, targets);
}
