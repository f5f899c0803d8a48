//! The Argo CD plugin (`deploy/argocd/plugin.yaml`) run exactly as the cmp-server runs
//! it: the application's folder copied to a fresh directory, Argo CD's variables set
//! (`ARGOCD_APP_*`, `ARGOCD_ENV_*`, the parameters, `KUBE_VERSION`,
//! `KUBE_API_VERSIONS`), `discover`, `init` and `generate` run with the commands the
//! plugin file names, and the manifests applied to a real API server with
//! `kubectl apply --server-side --dry-run=server`. They must equal `capstan template`
//! of the same inputs, and the plugin must write nothing outside the working and
//! temporary directories.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::kube::Kube;
use common::tempdir;

/// A command of plugin.yaml: `spec.<stage>.command` (and `args`, if any).
fn plugin_command(plugin: &capstan_value::Value, stage: &str) -> Vec<String> {
    let spec = plugin.as_map().and_then(|m| m.get("spec")).expect("spec");
    let stage_map = spec.as_map().and_then(|m| m.get(stage)).expect(stage);
    let stage_map = if stage == "discover" {
        stage_map
            .as_map()
            .and_then(|m| m.get("find"))
            .expect("discover.find")
    } else {
        stage_map
    };
    let list = |key: &str| -> Vec<String> {
        stage_map
            .as_map()
            .and_then(|m| m.get(key))
            .and_then(|v| {
                v.as_list()
                    .map(|l| l.items.iter().map(|i| i.to_string()).collect())
            })
            .unwrap_or_default()
    };
    let mut cmd = list("command");
    cmd.extend(list("args"));
    assert!(!cmd.is_empty(), "plugin.yaml: spec.{stage} has no command");
    cmd
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(files_under(&entry.path()));
        } else {
            out.push(entry.path());
        }
    }
    out.sort();
    out
}

