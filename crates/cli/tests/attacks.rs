//! Attacks on capstan as a deployment tool handling other people's values, charts and
//! servers (issue 11): each test builds the hostile input itself and checks that capstan
//! refuses it or handles it as helm/helmfile do, without writing outside the folder the
//! user named, leaking a secret or crashing.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::tempdir;

fn capstan(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (String, String, i32) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_capstan"));
    c.env("HELMFILE_CACHE_HOME", dir.join("cache"));
    run_in(c, dir, args, env)
}

/// Runs `c` (capstan, prepared) in `dir` with `args` and `env`: stdout, stderr, exit code.
fn run_in(
    mut c: Command,
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (String, String, i32) {
    c.args(args).current_dir(dir);
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

/// The names in `dir` (none when it cannot be read).
fn names_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
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

/// Output folders holding symbolic links (a checked-out repository may carry them):
/// `template --output-dir`, `write-values`, `fetch` and `create` never write through a
/// link that leads out of the folder the user named, at any depth, and write nothing
/// when one does.
#[test]
fn output_folders_are_never_left_through_links() {
    let top = tempdir("output-links");
    // The project, and a folder beside it (not below it).
    let dir = top.join("project");
    let outside = top.join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    std::fs::create_dir_all(&dir).expect("project");
    chart(&dir, "kind: ConfigMap\ndata:\n  v: x\n");
    write(
        &dir,
        &[(
            "helmfile.yaml",
            "releases:\n- name: r\n  chart: ./chart\n".to_string(),
        )],
    );
    // Where each command writes, below its folder: the parts a link may replace.
    let commands: Vec<(Vec<&str>, &str, Vec<&str>)> = vec![
        (
            vec!["template", "--output-dir", "out"],
            "out",
            vec!["helmfile-", "c", "templates"],
        ),
        (
            vec![
                "write-values",
                "--output-file-template",
                "out/{{ .Release.Name }}/values.yaml",
            ],
            "out",
            vec!["r"],
        ),
        (
            vec!["fetch", "--output-dir", "out"],
            "out",
            vec!["r", "chart", "latest"],
        ),
        (vec!["create", "out"], "out", vec!["environments"]),
        (vec!["create", "out"], "out", vec!["values"]),
    ];
    let mut variants = 0;
    for (args, folder, parts) in &commands {
        // A first run shows the real names (the template's folder has a hash in it).
        let _ = std::fs::remove_dir_all(dir.join(folder));
        let (_, err, code) = capstan(&dir, args, &[]);
        assert_eq!(code, 0, "{args:?}: {err}");
        let mut chain = vec![dir.join(folder)];
        for part in parts {
            let here = chain.last().expect("a folder").clone();
            let found = std::fs::read_dir(&here)
                .expect("written")
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(part))
                        && p.is_dir()
                })
                .unwrap_or_else(|| panic!("{args:?}: no {part} in {}", here.display()));
            chain.push(found);
        }
        for depth in 1..chain.len() {
            for target in [
                outside.clone(),
                PathBuf::from("/tmp/../tmp/capstan-nowhere"),
                dir.join("outside/../outside"),
            ] {
                let _ = std::fs::remove_dir_all(dir.join(folder));
                for d in &chain[..depth] {
                    std::fs::create_dir_all(d).expect("folder");
                }
                std::os::unix::fs::symlink(&target, &chain[depth]).expect("link");
                let before = files_under(&outside);
                let (_, err, code) = capstan(&dir, args, &[]);
                // fetch leaves an existing chart folder alone (as helmfile does).
                if !(code == 0 && err.contains("already exists")) {
                    assert_ne!(
                        code,
                        0,
                        "{args:?} with {} -> {}",
                        chain[depth].display(),
                        target.display()
                    );
                    assert!(err.contains("symbolic link"), "{args:?}: {err}");
                }
                assert_eq!(files_under(&outside), before, "{args:?} wrote outside");
                assert!(!Path::new("/tmp/capstan-nowhere").exists());
                variants += 1;
            }
        }
    }
    assert!(variants >= 20, "{variants}");
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
                err.contains("HELMFILE_DISABLE_INSECURE_FEATURES or HELMFILE_DISABLE_INSECURE_TEMPLATE_FUNCTIONS is active, insecure function calls are disabled"),
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
            names_in(&tmp)
                .into_iter()
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

