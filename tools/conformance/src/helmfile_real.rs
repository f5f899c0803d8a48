//! The `helmfile-real` suite: capstan against the real helmfile binary.
//!
//! Each case is a small helmfile project written by [`crate::helmfile_real_cases`] (state
//! files, charts, values files). Every command of a case is run twice in the same
//! directory, materialized afresh for each run: by the real helmfile v0.166.0
//! (`../shared/peer/helmfile-bin`: `HELMFILE_V1MODE=true HELMFILE_GOCCY_GOYAML=false`, the
//! shim first in `PATH` so that it drives the real Helm 4) and by capstan. The exit codes
//! must be equal; where both fail, the first line of the error must be equal; where both
//! succeed, the output must be equal, after the documented changes between helmfile
//! v0.166 and v1.7 (capstan's target) are applied to helmfile's output:
//!
//! - `list` and `build` give every release the labels `name`, `namespace` and `chart`
//!   (v1.0.0, helmfile#1046): those three labels are left out on both sides;
//! - `list` sorts by namespace, then name (v1.2.0, helmfile#2261), and no longer pads the
//!   last column (helmfile `pkg/app/formatters.go`, `trimTrailingWhitespace`): the table
//!   is compared cell by cell, helmfile's rows sorted;
//! - helmfile v1.1+ writes YAML with yaml.v3 (helmfile#2039; 0.166 with
//!   `HELMFILE_GOCCY_GOYAML=false` writes yaml.v2): `build` output and the files
//!   `write-values` writes are compared as YAML values, their `#  Source:` lines as text;
//!   the two libraries number a parse error's line differently, so `yaml: line N` is
//!   not compared;
//! - a YAML error in a state file without `.gotmpl` got a hint in v1.0.0.
//!
//! A case may name further differences; each names the helmfile change behind it.

use crate::report::CaseResult;
use capstan_value::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long one run may take.
const TIMEOUT: Duration = Duration::from_secs(180);

/// A helmfile project and the commands run on it.
pub struct Case {
    pub id: String,
    /// Files of the project: path (relative, `/`-separated) and content.
    pub files: Vec<(String, Vec<u8>)>,
    /// The commands, each compared on its own.
    pub runs: Vec<Run>,
    /// Whether the case needs a chart repository server: its `charts/` served, and
    /// `REPO_URL` in every file replaced by its address.
    pub chart_repo: bool,
}

/// One command of a case.
pub struct Run {
    pub args: Vec<String>,
    /// Environment variables set for both tools.
    pub env: Vec<(String, String)>,
    /// A documented difference between helmfile v0.166 and v1.7 that changes this
    /// command's result: the result helmfile v1.7 gives instead (exit code and the first
    /// error line, or `None` for success), with the change that explains it.
    pub v17: Option<Expected>,
}

/// What helmfile v1.7 does where v0.166 differs.
pub struct Expected {
    pub code: i32,
    /// The first line of the error (empty for a success).
    pub first_error_line: String,
    /// The helmfile change (pull request, version).
    pub change: &'static str,
}

/// The binaries the suite runs.
struct Tools {
    helmfile: PathBuf,
    /// The folder of the `helm` shim helmfile 0.166 needs to drive Helm 4.
    shim: PathBuf,
    /// The folder of the real helm.
    helm_dir: PathBuf,
    capstan: PathBuf,
}

fn tools() -> Result<Tools, String> {
    let helm = crate::real_charts::find_helm()?;
    let helm_dir = helm
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let helmfile = match std::env::var_os("CAPSTAN_TEST_HELMFILE") {
        Some(p) => PathBuf::from(p),
        None => helm_dir.join("helmfile-0.166.0"),
    };
    if !helmfile.is_file() {
        return Err(format!(
            "the real helmfile is not installed at {}: run ../shared/peer/helmfile-bin/install.sh (or set CAPSTAN_TEST_HELMFILE)",
            helmfile.display()
        ));
    }
    let shim = helmfile
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join("helmfile-shim"))
        .filter(|p| p.join("helm").is_file())
        .ok_or_else(|| {
            "the helm shim of ../shared/peer/helmfile-bin/install.sh is missing".to_string()
        })?;
    Ok(Tools {
        helmfile,
        shim,
        helm_dir,
        capstan: crate::real_charts::find_capstan()?,
    })
}

