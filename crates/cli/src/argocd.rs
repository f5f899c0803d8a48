//! capstan as an Argo CD Config Management Plugin (`deploy/argocd/plugin.yaml`):
//! `capstan argocd init` and `capstan argocd generate` read the contract Argo CD's
//! cmp-server gives a plugin and run capstan's own commands in a child process:
//!
//! - the working directory is the application's path;
//! - the application's parameters come as `ARGOCD_APP_PARAMETERS` (JSON) or `PARAM_*`:
//!   `environment` (`-e`), `selectors` (`-l`, an array), `state-values` (a map, each
//!   `--state-values-set key=value`), `namespace` (`-n`, every release's namespace);
//! - repositories are untrusted by default: the child runs in untrusted mode
//!   (`--untrusted`, `capstan_state::tenant`), which only the sidecar's own
//!   `CAPSTAN_ARGOCD_TRUSTED=true` turns off and its `CAPSTAN_UNTRUSTED_*` variables
//!   widen; nothing an Application sets reaches either;
//! - the application's plugin environment comes prefixed, `ARGOCD_ENV_NAME=v`, and is
//!   given to the state files' templates as `NAME` — in untrusted mode through
//!   `CAPSTAN_UNTRUSTED_APP_ENV` only, never into any process's environment; a name
//!   that steers capstan or a program it may run is refused in either mode;
//! - `KUBE_VERSION` and `KUBE_API_VERSIONS` feed `.Capabilities`, as Argo CD does for helm;
//! - nothing but manifests on stdout, errors on stderr with a non-zero exit;
//! - each run has its own private home, temporary directory and caches (owner only,
//!   removed after the run), so no run sees what another fetched or wrote;
//! - bounds: a deadline (`ARGOCD_EXEC_TIMEOUT`, the cmp-server's own, default 90 s, less
//!   a tenth), an output cap and a memory cap; past any of them the child's whole
//!   process group is killed and the command fails.

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

/// Whether an application may set `name` for the state files: a plain name that
/// steers neither capstan nor any program or library it may run.
fn settable(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !capstan_state::tenant::reserved_name(name)
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

/// Whether the sidecar's administrator trusts every repository
/// (`CAPSTAN_ARGOCD_TRUSTED=true` in the sidecar's own environment).
fn trusted(env: &dyn Fn(&str) -> Option<String>) -> bool {
    env("CAPSTAN_ARGOCD_TRUSTED").is_some_and(|v| crate::global::go_bool(&v) == Ok(true))
}

/// The bounds of one plugin run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bounds {
    deadline: Duration,
    max_output: usize,
    max_memory: u64,
}

/// The run's bounds: the deadline, and the output and memory caps
/// (`CAPSTAN_UNTRUSTED_MAX_OUTPUT_MB`, default 64; `CAPSTAN_UNTRUSTED_MEMORY_MB`,
/// default 4096).
fn bounds(env: &dyn Fn(&str) -> Option<String>) -> Bounds {
    use capstan_state::tenant::config;
    let mib = |name: &str, default: u64| {
        env(name)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(default)
            .saturating_mul(1 << 20)
    };
    Bounds {
        deadline: deadline(env),
        max_output: usize::try_from(mib(config::MAX_OUTPUT_MB, 64)).unwrap_or(usize::MAX),
        max_memory: mib(config::MEMORY_MB, 4096),
    }
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
    let untrusted = !trusted(&env);
    // Untrusted: charts are fetched by `generate` itself into the run's own cache, and
    // nothing is written into a helm configuration other runs share.
    if matches!(cmd, ArgocdCommand::Init)
        && (untrusted || !(has_repositories(cwd) && which_helm(&env).is_some()))
    {
        return crate::Outcome::default();
    }
    // The run's own home, temporary directory and caches, removed when it ends.
    let private = match capstan_state::host::PrivateDir::new() {
        Ok(d) => d,
        Err(e) => return fail(format!("cannot make the run's private directory: {e}")),
    };
    let child = match child_command(&cmd, &p, &env, &all, cwd, private.path(), untrusted) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let limits = bounds(&env);
    let (ended, stdout, stderr) = match run_within(child, limits) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    match ended {
        Ended::Exited(s) if s.success() => crate::Outcome {
            stdout,
            stderr,
            code: 0,
        },
        Ended::Exited(s) => crate::Outcome {
            stdout: String::new(),
            stderr,
            code: s.code().unwrap_or(1).max(1),
        },
        Ended::Stopped(why) => crate::Outcome {
            stdout: String::new(),
            stderr: format!("{stderr}Error: {why}; the run was stopped and nothing was printed\n"),
            code: 1,
        },
    }
}

