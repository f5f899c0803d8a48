//! capstan as an Argo CD Config Management Plugin (`deploy/argocd/plugin.yaml`):
//! `capstan argocd init` and `capstan argocd generate` read the contract Argo CD's
//! cmp-server gives a plugin and run capstan's own commands in a child process:
//!
//! - the working directory is the application's path;
//! - the application's parameters come as `ARGOCD_APP_PARAMETERS` (JSON) or `PARAM_*`:
//!   `environment` (`-e`), `selectors` (`-l`, an array), `state-values` (a map, each
//!   `--state-values-set key=value`), `namespace` (`-n`, every release's namespace);
//! - the application's plugin environment comes prefixed, `ARGOCD_ENV_NAME=v`, and is
//!   given to the state files as `NAME=v` (names that steer the process itself, such as
//!   `PATH`, `HOME` or `LD_*`, are refused);
//! - `KUBE_VERSION` and `KUBE_API_VERSIONS` feed `.Capabilities`, as Argo CD does for helm;
//! - nothing but manifests on stdout, errors on stderr with a non-zero exit;
//! - caches in a temporary directory (the sidecar's home may be read-only), nothing
//!   written anywhere else;
//! - a deadline: `ARGOCD_EXEC_TIMEOUT` (the cmp-server's own, default 90 s) less a
//!   tenth, after which the child is stopped and the command fails.

use clap::Subcommand;
use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Subcommand, Clone, Debug)]
pub enum ArgocdCommand {
    /// The plugin's `init`: add the state's chart repositories to helm when there are
    /// any and helm is installed (local charts need nothing).
    Init,
    /// The plugin's `generate`: every release's manifests on stdout, as `capstan
    /// template --include-crds` with the application's parameters.
    Generate,
}

/// One application parameter as Argo CD passes it.
#[derive(Debug, Default, PartialEq)]
struct Parameters {
    environment: Option<String>,
    selectors: Vec<String>,
    state_values: Vec<(String, String)>,
    namespace: Option<String>,
}

/// The parameters of `ARGOCD_APP_PARAMETERS` (`[{"name": …, "string"|"array"|"map":
/// …}]`), else of the `PARAM_*` variables.
fn parameters(
    env: &dyn Fn(&str) -> Option<String>,
    all: &[(String, String)],
) -> Result<Parameters, String> {
    let mut p = Parameters::default();
    if let Some(json) = env("ARGOCD_APP_PARAMETERS").filter(|j| !j.trim().is_empty()) {
        let list: serde_json::Value = serde_json::from_str(&json)
            .map_err(|e| format!("ARGOCD_APP_PARAMETERS is not JSON: {e}"))?;
        for item in list.as_array().into_iter().flatten() {
            let name = item.get("name").and_then(|n| n.as_str()).unwrap_or("");
            let string = item
                .get("string")
                .and_then(|s| s.as_str())
                .map(str::to_string);
            let array: Vec<String> = item
                .get("array")
                .and_then(|a| a.as_array())
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect();
            let map: Vec<(String, String)> = item
                .get("map")
                .and_then(|m| m.as_object())
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect();
            match name {
                "environment" => p.environment = string.filter(|s| !s.is_empty()),
                "namespace" => p.namespace = string.filter(|s| !s.is_empty()),
                "selectors" => p.selectors = array,
                "state-values" => p.state_values = map,
                _ => {}
            }
        }
        return Ok(p);
    }
    p.environment = env("PARAM_ENVIRONMENT").filter(|s| !s.is_empty());
    p.namespace = env("PARAM_NAMESPACE").filter(|s| !s.is_empty());
    let mut selectors: Vec<(usize, String)> = all
        .iter()
        .filter_map(|(k, v)| {
            k.strip_prefix("PARAM_SELECTORS_")
                .and_then(|i| i.parse::<usize>().ok())
                .map(|i| (i, v.clone()))
        })
        .collect();
    selectors.sort();
    p.selectors = selectors.into_iter().map(|(_, v)| v).collect();
    Ok(p)
}

/// Whether an application may set `name` for the state files: not the variables that
/// steer capstan, helm, the loader or the shell.
fn settable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let refused_prefixes = [
        "LD_",
        "DYLD_",
        "CAPSTAN_",
        "HELM_",
        "HELMFILE_",
        "XDG_",
        "ARGOCD_",
    ];
    let refused = [
        "PATH",
        "HOME",
        "SHELL",
        "TMPDIR",
        "TMP",
        "TEMP",
        "KUBECONFIG",
        "IFS",
        "ENV",
        "BASH_ENV",
        "PWD",
        "USER",
    ];
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !refused.contains(&upper.as_str())
        && !refused_prefixes.iter().any(|p| upper.starts_with(p))
}