/// What one tool did.
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Files the run wrote (write-values), path and content.
    written: Vec<(String, String)>,
}

/// Runs the suite. `_path` is the helmfile-bin folder of `../shared/peer` (its
/// `install.sh` puts the binary where [`tools`] looks).
pub fn run(_path: &Path) -> Result<Vec<CaseResult>, String> {
    let tools = tools()?;
    let cases = crate::helmfile_real_cases::cases();
    let work = std::env::temp_dir().join(format!("capstan-helmfile-real-{}", std::process::id()));
    let jobs: Vec<(usize, usize)> = cases
        .iter()
        .enumerate()
        .flat_map(|(c, case)| (0..case.runs.len()).map(move |r| (c, r)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(2);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(&(c, r)) = jobs.get(i) else { break };
                let case = &cases[c];
                let run = &case.runs[r];
                let with_env = if run.env.is_empty() {
                    String::new()
                } else {
                    let names: Vec<&str> = run.env.iter().map(|(k, _)| k.as_str()).collect();
                    format!(" (with {})", names.join(", "))
                };
                let id = format!("{}/{}{with_env}", case.id, run.args.join(" "));
                let dir = work.join(format!("{i}"));
                let result = compare(&tools, case, run, &dir, id);
                let _ = std::fs::remove_dir_all(&dir);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, result));
            });
        }
    });
    let _ = std::fs::remove_dir_all(&work);
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(i, _)| *i);
    Ok(results.into_iter().map(|(_, r)| r).collect())
}

/// Writes the case's files into `dir` (emptied first).
fn materialize(case: &Case, dir: &Path, repo_url: Option<&str>) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    for (path, content) in &case.files {
        let file = dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        let content = match repo_url {
            Some(url) => String::from_utf8_lossy(content)
                .replace("REPO_URL", url)
                .into_bytes(),
            None => content.clone(),
        };
        std::fs::write(&file, content).map_err(|e| format!("{}: {e}", file.display()))?;
        if path.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())
}

fn compare(tools: &Tools, case: &Case, run: &Run, dir: &Path, id: String) -> CaseResult {
    let repo = if case.chart_repo {
        let charts = dir.with_extension("repo");
        let served = materialize(case, &charts, None)
            .and_then(|()| crate::e2e_suite::ChartRepo::start(&charts.join("charts"), 0));
        match served {
            Ok(r) => Some((r, charts)),
            Err(e) => return CaseResult::fail(id, format!("chart repository: {e}"), ""),
        }
    } else {
        None
    };
    let url = repo
        .as_ref()
        .map(|(r, _)| format!("http://127.0.0.1:{}", r.port()));
    let helmfile =
        materialize(case, dir, url.as_deref()).and_then(|()| execute(tools, true, run, dir));
    let capstan =
        materialize(case, dir, url.as_deref()).and_then(|()| execute(tools, false, run, dir));
    if let Some((_, charts)) = &repo {
        let _ = std::fs::remove_dir_all(charts);
    }
    let (helmfile, capstan) = match (helmfile, capstan) {
        (Ok(h), Ok(c)) => (h, c),
        (Err(e), _) => return CaseResult::fail(id, format!("helmfile: {e}"), ""),
        (_, Err(e)) => return CaseResult::fail(id, format!("capstan: {e}"), ""),
    };
    judge(id, run, &helmfile, &capstan)
}