/// Runs `cmd` as the cmp-server does: in `app`, with exactly `env` (and PATH).
fn run(cmd: &[String], app: &Path, path: &str, env: &[(String, String)]) -> Output {
    Command::new(&cmd[0])
        .args(&cmd[1..])
        .current_dir(app)
        .env_clear()
        .env("PATH", path)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .expect("plugin command runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// An application of its own: env from the application, parameters, capabilities.
fn own_app(dir: &Path) {
    std::fs::create_dir_all(dir.join("chart/templates")).expect("chart");
    std::fs::write(
        dir.join("chart/Chart.yaml"),
        "apiVersion: v2\nname: greeter\nversion: 0.1.0\n",
    )
    .expect("Chart.yaml");
    std::fs::write(
        dir.join("chart/templates/cm.yaml"),
        concat!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
            "  namespace: {{ .Release.Namespace }}\ndata:\n",
            "  greeting: {{ .Values.greeting | quote }}\n",
            "  replicas: {{ .Values.replicas | quote }}\n",
            "  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n",
            "  hasWidget: {{ .Capabilities.APIVersions.Has \"example.com/v1/Widget\" | quote }}\n",
        ),
    )
    .expect("template");
    std::fs::write(
        dir.join("helmfile.yaml.gotmpl"),
        concat!(
            "environments:\n  default:\n    values:\n    - replicas: 1\n  prod:\n    values:\n    - replicas: 2\n---\n",
            "releases:\n",
            "- name: greeter\n  namespace: argo-apps\n  chart: ./chart\n  labels:\n    tier: web\n",
            "  values:\n  - greeting: {{ requiredEnv \"GREETING\" | quote }}\n    replicas: {{ .Values.replicas }}\n",
            "- name: other\n  namespace: argo-apps\n  chart: ./chart\n  labels:\n    tier: db\n",
            "  values:\n  - greeting: other\n    replicas: 0\n",
        ),
    )
    .expect("state file");
}

#[test]
fn the_plugin_renders_as_capstan_template_and_the_api_server_accepts_it() {
    let root = tempdir("argocd");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let plugin_text =
        std::fs::read_to_string(repo.join("deploy/argocd/plugin.yaml")).expect("plugin.yaml");
    let plugin = capstan_yaml::decode_helmfile_value(&plugin_text).expect("plugin.yaml is YAML");
    let kind = plugin
        .as_map()
        .and_then(|m| m.get("kind"))
        .map(|k| k.to_string());
    assert_eq!(kind.as_deref(), Some("ConfigManagementPlugin"));
    let (discover, init, generate) = (
        plugin_command(&plugin, "discover"),
        plugin_command(&plugin, "init"),
        plugin_command(&plugin, "generate"),
    );

    // `capstan` found on PATH first, as in the sidecar image.
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_capstan"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display());
    let home = root.join("home");
    let tmp = root.join("tmp");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&tmp).expect("tmp");

    let kube = Kube::start(&root);
    let kubectl = |args: &[&str]| -> Output {
        Command::new(kube.bin.join("kubectl"))
            .args(args)
            .envs(kube.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .expect("kubectl runs")
    };
    let created = kubectl(&["create", "namespace", "argo-apps"]);
    assert!(created.status.success(), "{}", text(&created.stderr));

    // What Argo CD passes for helm: the cluster's version and API versions.
    let server_version = {
        let out = kubectl(&["version", "-o", "json"]);
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("kubectl version JSON");
        v.pointer("/serverVersion/gitVersion")
            .and_then(|g| g.as_str())
            .expect("server version")
            .trim_start_matches('v')
            .to_string()
    };
    let server_api_versions = text(&kubectl(&["api-versions"]).stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(",");
    let argo_env_for =
        |params: &str, extra: &[(&str, &str)], kube: (&str, &str)| -> Vec<(String, String)> {
            let mut env: Vec<(String, String)> = [
                ("HOME", home.display().to_string()),
                ("TMPDIR", tmp.display().to_string()),
                ("ARGOCD_APP_NAME", "greeter".to_string()),
                ("ARGOCD_APP_NAMESPACE", "argo-apps".to_string()),
                ("ARGOCD_APP_REVISION", "0123abcd".to_string()),
                ("ARGOCD_APP_SOURCE_PATH", "apps/greeter".to_string()),
                ("ARGOCD_APP_PARAMETERS", params.to_string()),
                ("KUBE_VERSION", kube.0.to_string()),
                ("KUBE_API_VERSIONS", kube.1.to_string()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
            env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            env
        };
    let argo_env = |params: &str, extra: &[(&str, &str)]| {
        argo_env_for(
            params,
            extra,
            ("1.29", "v1,apps/v1,example.com/v1,example.com/v1/Widget"),
        )
    };

    // 1. Our application, with parameters and the application's env.
    let source = root.join("source");
    own_app(&source);
    let app = root.join("app-1");
    copy_dir(&source, &app);
    let found = run(&discover, &app, &path, &[]);
    assert!(
        !text(&found.stdout).trim().is_empty(),
        "discover found nothing"
    );
    let params = r#"[{"name":"environment","string":"prod"},{"name":"selectors","array":["tier=web"]},{"name":"state-values","map":{"unused":"x"}}]"#;
    let env = argo_env(params, &[("ARGOCD_ENV_GREETING", "hello from argo")]);
    for cmd in [&init, &generate] {
        let out = run(cmd, &app, &path, &env);
        assert!(out.status.success(), "{cmd:?}: {}", text(&out.stderr));
    }
    let generated = run(&generate, &app, &path, &env);
    let manifests = text(&generated.stdout);
    for line in [
        "name: greeter",
        "greeting: \"hello from argo\"",
        "replicas: \"2\"",
        "kube: \"v1.29\"",
        "hasWidget: \"true\"",
    ] {
        assert!(
            manifests.contains(line),
            "{line:?} missing from:\n{manifests}"
        );
    }
    assert!(
        !manifests.contains("name: other"),
        "the selector was not applied:\n{manifests}"
    );
    // Nothing but manifests on stdout: every document has an apiVersion and a kind.
    for doc in manifests.split("\n---\n").filter(|d| d.contains(':')) {
        let v = capstan_yaml::decode_helmfile_value(doc).expect("a YAML document");
        let m = v.as_map().expect("a mapping");
        assert!(
            m.get("apiVersion").is_some() && m.get("kind").is_some(),
            "not a manifest:\n{doc}"
        );
    }
    // The same as capstan template of the same inputs.
    let direct = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args([
            "-e",
            "prod",
            "-l",
            "tier=web",
            "--state-values-set",
            "unused=x",
            "template",
            "--include-crds",
            "--kube-version",
            "1.29",
            "--args=--api-versions=v1,apps/v1,example.com/v1,example.com/v1/Widget",
        ])
        .current_dir(&source)
        .env("GREETING", "hello from argo")
        .env("HELMFILE_CACHE_HOME", root.join("direct-cache"))
        .output()
        .expect("capstan template");
    assert!(direct.status.success(), "{}", text(&direct.stderr));
    assert_eq!(manifests, text(&direct.stdout));
    // The API server accepts every object.
    let file = root.join("manifests-1.yaml");
    std::fs::write(&file, &manifests).expect("write manifests");
    let applied = kubectl(&[
        "apply",
        "--server-side",
        "--dry-run=server",
        "-f",
        &file.display().to_string(),
    ]);
    assert!(
        applied.status.success(),
        "{}{}",
        text(&applied.stdout),
        text(&applied.stderr)
    );
    assert!(
        text(&applied.stdout).contains("configmap/greeter serverside-applied (server dry run)"),
        "{}",
        text(&applied.stdout)
    );

    // 2. The repository's example, in its production environment.
    let example = root.join("app-2");
    copy_dir(&repo.join("examples"), &example);
    let env2 = argo_env_for(
        r#"[{"name":"environment","string":"production"}]"#,
        &[],
        (&server_version, &server_api_versions),
    );
    let out = run(&init, &example, &path, &env2);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&generate, &example, &path, &env2);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let manifests = text(&out.stdout);
    let mut namespaces: Vec<String> = manifests
        .lines()
        .filter_map(|l| l.trim().strip_prefix("namespace: "))
        .map(|n| n.trim_matches('"').to_string())
        .collect();
    namespaces.sort();
    namespaces.dedup();
    for ns in &namespaces {
        let _ = kubectl(&["create", "namespace", ns]);
    }
    let file = root.join("manifests-2.yaml");
    std::fs::write(&file, &manifests).expect("write manifests");
    let applied = kubectl(&[
        "apply",
        "--server-side",
        "--dry-run=server",
        "-f",
        &file.display().to_string(),
    ]);
    assert!(
        applied.status.success(),
        "{}{}",
        text(&applied.stdout),
        text(&applied.stderr)
    );
    assert!(text(&applied.stdout).contains("(server dry run)"));

    // 3. Failures: a non-zero exit, the reason on stderr, nothing on stdout.
    let fails = |app: &Path, env: &[(String, String)], expected: &str| {
        let out = run(&generate, app, &path, env);
        assert!(
            !out.status.success(),
            "should fail ({expected}): {}",
            text(&out.stdout)
        );
        assert!(out.stdout.is_empty(), "stdout: {}", text(&out.stdout));
        assert!(
            text(&out.stderr).contains(expected),
            "{expected:?} missing from: {}",
            text(&out.stderr)
        );
    };
    // The application's env is missing GREETING.
    fails(
        &app,
        &argo_env("[]", &[]),
        "required env var `GREETING` is not set",
    );
    // The application may not steer the process.
    fails(
        &app,
        &argo_env("[]", &[("ARGOCD_ENV_PATH", "/evil")]),
        "may not set PATH",
    );
    fails(
        &app,
        &argo_env("[]", &[("ARGOCD_ENV_LD_PRELOAD", "/evil.so")]),
        "may not set LD_PRELOAD",
    );
    // An unknown environment.
    fails(
        &app,
        &argo_env(
            r#"[{"name":"environment","string":"nope"}]"#,
            &[("ARGOCD_ENV_GREETING", "x")],
        ),
        "nope",
    );
    // The deadline.
    fails(
        &app,
        &argo_env(
            "[]",
            &[("ARGOCD_ENV_GREETING", "x"), ("ARGOCD_EXEC_TIMEOUT", "1ms")],
        ),
        "deadline",
    );

    // Nothing written outside the working and temporary directories: the home is empty,
    // and the application folders hold only what was copied.
    assert!(files_under(&home).is_empty(), "{:?}", files_under(&home));
    let mut expected: Vec<PathBuf> = files_under(&source)
        .into_iter()
        .map(|p| app.join(p.strip_prefix(&source).expect("under source")))
        .collect();
    expected.sort();
    assert_eq!(files_under(&app), expected);
}