/// Class 4: output too big to hold in memory waits in a private file until every release
/// has rendered; it is printed whole (the same bytes as each release rendered alone, in
/// the state's order), or not at all when a release fails, and the file never stays.
#[test]
fn big_output_is_printed_whole_or_not_at_all() {
    let dir = tempdir("big-output");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    // 24 releases of 1 MB each: past the 16 MB capstan keeps in memory.
    chart(
        &dir,
        "{{ if .Values.fail }}{{ fail \"boom\" }}{{ end }}kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  blob: {{ repeat 1048576 (.Release.Name | trunc 1) | quote }}\n",
    );
    write(
        &dir,
        &[
            (
                "helmfile.yaml.gotmpl",
                "releases:\n{{ range $i := until 24 }}- name: r{{ $i }}\n  chart: ./chart\n  labels: {n: \"{{ $i }}\"}\n{{ end }}".to_string(),
            ),
            (
                "failing.yaml.gotmpl",
                "releases:\n{{ range $i := until 24 }}- name: r{{ $i }}\n  chart: ./chart\n  set: [{name: fail, value: {{ eq $i 23 }}}]\n{{ end }}".to_string(),
            ),
        ],
    );
    let env = [("TMPDIR", tmp.to_str().expect("utf-8"))];
    let private = || names_in(&tmp);
    let (out, err, code) = capstan(
        &dir,
        &["-f", "helmfile.yaml.gotmpl", "template", "-q"],
        &env,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.len() > 24 << 20, "{} bytes", out.len());
    let mut alone = String::new();
    for i in 0..24 {
        let sel = format!("n={i}");
        let (one, err, code) = capstan(
            &dir,
            &["-f", "helmfile.yaml.gotmpl", "-l", &sel, "template", "-q"],
            &env,
        );
        assert_eq!(code, 0, "{err}");
        alone.push_str(&one);
    }
    assert!(
        out == alone,
        "the spooled output differs from the releases rendered one by one"
    );
    assert!(private().is_empty(), "left {:?}", private());
    // The last release fails: nothing printed, nothing left.
    let (out, err, code) = capstan(&dir, &["-f", "failing.yaml.gotmpl", "template", "-q"], &env);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("boom"), "{err}");
    assert!(out.is_empty(), "{} bytes printed", out.len());
    assert!(private().is_empty(), "left {:?}", private());
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