fn execute(tools: &Tools, real: bool, run: &Run, dir: &Path) -> Result<Outcome, String> {
    let home = dir.join(".home");
    let path = std::env::var_os("PATH").unwrap_or_default();
    // Both see the same PATH: the shim first (it hands every call but helmfile's
    // version check to the real helm), so a helm path in a message is the same too.
    let mut dirs = vec![tools.shim.clone()];
    dirs.extend(std::env::split_paths(&path));
    let program = if real {
        &tools.helmfile
    } else {
        &tools.capstan
    };
    let before = files_under(dir);
    let mut cmd = Command::new(program);
    cmd.args(&run.args)
        .current_dir(dir)
        .env(
            "PATH",
            std::env::join_paths(dirs).map_err(|e| e.to_string())?,
        )
        .env("HELMFILE_V1MODE", "true")
        .env("HELMFILE_GOCCY_GOYAML", "false")
        .env("HELM_CACHE_HOME", home.join("helm-cache"))
        .env("HELM_CONFIG_HOME", home.join("helm-config"))
        .env("HELM_DATA_HOME", home.join("helm-data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("HOME", &home)
        .env("NO_COLOR", "1")
        .env_remove("HELM_DEBUG")
        .env_remove("KUBECONFIG")
        .env("CAPSTAN_HELMFILE_HELM", tools.helm_dir.join("helm"));
    for (k, _) in std::env::vars() {
        if k.starts_with("HELMFILE_") && k != "HELMFILE_V1MODE" && k != "HELMFILE_GOCCY_GOYAML" {
            cmd.env_remove(k);
        }
    }
    for (k, v) in &run.env {
        cmd.env(k, v);
    }
    let done = crate::real_charts::run_command(cmd, TIMEOUT)?;
    if done.timed_out {
        return Err("timed out".into());
    }
    // Every file the run wrote (write-values writes under each state file's directory).
    let mut written: Vec<(String, String)> = files_under(dir)
        .into_iter()
        .filter(|f| !before.contains(f) && !f.starts_with(".home/"))
        .map(|f| {
            let text = std::fs::read_to_string(dir.join(&f)).unwrap_or_default();
            (f, text)
        })
        .collect();
    written.sort();
    Ok(Outcome {
        code: done.code,
        stdout: done.stdout,
        stderr: done.stderr,
        written,
    })
}

/// The files under `root`, as paths relative to it.
fn files_under(root: &Path) -> std::collections::BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(
                    p.strip_prefix(root)
                        .unwrap_or(&p)
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(root, root, &mut out);
    out
}

/// Lines both tools print as progress or warnings before an error, not the error.
fn is_progress(line: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "Building dependency",
        "Templating release",
        "Adding repo",
        "Writing values file",
        "Linting release",
        "Comparing release",
        "Listing releases",
        "Skipping ",
        "WARNING:",
        "Warning:",
        "warning:",
        "\"",
        "...Successfully",
        "Hang tight",
        "Update Complete",
        "Saving ",
        "Deleting outdated",
        "Upgrading release",
        "Affected releases",
        "skipping missing",
        "Cannot remove",
    ];
    let t = line.trim_start();
    t.is_empty()
        || PREFIXES.iter().any(|p| t.starts_with(p))
        // A hook's output: `hook[prepare] logs | …`.
        || (t.starts_with("hook[") && t.contains("] logs |"))
}

/// The first line of a tool's error: what follows its progress lines (capstan's `Error: `
/// prefix, which helmfile does not print, removed).
fn first_error_line(stderr: &str) -> String {
    let line = stderr.lines().find(|l| !is_progress(l)).unwrap_or("");
    let line = line.strip_prefix("Error: ").unwrap_or(line).trim_end();
    // helmfile v0.166 reads state files with yaml.v2 here, v1.7 with yaml.v3
    // (helmfile#2039): the two number a parse error's line by different rules.
    match line.find("yaml: line ") {
        Some(at) => {
            let rest = &line[at + "yaml: line ".len()..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            format!("{}yaml: line N{}", &line[..at], &rest[digits..])
        }
        None => line.to_string(),
    }
}

fn judge(id: String, run: &Run, helmfile: &Outcome, capstan: &Outcome) -> CaseResult {
    let detail = || {
        format!(
            "--- helmfile (exit {:?})\n{}\n{}\n--- capstan (exit {:?})\n{}\n{}",
            helmfile.code,
            helmfile.stdout,
            helmfile.stderr,
            capstan.code,
            capstan.stdout,
            capstan.stderr
        )
    };
    let (want_code, want_error) = match &run.v17 {
        Some(e) => (Some(e.code), Some(e.first_error_line.clone())),
        None => (helmfile.code, None),
    };
    if want_code != capstan.code {
        return CaseResult::fail(
            id,
            format!(
                "exit code: helmfile {:?}{} capstan {:?}: {}",
                want_code,
                run.v17
                    .as_ref()
                    .map(|e| format!(" (v1.7, {})", e.change))
                    .unwrap_or_default(),
                capstan.code,
                first_error_line(&capstan.stderr)
            ),
            detail(),
        );
    }
    if want_code != Some(0) {
        let want =
            want_error.unwrap_or_else(|| v17_error_line(&first_error_line(&helmfile.stderr)));
        let got = first_error_line(&capstan.stderr);
        // An expectation of v1.7 without a text checks the exit code only.
        let any_text = run
            .v17
            .as_ref()
            .is_some_and(|e| e.first_error_line.is_empty());
        if want != got && !any_text && helm_error_line(&helmfile.stderr) != Some(got.clone()) {
            return CaseResult::fail(
                id,
                format!("first error line: helmfile {want:?} capstan {got:?}"),
                detail(),
            );
        }
        return CaseResult::pass(id);
    }
    if run.v17.is_some() {
        // v1.7 succeeds where v0.166 failed: the output cannot be compared.
        return CaseResult::pass(id);
    }
    let command = run
        .args
        .iter()
        .find(|a| !a.starts_with('-') && !is_flag_value(&run.args, a))
        .map(String::as_str)
        .unwrap_or("");
    let json = run
        .args
        .windows(2)
        .any(|w| w[0] == "--output" && w[1] == "json");
    let verdict = match command {
        "list" if json => compare_list_json(&helmfile.stdout, &capstan.stdout),
        "list" => compare_list_table(&helmfile.stdout, &capstan.stdout),
        "build" => compare_yaml_stream(&helmfile.stdout, &capstan.stdout),
        "write-values" => compare_written(&helmfile.written, &capstan.written),
        _ => compare_text(&helmfile.stdout, &capstan.stdout),
    };
    match verdict {
        Ok(()) => CaseResult::pass(id),
        Err(why) => CaseResult::fail(id, why, detail()),
    }
}

/// Where helmfile ran `helm template` and helm failed, capstan (which renders without
/// helm) reports helm's own error in its place: `in ./helmfile.yaml: MESSAGE` for
/// helmfile's `in ./helmfile.yaml: command "…/helm" exited with non-zero status:` whose
/// `STDERR:` section holds `Error: MESSAGE` (COMPATIBILITY.md, "helm's errors").
fn helm_error_line(stderr: &str) -> Option<String> {
    let first = stderr.lines().find(|l| !is_progress(l))?;
    let (prefix, rest) = first.split_once(": command \"")?;
    if !rest.ends_with("exited with non-zero status:") || !rest.contains("/helm\"") {
        return None;
    }
    let after = stderr.split("\nSTDERR:\n").nth(1)?;
    let message = after
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("Error: "))?;
    Some(format!("{prefix}: {message}"))
}

/// helmfile v0.166's first error line as v1.7 words it: a YAML error in a state file
/// without the `.gotmpl` extension got a hint in v1.0.0 (after helmfile#1498:
/// `reading document at index N. Started seeing this since Helmfile v1? Add the .gotmpl
/// file extension: …`).
fn v17_error_line(line: &str) -> String {
    const AT: &str = ": reading document at index ";
    let Some(at) = line.find(AT) else {
        return line.to_string();
    };
    let (head, rest) = line.split_at(at);
    let file = head.rsplit("failed to read ").next().unwrap_or("");
    if file.ends_with(".gotmpl") {
        return line.to_string();
    }
    let rest = &rest[AT.len()..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[digits..].strip_prefix(": ") {
        Some(cause) => format!(
            "{head}{AT}{}. Started seeing this since Helmfile v1? Add the .gotmpl file extension: {cause}",
            &rest[..digits]
        ),
        None => line.to_string(),
    }
}

/// Whether `a` is the value of a flag that takes one (`-e prod`).
fn is_flag_value(args: &[String], a: &String) -> bool {
    const WITH_VALUE: &[&str] = &[
        "-e",
        "--environment",
        "-l",
        "--selector",
        "-f",
        "--file",
        "--output",
        "-o",
        "-n",
        "--namespace",
        "--kube-context",
        "--state-values-set",
        "--state-values-file",
        "--output-file-template",
        "--args",
        "--set",
        "--values",
    ];
    args.iter()
        .zip(args.iter().skip(1))
        .any(|(flag, value)| std::ptr::eq(value, a) && WITH_VALUE.contains(&flag.as_str()))
}

fn compare_text(helmfile: &str, capstan: &str) -> Result<(), String> {
    if helmfile == capstan {
        return Ok(());
    }
    let h: Vec<&str> = helmfile.split_inclusive('\n').collect();
    let c: Vec<&str> = capstan.split_inclusive('\n').collect();
    let at = h.iter().zip(&c).take_while(|(a, b)| a == b).count();
    Err(format!(
        "output differs at line {}: helmfile {:?} capstan {:?}",
        at + 1,
        h.get(at).copied().unwrap_or("(nothing)"),
        c.get(at).copied().unwrap_or("(nothing)")
    ))
}

/// A release's labels without the three v1.0 adds (helmfile#1046).
fn user_labels(labels: &str) -> String {
    let mut kept: Vec<&str> = labels
        .split(',')
        .filter(|l| !l.is_empty())
        .filter(|l| {
            let key = l.split(':').next().unwrap_or("");
            !matches!(key, "name" | "namespace" | "chart")
        })
        .collect();
    kept.sort();
    kept.join(",")
}

/// `list`'s table as rows of trimmed cells, labels without the implicit ones.
fn table_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // v1.7 trims each line's trailing whitespace (the padded last column).
            let l = l.trim_end();
            let mut cells: Vec<String> = l.split('\t').map(|c| c.trim().to_string()).collect();
            if let Some(labels) = cells.get_mut(4) {
                if labels != "LABELS" {
                    *labels = user_labels(labels);
                }
            }
            // Empty cells at the end are the padding v1.7 trims.
            while cells.last().is_some_and(String::is_empty) {
                cells.pop();
            }
            cells
        })
        .collect()
}

