//! Cluster commands against a real Kubernetes API server with the real helm: the server,
//! etcd, helm and kubectl come from `../shared/kube` (installed by `scripts/test`); each
//! run starts its own server in a private directory and stops it at the end, and helm
//! gets private config, cache and data directories.
//!
//! Why one file of over 1,000 lines: every test here needs the same fixture (an API
//! server with etcd, helm's private directories, stand-in helms) and each integration test
//! file is a binary that links all of capstan (tens of seconds each on CI's two cores);
//! the tests are independent of each other, one per behaviour, so the length is a list,
//! not a tangle.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::kube::Kube;
use common::output_text as text;

/// A shell script standing in for helm (`dir/fake-helm`, executable).
fn stand_in_helm(dir: &Path, script: &str) -> PathBuf {
    common::executable(dir, "fake-helm", script)
}

/// A stand-in helm (Helm 4.3.1 by its version) that records each call in `dir/calls`
/// and succeeds.
fn recording_helm(dir: &Path) -> PathBuf {
    stand_in_helm(
        dir,
        "#!/bin/sh\necho \"$@\" >> calls\ncase \"$1\" in\n  version) echo v4.3.1+g0;;\nesac\n",
    )
}

/// capstan with `args`, in `dir`, driving the stand-in `helm`.
fn with_stand_in(dir: &Path, helm: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args(["--helm-binary", helm.to_str().expect("utf-8")])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("capstan runs")
}

fn write(dir: &Path, name: &str, content: &str) {
    common::write_files(dir, [(name, content)]);
}

/// One chart (a ConfigMap carrying a value) and a helmfile with two releases, the second
/// needing the first; `installed` of the second and the value come from state values.
fn project(dir: &Path) {
    write(
        dir,
        "charts/note/Chart.yaml",
        "apiVersion: v2\nname: note\nversion: 0.1.0\n",
    );
    write(dir, "charts/note/values.yaml", "greeting: hello\n");
    write(
        dir,
        "charts/note/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-note\ndata:\n  greeting: {{ .Values.greeting | quote }}\n",
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
- name: b
  namespace: apps
  chart: ./charts/note
  installed: {{ .Values.withB }}
  needs:
  - apps/a
"#,
    );
}

