//! capstan beside the real helmfile v0.166 (`../shared/peer/helmfile-bin`, driving the real
//! Helm 4.3.1 through its shim), each against its own fresh API server: the same helmfile
//! project goes through the same commands on both sides, and every step must make the
//! same helm calls in the same order (argv, stdin, the values files' content), run the
//! same hooks, exit with the same code, print the same summary tables and leave the same
//! cluster state (`helm list -A`, `helm get values --all`, the objects).
//!
//! Differences allowed, each written in COMPATIBILITY.md:
//! - helmfile asks helm `version` and `list` (before deleting, and after each upgrade for
//!   its summary); capstan reads the release records from the API server instead. Those
//!   read-only calls are left out of the comparison.
//! - `helm dependency build` runs once per local chart with `dependencies:` (helmfile:
//!   once per release, for every local chart, also before `destroy`): compared as the set
//!   of charts with dependencies.
//! - `--rollback-on-failure` is Helm 4's name for helmfile 0.166's `--atomic`.
//! - a failed helm call is reported in capstan's compact form, `--set` values hidden: the
//!   release that failed and helm's `Error:` line are compared.

mod common;

use common::kube::Kube;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One side of the comparison: a project directory, its API server and its call log.
struct Side {
    name: &'static str,
    dir: PathBuf,
    kube: Kube,
    log: PathBuf,
    logger: PathBuf,
}

/// What one command did on one side.
#[derive(Debug)]
struct Step {
    code: Option<i32>,
    calls: Vec<String>,
    dependency_builds: BTreeSet<String>,
    hooks: String,
    summary: String,
    first_error: String,
    state: String,
    /// Standard error, shown when the exit codes differ.
    stderr: String,
}

/// A helm that records each call (argv, `<stdin>` when its standard input is a pipe, and
/// the content of every `--values` file, indented under the call) in `$DIFF_HELM_LOG`,
/// then runs the real helm.
const LOGGER: &str = r#"#!/bin/bash
{
  printf 'helm'; for a in "$@"; do printf ' %s' "$a"; done
  if [ -p /dev/stdin ]; then printf ' <stdin>'; fi
  echo
  prev=
  for a in "$@"; do
    if [ "$prev" = --values ] || [ "$prev" = -f ]; then sed 's/^/  | /' "$a"; fi
    prev=$a
  done
} >> "$DIFF_HELM_LOG"
exec "$REAL_HELM" "$@"
"#;

fn write(dir: &Path, name: &str, content: &str) {
    common::write_files(dir, [(name, content)]);
}