/// Class 6: input nested or sized past what a default stack or a quadratic map can take.
/// Each case either renders as helm does or ends with helm's (or a clear) error, exit 1,
/// never an abort.
#[test]
fn deep_and_large_input_never_crashes() {
    let dir = tempdir("deep");
    let d = dir.as_path();
    let run_chart = |template: &str, extra: &[&str]| {
        chart(d, template);
        let mut args = vec!["chart", "template", "r", "chart"];
        args.extend_from_slice(extra);
        capstan(d, &args, &[])
    };
    let n = 100_000;
    // 100,000 nested `if`s and `with`s: Go renders them (its stack grows to 1 GiB).
    let nested_ifs = format!(
        "v: {}x{}\n",
        "{{ if true }}".repeat(n),
        "{{ end }}".repeat(n)
    );
    let (out, err, code) = run_chart(&nested_ifs, &[]);
    assert_eq!((code, out.ends_with("v: x\n")), (0, true), "{err}");
    let else_ifs = format!(
        "v: {{{{ if false }}}}{}{{{{ else }}}}y{{{{ end }}}}\n",
        "{{ else if false }}".repeat(n)
    );
    let (out, err, code) = run_chart(&else_ifs, &[]);
    assert_eq!((code, out.ends_with("v: y\n")), (0, true), "{err}");
    // Parentheses: Go's parser allows 10,000 levels and refuses the next.
    let parens = |k: usize| format!("v: {{{{ {}1{} }}}}\n", "(".repeat(k), ")".repeat(k));
    let (out, err, code) = run_chart(&parens(10_000), &[]);
    assert_eq!((code, out.ends_with("v: 1\n")), (0, true), "{err}");
    let (_, err, code) = run_chart(&parens(10_001), &[]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with(
            "Error: parse error at (c/templates/cm.yaml:1): max expression depth exceeded"
        ),
        "{err}"
    );
    // Template recursion stops at Go's 100,000 calls; include recursion at Helm's 1,000
    // per name, with `tpl` in between not counted.
    let (_, err, code) = run_chart(
        r#"v: {{ define "t" }}{{ template "t" . }}{{ end }}{{ template "t" . }}"#,
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("exceeded maximum template depth (100000)"),
        "{err}"
    );
    let (_, err, code) = run_chart(
        r#"v: {{ define "r" }}{{ tpl "{{ include \"r\" . }}" . }}{{ end }}{{ include "r" . }}"#,
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "rendering template has a nested reference name: r: unable to execute template"
        ),
        "{err}"
    );
    assert_eq!(
        err.matches("error calling include").count(),
        1002,
        "Helm nests 1,001 includes"
    );
    // Values built by a template 1,500,000 levels deep (Go itself dies at about a million):
    // walked on fresh stacks.
    let deep = "{{ $x := list }}{{ range until 1500000 }}{{ $x = list $x }}{{ end }}";
    let (out, err, code) = run_chart(
        &format!(
            "v: {deep}{{{{ toJson $x | len }}}} {{{{ toYaml $x | len }}}} {{{{ printf \"%v\" (deepCopy $x) | len }}}} {{{{ eq (toString $x) (toString (deepCopy $x)) }}}}\n"
        ),
        &[],
    );
    // toYaml is empty past go-yaml's 10,000 levels, as in Helm.
    assert_eq!(
        (code, out.ends_with("v: 3000002 0 3000002 true\n")),
        (0, true),
        "{err}"
    );
    // --set index nesting: 9,999 levels are read back by toYaml, 10,000 are not (Helm).
    chart(d, "v: {{ toYaml .Values | len }}\n");
    for (k, empty) in [(9_999, false), (10_000, true)] {
        let set = format!("a{}=1", "[0]".repeat(k));
        let (out, err, code) = capstan(d, &["chart", "template", "r", "chart", "--set", &set], &[]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.ends_with("v: 0\n"), empty, "{k}: {out}");
    }
    // A YAML document nested past go-yaml's limit is its error.
    let flow = format!("a: {}{}\n", "[".repeat(10_001), "]".repeat(10_001));
    write(d, &[("deep.yaml", flow)]);
    let (_, err, code) = capstan(
        d,
        &["chart", "template", "r", "chart", "-f", "deep.yaml"],
        &[],
    );
    assert_eq!(code, 1);
    assert!(err.contains("exceeded max depth of 10000"), "{err}");
    // 80,000 keys in one values file, and one key repeated 80,000 times in a state
    // values file: linear work, bounded error text.
    let flat: String = (0..80_000).map(|i| format!("k{i}: v{i}\n")).collect();
    write(d, &[("flat.yaml", flat)]);
    chart(d, "v: {{ len .Values }}\n");
    let (out, err, code) = capstan(
        d,
        &["chart", "template", "r", "chart", "-f", "flat.yaml"],
        &[],
    );
    assert_eq!((code, out.ends_with("v: 80000\n")), (0, true), "{err}");
    let repeated: String = (0..80_000).map(|i| format!("k: v{i}\n")).collect();
    write(
        d,
        &[
            ("repeated.yaml", repeated),
            (
                "helmfile.yaml",
                "values:\n- flat.yaml\n- repeated.yaml\n---\nreleases:\n- name: r\n  chart: ./chart\n".into(),
            ),
        ],
    );
    let (_, err, code) = capstan(d, &["template"], &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("mapping key \"k\" already defined at line 1"),
        "{}",
        &err[..err.len().min(300)]
    );
    assert!(err.len() < 2_000_000, "the error text is bounded");
    // Sub-helmfiles that include themselves through `..` and a glob.
    let sub = tempdir("deep-sub");
    write(
        &sub,
        &[
            ("helmfile.yaml", "helmfiles:\n- a/helmfile.yaml\n".into()),
            (
                "a/helmfile.yaml",
                "helmfiles:\n- ../*/helmfile.yaml\n".into(),
            ),
        ],
    );
    let (_, err, code) = capstan(&sub, &["list"], &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("sub-helmfiles nest more than 64 deep"),
        "{err}"
    );
}