/// The child capstan for `cmd`: its command line, its environment and caches in the
/// run's private directory `private`. Untrusted, the application's plugin environment
/// (`ARGOCD_ENV_X`) reaches the templates only, as `CAPSTAN_UNTRUSTED_APP_ENV`; trusted,
/// it is set as `X`. Either way a name that steers a program is refused.
fn child_command(
    cmd: &ArgocdCommand,
    p: &Parameters,
    env: &dyn Fn(&str) -> Option<String>,
    all: &[(String, String)],
    cwd: &Path,
    private: &Path,
    untrusted: bool,
) -> Result<Command, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the capstan binary: {e}"))?;
    let mut child = Command::new(exe);
    let mut args = command_line(cmd, p, env);
    if untrusted {
        args.insert(0, "--untrusted".into());
    }
    child
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut child, 0);
    // The sidecar's own variables, less what the Application controls.
    child.env_clear();
    let mut app_env = std::collections::BTreeMap::new();
    for (k, v) in all {
        if let Some(name) = k.strip_prefix("ARGOCD_ENV_") {
            if !settable(name) {
                return Err(format!(
                    "the application's plugin environment may not set {name} (ARGOCD_ENV_{name}): capstan or a program it runs reads it"
                ));
            }
            app_env.insert(name.to_string(), v.clone());
        } else if !(k.starts_with("PARAM_")
            || k == "ARGOCD_APP_PARAMETERS"
            || k == capstan_state::tenant::config::APP_ENV)
        {
            child.env(k, v);
        }
    }
    if untrusted {
        let json = serde_json::to_string(&app_env)
            .map_err(|e| format!("the application's plugin environment: {e}"))?;
        child.env(capstan_state::tenant::config::APP_ENV, json);
        child.env(capstan_state::tenant::config::UNTRUSTED, "true");
    } else {
        child.envs(&app_env);
    }
    for (var, sub) in [
        ("HOME", "home"),
        ("TMPDIR", "tmp"),
        ("XDG_CACHE_HOME", "cache"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("HELMFILE_CACHE_HOME", "cache/helmfile"),
        ("HELM_CACHE_HOME", "cache/helm"),
        ("HELM_CONFIG_HOME", "config/helm"),
        ("HELM_DATA_HOME", "data/helm"),
    ] {
        let dir = private.join(sub);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot make the run's {sub} directory: {e}"))?;
        child.env(var, dir);
    }
    Ok(child)
}

/// How a child run ended.
enum Ended {
    /// It exited by itself within the bounds.
    Exited(std::process::ExitStatus),
    /// It was stopped: which bound it passed.
    Stopped(String),
}

/// The resident memory of process `pid` in bytes (Linux's `/proc`), if known.
fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Kills every process of the child's group (the child made it: `process_group(0)`).
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        let _ =
            nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::SIGKILL);
    }
}

/// Runs `child` to its end or to a bound: how it ended and what it printed (standard
/// output only up to the cap). Whatever the end, no process of its group is left.
fn run_within(mut child: Command, b: Bounds) -> Result<(Ended, String, String), String> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let started = Instant::now();
    let mut running = child
        .spawn()
        .map_err(|e| format!("cannot run capstan: {e}"))?;
    let pid = running.id();
    let too_much = Arc::new(AtomicBool::new(false));
    // Both pipes drained on threads, so a large output cannot stall the child; past its
    // cap, standard output is dropped and the run stopped.
    let drain = |pipe: Option<Box<dyn Read + Send>>, cap: usize, over: Arc<AtomicBool>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(p) = pipe {
                let mut limited = p.take(cap as u64 + 1);
                let _ = limited.read_to_end(&mut buf);
                if buf.len() > cap {
                    over.store(true, Ordering::SeqCst);
                    buf.clear();
                    // Keep reading (and dropping) so the child is never blocked on a full pipe.
                    let _ = std::io::copy(&mut limited.into_inner(), &mut std::io::sink());
                }
            }
            buf
        })
    };
    let out = drain(
        running
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        b.max_output,
        too_much.clone(),
    );
    let err = drain(
        running
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        1 << 20,
        Arc::new(AtomicBool::new(false)),
    );
    let mut polls = 0u32;
    let ended = loop {
        let stop = if too_much.load(Ordering::SeqCst) {
            Some(format!(
                "the output passed its cap of {} MiB (CAPSTAN_UNTRUSTED_MAX_OUTPUT_MB)",
                b.max_output >> 20
            ))
        } else if started.elapsed() >= b.deadline {
            Some(format!(
                "the plugin's deadline of {} s passed (ARGOCD_EXEC_TIMEOUT less a tenth)",
                b.deadline.as_secs()
            ))
        } else if polls.is_multiple_of(10) && resident_bytes(pid).is_some_and(|r| r > b.max_memory)
        {
            Some(format!(
                "the run passed its memory cap of {} MiB (CAPSTAN_UNTRUSTED_MEMORY_MB)",
                b.max_memory >> 20
            ))
        } else {
            None
        };
        if let Some(why) = stop {
            kill_group(pid);
            let _ = running.kill();
            let _ = running.wait();
            break Ended::Stopped(why);
        }
        match running.try_wait() {
            Ok(Some(s)) => break Ended::Exited(s),
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                kill_group(pid);
                break Ended::Stopped(format!("waiting for the run failed: {e}"));
            }
        }
        polls = polls.wrapping_add(1);
    };
    // Anything the child started and left behind goes with it.
    kill_group(pid);
    let stdout = out.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    let ended = match ended {
        Ended::Exited(_) if too_much.load(Ordering::SeqCst) => Ended::Stopped(format!(
            "the output passed its cap of {} MiB (CAPSTAN_UNTRUSTED_MAX_OUTPUT_MB)",
            b.max_output >> 20
        )),
        other => other,
    };
    Ok((ended, String::from_utf8_lossy(&stdout).into_owned(), stderr))
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
    fn bounds_come_from_the_sidecar() {
        let b = bounds(&env_of(&[
            ("CAPSTAN_UNTRUSTED_MAX_OUTPUT_MB", "2"),
            ("CAPSTAN_UNTRUSTED_MEMORY_MB", "nope"),
        ]));
        assert_eq!(b.max_output, 2 << 20);
        assert_eq!(b.max_memory, 4096 << 20);
        assert!(!trusted(&env_of(&[("CAPSTAN_ARGOCD_TRUSTED", "yes")])));
        assert!(trusted(&env_of(&[("CAPSTAN_ARGOCD_TRUSTED", "true")])));
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