/// The project: a chart with a helm hook, an umbrella chart with a `file://` subchart,
/// releases across two namespaces with `needs:`, an `installed:` toggle, helmfile hooks,
/// `atomic:`, inline values and `set:`; `broken.yaml` adds a release the server refuses,
/// one whose template fails, and one that needs a failed one.
fn project(dir: &Path) {
    write(
        dir,
        "charts/note/Chart.yaml",
        "apiVersion: v2\nname: note\nversion: 0.1.0\n",
    );
    write(
        dir,
        "charts/note/values.yaml",
        "greeting: hello\nhook: false\n",
    );
    write(
        dir,
        "charts/note/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\n  labels:\n    chart: {{ .Chart.Name }}-{{ .Chart.Version }}\ndata:\n  greeting: {{ .Values.greeting | quote }}\n",
    );
    write(
        dir,
        "charts/note/templates/hook.yaml",
        "{{- if .Values.hook }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-hook\n  annotations:\n    \"helm.sh/hook\": pre-install,pre-upgrade\ndata:\n  revision: {{ .Release.Revision | quote }}\n{{- end }}\n",
    );
    write(
        dir,
        "charts/parent/Chart.yaml",
        "apiVersion: v2\nname: parent\nversion: 0.2.0\ndependencies:\n- name: note\n  version: 0.1.0\n  repository: file://../note\n",
    );
    write(
        dir,
        "charts/parent/values.yaml",
        "note:\n  greeting: from-parent\n",
    );
    write(
        dir,
        "charts/parent/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-parent\ndata:\n  child: {{ .Values.note.greeting | quote }}\n",
    );
    write(
        dir,
        "helmfile.yaml.gotmpl",
        r#"values:
- greeting: hi
  withB: true
---
releases:
- name: a
  namespace: apps
  chart: ./charts/note
  values:
  - greeting: {{ .Values.greeting }}
    hook: true
  hooks:
  - events: [prepare, presync, postsync, preuninstall, postuninstall]
    showlogs: true
    command: sh
    args: [-c, 'echo {{`{{ .Event.Name }}`}} {{`{{ .Release.Name }}`}} >> hooks.log']
- name: b
  namespace: other
  chart: ./charts/note
  installed: {{ .Values.withB }}
  needs:
  - apps/a
- name: p
  namespace: apps
  chart: ./charts/parent
  atomic: true
  timeout: 60
  set:
  - name: note.greeting
    value: {{ .Values.greeting }}-sub
"#,
    );
    write(
        dir,
        "charts/refused/Chart.yaml",
        "apiVersion: v2\nname: refused\nversion: 0.1.0\n",
    );
    write(
        dir,
        "charts/refused/templates/bad.yaml",
        "apiVersion: v1\nkind: NoSuchKind\nmetadata:\n  name: x\n",
    );
    write(
        dir,
        "charts/badtpl/Chart.yaml",
        "apiVersion: v2\nname: badtpl\nversion: 0.3.0\n",
    );
    write(
        dir,
        "charts/badtpl/templates/bad.yaml",
        "x: {{ .Values.nope.deeper }}\n",
    );
    write(
        dir,
        "charts/stuck/Chart.yaml",
        "apiVersion: v2\nname: stuck\nversion: 0.1.0\n",
    );
    write(
        dir,
        "charts/stuck/templates/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  selector:\n    matchLabels: {app: stuck}\n  template:\n    metadata:\n      labels: {app: stuck}\n    spec:\n      containers:\n      - name: c\n        image: example.invalid/none\n",
    );
    write(
        dir,
        "stuck.yaml",
        "releases:\n- name: stuck\n  namespace: apps\n  chart: ./charts/stuck\n",
    );
    write(
        dir,
        "broken.yaml",
        "releases:\n- name: ok\n  namespace: apps\n  chart: ./charts/note\n- name: refused\n  namespace: apps\n  chart: ./charts/refused\n  needs: [ok]\n- name: badtpl\n  namespace: apps\n  chart: ./charts/badtpl\n  needs: [ok]\n- name: after\n  namespace: apps\n  chart: ./charts/note\n  needs: [refused]\n",
    );
}

impl Side {
    fn new(root: &Path, name: &'static str, kube: Kube) -> Side {
        let dir = root.join(name);
        project(&dir);
        let logger = common::executable(root, &format!("logger-{name}"), LOGGER);
        Side {
            name,
            log: root.join(format!("calls-{name}")),
            dir,
            kube,
            logger,
        }
    }