#[test]
fn sync_status_lint_upgrade_uninstall_and_destroy_against_a_real_api_server() {
    let dir = common::tempdir("cluster");
    let kube = Kube::start(&dir);
    project(&dir);

    // Install: both releases, the namespace created.
    let out = kube.capstan(&dir, &["sync"]);
    assert!(out.status.success(), "{}", text(&out));
    let listed = kube.helm(&["list", "-n", "apps", "-q"]);
    assert_eq!(listed.lines().collect::<Vec<_>>(), ["a", "b"], "{listed}");
    let greeting = kube.greeting("a-note", "apps");
    assert_eq!(greeting, "hi");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("UPDATED RELEASES:"), "{err}");

    // status and lint go through helm and succeed.
    let out = kube.capstan(&dir, &["status"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("STATUS: deployed"),
        "{}",
        text(&out)
    );
    let out = kube.capstan(&dir, &["lint"]);
    assert!(out.status.success(), "{}", text(&out));

    // Upgrade with a changed value: a new revision with the new value.
    let out = kube.capstan(
        &dir,
        &[
            "--state-values-set",
            "greeting=bonjour",
            "sync",
            "-l",
            "name=a",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let greeting = kube.greeting("a-note", "apps");
    assert_eq!(greeting, "bonjour");
    assert!(kube
        .helm(&["history", "a", "-n", "apps", "-o", "json"])
        .contains("\"revision\":2"));

    // `installed: false` uninstalls a release that exists.
    let out = kube.capstan(&dir, &["--state-values-set", "withB=false", "sync"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(kube.helm(&["list", "-n", "apps", "-q"]).trim(), "a");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("DELETED RELEASES:"),
        "{}",
        text(&out)
    );

    // A release helm refuses: the error names it, the exit code is non-zero, the other
    // release's result stands.
    write(
        &dir,
        "charts/broken/Chart.yaml",
        "apiVersion: v2\nname: broken\nversion: 0.1.0\n",
    );
    write(
        &dir,
        "charts/broken/templates/bad.yaml",
        "apiVersion: v1\nkind: NoSuchKind\nmetadata:\n  name: x\n",
    );
    write(
        &dir,
        "broken.yaml",
        "releases:\n- name: broken\n  namespace: apps\n  chart: ./charts/broken\n",
    );
    let out = kube.capstan(&dir, &["-f", "broken.yaml", "sync"]);
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("failed processing release broken"), "{err}");

    // A local chart with a dependency: `helm dependency build` runs before the upgrade.
    write(
        &dir,
        "charts/parent/Chart.yaml",
        "apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n- name: note\n  version: 0.1.0\n  repository: file://../note\n",
    );
    write(
        &dir,
        "withdeps.yaml",
        "releases:\n- name: p\n  namespace: apps\n  chart: ./charts/parent\n",
    );
    let out = kube.capstan(&dir, &["-f", "withdeps.yaml", "sync"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        dir.join("charts/parent/charts/note-0.1.0.tgz").is_file(),
        "{}",
        text(&out)
    );
    let greeting = kube.greeting("p-note", "apps");
    assert_eq!(greeting, "hello");
    let out = kube.capstan(&dir, &["-f", "withdeps.yaml", "destroy"]);
    assert!(out.status.success(), "{}", text(&out));

    // destroy: everything the state names is uninstalled.
    let out = kube.capstan(&dir, &["-f", "broken.yaml", "destroy"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = kube.capstan(&dir, &["destroy"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(kube.helm(&["list", "-n", "apps", "-q"]).trim(), "");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn diff_and_apply_compare_the_deployed_manifest_without_the_plugin() {
    let dir = common::tempdir("cluster-diff");
    let kube = Kube::start(&dir);
    project(&dir);
    let revision = |name: &str| {
        let h = kube.helm(&["history", name, "-n", "apps", "-o", "json"]);
        h.matches("\"revision\":").count()
    };

    // Nothing deployed: apply installs both (in needs order), exit 0.
    let out = kube.capstan(&dir, &["apply"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(kube.helm(&["list", "-n", "apps", "-q"]).lines().count(), 2);

    // Nothing changed: diff says so with exit 0; apply runs no upgrade.
    let out = kube.capstan(&dir, &["diff", "--detailed-exitcode"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{}", text(&out));
    let out = kube.capstan(&dir, &["apply"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!((revision("a"), revision("b")), (1, 1), "{}", text(&out));

    // A changed value: the diff shows the resource and the line, exit 2 with
    // --detailed-exitcode; apply upgrades only the release that changed.
    let changed = ["--state-values-set", "greeting=bonjour"];
    let out = kube.capstan(
        &dir,
        &[
            &changed[..],
            &["diff", "--detailed-exitcode", "-l", "name=a"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("apps, a-note, ConfigMap (v1) has changed:"),
        "{shown}"
    );
    assert!(
        shown.contains("-   greeting: \"hi\"\n+   greeting: \"bonjour\"\n"),
        "{shown}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Identified at least one change"), "{err}");
    // --show-values: the value that changes, old → new, and where the new one is set:
    // the layer that changed (--state-values-set), through the inline entry that reads
    // it, named by its line in the state file.
    let out = kube.capstan(
        &dir,
        &[&changed[..], &["diff", "--show-values", "-l", "name=a"]].concat(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("apps, a: values that change:\n  greeting: \"hi\" → \"bonjour\"   (--state-values-set greeting=bonjour (--state-values-set), through helmfile.yaml.gotmpl:10:5 (-f))"), "{shown}");
    let out = kube.capstan(&dir, &[&changed[..], &["apply", "-l", "name=a"]].concat());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!((revision("a"), revision("b")), (2, 1));
    let greeting = kube.greeting("a-note", "apps");
    assert_eq!(greeting, "bonjour");

    // installed: false on an existing release: apply uninstalls it (diff lists it).
    let off = ["--state-values-set", "greeting=bonjour,withB=false"];
    let out = kube.capstan(&dir, &[&off[..], &["apply"]].concat());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(kube.helm(&["list", "-n", "apps", "-q"]).trim(), "a");

    let out = kube.capstan(&dir, &["destroy"]);
    assert!(out.status.success(), "{}", text(&out));

    // The README's walk-through, command by command as README.md writes it: each one
    // succeeds, and step 5 (frontend off, greeting kept) leaves backend at the revision
    // step 4 made.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let section = readme
        .split("### Cluster walk-through")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("the walk-through's shell block");
    assert!(
        section.contains("cargo install --path crates/cli"),
        "the walk-through installs capstan before using it:\n{section}"
    );
    let steps: Vec<Vec<String>> = section
        .lines()
        .filter(|l| l.starts_with("capstan "))
        .map(|l| {
            l.split("  #")
                .next()
                .unwrap_or(l)
                .split_whitespace()
                .skip(1)
                .map(|a| a.replace("examples/", &format!("{}/examples/", root.display())))
                .collect()
        })
        .collect();
    assert_eq!(steps.len(), 6, "{section}");
    for (i, step) in steps.iter().enumerate() {
        let args: Vec<&str> = step.iter().map(String::as_str).collect();
        let out = kube.capstan(&dir, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "step {}: {args:?}: {}",
            i + 1,
            text(&out)
        );
        match i {
            0 => assert_eq!(kube.helm(&["list", "-n", "demo", "-q"]).lines().count(), 2),
            4 => {
                let list = kube.helm(&["list", "-n", "demo"]);
                let rows: Vec<&str> = list.lines().skip(1).collect();
                assert_eq!(rows.len(), 1, "frontend is uninstalled: {list}");
                let revision = rows[0].split('\t').nth(2).unwrap_or("").trim();
                assert_eq!(revision, "2", "backend is not upgraded again: {list}");
            }
            _ => {}
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGTERM (and Ctrl-C's SIGINT) while helm runs: capstan stops helm, waits for it and
/// reports what it printed with the failure summary, runs no later hook, removes the
/// values it wrote for helm, and exits with 143 (SIGTERM) or 130 (SIGINT) as helmfile.
/// Helm here is a stand-in that records its pid, prints on SIGTERM, and takes a moment
/// to stop.
#[test]
fn a_signal_during_sync_stops_helm_and_leaves_no_values_behind() {
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        let dir = common::tempdir(&format!("signal-{signal}"));
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).expect("tmp");
        let helm = stand_in_helm(&dir, "#!/bin/sh\ncase \"$1\" in\n  version) echo v4.1.4+g0; exit 0;;\n  list) printf 'NAME\\n'; exit 0;;\n  upgrade) trap 'sleep 1; echo helm stopped cleanly >&2; exit 1' TERM; echo $$ > \"$PIDFILE\"; sleep 60 & wait; exit 0;;\nesac\n");
        project(&dir);
        // A postsync hook that must not run once the signal came.
        let file = dir.join("helmfile.yaml.gotmpl");
        let state = std::fs::read_to_string(&file).expect("state");
        std::fs::write(
            &file,
            state.replacen(
                "  chart: ./charts/note\n",
                "  chart: ./charts/note\n  hooks:\n  - events: [postsync]\n    command: touch\n    args: [postsync-ran]\n",
                1,
            ),
        )
        .expect("state");
        let pidfile = dir.join("helm.pid");
        let child = Command::new(env!("CARGO_BIN_EXE_capstan"))
            .args(["--helm-binary", helm.to_str().expect("utf-8"), "sync"])
            .current_dir(&dir)
            .env("TMPDIR", &tmp)
            .env("PIDFILE", &pidfile)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("capstan starts");
        let started = std::time::Instant::now();
        while !pidfile.is_file() {
            assert!(started.elapsed().as_secs() < 60, "helm never started");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        // The values helm was given exist while it runs.
        let written = std::fs::read_dir(&tmp).expect("tmp").count();
        assert!(written > 0, "no values directory while helm runs");
        let _ = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status();
        let out = child.wait_with_output().expect("capstan exits");
        assert_eq!(out.status.code(), Some(code), "{signal}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("helm stopped cleanly") && err.contains("FAILED RELEASES:"),
            "{signal}: helm's last words and the summary are reported: {err}"
        );
        assert!(!dir.join("postsync-ran").exists(), "{signal}: a hook ran");
        let helm_pid = std::fs::read_to_string(&pidfile)
            .expect("pid")
            .trim()
            .to_string();
        let started = std::time::Instant::now();
        while Path::new(&format!("/proc/{helm_pid}")).exists() {
            assert!(
                started.elapsed().as_secs() < 10,
                "helm still runs after {signal}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let left: Vec<_> = std::fs::read_dir(&tmp)
            .expect("tmp")
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "left behind after {signal}: {left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// helmfile's hooks around the helm calls, against the real API server: `prepare`,
/// `preapply`, `presync`, `postsync`, `cleanup` on apply; `preuninstall`/`postuninstall`
/// on destroy; the command and its arguments rendered with `.Release`, `.Event` and
/// `.HelmfileCommand`; a failing hook stops the release with its message.
#[test]
fn hooks_run_around_the_helm_calls() {
    let dir = common::tempdir("cluster-hooks");
    let kube = Kube::start(&dir);
    project(&dir);
    let hook = |events: &str| {
        format!(
            "  - events: [{events}]\n    command: sh\n    args: [\"-c\", \"echo {{{{ .HelmfileCommand }}}} {{{{ .Event.Name }}}} {{{{ .Release.Name }}}} >> hooks.log\"]\n"
        )
    };
    write(
        &dir,
        "hooks.yaml",
        &format!(
            "releases:\n- name: h\n  namespace: hooks\n  chart: ./charts/note\n  hooks:\n{}",
            hook("prepare, preapply, presync, postsync, cleanup, preuninstall, postuninstall")
        ),
    );
    let out = kube.capstan(&dir, &["-f", "hooks.yaml", "apply"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = kube.capstan(&dir, &["-f", "hooks.yaml", "destroy"]);
    assert!(out.status.success(), "{}", text(&out));
    let log = std::fs::read_to_string(dir.join("hooks.log")).expect("hooks ran");
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        [
            "apply prepare h",
            "apply preapply h",
            "sync presync h",
            "sync postsync h",
            "sync cleanup h",
            "destroy prepare h",
            "destroy preuninstall h",
            "destroy postuninstall h",
        ],
        "{log}"
    );

    // A presync hook that fails: helm is not run for the release, the error names it.
    write(
        &dir,
        "failing.yaml",
        "releases:\n- name: f\n  namespace: hooks\n  chart: ./charts/note\n  hooks:\n  - events: [presync]\n    command: sh\n    args: [\"-c\", \"exit 3\"]\n",
    );
    let out = kube.capstan(&dir, &["-f", "failing.yaml", "sync"]);
    assert!(!out.status.success(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("failed processing release f: hook[sh]: command `sh` failed"),
        "{err}"
    );
    assert_eq!(kube.helm(&["list", "-n", "hooks", "-q"]).trim(), "");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `repos` adds the state's chart repository to helm; `sync` adds it itself before
/// installing a release from it; capstan's own diff of that release (rendered natively
/// from the repository) finds nothing to change. The repository is the real `helm
/// package` + `helm repo index` output, served on a loopback port.
#[test]
fn repositories_are_added_for_helm_and_repository_charts_deploy() {
    let dir = common::tempdir("cluster-repos");
    let kube = Kube::start(&dir);
    project(&dir);
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).expect("repo dir");
    let helm_in = |args: &[&str]| {
        let out = Command::new(kube.bin.join("helm"))
            .args(args)
            .current_dir(&dir)
            .envs(kube.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .expect("helm");
        assert!(out.status.success(), "{}", text(&out));
    };
    helm_in(&["package", "charts/note", "-d", "repo"]);
    // A second version, for `deps` to resolve to.
    write(
        &dir,
        "charts/note2/Chart.yaml",
        "apiVersion: v2\nname: note\nversion: 0.2.0\n",
    );
    std::fs::create_dir_all(dir.join("charts/note2/templates")).expect("mkdir");
    std::fs::copy(
        dir.join("charts/note/templates/cm.yaml"),
        dir.join("charts/note2/templates/cm.yaml"),
    )
    .expect("copy");
    std::fs::copy(
        dir.join("charts/note/values.yaml"),
        dir.join("charts/note2/values.yaml"),
    )
    .expect("copy");
    helm_in(&["package", "charts/note2", "-d", "repo"]);
    // The index names archives relative to the repository URL.
    helm_in(&["repo", "index", "repo"]);
    let files = common::url_files(&repo);
    let port = common::http_files(files);
    write(
        &dir,
        "fromrepo.yaml",
        &format!(
            "repositories:\n- name: local\n  url: http://127.0.0.1:{port}\nreleases:\n- name: r\n  namespace: repo\n  chart: local/note\n  version: 0.1.0\n  values:\n  - greeting: from a repository\n"
        ),
    );
    let out = kube.capstan(&dir, &["-f", "fromrepo.yaml", "repos"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(kube
        .helm(&["repo", "list"])
        .contains(&format!("http://127.0.0.1:{port}")));
    helm_in(&["repo", "remove", "local"]);
    let out = kube.capstan(&dir, &["-f", "fromrepo.yaml", "sync"]);
    assert!(out.status.success(), "{}", text(&out));
    let greeting = kube.greeting("r-note", "repo");
    assert_eq!(greeting, "from a repository");
    let out = kube.capstan(
        &dir,
        &["-f", "fromrepo.yaml", "diff", "--detailed-exitcode"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = kube.capstan(&dir, &["-f", "fromrepo.yaml", "destroy"]);
    assert!(out.status.success(), "{}", text(&out));

    // deps: the lock file pins the repository chart; sync then installs the locked
    // version, not the newest.
    write(
        &dir,
        "unpinned.yaml",
        &format!(
            "repositories:\n- name: local\n  url: http://127.0.0.1:{port}\nreleases:\n- name: u\n  namespace: repo\n  chart: local/note\n"
        ),
    );
    let out = kube.capstan(&dir, &["-f", "unpinned.yaml", "deps"]);
    assert!(out.status.success(), "{}", text(&out));
    let lock = std::fs::read_to_string(dir.join("unpinned.lock")).expect("lock written");
    assert!(
        lock.contains("- name: note\n")
            && lock.contains("  version: 0.2.0\n")
            && lock.contains("digest: sha256:"),
        "{lock}"
    );
    std::fs::write(
        dir.join("unpinned.lock"),
        lock.replace("version: 0.2.0", "version: 0.1.0"),
    )
    .expect("edit lock");
    let out = kube.capstan(&dir, &["-f", "unpinned.yaml", "sync"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        kube.helm(&["list", "-n", "repo"]).contains("note-0.1.0"),
        "{}",
        kube.helm(&["list", "-n", "repo"])
    );
    let out = kube.capstan(&dir, &["-f", "unpinned.yaml", "destroy"]);
    assert!(out.status.success(), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--interactive`: the affected releases and helmfile's question on stdout; `n` changes
/// nothing, `y` goes on. Helm is a stand-in that records its calls.
#[test]
fn interactive_sync_asks_first() {
    let dir = common::tempdir("interactive");
    let helm = stand_in_helm(&dir, "#!/bin/sh\necho \"$@\" >> calls\ncase \"$1\" in\n  version) echo v4.1.4+g0;;\n  list) printf 'NAME\\n';;\nesac\n");
    project(&dir);
    let run = |answer: &str| {
        common::run_with_stdin(
            Command::new(env!("CARGO_BIN_EXE_capstan"))
                .args(["--helm-binary", helm.to_str().expect("utf-8"), "-i", "sync"])
                .current_dir(&dir),
            answer,
        )
    };
    let upgrades = || {
        std::fs::read_to_string(dir.join("calls"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("upgrade"))
            .count()
    };
    let out = run("n\n");
    assert!(out.status.success(), "{}", text(&out));
    let asked = String::from_utf8_lossy(&out.stdout);
    assert!(
        asked.contains("Do you really want to sync?")
            && asked.contains("  a (./charts/note) UPDATED"),
        "{asked}"
    );
    assert_eq!(upgrades(), 0);
    let out = run("maybe\nyes\n");
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(upgrades(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `destroy` deletes in reverse `needs:` order (b needs a: b first), with helm's flags for
/// each release. Helm is a stand-in that records its calls and reports every release as
/// installed.
#[test]
fn destroy_deletes_in_reverse_needs_order() {
    let dir = common::tempdir("destroy-order");
    let helm = stand_in_helm(&dir, "#!/bin/sh\necho \"$@\" >> calls\ncase \"$1\" in\n  version) echo v4.1.4+g0;;\n  list) printf 'NAME\\nfound\\n';;\nesac\n");
    project(&dir);
    let out = with_stand_in(&dir, &helm, &["destroy"]);
    assert!(out.status.success(), "{}", text(&out));
    let calls = std::fs::read_to_string(dir.join("calls")).expect("calls");
    let deletes: Vec<&str> = calls.lines().filter(|l| l.starts_with("delete")).collect();
    assert_eq!(
        deletes,
        ["delete b --namespace apps", "delete a --namespace apps"],
        "{calls}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `repos` adds each repository and runs no `helm repo update` (`repo add
/// --force-update` fetches the index; the real helmfile v0.166 runs none either); `deps`
/// adds the repositories before `helm dependency update` (a local chart's dependencies
/// may come from them), unless `--skip-repos`. Helm is a stand-in that records its calls.
#[test]
fn repos_and_deps_call_helm_as_helmfile_does() {
    let dir = common::tempdir("repos-deps-order");
    let helm = recording_helm(&dir);
    write(
        &dir,
        "charts/umbrella/Chart.yaml",
        "apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n- name: note\n  version: 0.1.0\n  repository: https://charts.example.com\n",
    );
    write(
        &dir,
        "helmfile.yaml",
        "repositories:\n- name: r1\n  url: https://charts.example.com\n- name: r2\n  url: https://other.example.com\nreleases:\n- name: u\n  chart: ./charts/umbrella\n",
    );
    let run = |args: &[&str]| {
        let _ = std::fs::remove_file(dir.join("calls"));
        let out = with_stand_in(&dir, &helm, args);
        assert!(out.status.success(), "{}", text(&out));
        std::fs::read_to_string(dir.join("calls"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.starts_with("version"))
            .map(str::to_string)
            .collect::<Vec<String>>()
    };
    assert_eq!(
        run(&["repos"]),
        [
            "repo add r1 https://charts.example.com --force-update",
            "repo add r2 https://other.example.com --force-update"
        ]
    );
    let calls = run(&["deps"]);
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(
        calls[0].starts_with("repo add r1")
            && calls[1].starts_with("repo add r2")
            && calls[2].starts_with("dependency update "),
        "{calls:?}"
    );
    let calls = run(&["deps", "--skip-repos"]);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(calls[0].starts_with("dependency update "), "{calls:?}");
    // lint adds the repositories and builds the chart's dependencies first, so its
    // subcharts are linted.
    let calls = run(&["lint"]);
    assert_eq!(calls.len(), 4, "{calls:?}");
    assert!(
        calls[0].starts_with("repo add r1")
            && calls[1].starts_with("repo add r2")
            && calls[2].starts_with("dependency build ")
            && calls[3].starts_with("lint "),
        "{calls:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// capstan's diff sees what `helm upgrade` would change on this cluster: hooks are
/// compared (test hooks are not, unless --include-tests), `.Capabilities` is the
/// cluster's own version and API list (so a chart reading them settles), and the
/// deployed side is the latest revision even when it failed. `--no-hooks`,
/// `--output simple` and `--suppress-secrets` behave as helm-diff's.
#[test]
fn diff_sees_hooks_the_clusters_capabilities_and_the_latest_revision() {
    let dir = common::tempdir("cluster-diff-hooks");
    let kube = Kube::start(&dir);
    write(
        &dir,
        "charts/probe/Chart.yaml",
        "apiVersion: v2\nname: probe\nversion: 0.1.0\n",
    );
    write(
        &dir,
        "charts/probe/values.yaml",
        "hookData: one\nsecretData: s1\nname: probe\n",
    );
    write(
        &dir,
        "charts/probe/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n  minor: {{ .Capabilities.KubeVersion.Minor | quote }}\n  deployments: {{ .Capabilities.APIVersions.Has \"apps/v1/Deployment\" | quote }}\n  scale: {{ .Capabilities.APIVersions.Has \"apps/v1/Scale\" | quote }}\n  count: {{ len .Capabilities.APIVersions | quote }}\n",
    );
    write(
        &dir,
        "charts/probe/templates/hook.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe-hook\n  annotations:\n    helm.sh/hook: pre-install,pre-upgrade\n    helm.sh/hook-delete-policy: before-hook-creation\ndata:\n  greeting: {{ .Values.hookData | quote }}\n",
    );
    write(
        &dir,
        "charts/probe/templates/test.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: probe-test-{{ .Values.hookData }}\n  annotations:\n    helm.sh/hook: test\nspec:\n  containers:\n  - name: t\n    image: busybox\n",
    );
    write(
        &dir,
        "charts/probe/templates/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: probe\nstringData:\n  password: {{ .Values.secretData | quote }}\n",
    );
    write(
        &dir,
        "helmfile.yaml.gotmpl",
        "values:\n- hookData: one\n  secretData: s1\n---\nreleases:\n- name: p\n  namespace: probe\n  chart: ./charts/probe\n  values:\n  - hookData: {{ .Values.hookData }}\n    secretData: {{ .Values.secretData }}\n",
    );
    let out = kube.capstan(&dir, &["sync"]);
    assert!(out.status.success(), "{}", text(&out));
    // What helm upgrade rendered is the cluster's: its version and its API list.
    let server = kube.kubectl(&["version", "-o", "json"]);
    let deployed = kube.kubectl(&["get", "configmap", "probe", "-n", "probe", "-o", "json"]);
    let git_version = server
        .split("\"serverVersion\"")
        .nth(1)
        .and_then(|s| s.split("\"gitVersion\": \"").nth(1))
        .and_then(|s| s.split('"').next())
        .expect("server gitVersion")
        .to_string();
    assert!(
        deployed.contains(&format!("\"kube\": \"{git_version}\"")),
        "{git_version}: {deployed}"
    );
    assert!(deployed.contains("\"scale\": \"true\""), "{deployed}");

    // Nothing changed: the diff settles (before, it rendered with the default version
    // and API list, and differed from every deployment).
    let out = kube.capstan(&dir, &["diff", "--detailed-exitcode"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{}", text(&out));

    // Only the hook changes: the diff shows it, apply upgrades.
    let hook_changed = ["--state-values-set", "hookData=two"];
    let out = kube.capstan(
        &dir,
        &[&hook_changed[..], &["diff", "--detailed-exitcode"]].concat(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("probe, probe-hook, ConfigMap (v1) has changed:")
            && shown.contains("-   greeting: \"one\"\n+   greeting: \"two\"\n"),
        "{shown}"
    );
    assert!(
        !shown.contains("probe-test"),
        "test hooks are left out: {shown}"
    );
    let out = kube.capstan(
        &dir,
        &[&hook_changed[..], &["diff", "--include-tests"]].concat(),
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("probe, probe-test-two, Pod (v1) has been added:"),
        "{}",
        text(&out)
    );
    let out = kube.capstan(
        &dir,
        &[
            &hook_changed[..],
            &["diff", "--detailed-exitcode", "--no-hooks"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = kube.capstan(
        &dir,
        &[&hook_changed[..], &["diff", "--output", "simple"]].concat(),
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "probe, probe-hook, ConfigMap (v1) to be changed.\nPlan: 0 to add, 1 to change, 0 to destroy.\n",
        "{}",
        text(&out)
    );
    let out = kube.capstan(&dir, &[&hook_changed[..], &["apply"]].concat());
    assert!(out.status.success(), "{}", text(&out));
    let history = kube.helm(&["history", "p", "-n", "probe", "-o", "json"]);
    assert_eq!(history.matches("\"revision\":").count(), 2, "{history}");
    let out = kube.capstan(
        &dir,
        &[&hook_changed[..], &["diff", "--detailed-exitcode"]].concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // --suppress-secrets: a changed Secret is named, its content is not shown.
    let secret_changed = ["--state-values-set", "hookData=two,secretData=s2"];
    let out = kube.capstan(
        &dir,
        &[&secret_changed[..], &["diff", "--suppress-secrets"]].concat(),
    );
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("probe, probe, Secret (v1) has changed:\n+ Changes suppressed on sensitive content of type Secret\n"),
        "{shown}"
    );

    // A failed upgrade is the latest revision: the diff compares with it, as
    // `helm get manifest` (and so helm-diff) does.
    let chart = dir.join("charts/probe");
    let failed = Command::new(kube.bin.join("helm"))
        .args([
            "upgrade",
            "p",
            chart.to_str().expect("utf-8"),
            "-n",
            "probe",
        ])
        .args(["--set", "hookData=two,name=Not_A_Valid_Name"])
        .envs(kube.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .expect("helm");
    assert!(!failed.status.success(), "{}", text(&failed));
    assert!(
        kube.helm(&["history", "p", "-n", "probe"])
            .contains("failed"),
        "{}",
        kube.helm(&["history", "p", "-n", "probe"])
    );
    let out = kube.capstan(
        &dir,
        &[&hook_changed[..], &["diff", "--detailed-exitcode"]].concat(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("probe, Not_A_Valid_Name, ConfigMap (v1) has been removed:"),
        "{shown}"
    );
    let out = kube.capstan(&dir, &["destroy"]);
    assert!(out.status.success(), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// helmfile's spellings of flags capstan also accepts in its own (`destroy
/// --deleteWait --deleteTimeout`, `unittest --fail-fast`), and a hook's
/// `{{ .Event.Error }}` with no error: `<nil>` as helmfile prints its nil `error`, false
/// in `if`. Helm is a stand-in that records its calls.
#[test]
fn helmfile_flag_spellings_and_a_hooks_nil_error() {
    let dir = common::tempdir("flag-spellings");
    let helm = stand_in_helm(&dir, "#!/bin/sh\necho \"$@\" >> calls\ncase \"$1\" in\n  version) echo v4.3.1+g0;;\n  list) printf 'NAME\\nfound\\n';;\nesac\n");
    write(
        &dir,
        "helmfile.yaml",
        "releases:\n- name: a\n  chart: ./c\n  hooks:\n  - events: [preuninstall]\n    showlogs: true\n    command: echo\n    args: ['err={{ .Event.Error }} if={{ if .Event.Error }}yes{{ else }}no{{ end }}']\n",
    );
    let out = with_stand_in(
        &dir,
        &helm,
        &["destroy", "--deleteWait", "--deleteTimeout", "42"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let calls = std::fs::read_to_string(dir.join("calls")).expect("calls");
    assert!(calls.contains("delete a --wait --timeout 42s"), "{calls}");
    assert!(text(&out).contains("err=<nil> if=no"), "{}", text(&out));
    // sync --validate: accepted, the same helm calls as without it (helmfile v0.166's).
    let calls_of = |args: &[&str]| {
        let _ = std::fs::remove_file(dir.join("calls"));
        let out = with_stand_in(&dir, &helm, args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        std::fs::read_to_string(dir.join("calls")).unwrap_or_default()
    };
    assert_eq!(calls_of(&["sync", "--validate"]), calls_of(&["sync"]));
    // --template-args (helmfile v1.x, sync and apply): helm template's flags for the
    // rendering the diff compares; the helm upgrade is unchanged; an unknown flag is
    // an error.
    write(
        &dir,
        "k/Chart.yaml",
        "apiVersion: v2\nname: k\nversion: 0.1.0\n",
    );
    write(
        &dir,
        "k/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: k\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n",
    );
    write(&dir, "k.yaml", "releases:\n- name: k\n  chart: ./k\n");
    assert_eq!(
        calls_of(&["-f", "k.yaml", "sync", "--template-args", "--skip-tests"]),
        calls_of(&["-f", "k.yaml", "sync"])
    );
    let out = with_stand_in(
        &dir,
        &helm,
        &[
            "-f",
            "k.yaml",
            "apply",
            "--template-args",
            "--kube-version v1.99.0",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("kube: \"v1.99.0\""), "{}", text(&out));
    let out = with_stand_in(&dir, &helm, &["sync", "--template-args", "--no-such-flag"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("--template-args: unknown flag --no-such-flag"),
        "{}",
        text(&out)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args(["unittest", "--help"])
        .output()
        .expect("capstan runs");
    assert!(out.status.success(), "{}", text(&out));
    let out = with_stand_in(&dir, &helm, &["unittest", "--fail-fast"]);
    assert!(out.status.success(), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hooks with `kubectlApply`: `kubectl apply -f FILE` (the file name rendered as a
/// template) or `-k DIR`, a `command` beside it ignored with helmfile's warning, and
/// helmfile's errors for both keys or neither. Helm and kubectl are stand-ins that record
/// their calls.
#[test]
fn kubectl_apply_hooks_run_kubectl() {
    let dir = common::tempdir("kubectl-hooks");
    let helm = recording_helm(&dir);
    std::fs::create_dir_all(dir.join("bin")).expect("bin");
    common::executable(
        &dir.join("bin"),
        "kubectl",
        "#!/bin/sh\necho \"kubectl $@\" >> calls\necho applied\n",
    );
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |hook: &str| {
        let _ = std::fs::remove_file(dir.join("calls"));
        write(
            &dir,
            "helmfile.yaml",
            &format!(
                "releases:\n- name: web\n  chart: ./c\n  hooks:\n  - events: [presync]\n{hook}"
            ),
        );
        let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
            .args(["--helm-binary", helm.to_str().expect("utf-8"), "sync"])
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .expect("capstan runs");
        let calls = std::fs::read_to_string(dir.join("calls")).unwrap_or_default();
        (out, calls)
    };
    let (out, calls) = run("    kubectlApply:\n      filename: \"{{ .Release.Name }}.yaml\"\n");
    assert!(out.status.success(), "{}", text(&out));
    assert!(calls.contains("kubectl apply -f web.yaml\n"), "{calls}");
    let (out, calls) = run("    command: echo\n    kubectlApply:\n      kustomize: overlays/dev\n");
    assert!(out.status.success(), "{}", text(&out));
    assert!(calls.contains("kubectl apply -k overlays/dev\n"), "{calls}");
    assert!(
        text(&out).contains("warn: ignoring command 'echo' given within a kubectlApply hook"),
        "{}",
        text(&out)
    );
    let (out, _) = run("    kubectlApply:\n      filename: a.yaml\n      kustomize: k\n");
    assert!(
        !out.status.success()
            && text(&out)
                .contains("hook[kubectlApply]: kustomize & filename cannot be used together"),
        "{}",
        text(&out)
    );
    let (out, _) = run("    kubectlApply: {other: x}\n");
    assert!(
        !out.status.success()
            && text(&out)
                .contains("hook[kubectlApply]: either kustomize or filename must be given"),
        "{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `unittest`: the helm-unittest plugin per release with `unitTests:` (`--file DIR/*_test.yaml`
/// each); a release without them is skipped. With the real helm and no plugin, the error
/// names the release and says what helm said.
#[test]
fn unittest_runs_the_plugin_per_release() {
    let dir = common::tempdir("unittest");
    let helm = stand_in_helm(
        &dir,
        "#!/bin/sh\necho \"$@\" >> calls\ncase \"$1\" in\n  version) echo v4.1.4+g0;;\nesac\n",
    );
    project(&dir);
    write(
        &dir,
        "tested.yaml",
        "releases:\n- name: a\n  namespace: apps\n  chart: ./charts/note\n  unitTests: [tests/a, tests/common/]\n- name: b\n  chart: ./charts/note\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args([
            "--helm-binary",
            helm.to_str().expect("utf-8"),
            "-f",
            "tested.yaml",
            "unittest",
            "--failfast",
        ])
        .current_dir(&dir)
        .output()
        .expect("capstan runs");
    assert!(out.status.success(), "{}", text(&out));
    let calls = std::fs::read_to_string(dir.join("calls")).expect("calls");
    let runs: Vec<&str> = calls
        .lines()
        .filter(|l| l.starts_with("unittest"))
        .collect();
    assert_eq!(
        runs,
        ["unittest charts/note --namespace apps --failfast --file tests/a/*_test.yaml --file tests/common/*_test.yaml"],
        "{calls}"
    );
    let real = PathBuf::from(std::env::var("HOME").unwrap_or_default())
        .join(".cache/capstan-test/kube/bin/helm");
    if real.is_file() {
        let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
            .args([
                "--helm-binary",
                real.to_str().expect("utf-8"),
                "-f",
                "tested.yaml",
                "unittest",
            ])
            .current_dir(&dir)
            .env("HELM_PLUGINS", dir.join("no-plugins"))
            .output()
            .expect("capstan runs");
        assert!(!out.status.success(), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("failed processing release a") && err.contains("unknown command"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A real OCI registry (Debian's `docker-registry`, the distribution server) on a
/// loopback port over plain HTTP, with htpasswd basic auth for `user:pass`; stopped when
/// dropped.
struct Registry {
    child: std::process::Child,
    port: u16,
}

impl Registry {
    fn start(dir: &Path) -> Registry {
        let server = Path::new("/usr/bin/docker-registry");
        assert!(
            server.is_file(),
            "the test OCI registry is not installed: run scripts/test (it installs Debian's docker-registry and apache2-utils)"
        );
        let out = Command::new("htpasswd")
            .args(["-Bbn", "user", "pass"])
            .output()
            .expect("htpasswd (apache2-utils) runs");
        assert!(out.status.success(), "{}", text(&out));
        write(
            dir,
            "registry/htpasswd",
            &String::from_utf8_lossy(&out.stdout),
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let root = dir.join("registry");
        write(
            dir,
            "registry/config.yml",
            &format!(
                "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\n  secret: test-only\nauth:\n  htpasswd:\n    realm: test\n    path: {}\n",
                root.join("data").display(),
                root.join("htpasswd").display()
            ),
        );
        let child = Command::new(server)
            .args(["serve", &root.join("config.yml").display().to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(root.join("log")).expect("log"))
            .spawn()
            .expect("docker-registry starts");
        let registry = Registry { child, port };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return registry;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!(
            "the registry did not listen: {}",
            std::fs::read_to_string(root.join("log")).unwrap_or_default()
        );
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An OCI repository with credentials: `repos` logs helm in to the registry (password on
/// standard input, the host alone for Helm 4, `--plain-http` from `plainHttp`); `sync`
/// logs in itself and installs the chart from the registry with the real helm; capstan's
/// own diff (pulling the chart natively with the same credentials) finds nothing to change.
#[test]
fn oci_registries_are_logged_in_and_their_charts_deploy() {
    let dir = common::tempdir("cluster-oci");
    let kube = Kube::start(&dir);
    let registry = Registry::start(&dir);
    let port = registry.port;
    project(&dir);
    // Publish the chart with helm, under a registry config of its own.
    let publisher = dir.join("publisher.json");
    let helm_in = |args: &[&str], stdin: &str| {
        let out = common::run_with_stdin(
            Command::new(kube.bin.join("helm"))
                .args(args)
                .current_dir(&dir)
                .envs(kube.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .env("HELM_REGISTRY_CONFIG", &publisher),
            stdin,
        );
        assert!(out.status.success(), "helm {args:?}: {}", text(&out));
    };
    let host = format!("127.0.0.1:{port}");
    helm_in(&["package", "charts/note", "-d", "pkg"], "");
    helm_in(
        &[
            "registry",
            "login",
            &host,
            "--username",
            "user",
            "--password-stdin",
            "--plain-http",
        ],
        "pass\n",
    );
    helm_in(
        &[
            "push",
            "pkg/note-0.1.0.tgz",
            &format!("oci://{host}/charts"),
            "--plain-http",
        ],
        "",
    );

    write(
        &dir,
        "oci.yaml",
        &format!(
            "repositories:\n- name: reg\n  url: {host}/charts\n  oci: true\n  plainHttp: true\n  username: user\n  password: pass\nreleases:\n- name: o\n  namespace: oci\n  chart: reg/note\n  version: 0.1.0\n  values:\n  - greeting: from a registry\n"
        ),
    );
    let config = dir.join("helm/config/registry/config.json");
    let out = kube.capstan(&dir, &["-f", "oci.yaml", "repos"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Logging in to registry"),
        "{}",
        text(&out)
    );
    let logged = std::fs::read_to_string(&config).unwrap_or_default();
    assert!(
        logged.contains(&host),
        "helm's registry config after repos: {logged}"
    );

    std::fs::remove_file(&config).expect("log out");
    let out = kube.capstan(&dir, &["-f", "oci.yaml", "sync"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(std::fs::read_to_string(&config)
        .unwrap_or_default()
        .contains(&host));
    let greeting = kube.greeting("o-note", "oci");
    assert_eq!(greeting, "from a registry");
    let out = kube.capstan(&dir, &["-f", "oci.yaml", "diff", "--detailed-exitcode"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = kube.capstan(&dir, &["-f", "oci.yaml", "destroy"]);
    assert!(out.status.success(), "{}", text(&out));

    // A wrong password: helm's refusal, with the release state untouched and the password
    // nowhere in the output.
    std::fs::remove_file(&config).expect("log out");
    std::fs::write(
        dir.join("bad.yaml"),
        std::fs::read_to_string(dir.join("oci.yaml"))
            .expect("state")
            .replace("password: pass", "password: s3cr3t-wrong"),
    )
    .expect("bad");
    let out = kube.capstan(&dir, &["-f", "bad.yaml", "repos"]);
    let all = text(&out);
    assert!(
        !out.status.success() && all.contains("registry login") && !all.contains("s3cr3t"),
        "{all}"
    );
    drop(registry);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `template --validate`: rendered with the cluster's version, each object checked by the
/// API server in a dry run (nothing is created); a kind the server does not serve is
/// helm's "resource mapping not found", and nothing is printed.
#[test]
fn template_validate_checks_the_objects_with_the_api_server() {
    let dir = common::tempdir("cluster-validate");
    let kube = Kube::start(&dir);
    write(
        &dir,
        "v/Chart.yaml",
        "apiVersion: v2\nname: v\nversion: 0.1.0\n",
    );
    write(
        &dir,
        "v/templates/ok.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: checked\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: not-there-yet\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {a: b}\n  template:\n    metadata:\n      labels: {a: b}\n    spec:\n      containers:\n      - name: c\n        image: example.invalid/x\n",
    );
    write(
        &dir,
        "helmfile.yaml",
        "releases:\n- name: r\n  namespace: fresh\n  chart: ./v\n",
    );
    let out = kube.capstan(&dir, &["template", "--validate"]);
    assert!(out.status.success(), "{}", text(&out));
    let server: String = kube
        .kubectl(&["version", "-o", "json"])
        .split("\"gitVersion\": \"")
        .nth(2)
        .and_then(|s| s.split('"').next())
        .unwrap_or_default()
        .to_string();
    assert!(!server.is_empty());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("kube: \"{server}\"")),
        "{}",
        text(&out)
    );
    assert_eq!(
        kube.kubectl(&["get", "configmaps", "-A", "-o", "name"])
            .matches("checked")
            .count(),
        0,
        "a dry run creates nothing"
    );
    // A kind the server does not serve, and a field of the wrong type.
    write(
        &dir,
        "v/templates/bad.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: e\nspec:\n  replicas: many\n  selector:\n    matchLabels: {a: b}\n  template:\n    metadata:\n      labels: {a: b}\n    spec:\n      containers:\n      - name: c\n        image: x\n",
    );
    let out = kube.capstan(&dir, &["template", "--validate"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(out.stdout.is_empty(), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("resource mapping not found for name: \"w\" namespace: \"\" from \"\": no matches for kind \"Widget\" in version \"example.com/v1\"")
            && err.contains("error validating Deployment \"e\""),
        "{err}"
    );
    // Without --validate the same chart renders (no cluster is asked).
    let out = kube.capstan(&dir, &["template"]);
    assert!(out.status.success(), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}