/// Class 8: go-yaml's and helmfile's errors where capstan used to accept or crash.
#[test]
fn fidelity_gaps_are_go_errors() {
    let dir = tempdir("fidelity");
    let d = dir.as_path();
    chart(d, "v: {{ .Values.a | quote }}\n");
    std::fs::write(d.join("bad.yaml"), b"a: \"x\xffy\"\n").expect("write");
    let (_, err, code) = capstan(
        d,
        &["chart", "template", "r", "chart", "-f", "bad.yaml"],
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.starts_with("Error: failed to parse bad.yaml: cannot unmarshal yaml document: error converting YAML to JSON: yaml: invalid leading UTF-8 octet"),
        "{err}"
    );
    std::fs::write(d.join("chart/values.yaml"), b"a: \"\xc3\"\n").expect("write");
    let (_, err, code) = capstan(d, &["chart", "template", "r", "chart"], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot load values.yaml: cannot unmarshal yaml document: error converting YAML to JSON: yaml: invalid trailing UTF-8 octet"), "{err}");
    std::fs::remove_file(d.join("chart/values.yaml")).expect("rm");
    // A chart file over Helm's 5 MiB limit.
    std::fs::write(d.join("chart/big.txt"), vec![b'a'; 5 * 1024 * 1024 + 1]).expect("write");
    let (_, err, code) = capstan(d, &["chart", "template", "r", "chart"], &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("chart file \"big.txt\" is larger than the maximum file size 5242880"),
        "{err}"
    );
    std::fs::remove_file(d.join("chart/big.txt")).expect("rm");
    // helmfile: environment values and state files.
    write(
        d,
        &[("hf.yaml", "values:\n- bad.yaml\n---\nreleases: []\n".into())],
    );
    let (_, err, code) = capstan(d, &["-f", "hf.yaml", "build"], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("failed to load environment values file \"bad.yaml\": yaml: invalid leading UTF-8 octet"), "{err}");
    std::fs::write(
        d.join("hf2.yaml"),
        b"releases:\n- name: x\xff\n  chart: ./chart\n",
    )
    .expect("write");
    let (_, err, code) = capstan(d, &["-f", "hf2.yaml", "list"], &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("failed to read hf2.yaml: reading document at index 1"),
        "{err}"
    );
    assert!(err.contains("yaml: invalid leading UTF-8 octet"), "{err}");
    // `helmfiles:` with no match: an error under the default handler, a warning under Warn.
    write(d, &[("hf3.yaml", "helmfiles:\n- nothing/*.yaml\n".into())]);
    let (_, err, code) = capstan(d, &["-f", "hf3.yaml", "list"], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("no matches for path: nothing/*.yaml"), "{err}");
    write(
        d,
        &[(
            "hf3.yaml",
            "missingFileHandler: Warn\nhelmfiles:\n- nothing/*.yaml\nreleases:\n- name: r\n  chart: ./chart\n".into(),
        )],
    );
    let (_, err, code) = capstan(d, &["-f", "hf3.yaml", "list"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no matches for path: nothing/*.yaml"), "{err}");
    // Thousands of nested parentheses in a state values template: Go's parse error.
    let parens = format!(
        "a: {{{{ {}1{} }}}}\n",
        "(".repeat(10_001),
        ")".repeat(10_001)
    );
    write(
        d,
        &[
            ("p.yaml.gotmpl", parens),
            (
                "hf4.yaml",
                "values:\n- p.yaml.gotmpl\n---\nreleases: []\n".into(),
            ),
        ],
    );
    let (_, err, code) = capstan(d, &["-f", "hf4.yaml", "build"], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("max expression depth exceeded"), "{err}");
}

/// Class 7: the environments real users have. `NO_COLOR` (any value), `CI=true`,
/// `TERM=dumb`, no terminal on any stream, and a home and cache directory that cannot be
/// written (here: paths through a regular file, unwritable even for root) change nothing
/// in what a local chart renders; a command that needs the cache says why it cannot.
#[test]
fn real_user_environments_work() {
    let dir = tempdir("environments");
    let d = dir.as_path();
    chart(
        d,
        "kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
    );
    write(
        d,
        &[
            (
                "helmfile.yaml",
                "releases:\n- name: r\n  chart: ./chart\n".into(),
            ),
            ("not-a-dir", "a file\n".into()),
        ],
    );
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_capstan"));
        c.env_remove("HELMFILE_CACHE_HOME")
            .env_remove("XDG_CACHE_HOME")
            .stdin(std::process::Stdio::null());
        run_in(c, d, args, env)
    };
    let unwritable = d.join("not-a-dir/home");
    let unwritable = unwritable.to_string_lossy().into_owned();
    let (plain, err, code) = run(&[("HOME", &unwritable)], &["template"]);
    assert_eq!(code, 0, "{err}");
    assert!(plain.contains("name: r"), "{plain}");
    for env in [
        vec![("NO_COLOR", "1")],
        vec![("NO_COLOR", "")],
        vec![("NO_COLOR", "false")],
        vec![("CI", "true")],
        vec![("TERM", "dumb")],
        vec![("XDG_CACHE_HOME", unwritable.as_str())],
        vec![("NO_COLOR", "1"), ("CI", "true"), ("TERM", "dumb")],
    ] {
        let mut all = env.clone();
        all.push(("HOME", &unwritable));
        for args in [
            &["template"][..],
            &["template", "--no-color"],
            &["--color", "template"],
        ] {
            let (out, err, code) = run(&all, args);
            assert_eq!((code, &out), (0, &plain), "{env:?} {args:?}: {err}");
            assert!(!err.contains('\u{1b}'), "{env:?}: escape codes in {err:?}");
        }
        let (out, err, code) = run(&all, &["list"]);
        assert_eq!(code, 0, "{env:?}: {err}");
        assert!(out.contains("r"), "{out}");
    }
    // A remote values file needs the cache: a clear error, not a panic.
    write(
        d,
        &[(
            "remote.yaml",
            "environments:\n  default:\n    values:\n    - http://127.0.0.1:9/values.yaml\n---\nreleases:\n- name: r\n  chart: ./chart\n".into(),
        )],
    );
    let (_, err, code) = run(&[("HOME", &unwritable)], &["-f", "remote.yaml", "template"]);
    assert_eq!(code, 1, "{err}");
    // helmfile's error: the state file named first, no `Error: ` prefix.
    assert!(
        err.starts_with("in ./remote.yaml: ") && !err.contains("panicked"),
        "{err}"
    );
    assert!(err.contains("not-a-dir"), "names the cache path: {err}");
}