    /// Leaves release `stuck` pending: `helm install --wait` of a Deployment that never
    /// becomes ready (no controllers run here), killed once the release is recorded.
    fn pending_release(&self) {
        let mut helm = Command::new(self.kube.bin.join("helm"));
        self.env(&mut helm);
        let mut child = helm
            .args([
                "install",
                "stuck",
                "charts/stuck",
                "-n",
                "apps",
                "--wait",
                "--timeout",
                "120s",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("helm starts");
        let pending = || {
            self.kube
                .kubectl(&[
                    "get",
                    "secrets",
                    "-n",
                    "apps",
                    "-l",
                    "name=stuck,status=pending-install",
                    "-o",
                    "name",
                ])
                .contains("stuck")
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !pending() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(pending(), "{}: release stuck is not pending", self.name);
    }

    fn env(&self, cmd: &mut Command) {
        cmd.current_dir(&self.dir)
            .envs(self.kube.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("DIFF_HELM_LOG", &self.log)
            .env("REAL_HELM", self.kube.bin.join("helm"));
    }

    /// Runs `args` with this side's tool and reads back what it did.
    fn run(&self, args: &[&str]) -> Step {
        let _ = std::fs::remove_file(&self.log);
        let _ = std::fs::remove_file(self.dir.join("hooks.log"));
        let out = if self.name == "helmfile" {
            let shim = self.kube.bin.join("../helmfile-shim");
            let path = format!(
                "{}:{}",
                shim.display(),
                self.kube
                    .env
                    .iter()
                    .find(|(k, _)| k == "PATH")
                    .map(|(_, v)| v.as_str())
                    .unwrap_or("")
            );
            let mut cmd = Command::new(self.kube.bin.join("helmfile-0.166.0"));
            self.env(&mut cmd);
            cmd.args(args)
                .env("PATH", path)
                .env("HELMFILE_V1MODE", "true")
                .env("HELMFILE_GOCCY_GOYAML", "false")
                .env("CAPSTAN_HELMFILE_HELM", &self.logger)
                .output()
                .expect("helmfile runs")
        } else {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_capstan"));
            self.env(&mut cmd);
            cmd.arg("--helm-binary")
                .arg(&self.logger)
                .args(args)
                .output()
                .expect("capstan runs")
        };
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let (calls, dependency_builds) = normalize(&log, &self.dir);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        Step {
            code: out.status.code(),
            calls,
            dependency_builds,
            hooks: std::fs::read_to_string(self.dir.join("hooks.log")).unwrap_or_default(),
            summary: summary(&stderr),
            first_error: first_error(&stderr),
            state: self.cluster_state(),
            stderr,
        }
    }

    /// The releases (name, namespace, revision, status, chart), their values and the
    /// ConfigMaps the charts made, with times and server-assigned fields left out.
    fn cluster_state(&self) -> String {
        let list: serde_json::Value =
            serde_json::from_str(&self.kube.helm(&["list", "-A", "--all", "-o", "json"]))
                .unwrap_or_default();
        let mut out = String::new();
        for r in list.as_array().into_iter().flatten() {
            let (name, ns) = (
                r["name"].as_str().unwrap_or(""),
                r["namespace"].as_str().unwrap_or(""),
            );
            out.push_str(&format!(
                "release {ns}/{name} revision {} {} {} values {}\n",
                r["revision"],
                r["status"],
                r["chart"],
                self.kube
                    .helm(&["get", "values", name, "-n", ns, "--all", "-o", "json"])
                    .trim()
            ));
        }
        let objects: serde_json::Value =
            serde_json::from_str(
                &self
                    .kube
                    .kubectl(&["get", "configmaps", "-A", "-o", "json"]),
            )
            .unwrap_or_default();
        for o in objects["items"].as_array().into_iter().flatten() {
            let m = &o["metadata"];
            if m["name"] == "kube-root-ca.crt" || m["namespace"] == "kube-system" {
                continue;
            }
            out.push_str(&format!(
                "configmap {}/{} labels {} annotations {} data {}\n",
                m["namespace"].as_str().unwrap_or(""),
                m["name"].as_str().unwrap_or(""),
                m["labels"],
                m["annotations"],
                o["data"]
            ));
        }
        out
    }
}

/// The helm calls of a log, normalized: helmfile's read-only `version` and `list` calls
/// left out, values files' paths replaced (their content follows the call), Helm 4's
/// `--rollback-on-failure` written as `--atomic`; `dependency build` calls apart, as the
/// set of charts with dependencies they were made for.
fn normalize(log: &str, dir: &Path) -> (Vec<String>, BTreeSet<String>) {
    let mut calls = Vec::new();
    let mut builds = BTreeSet::new();
    let mut skipping = false;
    for line in log.lines() {
        if let Some(content) = line.strip_prefix("  | ") {
            if !skipping {
                calls.push(format!("  | {content}"));
            }
            continue;
        }
        skipping = line.starts_with("helm version") || line.starts_with("helm list ");
        if skipping {
            continue;
        }
        if let Some(chart) = line.strip_prefix("helm dependency build ") {
            let chart = chart.split(' ').next().unwrap_or("");
            let meta =
                std::fs::read_to_string(dir.join(chart).join("Chart.yaml")).unwrap_or_default();
            if meta.contains("dependencies:") {
                builds.insert(chart.to_string());
            }
            skipping = true;
            continue;
        }
        let mut words: Vec<String> = Vec::new();
        let mut hidden = false;
        let line = line.strip_suffix(" <stdin>").unwrap_or(line);
        for w in line.split(' ') {
            if hidden {
                hidden = false;
                continue;
            }
            match w {
                "--values" | "-f" => {
                    words.extend([w.to_string(), "<values file>".into()]);
                    hidden = true;
                }
                // A password on the command line (helmfile) or on standard input
                // (capstan).
                "--password" => {
                    words.push("--password <password>".into());
                    hidden = true;
                }
                "--password-stdin" => words.push("--password <password>".into()),
                "--rollback-on-failure" => words.push("--atomic".into()),
                _ => words.push(private_path(w)),
            }
        }
        calls.push(words.join(" "));
    }
    (calls, builds)
}

/// The first failure reported (`…failed processing release NAME`, before helm's
/// command line, which each tool shows in its own form) and helm's first `Error:` line.
fn first_error(stderr: &str) -> String {
    let failed = stderr
        .lines()
        .find(|l| l.contains("failed processing release"))
        .map(|l| l.split(": command").next().unwrap_or(l));
    let helm = stderr
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Error:"));
    format!("{} / {}", failed.unwrap_or(""), helm.unwrap_or(""))
}

/// A path in helmfile's or capstan's private temporary directory (`TMP/helmfileNNN/…`,
/// `TMP/capstan-XXXX/…`) with that directory written `<tmp>`.
fn private_path(word: &str) -> String {
    let tmp = std::env::temp_dir().display().to_string();
    let Some(rest) = word.strip_prefix(&tmp).and_then(|r| r.strip_prefix('/')) else {
        return word.to_string();
    };
    match rest.split_once('/') {
        Some((first, inner)) if first.starts_with("helmfile") || first.starts_with("capstan-") => {
            format!("<tmp>/{inner}")
        }
        _ => word.to_string(),
    }
}

/// helmfile's summary tables from standard error, durations masked.
fn summary(stderr: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in stderr.lines() {
        if line.ends_with("RELEASES:") {
            inside = true;
        } else if line.is_empty() {
            inside = false;
        }
        if inside {
            let cells: Vec<&str> = line.split_whitespace().collect();
            let keep = if cells
                .last()
                .is_some_and(|c| c.ends_with('s') && c != &"DURATION")
            {
                &cells[..cells.len() - 1]
            } else {
                &cells[..]
            };
            out.push_str(&keep.join(" "));
            out.push('\n');
        }
    }
    out
}

/// The test repository's password (basic auth, user `reader`).
const PASSWORD: &str = "s3cret-repo-pass";

/// A chart repository behind basic auth serving `note` 0.1.0 (packaged and indexed by
/// the real helm); returns its port.
fn private_repository(root: &Path, side: &Side) -> u16 {
    let repo = root.join("repo");
    std::fs::create_dir_all(&repo).expect("repo dir");
    for args in [
        vec![
            "package",
            side.dir.join("charts/note").to_str().expect("utf-8"),
            "-d",
        ],
        vec!["repo", "index"],
    ] {
        let out = Command::new(side.kube.bin.join("helm"))
            .args(&args)
            .arg(&repo)
            .envs(side.kube.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .expect("helm runs");
        assert!(out.status.success(), "{}", common::output_text(&out));
    }
    let files = common::url_files(&repo);
    use base64::Engine as _;
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("reader:{PASSWORD}"))
    );
    common::serve(move |_| {
        move |path: &str, auth: &str| -> common::Reply {
            if auth != expected {
                return (
                    "401 Unauthorized",
                    "WWW-Authenticate: Basic realm=\"charts\"\r\n".into(),
                    Vec::new(),
                );
            }
            match files.iter().find(|(p, _)| p == path) {
                Some((_, body)) => ("200 OK", String::new(), body.clone()),
                None => ("404 Not Found", String::new(), Vec::new()),
            }
        }
    })
}

/// Fails with both sides' text when `what` differs between them after `step`.
fn same<T: PartialEq + std::fmt::Debug>(step: &str, what: &str, helmfile: &T, capstan: &T) {
    assert!(
        helmfile == capstan,
        "{what} differ after `{step}`\n--- helmfile:\n{helmfile:#?}\n--- capstan:\n{capstan:#?}"
    );
}

#[test]
fn helmfile_and_capstan_make_the_same_helm_calls_and_leave_the_same_cluster() {
    let root = common::tempdir("cluster-differential");
    let (a, b) = (root.join("k1"), root.join("k2"));
    let starting = std::thread::spawn(move || Kube::start(&a));
    let kube_c = Kube::start(&b);
    let kube_h = starting.join().expect("the first API server starts");
    assert!(
        kube_h.bin.join("helmfile-0.166.0").is_file(),
        "the real helmfile is not installed in {}: run scripts/test (it runs ../shared/peer/helmfile-bin/install.sh)",
        kube_h.bin.display()
    );
    let helmfile = Side::new(&root, "helmfile", kube_h);
    let capstan = Side::new(&root, "capstan", kube_c);
    let port = private_repository(&root, &helmfile);
    for side in [&helmfile, &capstan] {
        write(
            &side.dir,
            "repo.yaml",
            &format!(
                "repositories:\n- name: private\n  url: http://127.0.0.1:{port}\n  username: reader\n  password: {PASSWORD}\nreleases:\n- name: r\n  namespace: repo\n  chart: private/note\n  version: 0.1.0\n  values:\n  - greeting: from a repository\n"
            ),
        );
    }

    let steps: &[(&[&str], Option<i32>)] = &[
        (&["sync", "--concurrency", "1"], Some(0)),
        (&["status", "--concurrency", "1"], Some(0)),
        (&["lint"], Some(0)),
        // A changed sync: new values upgrade `a` and `p` (hooks run again), `b` goes.
        (
            &[
                "--state-values-set",
                "greeting=bonjour",
                "--state-values-set",
                "withB=false",
                "sync",
                "--concurrency",
                "1",
            ],
            Some(0),
        ),
        // An unchanged sync still upgrades (helm decides there is nothing to change).
        (&["sync", "--concurrency", "1", "-l", "name=b"], Some(0)),
        // Failures: one release the server refuses, one whose template fails; the release
        // needing a failed one is not run; the exit code is helm's.
        (
            &["-f", "broken.yaml", "sync", "--concurrency", "1"],
            Some(1),
        ),
        (
            &["-f", "broken.yaml", "destroy", "--concurrency", "1"],
            Some(0),
        ),
        (&["destroy", "--concurrency", "1"], Some(0)),
        // Nothing left: destroy again is a no-op.
        (&["destroy", "--concurrency", "1"], Some(0)),
        // A pending release (an install that never finished): helm refuses to upgrade
        // it; it can be deleted.
        (&["-f", "stuck.yaml", "sync", "--concurrency", "1"], Some(1)),
        (
            &["-f", "stuck.yaml", "destroy", "--concurrency", "1"],
            Some(0),
        ),
        // A chart from a password-protected repository: added, installed, removed.
        (&["-f", "repo.yaml", "sync", "--concurrency", "1"], Some(0)),
        (
            &["-f", "repo.yaml", "status", "--concurrency", "1"],
            Some(0),
        ),
        (&["-f", "repo.yaml", "lint"], Some(0)),
        (
            &["-f", "repo.yaml", "destroy", "--concurrency", "1"],
            Some(0),
        ),
    ];
    for (args, code) in steps {
        if args.starts_with(&["-f", "stuck.yaml", "sync"]) {
            helmfile.pending_release();
            capstan.pending_release();
        }
        let h = helmfile.run(args);
        let c = capstan.run(args);
        let step = args.join(" ");
        assert_eq!(h.code, *code, "helmfile's exit code of `{step}`: {h:#?}");
        assert!(
            h.code == c.code,
            "exit codes differ after `{step}`: helmfile {:?}, capstan {:?}\n--- helmfile:\n{}\n--- capstan:\n{}",
            h.code,
            c.code,
            h.stderr,
            c.stderr
        );
        same(
            &step,
            "helm calls",
            &h.calls.join("\n"),
            &c.calls.join("\n"),
        );
        same(
            &step,
            "dependency builds",
            &h.dependency_builds,
            &c.dependency_builds,
        );
        same(&step, "hooks run", &h.hooks, &c.hooks);
        same(&step, "summary tables", &h.summary, &c.summary);
        same(&step, "first error", &h.first_error, &c.first_error);
        same(&step, "cluster state", &h.state, &c.state);
    }
    drop(helmfile);
    drop(capstan);
    let _ = std::fs::remove_dir_all(&root);
}