/// The deadline: `ARGOCD_EXEC_TIMEOUT` (a Go duration, default 90 s) less a tenth, so
/// that capstan reports it before the cmp-server kills the command.
fn deadline(env: &dyn Fn(&str) -> Option<String>) -> Duration {
    let total = env("ARGOCD_EXEC_TIMEOUT")
        .and_then(|t| capstan_gocompat::time::parse_duration(t.trim()).ok())
        .filter(|ns| *ns > 0)
        .map(|ns| Duration::from_nanos(ns as u64))
        .unwrap_or(Duration::from_secs(90));
    total - total / 10
}

/// The capstan command line for `cmd` with `p`.
fn command_line(
    cmd: &ArgocdCommand,
    p: &Parameters,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    if let Some(e) = &p.environment {
        args.extend(["--environment".into(), e.into()]);
    }
    if let Some(n) = &p.namespace {
        args.extend(["--namespace".into(), n.into()]);
    }
    for s in &p.selectors {
        args.extend(["--selector".into(), s.into()]);
    }
    for (k, v) in &p.state_values {
        args.extend(["--state-values-set".into(), format!("{k}={v}").into()]);
    }
    match cmd {
        ArgocdCommand::Init => args.push("repos".into()),
        ArgocdCommand::Generate => {
            args.extend(["template".into(), "--include-crds".into()]);
            if let Some(v) = env("KUBE_VERSION").filter(|v| !v.trim().is_empty()) {
                args.extend(["--kube-version".into(), v.trim().into()]);
            }
            if let Some(list) = env("KUBE_API_VERSIONS").filter(|v| !v.trim().is_empty()) {
                args.push(format!("--args=--api-versions={}", list.trim()).into());
            }
        }
    }
    args
}

/// Whether the state in `cwd` names chart repositories (the only thing `init` does).
fn has_repositories(cwd: &Path) -> bool {
    ["helmfile.yaml", "helmfile.yaml.gotmpl", "helmfile.yml"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(cwd.join(f)).ok())
        .chain(
            std::fs::read_dir(cwd.join("helmfile.d"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| std::fs::read_to_string(e.path()).ok()),
        )
        .any(|text| {
            text.lines()
                .any(|l| l.trim_start().starts_with("repositories:"))
        })
}

/// Runs the plugin command in `cwd`.
pub fn run(cmd: ArgocdCommand, cwd: &Path) -> crate::Outcome {
    let fail = |message: String| crate::Outcome {
        stdout: String::new(),
        stderr: format!("Error: {message}\n"),
        code: 1,
    };
    let all: Vec<(String, String)> = std::env::vars().collect();
    let env = |k: &str| std::env::var(k).ok();
    let p = match parameters(&env, &all) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    if matches!(cmd, ArgocdCommand::Init) && !(has_repositories(cwd) && which_helm(&env).is_some())
    {
        return crate::Outcome::default();
    }
    let child = match child_command(&cmd, &p, &env, &all, cwd) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let limit = deadline(&env);
    let (status, stdout, stderr) = match run_within(child, limit) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    match status {
        Some(s) if s.success() => crate::Outcome {
            stdout,
            stderr,
            code: 0,
        },
        Some(s) => crate::Outcome {
            stdout: String::new(),
            stderr,
            code: s.code().unwrap_or(1).max(1),
        },
        None => crate::Outcome {
            stdout: String::new(),
            stderr: format!(
                "{stderr}Error: the plugin's deadline of {} s passed (ARGOCD_EXEC_TIMEOUT less a tenth); nothing was printed\n",
                limit.as_secs()
            ),
            code: 1,
        },
    }
}

/// The child capstan for `cmd`: its command line, the application's plugin environment
/// (`ARGOCD_ENV_X` as `X`, refused for the variables a plugin may not set) and caches in
/// the temporary directory.
fn child_command(
    cmd: &ArgocdCommand,
    p: &Parameters,
    env: &dyn Fn(&str) -> Option<String>,
    all: &[(String, String)],
    cwd: &Path,
) -> Result<Command, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the capstan binary: {e}"))?;
    let mut child = Command::new(exe);
    child
        .args(command_line(cmd, p, env))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in all {
        if let Some(name) = k.strip_prefix("ARGOCD_ENV_") {
            if !settable(name) {
                return Err(format!(
                    "the application's plugin environment may not set {name} (ARGOCD_ENV_{name})"
                ));
            }
            child.env(name, v);
        }
    }
    // Caches where the sidecar may write: its temporary directory, not its home.
    let tmp = std::env::temp_dir().join("capstan-argocd");
    for (var, sub) in [
        ("HELMFILE_CACHE_HOME", "helmfile"),
        ("HELM_CACHE_HOME", "helm/cache"),
        ("HELM_CONFIG_HOME", "helm/config"),
        ("HELM_DATA_HOME", "helm/data"),
    ] {
        if env(var).is_none() {
            child.env(var, tmp.join(sub));
        }
    }
    Ok(child)
}