fn compare_list_table(helmfile: &str, capstan: &str) -> Result<(), String> {
    let mut want = table_rows(helmfile);
    let got = table_rows(capstan);
    if want.len() > 1 {
        // v1.2.0 (helmfile#2261): by namespace, then name.
        want[1..].sort_by(|a, b| (a.get(1), a.first()).cmp(&(b.get(1), b.first())));
    }
    if want == got {
        return Ok(());
    }
    let at = want.iter().zip(&got).take_while(|(a, b)| a == b).count();
    Err(format!(
        "list row {at} differs: helmfile {:?} capstan {:?}",
        want.get(at),
        got.get(at)
    ))
}

fn compare_list_json(helmfile: &str, capstan: &str) -> Result<(), String> {
    let parse = |t: &str| -> Result<Vec<serde_json::Value>, String> {
        let v: serde_json::Value = serde_json::from_str(t.trim()).map_err(|e| e.to_string())?;
        let mut rows = v.as_array().cloned().unwrap_or_default();
        for r in &mut rows {
            if let Some(l) = r.get_mut("labels") {
                *l = serde_json::Value::String(user_labels(l.as_str().unwrap_or("")));
            }
        }
        Ok(rows)
    };
    let mut want = parse(helmfile).map_err(|e| format!("helmfile's JSON: {e}"))?;
    let got = parse(capstan).map_err(|e| format!("capstan's JSON: {e}"))?;
    let key = |r: &serde_json::Value| {
        (
            r["namespace"].as_str().unwrap_or("").to_string(),
            r["name"].as_str().unwrap_or("").to_string(),
        )
    };
    want.sort_by_key(key);
    if want == got {
        Ok(())
    } else {
        Err(format!(
            "list JSON differs: helmfile {} capstan {}",
            serde_json::Value::Array(want),
            serde_json::Value::Array(got)
        ))
    }
}

