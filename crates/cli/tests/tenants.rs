//! Two tenants of one Argo CD plugin sidecar, attacked as a tenant would attack the
//! other and the sidecar. The plugin runs as the cmp-server runs it (`capstan argocd
//! generate` in the application's folder, with exactly the sidecar's environment plus
//! Argo CD's variables): two applications are siblings under one parent folder and share
//! the sidecar's `HOME`, `TMPDIR`, helm configuration and helmfile cache; the sidecar's
//! environment holds fake credentials; loopback listeners stand for internal hosts and
//! for the sidecar's Vault. Every attack is generated in many variants (path shapes,
//! variable-name cases, reference parameters) and each run must show: no secret of the
//! other tenant or of the sidecar in its output or errors, no request to a host the
//! administrator did not allow, no file written outside the application's folder, no
//! command run, no process left after the deadline.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;
use common::{output_text, serve, tempdir, write_files, TempDir};

/// Every secret of this suite contains it; no run may print it.
const MARK: &str = "MARKq7";

/// A loopback listener standing for an internal host: it counts the requests it gets
/// and answers each with a secret.
struct Internal {
    port: u16,
    hits: Arc<AtomicUsize>,
}

impl Internal {
    fn start() -> Internal {
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        let port = serve(move |_| {
            move |path: &str, _auth: &str| -> common::Reply {
                counted.fetch_add(1, Ordering::SeqCst);
                let body = if path.ends_with("index.yaml") {
                    format!("apiVersion: v1\nentries: {{}}\n# {MARK}-internal-index\n")
                } else {
                    format!("internal: {MARK}-internal-{path}\n")
                };
                ("200 OK", String::new(), body.into_bytes())
            }
        });
        Internal { port, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// The sidecar: a parent folder with two applications, the shared home, temporary
/// directory and cache, and the sidecar's environment.
struct Sidecar {
    dir: TempDir,
    internal: Internal,
    env: Vec<(String, String)>,
}

/// A chart whose one ConfigMap shows every value and what `.Files.Get` of `files/leak`
/// gives.
fn dump_chart(dir: &Path) {
    write_files(
        dir,
        [
            ("Chart.yaml", "apiVersion: v2\nname: dump\nversion: 0.1.0\n"),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  values: {{ toJson .Values | quote }}\n  leak: {{ .Files.Get \"files/leak\" | quote }}\n",
            ),
        ],
    );
}

impl Sidecar {
    fn new(name: &str) -> Sidecar {
        let dir = tempdir(name);
        let internal = Internal::start();
        let p = dir.to_path_buf();
        // Tenant B: values, a chart, a file name, all secret.
        write_files(
            &p.join("app-b"),
            [
                ("values.yaml", format!("secret: {MARK}-b-values\n")),
                ("helmfile.yaml", format!("values:\n- b: {MARK}-b-state\n")),
                (&format!("{MARK}-b-filename") as &str, "x".to_string()),
            ],
        );
        write_files(
            &p.join("app-b/chart"),
            [
                ("Chart.yaml", "apiVersion: v2\nname: b\nversion: 0.1.0\n".to_string()),
                (
                    "templates/s.yaml",
                    format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: b\nstringData:\n  k: {MARK}-b-chart\n"),
                ),
            ],
        );
        // The sidecar's shared state: helm's repositories file with a password, a cached
        // private values file, an age key.
        write_files(
            &p,
            [
                (
                    "home/.config/helm/repositories.yaml",
                    format!("apiVersion: \"\"\nrepositories:\n- name: private\n  url: https://charts.internal\n  username: ci\n  password: {MARK}-repo-password\n"),
                ),
                (
                    "cache/helmfile/git/private/values.yaml",
                    format!("cached: {MARK}-cache\n"),
                ),
                (
                    "keys/age.txt",
                    format!("# {MARK}-age-key\nAGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ\n"),
                ),
            ],
        );
        std::fs::create_dir_all(p.join("tmp")).expect("tmp");
        // Tenant A: its chart and a sub-folder (for `sub/../..` paths).
        dump_chart(&p.join("app-a/chart"));
        std::fs::create_dir_all(p.join("app-a/sub")).expect("sub");
        let vault = format!("http://127.0.0.1:{}", internal.port);
        let s = |k: &str, v: String| (k.to_string(), v);
        let env = vec![
            s("PATH", std::env::var("PATH").unwrap_or_default()),
            s("HOME", p.join("home").display().to_string()),
            s("TMPDIR", p.join("tmp").display().to_string()),
            s(
                "HELMFILE_CACHE_HOME",
                p.join("cache/helmfile").display().to_string(),
            ),
            s(
                "HELM_CONFIG_HOME",
                p.join("home/.config/helm").display().to_string(),
            ),
            s("VAULT_ADDR", vault),
            s("VAULT_TOKEN", format!("{MARK}-vault-token")),
            s("AWS_ACCESS_KEY_ID", format!("AKIA{MARK}")),
            s("AWS_SECRET_ACCESS_KEY", format!("{MARK}-aws-secret")),
            s("AWS_SESSION_TOKEN", format!("{MARK}-aws-session")),
            s("AWS_REGION", "us-east-1".into()),
            s("GITHUB_TOKEN", format!("{MARK}-github")),
            s(
                "SOPS_AGE_KEY_FILE",
                p.join("keys/age.txt").display().to_string(),
            ),
            s("ARGOCD_APP_NAME", "a".into()),
            s("ARGOCD_APP_NAMESPACE", "team-a".into()),
            s("ARGOCD_APP_SOURCE_PATH", ".".into()),
            s("ARGOCD_EXEC_TIMEOUT", "20s".into()),
        ];
        Sidecar { dir, internal, env }
    }

    fn app(&self) -> PathBuf {
        self.dir.join("app-a")
    }

    /// Runs `capstan argocd generate` in tenant A's folder as the cmp-server does:
    /// exactly the sidecar's environment and `extra`.
    fn generate(&self, extra: &[(&str, &str)]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_capstan"))
            .args(["argocd", "generate"])
            .current_dir(self.app())
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .envs(extra.iter().copied())
            .output()
            .expect("the plugin runs")
    }

    /// Everything outside tenant A's folder: path, and a file's size and modification
    /// time.
    fn outside(&self) -> BTreeMap<PathBuf, (u64, std::time::SystemTime)> {
        fn walk(d: &Path, skip: &Path, out: &mut BTreeMap<PathBuf, (u64, std::time::SystemTime)>) {
            for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
                let p = e.path();
                if p == skip {
                    continue;
                }
                let Ok(m) = std::fs::symlink_metadata(&p) else {
                    continue;
                };
                // A folder's own time changes when a run's private folder comes and goes.
                let time = if m.is_dir() {
                    std::time::UNIX_EPOCH
                } else {
                    m.modified().unwrap_or(std::time::UNIX_EPOCH)
                };
                out.insert(p.clone(), (if m.is_dir() { 0 } else { m.len() }, time));
                if m.is_dir() {
                    walk(&p, skip, out);
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.dir, &self.app(), &mut out);
        out
    }

    /// Runs one attack: the state file `state` (and files to add) in tenant A, then
    /// checks every promise. Returns the run's output for more checks.
    fn attack(&self, what: &str, state: &str, extra: &[(&str, &str)]) -> Output {
        std::fs::write(self.app().join("helmfile.yaml.gotmpl"), state).expect("state");
        let before = self.outside();
        let hits = self.internal.hits();
        let out = self.generate(extra);
        let text = output_text(&out);
        assert!(
            !text.contains(MARK) && !text.contains("AGE-SECRET-KEY-1"),
            "{what}: a secret was printed\nstate:\n{state}\n{text}"
        );
        assert_eq!(
            self.internal.hits(),
            hits,
            "{what}: a request reached an internal host\nstate:\n{state}\n{text}"
        );
        assert_eq!(
            self.outside(),
            before,
            "{what}: something outside the application's folder changed\nstate:\n{state}\n{text}"
        );
        assert!(
            !self.dir.join("pwned").exists(),
            "{what}: a command ran\nstate:\n{state}\n{text}"
        );
        out
    }
}

/// Ways to name `target` (an absolute path) from tenant A's folder `app`, with the
/// symbolic links some of them need made first.
fn path_shapes(app: &Path, target: &Path, tag: &str) -> Vec<String> {
    let parent = app.parent().expect("parent");
    let rel = target
        .strip_prefix(parent)
        .map(|r| r.display().to_string())
        .ok();
    let abs = target.display().to_string();
    let link = app.join(format!("link-{tag}"));
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(target, &link).expect("link");
    let up = app.join("up");
    if !up.exists() {
        std::os::unix::fs::symlink(parent, &up).expect("dir link");
    }
    let mut shapes = vec![
        abs.clone(),
        format!("/{abs}"),
        abs.replace('/', "//"),
        format!("{abs}/."),
        format!("file://{abs}"),
        format!("link-{tag}"),
        format!("./link-{tag}"),
    ];
    if let Some(rel) = rel {
        shapes.extend([
            format!("../{rel}"),
            format!("sub/../../{rel}"),
            format!("./.././{rel}"),
            format!("..//{rel}"),
            format!("up/{rel}"),
            format!("up/app-a/../{rel}"),
            // Globs that reach it.
            format!(
                "../{}",
                rel.replacen("app-b", "app-?", 1)
                    .replacen("home", "h*e", 1)
                    .replacen("cache", "c[a]che", 1)
                    .replacen("keys", "k*", 1)
            ),
            format!(
                "../*/{}",
                rel.split_once('/').map_or(rel.as_str(), |(_, r)| r)
            ),
        ]);
    }
    shapes
}

/// The secret files of the other tenant and the sidecar.
fn targets(p: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("b", p.join("app-b/values.yaml")),
        ("repo", p.join("home/.config/helm/repositories.yaml")),
        ("cache", p.join("cache/helmfile/git/private/values.yaml")),
        ("key", p.join("keys/age.txt")),
        ("environ", PathBuf::from("/proc/self/environ")),
    ]
}

/// State files that read `path` in one way each.
fn file_readers(path: &str) -> Vec<(&'static str, String)> {
    let q = serde_json::to_string(path).expect("json");
    let release = |body: &str| format!("releases:\n- name: r\n  chart: ./chart\n{body}");
    vec![
        ("values", release(&format!("  values:\n  - {q}\n"))),
        ("secrets", release(&format!("  secrets:\n  - {q}\n"))),
        (
            "environment values",
            format!("environments:\n  default:\n    values:\n    - {q}\n---\n{}", release("  values:\n  - all: {{ toJson .Values | quote }}\n")),
        ),
        (
            "environment secrets",
            format!("environments:\n  default:\n    secrets:\n    - {q}\n---\n{}", release("")),
        ),
        ("bases", format!("bases:\n- {q}\n---\n{}", release(""))),
        ("helmfiles", format!("helmfiles:\n- path: {q}\n")),
        ("readFile", release(&format!("  values:\n  - x: {{{{ readFile {q} | quote }}}}\n"))),
        ("ref+file", release(&format!("  values:\n  - x: {{{{ fetchSecretValue (printf \"ref+file://%s\" {q}) | quote }}}}\n"))),
        ("ref+sops", release(&format!("  values:\n  - x: {{{{ fetchSecretValue (printf \"ref+sops://%s\" {q}) | quote }}}}\n"))),
        ("set ref+file", release(&format!("  set:\n  - name: x\n    value: {}\n", serde_json::to_string(&format!("ref+file://{path}")).expect("json")))),
        ("isFile", release(&format!("  values:\n  - x: {{{{ isFile {q} }}}}\n"))),
        ("chart", format!("releases:\n- name: r\n  chart: {q}\n")),
    ]
}

#[test]
fn a_tenant_reads_no_file_outside_its_folder() {
    let sc = Sidecar::new("files");
    let app = sc.app();
    let mut runs = 0;
    for (tag, target) in targets(&sc.dir) {
        for shape in path_shapes(&app, &target, tag) {
            for (how, state) in file_readers(&shape) {
                sc.attack(&format!("{how} of {shape}"), &state, &[]);
                runs += 1;
            }
        }
    }
    // Folders: listing, a chart, a chart's files through links.
    let b = sc.dir.join("app-b");
    for shape in path_shapes(&app, &b, "dir") {
        let q = serde_json::to_string(&shape).expect("json");
        for state in [
            format!("releases:\n- name: r\n  chart: ./chart\n  values:\n  - x: {{{{ readDir {q} | toJson | quote }}}}\n"),
            format!("releases:\n- name: r\n  chart: ./chart\n  values:\n  - x: {{{{ readDirEntries {q} | toJson | quote }}}}\n"),
            format!("releases:\n- name: r\n  chart: {}\n", serde_json::to_string(&format!("{shape}/chart")).expect("json")),
        ] {
            sc.attack(&format!("folder {shape}"), &state, &[]);
            runs += 1;
        }
    }
    // A chart of tenant A whose files and templates are links out.
    for (tag, target) in targets(&sc.dir) {
        let files = app.join("chart/files");
        std::fs::create_dir_all(&files).expect("files");
        let leak = files.join("leak");
        let _ = std::fs::remove_file(&leak);
        std::os::unix::fs::symlink(&target, &leak).expect("link");
        sc.attack(
            &format!(".Files.Get through a link to {tag}"),
            "releases:\n- name: r\n  chart: ./chart\n",
            &[],
        );
        std::fs::remove_file(&leak).expect("unlink");
        runs += 1;
    }
    let templates = app.join("chart/templates/b");
    std::os::unix::fs::symlink(sc.dir.join("app-b/chart/templates"), &templates).expect("link");
    sc.attack(
        "chart templates through a link",
        "releases:\n- name: r\n  chart: ./chart\n",
        &[],
    );
    std::fs::remove_file(&templates).expect("unlink");
    assert!(runs > 500, "only {runs} variants");
    // The tenant's own files still render.
    write_files(&app, [("own.yaml", "own: yes\n")]);
    let out = sc.attack(
        "own values",
        "releases:\n- name: r\n  chart: ./chart\n  values:\n  - own.yaml\n  - x: {{ readFile \"own.yaml\" | quote }}\n",
        &[],
    );
    assert!(out.status.success(), "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("own: yes"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn a_tenant_runs_no_command() {
    let sc = Sidecar::new("commands");
    let pwn = sc.dir.join("pwned").display().to_string();
    common::executable(
        &sc.app(),
        "evil.sh",
        &format!("#!/bin/sh\ntouch {pwn}\ncat\n"),
    );
    let sh = format!("[\"-c\", \"touch {pwn}\"]");
    let release = |body: &str| format!("releases:\n- name: r\n  chart: ./chart\n{body}");
    let mut states = vec![
        release(&format!("  values:\n  - x: {{{{ exec \"sh\" (list \"-c\" \"touch {pwn}\") }}}}\n")),
        release(&format!("  values:\n  - x: {{{{ envExec (dict \"A\" \"b\") \"sh\" (list \"-c\" \"touch {pwn}\") }}}}\n")),
        release("  postRenderer: ./evil.sh\n"),
        release(&format!("  postRenderer: sh\n  postRendererArgs: {sh}\n")),
        format!("helmDefaults:\n  postRenderer: ./evil.sh\n{}", release("")),
        format!("helmBinary: ./evil.sh\nrepositories:\n- name: x\n  url: https://charts.example.invalid\n{}", "releases:\n- name: r\n  chart: x/y\n"),
        format!("kustomizeBinary: ./evil.sh\n{}", release("  jsonPatches:\n  - target: {kind: ConfigMap, name: r}\n    patch: [{op: add, path: /data/y, value: z}]\n")),
    ];
    for event in ["prepare", "preapply", "presync", "cleanup", "postsync"] {
        states.push(format!(
            "hooks:\n- events: [{event}]\n  command: sh\n  args: {sh}\n  showlogs: true\n{}",
            release("")
        ));
        states.push(release(&format!(
            "  hooks:\n  - events: [{event}]\n    command: ./evil.sh\n"
        )));
    }
    for (i, state) in states.iter().enumerate() {
        sc.attack(&format!("command {i}"), state, &[]);
    }
    // Also from a values template and an environment's values template.
    write_files(
        &sc.app(),
        [(
            "v.yaml.gotmpl",
            format!("x: {{{{ exec \"sh\" (list \"-c\" \"touch {pwn}\") }}}}\n"),
        )],
    );
    sc.attack(
        "values template",
        &release("  values:\n  - v.yaml.gotmpl\n"),
        &[],
    );
    sc.attack(
        "environment values template",
        &format!(
            "environments:\n  default:\n    values:\n    - v.yaml.gotmpl\n---\n{}",
            release("")
        ),
        &[],
    );
}

#[test]
fn templates_see_no_variable_of_the_sidecar() {
    let sc = Sidecar::new("variables");
    let names = [
        "VAULT_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_ACCESS_KEY_ID",
        "GITHUB_TOKEN",
        "SOPS_AGE_KEY_FILE",
        "HOME",
        "HELM_CONFIG_HOME",
        "HELMFILE_CACHE_HOME",
    ];
    for name in names {
        for n in [name.to_string(), name.to_ascii_lowercase()] {
            let release = |v: &str| {
                format!("releases:\n- name: r\n  chart: ./chart\n  values:\n  - x: {v}\n")
            };
            for v in [
                format!("{{{{ env \"{n}\" | quote }}}}"),
                format!("{{{{ expandenv \"${n} ${{{n}}}\" | quote }}}}"),
                format!("{{{{ fetchSecretValue \"ref+envsubst://${n}\" | quote }}}}"),
                format!("{{{{ requiredEnv \"{n}\" | quote }}}}"),
                format!("{{{{ readFile (env \"{n}\") | quote }}}}"),
            ] {
                sc.attack(&v, &release(&v), &[]);
            }
        }
    }
    // The application's own variables and Argo CD's reach the templates.
    let out = sc.attack(
        "own variables",
        "releases:\n- name: r\n  chart: ./chart\n  values:\n  - region: {{ env \"REGION\" }}\n    app: {{ env \"ARGOCD_APP_NAME\" }}\n",
        &[("ARGOCD_ENV_REGION", "eu-west")],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && stdout.contains("eu-west")
            && stdout.contains("\\\"app\\\":\\\"a\\\""),
        "{}",
        output_text(&out)
    );
}

#[test]
fn an_application_cannot_set_what_programs_read() {
    let sc = Sidecar::new("appenv");
    let pwn = sc.dir.join("pwned").display().to_string();
    let url = format!("http://127.0.0.1:{}", sc.internal.port);
    let attacks: Vec<(&str, String)> = vec![
        ("GIT_CONFIG_COUNT", "1".into()),
        ("GIT_CONFIG_KEY_0", "core.fsmonitor".into()),
        ("GIT_CONFIG_VALUE_0", format!("touch {pwn}")),
        ("GIT_SSH_COMMAND", format!("touch {pwn}")),
        ("AWS_ENDPOINT_URL", url.clone()),
        ("AWS_ENDPOINT_URL_S3", url.clone()),
        ("VAULT_ADDR", url.clone()),
        ("VAULT_TOKEN", "x".into()),
        ("AWS_PROFILE", "x".into()),
        ("AWS_CONFIG_FILE", "/proc/self/environ".into()),
        ("SOPS_AGE_KEY_FILE", "/proc/self/environ".into()),
        ("GNUPGHOME", "/tmp".into()),
        ("SSL_CERT_FILE", "/proc/self/environ".into()),
        ("HTTPS_PROXY", url.clone()),
        ("HTTP_PROXY", url.clone()),
        ("ALL_PROXY", url.clone()),
        ("NO_PROXY", "*".into()),
        ("DOCKER_CONFIG", "/tmp".into()),
        ("LD_PRELOAD", "/tmp/x.so".into()),
        ("PATH", "/tmp".into()),
        ("HOME", "/tmp".into()),
        ("TMPDIR", "/".into()),
        ("KUBECONFIG", "/proc/self/environ".into()),
        ("HELM_PLUGINS", "/tmp".into()),
        ("HELMFILE_CACHE_HOME", "/tmp".into()),
        ("CAPSTAN_UNTRUSTED", "false".into()),
        ("CAPSTAN_ARGOCD_TRUSTED", "true".into()),
        ("CAPSTAN_UNTRUSTED_VALUES_HOSTS", "127.0.0.1".into()),
        ("HELMFILE_DISABLE_INSECURE_FEATURES", "false".into()),
        ("LANG", "C".into()),
        ("TZDIR", "/proc".into()),
    ];
    let state = format!(
        "releases:\n- name: r\n  chart: ./chart\n  values:\n  - {url}/v.yaml\n  - git::{url}/repo.git@v.yaml\n"
    );
    for (name, value) in &attacks {
        let mixed: String = name
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_lowercase()
                } else {
                    c
                }
            })
            .collect();
        for n in [name.to_string(), name.to_ascii_lowercase(), mixed] {
            let var = format!("ARGOCD_ENV_{n}");
            let out = sc.attack(&var, &state, &[(&var, value)]);
            assert!(!out.status.success(), "{var}: {}", output_text(&out));
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(&n),
                "{var}: {}",
                output_text(&out)
            );
        }
    }
}

#[test]
fn a_tenant_reaches_no_internal_host_and_no_secret_store() {
    let sc = Sidecar::new("remote");
    let port = sc.internal.port;
    let hosts = [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("127.1:{port}"),
        format!("2130706433:{port}"),
        format!("0x7f000001:{port}"),
        format!("[::ffff:127.0.0.1]:{port}"),
        format!("LOCALHOST.:{port}"),
        "169.254.169.254".to_string(),
        "[fd00:ec2::254]".to_string(),
        "100.100.100.200".to_string(),
    ];
    let key_file = sc.dir.join("keys/age.txt").display().to_string();
    let release = |body: &str| format!("releases:\n- name: r\n  chart: ./chart\n{body}");
    let mut states = Vec::new();
    for h in &hosts {
        for src in [
            format!("http://{h}/v.yaml"),
            format!("https://{h}/v.yaml"),
            format!("git::http://{h}/repo.git@v.yaml?ref=main"),
            format!("s3::http://{h}/bucket/v.yaml"),
            format!("http://user:{MARK}pw@{h}/v.yaml"),
        ] {
            states.push(release(&format!("  values:\n  - {src}\n")));
            states.push(format!(
                "environments:\n  default:\n    values:\n    - {src}\n---\n{}",
                release("")
            ));
        }
        states.push(format!(
            "repositories:\n- name: r\n  url: http://{h}\n{}",
            "releases:\n- name: x\n  chart: r/c\n"
        ));
        states.push(format!(
            "repositories:\n- name: r\n  url: http://{h}\n  username: u\n  password: p\n{}",
            "releases:\n- name: x\n  chart: r/c\n  version: 1.0.0\n"
        ));
        states.push(release(
            &format!("  chart: oci://{h}/charts/c\n  version: 1.0.0\n")
                .replace("  chart: ./chart\n", ""),
        ));
        states.push(release(&format!(
            "  values:\n  - x: {{{{ fetchSecretValue \"ref+vault://secret/app?address=http://{h}#/k\" }}}}\n"
        )));
        states.push(release(&format!(
            "  values:\n  - x: {{{{ getHostByName \"{}\" | quote }}}}\n",
            h.rsplit_once(':')
                .map_or(h.as_str(), |(n, _)| n)
                .trim_matches(['[', ']'])
        )));
    }
    for r in [
        "ref+vault://secret/app#/k".to_string(),
        "ref+vault://auth/token/lookup-self#/id".to_string(),
        "ref+vault://sys/mounts#/x".to_string(),
        format!("ref+vault://secret/app?token_file={key_file}#/k"),
        "ref+vault://secret/app?token_env=GITHUB_TOKEN#/k".to_string(),
        "ref+vault://secret/app?auth_method=approle&role_id=x&secret_id=y#/k".to_string(),
        "ref+awsssm://app/x".to_string(),
        format!("ref+awsssm://app/x?region=127.0.0.1:{port}%23"),
        "ref+awssecrets://app/creds#/user".to_string(),
    ] {
        states.push(release(&format!(
            "  values:\n  - x: {{{{ fetchSecretValue \"{r}\" | quote }}}}\n"
        )));
        states.push(release(&format!("  values:\n  - x: {r}\n")));
        states.push(release(&format!("  set:\n  - name: x\n    value: {r}\n")));
    }
    assert!(states.len() > 100);
    for (i, s) in states.iter().enumerate() {
        sc.attack(&format!("remote {i}"), s, &[]);
    }
}

#[test]
fn the_administrator_allows_hosts_and_nothing_more() {
    let sc = Sidecar::new("allowed");
    let port = sc.internal.port;
    // Values from an allow-listed internal host load; another port of it, or another
    // name for it, does not.
    let state = format!(
        "releases:\n- name: r\n  chart: ./chart\n  values:\n  - http://127.0.0.1:{port}/v.yaml\n"
    );
    std::fs::write(sc.app().join("helmfile.yaml.gotmpl"), &state).expect("state");
    let hits = sc.internal.hits();
    let allowed = format!("127.0.0.1:{port}");
    let out = sc.generate(&[("CAPSTAN_UNTRUSTED_VALUES_HOSTS", &allowed)]);
    assert!(out.status.success(), "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("-internal-/v.yaml"),
        "{}",
        output_text(&out)
    );
    assert_eq!(sc.internal.hits(), hits + 1);
    for other in [
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "localhost".into(),
        "127.0.0.2".into(),
    ] {
        let out = sc.generate(&[("CAPSTAN_UNTRUSTED_VALUES_HOSTS", &other)]);
        assert!(!out.status.success(), "{other}: {}", output_text(&out));
        assert_eq!(sc.internal.hits(), hits + 1, "{other}");
    }
    // Turned off by the administrator alone: the sidecar's own variable.
    let out = sc.generate(&[("CAPSTAN_ARGOCD_TRUSTED", "true")]);
    assert!(out.status.success(), "{}", output_text(&out));
}

#[test]
fn a_run_is_bounded_and_leaves_no_process() {
    let sc = Sidecar::new("bounds");
    let pwn = sc.dir.join("pwned");
    // The deadline: the whole process group goes.
    let state = "releases:\n- name: r\n  chart: ./chart\n  values:\n  - x: {{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n";
    std::fs::write(sc.app().join("helmfile.yaml.gotmpl"), state).expect("state");
    let started = Instant::now();
    let out = sc.generate(&[("ARGOCD_EXEC_TIMEOUT", "2s")]);
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert!(
        !out.status.success() && out.stdout.is_empty(),
        "{}",
        output_text(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("deadline"),
        "{}",
        output_text(&out)
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        processes_in(&sc.app()).is_empty(),
        "left running: {:?}",
        processes_in(&sc.app())
    );
    // The output cap.
    let state =
        "releases:\n- name: r\n  chart: ./chart\n  values:\n  - x: {{ repeat 3000000 \"x\" }}\n";
    std::fs::write(sc.app().join("helmfile.yaml.gotmpl"), state).expect("state");
    let out = sc.generate(&[("CAPSTAN_UNTRUSTED_MAX_OUTPUT_MB", "1")]);
    assert!(
        !out.status.success() && out.stdout.is_empty(),
        "{}",
        output_text(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cap of 1 MiB"),
        "{}",
        output_text(&out)
    );
    // The memory cap.
    let state = "releases:\n- name: r\n  chart: ./chart\n  values:\n  - x: {{ $s := repeat 400000000 \"x\" }}{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}{{ len $s }}\n";
    std::fs::write(sc.app().join("helmfile.yaml.gotmpl"), state).expect("state");
    let out = sc.generate(&[("CAPSTAN_UNTRUSTED_MEMORY_MB", "200")]);
    assert!(!out.status.success(), "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("memory cap"),
        "{}",
        output_text(&out)
    );
    assert!(!pwn.exists());
    // The shared temporary directory holds nothing of these runs.
    let left: Vec<_> = std::fs::read_dir(sc.dir.join("tmp"))
        .expect("tmp")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The processes whose working directory is `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Ok(cwd) = std::fs::read_link(e.path().join("cwd")) {
            if cwd == dir {
                found.push(e.file_name().to_string_lossy().into_owned());
            }
        }
    }
    found
}

#[test]
fn secret_stores_are_the_administrators_with_the_sidecars_identity() {
    let mut sc = Sidecar::new("stores");
    // OpenBao (Vault's API) with a root token that is a secret of the sidecar.
    let root = format!("{MARK}-root-token");
    let (_bao, addr) = common::start_bao(&root, &["app", "k=from-the-store"]);
    // moto for AWS, at the address the sidecar's own configuration names.
    let (_moto, endpoint) = common::start_moto();
    let seeded = Command::new("python3")
        .arg("-c")
        .arg(format!("import boto3\nboto3.client('ssm', endpoint_url='{endpoint}', region_name='us-east-1', aws_access_key_id='AKIA{MARK}', aws_secret_access_key='{MARK}-aws-secret').put_parameter(Name='/app/x', Value='from-ssm', Type='String')\n"))
        .output()
        .expect("python3 with boto3");
    assert!(
        seeded.status.success(),
        "{}",
        String::from_utf8_lossy(&seeded.stderr)
    );
    for (k, v) in [
        ("VAULT_ADDR", addr.clone()),
        ("VAULT_TOKEN", root.clone()),
        ("AWS_ENDPOINT_URL", endpoint.clone()),
    ] {
        sc.env.retain(|(name, _)| name != k);
        sc.env.push((k.to_string(), v));
    }
    let release = |r: &str| {
        format!("releases:\n- name: r\n  chart: ./chart\n  values:\n  - x: {{{{ fetchSecretValue \"{r}\" | quote }}}}\n")
    };
    let allow = [("CAPSTAN_UNTRUSTED_SECRET_STORES", "vault,awsssm")];
    // Not allowed: nothing is asked of either store.
    for r in ["ref+vault://secret/app#/k", "ref+awsssm://app/x"] {
        let out = sc.attack(r, &release(r), &[]);
        assert!(!out.status.success(), "{r}: {}", output_text(&out));
    }
    // Allowed: the store the sidecar names, with its identity.
    for (r, want) in [
        ("ref+vault://secret/app#/k", "from-the-store"),
        ("ref+awsssm://app/x", "from-ssm"),
    ] {
        let out = sc.attack(r, &release(r), &allow);
        assert!(out.status.success(), "{r}: {}", output_text(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(want),
            "{r}: {}",
            output_text(&out)
        );
    }
    // Never the address, identity, region or an administrative path of the tenant's choosing.
    let key_file = sc.dir.join("keys/age.txt").display().to_string();
    for r in [
        "ref+vault://auth/token/lookup-self#/data/id".to_string(),
        "ref+vault://AUTH/token/lookup-self#/data/id".to_string(),
        "ref+vault:///auth/token/lookup-self#/data/id".to_string(),
        "ref+vault://sys/mounts#/data".to_string(),
        "ref+vault://cubbyhole/x#/k".to_string(),
        format!(
            "ref+vault://secret/app?address=http://127.0.0.1:{}#/k",
            sc.internal.port
        ),
        format!(
            "ref+vault://secret/app?proto=http&host=127.0.0.1:{}#/k",
            sc.internal.port
        ),
        format!("ref+vault://secret/app?token_file={key_file}#/k"),
        "ref+vault://secret/app?token_env=GITHUB_TOKEN#/k".to_string(),
        "ref+vault://secret/app?auth_method=approle&role_id=a&secret_id=b#/k".to_string(),
        "ref+vault://secret/app?namespace=admin#/k".to_string(),
        format!(
            "ref+awsssm://app/x?region=127.0.0.1:{}%23",
            sc.internal.port
        ),
        "ref+awsssm://app/x?profile=other".to_string(),
    ] {
        let out = sc.attack(&r, &release(&r), &allow);
        assert!(!out.status.success(), "{r}: {}", output_text(&out));
    }
}

#[test]
fn sops_files_decrypt_only_when_the_administrator_allows() {
    let mut sc = Sidecar::new("sops");
    let key = common::keygen(&sc.dir.join("keys"), "real.txt");
    common::encrypt(
        &sc.app(),
        "secrets.yaml",
        "password: own-secret\n",
        &key,
        &[],
    );
    let _ = std::fs::remove_file(sc.app().join("plain-secrets.yaml"));
    sc.env.retain(|(k, _)| k != "SOPS_AGE_KEY_FILE");
    sc.env
        .push(("SOPS_AGE_KEY_FILE".into(), key.file.display().to_string()));
    let state = "releases:\n- name: r\n  chart: ./chart\n  secrets:\n  - secrets.yaml\n";
    let out = sc.attack("sops off", state, &[]);
    assert!(!out.status.success(), "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("CAPSTAN_UNTRUSTED_SOPS"),
        "{}",
        output_text(&out)
    );
    let out = sc.attack("sops on", state, &[("CAPSTAN_UNTRUSTED_SOPS", "true")]);
    assert!(out.status.success(), "{}", output_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("own-secret"),
        "{}",
        output_text(&out)
    );
    // The key file itself stays out of reach.
    let q = key.file.display().to_string();
    let out = sc.attack(
        "the key file",
        &format!("releases:\n- name: r\n  chart: ./chart\n  values:\n  - k: {{{{ readFile \"{q}\" | quote }}}}\n"),
        &[("CAPSTAN_UNTRUSTED_SOPS", "true")],
    );
    assert!(
        !out.status.success() && !output_text(&out).contains("AGE-SECRET-KEY"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn the_shipped_plugin_is_untrusted_by_default() {
    let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/argocd");
    let read = |name: &str| {
        let text = std::fs::read_to_string(deploy.join(name)).expect(name);
        capstan_yaml::decode_helmfile_value(&text).expect("YAML")
    };
    let plugin = read("plugin.yaml");
    let generate = plugin
        .get("spec")
        .and_then(|s| s.get("generate"))
        .and_then(|g| g.get("command"))
        .expect("spec.generate.command");
    assert_eq!(generate.to_string(), "[capstan argocd generate]");
    // The sidecar as shipped sets nothing that widens or turns off untrusted mode.
    let patch = read("repo-server-patch.yaml");
    let containers = patch
        .get("spec")
        .and_then(|s| s.get("template"))
        .and_then(|t| t.get("spec"))
        .and_then(|s| s.get("containers"))
        .expect("containers");
    for c in containers.as_list().expect("a list").items.iter() {
        for e in c
            .get("env")
            .and_then(|e| e.as_list().map(|l| l.items.clone()))
            .unwrap_or_default()
        {
            let name = e.get("name").map(|n| n.to_string()).unwrap_or_default();
            assert!(
                !name.starts_with("CAPSTAN_"),
                "the shipped sidecar sets {name}"
            );
        }
    }
}