/// Runs `child` to its end or to `limit`: its status (`None` past the deadline, killed
/// or ended too late: the cmp-server's own clock is close) and what it printed.
fn run_within(
    mut child: Command,
    limit: Duration,
) -> Result<(Option<std::process::ExitStatus>, String, String), String> {
    let started = Instant::now();
    let mut running = child
        .spawn()
        .map_err(|e| format!("cannot run capstan: {e}"))?;
    // Both pipes drained on threads, so a large output cannot stall the child.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(
        running
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        running
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let status = loop {
        match running.try_wait() {
            Ok(Some(_)) if started.elapsed() > limit => break None,
            Ok(Some(s)) => break Some(s),
            Ok(None) if started.elapsed() >= limit => {
                let _ = running.kill();
                let _ = running.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break None,
        }
    };
    let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    Ok((status, stdout, stderr))
}

/// The helm `init` would use: `HELM_BINARY`, else `helm` on PATH.
fn which_helm(env: &dyn Fn(&str) -> Option<String>) -> Option<std::path::PathBuf> {
    if let Some(h) = env("HELM_BINARY").filter(|h| !h.is_empty()) {
        return Some(h.into());
    }
    env("PATH")?
        .split(':')
        .map(|d| Path::new(d).join("helm"))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| map.get(k).cloned()
    }

    #[test]
    fn parameters_come_from_the_json_else_from_param_variables() {
        let json = r#"[{"name":"environment","string":"prod"},{"name":"selectors","array":["tier=web","app=x"]},{"name":"state-values","map":{"replicas":"3"}},{"name":"other","string":"x"}]"#;
        let p = parameters(&env_of(&[("ARGOCD_APP_PARAMETERS", json)]), &[]).unwrap();
        assert_eq!(p.environment.as_deref(), Some("prod"));
        assert_eq!(p.selectors, ["tier=web", "app=x"]);
        assert_eq!(p.state_values, [("replicas".to_string(), "3".to_string())]);
        let all = vec![
            ("PARAM_SELECTORS_1".to_string(), "b=2".to_string()),
            ("PARAM_SELECTORS_0".to_string(), "a=1".to_string()),
        ];
        let p = parameters(&env_of(&[("PARAM_ENVIRONMENT", "staging")]), &all).unwrap();
        assert_eq!(p.environment.as_deref(), Some("staging"));
        assert_eq!(p.selectors, ["a=1", "b=2"]);
        assert!(parameters(&env_of(&[("ARGOCD_APP_PARAMETERS", "[nope")]), &[]).is_err());
    }

    #[test]
    fn generate_passes_capabilities_and_parameters() {
        let p = Parameters {
            environment: Some("prod".into()),
            selectors: vec!["a=1".into()],
            state_values: vec![("k".into(), "v".into())],
            namespace: None,
        };
        let env = env_of(&[
            ("KUBE_VERSION", "1.29"),
            ("KUBE_API_VERSIONS", "v1,apps/v1"),
        ]);
        let line: Vec<String> = command_line(&ArgocdCommand::Generate, &p, &env)
            .into_iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            line,
            [
                "--environment",
                "prod",
                "--selector",
                "a=1",
                "--state-values-set",
                "k=v",
                "template",
                "--include-crds",
                "--kube-version",
                "1.29",
                "--args=--api-versions=v1,apps/v1"
            ]
        );
    }

    #[test]
    fn the_application_cannot_steer_the_process() {
        for bad in [
            "PATH",
            "path",
            "LD_PRELOAD",
            "HOME",
            "HELM_PLUGINS",
            "CAPSTAN_X",
            "A-B",
            "",
            "KUBECONFIG",
        ] {
            assert!(!settable(bad), "{bad}");
        }
        for ok in ["FOO", "REGION", "db_host"] {
            assert!(settable(ok), "{ok}");
        }
    }

    #[test]
    fn the_deadline_is_the_cmp_servers_less_a_tenth() {
        assert_eq!(deadline(&env_of(&[])), Duration::from_secs(81));
        assert_eq!(
            deadline(&env_of(&[("ARGOCD_EXEC_TIMEOUT", "2m")])),
            Duration::from_secs(108)
        );
        assert_eq!(
            deadline(&env_of(&[("ARGOCD_EXEC_TIMEOUT", "bogus")])),
            Duration::from_secs(81)
        );
    }
}