/// YAML documents as values (releases' implicit labels left out), and the comment lines
/// (`#  Source: …`) in order.
fn yaml_stream(text: &str) -> Result<(Vec<Value>, Vec<String>), String> {
    let comments = text
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(String::from)
        .collect();
    let mut docs = Vec::new();
    for d in capstan_yaml::split_documents(text).map_err(|e| e.to_string())? {
        let v = capstan_yaml::decode_helmfile_value(&d).map_err(|e| e.to_string())?;
        docs.push(without_implicit_labels(v));
    }
    Ok((docs, comments))
}

fn without_implicit_labels(doc: Value) -> Value {
    let Some(releases) = doc
        .get("releases")
        .and_then(|r| r.as_list().map(|l| l.items.clone()))
    else {
        return doc;
    };
    let releases: Vec<Value> = releases
        .into_iter()
        .map(|r| {
            let Some(map) = r.as_map().map(|m| m.snapshot()) else {
                return r;
            };
            let mut map = map;
            if let Some(labels) = map
                .get("labels")
                .and_then(|l| l.as_map().map(|m| m.snapshot()))
            {
                let kept: std::collections::BTreeMap<_, _> = labels
                    .into_iter()
                    .filter(|(k, _)| !matches!(&**k, "name" | "namespace" | "chart"))
                    .collect();
                if kept.is_empty() {
                    map.remove("labels");
                } else {
                    map.insert("labels".into(), Value::map_from(kept));
                }
            }
            Value::map_from(map)
        })
        .collect();
    let mut top = doc.as_map().map(|m| m.snapshot()).unwrap_or_default();
    top.insert("releases".into(), Value::list_from(releases));
    Value::map_from(top)
}

