//! Attacks on capstan as a deployment tool handling other people's values, charts and
//! servers (issue 11): each test builds the hostile input itself and checks that capstan
//! refuses it or handles it as helm/helmfile do, without writing outside the folder the
//! user named, leaking a secret or crashing.

use std::path::Path;
use std::process::Command;

mod common;
use common::tempdir;

fn capstan(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (String, String, i32) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_capstan"));
    c.args(args)
        .current_dir(dir)
        .env("HELMFILE_CACHE_HOME", dir.join("cache"));
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run capstan");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn write(dir: &Path, files: &[(&str, String)]) {
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
}

fn chart(dir: &Path, template: &str) {
    write(
        dir,
        &[
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: c\nversion: 0.1.0\n".to_string(),
            ),
            ("chart/templates/cm.yaml", template.to_string()),
        ],
    );
}

/// Every file under `dir`, relative.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(dir) {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// Class 1: a value that renders a `# Source:` line cannot choose where `--output-dir`
/// writes (files are named from their template, as helm names them), and release names
/// are checked as helm checks them.
#[test]
fn output_paths_never_leave_the_output_directory() {
    let dir = tempdir("output-paths");
    let victim = dir.join("victim.yaml");
    let escape = format!("../../../../../../../../..{}", victim.display());
    chart(&dir, "kind: ConfigMap\ndata:\n  v: {{ .Values.evil }}\n");
    write(
        &dir,
        &[(
            "helmfile.yaml",
            format!(
                "releases:\n- name: r\n  chart: ./chart\n  values:\n  - evil: \"hi\\n---\\n# Source: {escape}\\nkind: Secret\"\n"
            ),
        )],
    );
    let (_, err, code) = capstan(&dir, &["template", "--output-dir", "out"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !victim.exists(),
        "a rendered value chose a path outside the output dir"
    );
    let written = files_under(&dir.join("out"));
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(written[0].ends_with("c/templates/cm.yaml"), "{written:?}");

    for name in ["../x", "Bad_Name", "a/b", "x-"] {
        write(
            &dir,
            &[(
                "names.yaml",
                format!("releases:\n- name: {name:?}\n  chart: ./chart\n"),
            )],
        );
        let (_, err, code) = capstan(
            &dir,
            &["-f", "names.yaml", "template", "--output-dir", "named"],
            &[],
        );
        assert_ne!(code, 0, "{name}");
        assert!(
            err.contains("invalid release name, must match regex"),
            "{name}: {err}"
        );
        assert!(!dir.join("named").exists());
        let (_, err, code) = capstan(&dir, &["chart", "template", name, "./chart"], &[]);
        assert_ne!(code, 0, "{name}");
        assert!(err.contains("release name check failed"), "{name}: {err}");
    }
    // write-values and fetch name their files from templates over the same data.
    write(
        &dir,
        &[(
            "climb.yaml",
            "releases:\n- name: ../../../climbed\n  chart: ./chart\n".to_string(),
        )],
    );
    let (_, err, code) = capstan(
        &dir,
        &[
            "-f",
            "climb.yaml",
            "write-values",
            "--output-file-template",
            "vals/{{ .Release.Name }}.yaml",
        ],
        &[],
    );
    assert_ne!(code, 0);
    assert!(err.contains("would leave the folder it names"), "{err}");
    assert!(!dir.join("../../climbed.yaml").exists() && !dir.join("vals").exists());
    let (_, err, code) = capstan(
        &dir,
        &["-f", "climb.yaml", "fetch", "--output-dir", "fetched"],
        &[],
    );
    assert_ne!(code, 0);
    assert!(err.contains("would leave the folder it names"), "{err}");
    // The user's own `..` in --output-dir is theirs to write.
    let (_, err, code) = capstan(
        &dir,
        &["template", "--output-dir", "../capstan-attack-sibling"],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let sibling = dir.join("../capstan-attack-sibling");
    assert!(sibling.is_dir());
    std::fs::remove_dir_all(sibling).ok();
    std::fs::remove_dir_all(&dir).ok();
}

/// Class 3: `HELMFILE_DISABLE_INSECURE_FEATURES=true` makes `exec`, `envExec`,
/// `readFile`, `readDir` and `readDirEntries` fail wherever helmfile renders templates
/// (state files, environment and release values `.gotmpl` files), and remote sources are
/// refused; `HELMFILE_SKIP_INSECURE_TEMPLATE_FUNCTIONS=true` makes them return nothing.
#[test]
fn insecure_feature_switches_cover_every_template() {
    let dir = tempdir("insecure");
    chart(
        &dir,
        "kind: ConfigMap\ndata:\n  v: {{ .Values.v | quote }}\n",
    );
    let calls = [
        r#"{{ exec "touch" (list "pwned") }}"#,
        r#"{{ envExec (dict "A" "b") "touch" (list "pwned") }}"#,
        r#"{{ readFile "secret.txt" }}"#,
        r#"{{ readDir "." | len }}"#,
        r#"{{ readDirEntries "." | len }}"#,
    ];
    write(&dir, &[("secret.txt", "top-secret".to_string())]);
    for (i, call) in calls.iter().enumerate() {
        let places = [
            // The state file itself.
            (
                "helmfile.yaml.gotmpl".to_string(),
                format!("releases:\n- name: r\n  chart: ./chart\n  values:\n  - v: '{call}'\n"),
                String::new(),
            ),
            // An environment values template.
            (
                "helmfile.yaml.gotmpl".to_string(),
                "environments:\n  default:\n    values:\n    - env.yaml.gotmpl\n---\nreleases:\n- name: r\n  chart: ./chart\n".to_string(),
                format!("v: '{call}'\n"),
            ),
            // A release values template.
            (
                "helmfile.yaml".to_string(),
                "releases:\n- name: r\n  chart: ./chart\n  values:\n  - env.yaml.gotmpl\n".to_string(),
                format!("v: '{call}'\n"),
            ),
        ];
        for (file, state, values) in places {
            let _ = std::fs::remove_file(dir.join("helmfile.yaml"));
            let _ = std::fs::remove_file(dir.join("helmfile.yaml.gotmpl"));
            write(
                &dir,
                &[
                    (file.as_str(), state.clone()),
                    ("env.yaml.gotmpl", values.clone()),
                ],
            );
            let (out, err, code) = capstan(
                &dir,
                &["template", "-q"],
                &[("HELMFILE_DISABLE_INSECURE_FEATURES", "true")],
            );
            assert_ne!(code, 0, "call {i} in {file} ran: {out}");
            assert!(
                err.contains("HELMFILE_DISABLE_INSECURE_FEATURES is active, insecure function calls are disabled"),
                "call {i} in {file}: {err}"
            );
            assert!(!out.contains("top-secret") && !err.contains("top-secret"));
            assert!(
                !dir.join("pwned").exists(),
                "call {i} in {file} ran a command"
            );
            let (out, err, code) = capstan(
                &dir,
                &["template", "-q"],
                &[("HELMFILE_SKIP_INSECURE_TEMPLATE_FUNCTIONS", "true")],
            );
            assert_eq!(code, 0, "call {i} in {file}: {err}");
            assert!(!out.contains("top-secret"), "{out}");
            assert!(
                !dir.join("pwned").exists(),
                "call {i} in {file} ran a command"
            );
        }
    }
    write(
        &dir,
        &[(
            "helmfile.yaml",
            "environments:\n  default:\n    values:\n    - https://example.invalid/values.yaml\n"
                .to_string(),
        )],
    );
    let _ = std::fs::remove_file(dir.join("helmfile.yaml.gotmpl"));
    let (_, err, code) = capstan(
        &dir,
        &["print-env"],
        &[("HELMFILE_DISABLE_INSECURE_FEATURES", "true")],
    );
    assert_ne!(code, 0);
    assert!(err.contains("remote sources are disabled"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Class 4: SIGTERM and SIGHUP, like SIGINT, remove the private directories holding a
/// release's values for helm (here while a slow helm runs).
#[test]
fn signals_remove_private_files() {
    let dir = tempdir("signals");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let helm = dir.join("slow-helm");
    write(&dir, &[("slow-helm", "#!/bin/sh\nsleep 30\n".to_string())]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&helm, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    write(
        &dir,
        &[(
            "helmfile.yaml",
            "releases:\n- name: r\n  chart: somerepo/remote-chart\n  values:\n  - password: hunter2\n".to_string(),
        )],
    );
    for signal in ["TERM", "HUP", "INT"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_capstan"))
            .args(["-b", &helm.to_string_lossy(), "template", "-q"])
            .current_dir(&dir)
            .env("TMPDIR", &tmp)
            .env("HELMFILE_CACHE_HOME", dir.join("cache"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("capstan");
        let private = || -> Vec<String> {
            std::fs::read_dir(&tmp)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("capstan-"))
                .collect()
        };
        let mut seen = false;
        for _ in 0..200 {
            if !private().is_empty() {
                seen = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        assert!(seen, "no private directory while helm runs");
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let exit = child.wait().expect("wait");
        assert!(!exit.success(), "{signal}");
        assert!(private().is_empty(), "{signal} left {:?}", private());
    }
    let _ = Command::new("pkill")
        .args(["-f", &helm.to_string_lossy()])
        .status();
    std::fs::remove_dir_all(&dir).ok();
}

/// Class 4: `build --embed-values` embeds a secrets file as it is on disk (encrypted),
/// as helmfile does, never its decrypted values.
#[test]
fn embedded_secrets_stay_encrypted() {
    let dir = tempdir("embed");
    let key = common::keygen(&dir, "key.txt");
    common::encrypt(&dir, "secrets.yaml", "password: hunter2\n", &key, &[]);
    chart(&dir, "kind: ConfigMap\n");
    write(
        &dir,
        &[
            ("values.yaml", "plain: value\n".to_string()),
            (
                "helmfile.yaml",
                "releases:\n- name: r\n  chart: ./chart\n  values:\n  - values.yaml\n  secrets:\n  - secrets.yaml\n".to_string(),
            ),
        ],
    );
    let key_file = key.file.to_string_lossy().into_owned();
    let (out, err, code) = capstan(
        &dir,
        &["build", "--embed-values"],
        &[("SOPS_AGE_KEY_FILE", key_file.as_str())],
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("plain: value"), "{out}");
    assert!(out.contains("password: ENC["), "{out}");
    assert!(
        !out.contains("hunter2") && !err.contains("hunter2"),
        "{out}"
    );
}
