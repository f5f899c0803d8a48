//! The `helmfile-e2e` suite over helmfile's own snapshot cases: run the case's
//! `helmfileArgs` (default `build`) with `-f input.yaml.gotmpl` through capstan's command
//! line in the case directory, and compare the YAML documents printed with the expected
//! output (`output-helm4.yaml`, else `gopkg.in-yaml.v3-output.yaml`, else `output.yaml`),
//! leaving out helm's and helmfile's progress lines. Cases that need a chart server, an
//! OCI registry or the internet fail with that reason.

use crate::report::CaseResult;
use capstan_value::Value;
use std::path::Path;

/// Lines helm and helmfile print as progress, not output.
const PROGRESS: &[&str] = &[
    "Building dependency",
    "Templating release",
    "Adding repo",
    "Saving ",
    "Hang tight",
    "...Successfully",
    "Update Complete",
    "Deleting outdated",
    "Pulling ",
    "Pulled:",
    "Digest:",
    "WARNING:",
    "Listing releases",
];

fn documents(text: &str) -> Result<Vec<Value>, String> {
    let kept: String = text
        .lines()
        .filter(|l| !PROGRESS.iter().any(|p| l.starts_with(p)))
        .map(|l| format!("{l}\n"))
        .collect();
    let docs = capstan_yaml::split_documents(&kept).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for d in docs {
        let v = capstan_yaml::decode_helmfile_value(&d).map_err(|e| e.to_string())?;
        if !matches!(v, Value::Nil) {
            out.push(v);
        }
    }
    Ok(out)
}

fn config(dir: &Path) -> Result<Value, String> {
    match std::fs::read_to_string(dir.join("config.yaml")) {
        Ok(t) => capstan_yaml::decode_helmfile_value(&t).map_err(|e| e.to_string()),
        Err(_) => Ok(Value::empty_map()),
    }
}

fn enabled(cfg: &Value, key: &str) -> bool {
    matches!(cfg.get(key).and_then(|v| v.get("enabled")), Some(Value::Bool(true)))
}

fn needs_network(input: &str) -> bool {
    ["https://", "http://", "git::", "oci://"]
        .iter()
        .any(|p| input.contains(p))
}

fn run_case(id: String, dir: &Path) -> CaseResult {
    let cfg = match config(dir) {
        Ok(c) => c,
        Err(e) => return CaseResult::fail(id, format!("config.yaml: {e}"), ""),
    };
    if enabled(&cfg, "localChartRepoServer") {
        return CaseResult::fail(id, "needs a local chart repository server (not run)", "");
    }
    if enabled(&cfg, "localDockerRegistry") {
        return CaseResult::fail(id, "needs a local OCI registry (not run)", "");
    }
    let input = ["input.yaml.gotmpl", "input.yaml"]
        .into_iter()
        .find(|f| dir.join(f).is_file());
    let Some(input) = input else {
        return CaseResult::fail(id, "no input.yaml(.gotmpl)", "");
    };
    let text = std::fs::read_to_string(dir.join(input)).unwrap_or_default();
    if needs_network(&text) {
        return CaseResult::fail(id, "needs the internet (not run)", "");
    }
    let expected_file = ["output-helm4.yaml", "gopkg.in-yaml.v3-output.yaml", "output.yaml"]
        .into_iter()
        .find(|f| dir.join(f).is_file());
    let Some(expected_file) = expected_file else {
        return CaseResult::fail(id, "no expected output", "");
    };
    let mut args: Vec<String> = match cfg.get("helmfileArgs") {
        Some(Value::List(l)) => l.items.iter().map(|v| v.to_string()).collect(),
        _ => Vec::new(),
    };
    if args.is_empty() {
        args.push("build".into());
    }
    let mut argv = vec!["capstan".to_string(), "-f".into(), input.to_string()];
    argv.extend(args);
    let out = capstan_cli::run(argv, dir);
    if out.code != 0 {
        return CaseResult::fail(id, format!("capstan failed: {}", out.stderr.trim_end()), "");
    }
    let want = std::fs::read_to_string(dir.join(expected_file)).unwrap_or_default();
    match (documents(&want), documents(&out.stdout)) {
        (Ok(w), Ok(g)) if w == g => CaseResult::pass(id),
        (Ok(w), Ok(g)) => {
            let show = |docs: &[Value]| {
                docs.iter()
                    .map(|d| capstan_yaml::encode_helmfile(d).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("---\n")
            };
            CaseResult::compare(id, "documents", &show(&w), &show(&g))
        }
        (Err(e), _) => CaseResult::fail(id, format!("expected output does not parse: {e}"), ""),
        (_, Err(e)) => CaseResult::fail(id, format!("capstan's output does not parse: {e}"), ""),
    }
}

pub fn run(path: &Path) -> Result<Vec<CaseResult>, String> {
    let snap = path.join("snapshot");
    let root = if snap.is_dir() { snap } else { path.to_path_buf() };
    let ids = crate::dir_ids(&root)?;
    Ok(ids
        .into_iter()
        .map(|id| {
            let dir = root.join(&id);
            run_case(id, &dir)
        })
        .collect())
}