fn compare_yaml_stream(helmfile: &str, capstan: &str) -> Result<(), String> {
    let (want, want_comments) = yaml_stream(helmfile).map_err(|e| format!("helmfile: {e}"))?;
    let (got, got_comments) = yaml_stream(capstan).map_err(|e| format!("capstan: {e}"))?;
    if want_comments != got_comments {
        return Err(format!(
            "comment lines differ: helmfile {want_comments:?} capstan {got_comments:?}"
        ));
    }
    if want.len() != got.len() {
        return Err(format!(
            "{} documents from helmfile, {} from capstan",
            want.len(),
            got.len()
        ));
    }
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        if w != g {
            let show = |v: &Value| capstan_yaml::encode_helmfile(v).unwrap_or_default();
            return Err(format!(
                "document {} differs:\n--- helmfile\n{}--- capstan\n{}",
                i + 1,
                show(w),
                show(g)
            ));
        }
    }
    Ok(())
}

fn compare_written(
    helmfile: &[(String, String)],
    capstan: &[(String, String)],
) -> Result<(), String> {
    let names = |f: &[(String, String)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if names(helmfile) != names(capstan) {
        return Err(format!(
            "files written: helmfile {:?} capstan {:?}",
            names(helmfile),
            names(capstan)
        ));
    }
    for ((name, want), (_, got)) in helmfile.iter().zip(capstan) {
        compare_yaml_stream(want, got).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_compare_by_cell_without_implicit_labels_and_in_v1_order() {
        let helmfile = "NAME\tNAMESPACE\tLABELS\nb   \tns2  \t\na  \tns1\ttier:x\n";
        let helmfile =
            helmfile.replace("NAMESPACE\tLABELS", "NAMESPACE\tENABLED\tINSTALLED\tLABELS");
        let helmfile = helmfile
            .replace("b   \tns2  \t", "b   \tns2  \ttrue\ttrue\t")
            .replace("a  \tns1\t", "a  \tns1\ttrue\ttrue\t");
        let capstan = "NAME\tNAMESPACE\tENABLED\tINSTALLED\tLABELS\na\tns1\ttrue\ttrue\tchart:c,name:a,namespace:ns1,tier:x\nb\tns2\ttrue\ttrue\tname:b\n";
        assert_eq!(compare_list_table(&helmfile, capstan), Ok(()));
        assert!(compare_list_table(&helmfile, "NAME\n").is_err());
    }

    #[test]
    fn yaml_errors_of_plain_state_files_get_v1s_hint() {
        assert_eq!(
            v17_error_line("in ./h.yaml: failed to read h.yaml: reading document at index 1: yaml: line 3: x"),
            "in ./h.yaml: failed to read h.yaml: reading document at index 1. Started seeing this since Helmfile v1? Add the .gotmpl file extension: yaml: line 3: x"
        );
        let templated = "in ./h.yaml.gotmpl: failed to read h.yaml.gotmpl: reading document at index 2: yaml: x";
        assert_eq!(v17_error_line(templated), templated);
    }

    #[test]
    fn first_error_lines_skip_progress_and_capstans_prefix() {
        assert_eq!(
            first_error_line(
                "Building dependency release=a\nError: in ./x.yaml: boom\n  | snippet\n"
            ),
            "in ./x.yaml: boom"
        );
    }
}
