//! Security round 2 (issue 28): each test builds the attack itself, in many variants,
//! and checks the promise in SECURITY.md it attacks: output that cannot be written is a
//! failure, nothing holding rendered output or secrets stays behind, secrets are not
//! printed, hostile values and schemas end in an error instead of a crash.
//!
//! Why one file of over 1,000 lines: each test is one attack class with its own
//! generator, independent of the others; they share the chart and helpers above, and
//! each integration test file is a binary that links all of capstan (tens of seconds each
//! on CI's two cores).

use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::{tempdir, write_files};

const CHART: &[(&str, &str)] = &[
    ("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n"),
    (
        "chart/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n{{- range until (int .Values.lines) }}\n  k{{ . }}: {{ $.Values.filler | quote }}\n{{- end }}\n",
    ),
    ("chart/values.yaml", "lines: 3\nfiller: x\n"),
];

/// A helmfile with `releases` releases of the chart, each printing `lines` lines.
fn project(name: &str, releases: usize, lines: usize) -> common::TempDir {
    let d = tempdir(name);
    write_files(&d, CHART.iter().copied());
    let mut state = String::from("releases:\n");
    for i in 0..releases {
        state.push_str(&format!(
            "- name: r{i}\n  chart: ./chart\n  set:\n  - name: lines\n    value: {lines}\n  - name: filler\n    value: {}\n",
            "f".repeat(60)
        ));
    }
    std::fs::write(d.join("helmfile.yaml"), state).expect("state");
    d
}

fn capstan(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_capstan"));
    c.current_dir(dir)
        .env("HELMFILE_CACHE_HOME", dir.join(".cache"))
        .env("TMPDIR", dir.join("tmp"))
        .env("NO_COLOR", "1");
    for (k, _) in std::env::vars() {
        if k.starts_with("HELMFILE_") && k != "HELMFILE_CACHE_HOME" {
            c.env_remove(k);
        }
    }
    c
}

/// What is left in the test's TMPDIR.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("tmp"))
        .map(|r| {
            r.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Item 6: a write to standard output that fails (a full disk: `/dev/full`) is a
/// failure with a message, for small output (written at the end), big output (spilled
/// to a private file first) and every command that prints.
#[test]
fn output_that_cannot_be_written_fails_the_run() {
    for (releases, lines) in [(1, 3), (3, 50), (2, 150_000)] {
        let d = project(&format!("full-{releases}-{lines}"), releases, lines);
        std::fs::create_dir_all(d.join("tmp")).expect("tmp");
        for args in [
            &["template"][..],
            &["build"],
            &["list"],
            &["values"],
            &["chart", "template", "x", "./chart"],
        ] {
            if lines > 1000 && args != ["template"] {
                continue;
            }
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full");
            let out = capstan(&d)
                .args(args)
                .stdout(Stdio::from(full))
                .output()
                .expect("run");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_ne!(out.status.code(), Some(0), "{args:?} {lines}: {err}");
            assert!(
                err.contains("writing to standard output") && err.contains("No space left"),
                "{args:?} {lines}: {err}"
            );
            assert_eq!(leftovers(&d), Vec::<String>::new(), "{args:?}");
        }
    }
}

/// Item 7: when spilling big output to TMPDIR fails part way (the file size limit
/// here, as a full disk would), the run fails and no file holding rendered output stays
/// in TMPDIR; a missing TMPDIR is a clean failure too.
#[test]
fn a_failed_spill_leaves_nothing_behind() {
    let d = project("spill", 2, 150_000);
    std::fs::create_dir_all(d.join("tmp")).expect("tmp");
    let bin = env!("CARGO_BIN_EXE_capstan");
    for limit_kib in [1, 64, 4096, 20_000] {
        // `sh` ignores SIGXFSZ (ignored signals stay ignored across exec) and sets the
        // file size limit, then runs capstan: the spill's writes fail with EFBIG.
        let out = Command::new("sh")
            .current_dir(d.as_path())
            .env("CAPSTAN", bin)
            .env("HELMFILE_CACHE_HOME", d.join(".cache"))
            .env("TMPDIR", d.join("tmp"))
            .args([
                "-c",
                &format!("trap '' XFSZ; ulimit -f {limit_kib}; exec \"$CAPSTAN\" template"),
            ])
            .output()
            .expect("sh");
        let err = String::from_utf8_lossy(&out.stderr);
        let printed = out.stdout.len();
        // Either the spill fit under the limit (all printed), or the run failed.
        if out.status.success() {
            assert!(printed > 16 << 20, "{limit_kib}: {printed} bytes, {err}");
        } else {
            assert_eq!(printed, 0, "{limit_kib}: half an output printed");
            assert!(err.contains("File too large"), "{limit_kib}: {err}");
        }
        assert_eq!(leftovers(&d), Vec::<String>::new(), "{limit_kib}");
    }
    let gone = capstan(&d)
        .env("TMPDIR", d.join("no-such-dir"))
        .arg("template")
        .output()
        .expect("run");
    assert!(!gone.status.success());
    assert!(gone.stdout.is_empty());
}

/// Low item: an answer that is not a file (a 300, a 304, a redirect without
/// `Location`, any other 3xx or 1xx-like status) is an error naming the status, never
/// cached as the values file, for every status a server can send.
#[test]
fn an_answer_that_is_not_a_file_is_never_cached() {
    let d = tempdir("not-a-file");
    for status in [
        "300 Multiple Choices",
        "301 Moved Permanently",
        "302 Found",
        "303 See Other",
        "304 Not Modified",
        "305 Use Proxy",
        "306 Unused",
        "307 Temporary Redirect",
        "308 Permanent Redirect",
        "399 Whatever",
    ] {
        let port = common::serve(move |_| {
            move |_: &str, _: &str| -> common::Reply {
                (status, String::new(), b"poisoned: true\n".to_vec())
            }
        });
        std::fs::write(
            d.join("helmfile.yaml"),
            format!(
                "environments:\n  default:\n    values:\n    - http://127.0.0.1:{port}/values.yaml\n---\nreleases: []\n"
            ),
        )
        .expect("state");
        for round in 0..2 {
            let out = capstan(&d).arg("print-env").output().expect("run");
            let text = common::output_text(&out);
            assert!(!out.status.success(), "{status} (run {round}): {text}");
            assert!(!text.contains("poisoned"), "{status}: {text}");
            let code = &status[..3];
            assert!(text.contains(code), "{status}: {text}");
        }
    }
}

/// Schemas that refer to themselves, generated: `$ref` chains of every length closing
/// on themselves, wrapped in `allOf`/`anyOf`/`oneOf`/`not`/`properties`/`items` at
/// several depths, and references that double the work at each level.
fn cyclic_schemas() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let wrap = |w: &str, inner: String| match w {
        "allOf" | "anyOf" => format!("{{\"{w}\":[{inner}]}}"),
        "oneOf" => format!("{{\"oneOf\":[{inner},{{\"type\":\"string\"}}]}}"),
        "not" => format!("{{\"not\":{inner}}}"),
        "properties" => format!("{{\"properties\":{{\"a\":{inner}}}}}"),
        "items" => format!("{{\"properties\":{{\"l\":{{\"items\":{inner}}}}}}}"),
        _ => inner,
    };
    for n in 1..=5 {
        for w in [
            "ref",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "properties",
            "items",
        ] {
            // definitions d0 -> d1 -> ... -> d(n-1) -> d0, entered through wrapper w.
            let defs: Vec<String> = (0..n)
                .map(|i| {
                    let next = format!("{{\"$ref\":\"#/definitions/d{}\"}}", (i + 1) % n);
                    format!("\"d{i}\":{}", wrap(w, next))
                })
                .collect();
            let schema = format!(
                "{{\"definitions\":{{{}}},\"$ref\":\"#/definitions/d0\"}}",
                defs.join(",")
            );
            out.push((format!("chain-{n}-{w}"), schema));
        }
        out.push((
            format!("root-{n}"),
            format!(
                "{}{{\"$ref\":\"#\"}}{}",
                "{\"allOf\":[".repeat(n),
                "]}".repeat(n)
            ),
        ));
    }
    // Each level refers to the next twice: 2^depth evaluations without a bound.
    for depth in [20usize, 40, 64] {
        let defs: Vec<String> = (0..depth)
            .map(|i| {
                let next = if i + 1 == depth {
                    "{\"type\":\"object\"}".to_string()
                } else {
                    format!(
                        "{{\"allOf\":[{{\"$ref\":\"#/definitions/d{0}\"}},{{\"$ref\":\"#/definitions/d{0}\"}}]}}",
                        i + 1
                    )
                };
                format!("\"d{i}\":{next}")
            })
            .collect();
        out.push((
            format!("doubling-{depth}"),
            format!(
                "{{\"definitions\":{{{}}},\"$ref\":\"#/definitions/d0\"}}",
                defs.join(",")
            ),
        ));
    }
    out
}

/// Item 2: a `$ref` cycle in `values.schema.json` is reported as Helm reports it
/// (`both /$ref and  resolve to "file:///values.schema.json#" causing reference cycle`)
/// or passes where Helm lets it pass (`not`, a `oneOf` another branch meets); it never
/// aborts, in `chart template`, `template` and `values`.
#[test]
fn schema_reference_cycles_end_in_a_report() {
    let d = tempdir("schema-cycles");
    write_files(&d, CHART.iter().copied());
    std::fs::write(
        d.join("chart/values.yaml"),
        "lines: 1\nfiller: x\na: 1\nl: [1]\n",
    )
    .expect("values");
    std::fs::write(
        d.join("helmfile.yaml"),
        "releases:\n- name: r\n  chart: ./chart\n",
    )
    .expect("state");
    for (name, schema) in cyclic_schemas() {
        std::fs::write(d.join("chart/values.schema.json"), &schema).expect("schema");
        for args in [
            &["chart", "template", "r", "./chart"][..],
            &["template"],
            &["values"],
        ] {
            if name.starts_with("doubling") && args[0] != "chart" {
                continue; // the same check, seconds each: once is enough
            }
            let out = capstan(&d).args(args).output().expect("run");
            let text = common::output_text(&out);
            let code = out.status.code();
            assert!(
                matches!(code, Some(0 | 1)),
                "{name} {args:?}: crashed: {text}"
            );
            if code == Some(1) {
                assert!(
                    text.contains("values don't meet the specifications of the schema"),
                    "{name} {args:?}: {text}"
                );
            }
        }
        // With the real helm at hand (scripts/test sets CAPSTAN_TEST_HELM): the same
        // report, or both pass. (The doubling schemas would run for ever in helm.)
        if let Ok(helm) = std::env::var("CAPSTAN_TEST_HELM") {
            if !name.starts_with("doubling") {
                let theirs = Command::new(helm)
                    .args(["template", "r", "./chart"])
                    .current_dir(d.as_path())
                    .output()
                    .expect("helm");
                let ours = capstan(&d)
                    .args(["chart", "template", "r", "./chart"])
                    .output()
                    .expect("run");
                assert_eq!(
                    String::from_utf8_lossy(&ours.stderr),
                    String::from_utf8_lossy(&theirs.stderr),
                    "{name}: {schema}"
                );
                assert_eq!(ours.status.success(), theirs.status.success(), "{name}");
            }
        }
        if name.starts_with("doubling-64") {
            let out = capstan(&d)
                .args(["chart", "template", "r", "./chart"])
                .output()
                .expect("run");
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("schema evaluation stopped"),
                "{name}"
            );
        }
    }
    // The shapes Helm v4.3.1 reports (`helm template r ./chart`, output checked by hand).
    for (schema, want) in [
        ("{\"$ref\": \"#\"}", "- at '': both /$ref and  resolve to \"file:///values.schema.json#\" causing reference cycle\n"),
        ("{\"allOf\":[{\"$ref\":\"#\"}]}", "- at '': 'allOf' failed\n  - at '': both /allOf/0/$ref and  resolve to \"file:///values.schema.json#\" causing reference cycle\n"),
        ("{\"definitions\":{\"a\":{\"$ref\":\"#/definitions/b\"},\"b\":{\"$ref\":\"#/definitions/a\"}},\"$ref\":\"#/definitions/a\"}", "- at '': both /$ref/$ref/$ref and /$ref resolve to \"file:///values.schema.json#/definitions/a\" causing reference cycle\n"),
    ] {
        std::fs::write(d.join("chart/values.schema.json"), schema).expect("schema");
        let out = capstan(&d).args(["chart", "template", "r", "./chart"]).output().expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("chart:\n{want}")), "{schema}: {err}");
    }
}

/// Item 2: the binary allows no core file (a crash would write decrypted secrets to
/// disk): seen in /proc while it waits for its state file on standard input.
#[test]
fn the_process_leaves_no_core_file() {
    let d = tempdir("no-core");
    for args in [
        &["-f", "-", "list"][..],
        &["-f", "-", "template"],
        &["-f", "-", "print-env"],
    ] {
        let mut child = capstan(&d)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let limits_path = format!("/proc/{}/limits", child.id());
        let mut limits = String::new();
        for _ in 0..200 {
            limits = std::fs::read_to_string(&limits_path).unwrap_or_default();
            let core = limits.lines().find(|l| l.starts_with("Max core file size"));
            if core.is_some_and(|l| l.split_whitespace().nth(5) == Some("0")) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        drop(child.stdin.take());
        let _ = child.wait_with_output();
        let core = limits
            .lines()
            .find(|l| l.starts_with("Max core file size"))
            .unwrap_or("");
        let fields: Vec<&str> = core.split_whitespace().collect();
        assert_eq!(fields.get(4..6), Some(&["0", "0"][..]), "{args:?}: {core}");
    }
}

/// Item 3: `HELMFILE_DISABLE_INSECURE_FEATURES` and
/// `HELMFILE_DISABLE_INSECURE_TEMPLATE_FUNCTIONS` make every insecure function fail
/// wherever a template runs (the state file, a values template, an environment values
/// template), in every value Go's ParseBool reads as true; nothing is executed or read.
#[test]
fn insecure_template_functions_can_be_switched_off() {
    let d = tempdir("insecure-off");
    write_files(&d, CHART.iter().copied());
    std::fs::write(d.join("secret.txt"), "s3cr3t-file").expect("secret");
    let calls = [
        ("exec", "{{ exec \"touch\" (list \"EXECUTED\") }}"),
        (
            "envExec",
            "{{ envExec (dict) \"touch\" (list \"EXECUTED\") }}",
        ),
        ("readFile", "{{ readFile \"secret.txt\" }}"),
        ("readDir", "{{ readDir \".\" | toJson }}"),
        ("readDirEntries", "{{ readDirEntries \".\" | toJson }}"),
    ];
    let places = |call: &str| -> Vec<(&'static str, Vec<(String, String)>)> {
        vec![
            (
                "state",
                vec![(
                    "helmfile.yaml.gotmpl".into(),
                    format!("releases:\n- name: r\n  chart: ./chart\n  labels:\n    x: '{call}'\n"),
                )],
            ),
            (
                "values",
                vec![
                    (
                        "helmfile.yaml.gotmpl".into(),
                        "releases:\n- name: r\n  chart: ./chart\n  values:\n  - v.yaml.gotmpl\n".into(),
                    ),
                    ("v.yaml.gotmpl".into(), format!("filler: '{call}'\n")),
                ],
            ),
            (
                "environment",
                vec![
                    (
                        "helmfile.yaml.gotmpl".into(),
                        "environments:\n  default:\n    values:\n    - e.yaml.gotmpl\n---\nreleases:\n- name: r\n  chart: ./chart\n".into(),
                    ),
                    ("e.yaml.gotmpl".into(), format!("x: '{call}'\n")),
                ],
            ),
        ]
    };
    for switch in [
        "HELMFILE_DISABLE_INSECURE_FEATURES",
        "HELMFILE_DISABLE_INSECURE_TEMPLATE_FUNCTIONS",
    ] {
        for truth in ["true", "1", "T", "TRUE", "True", "t"] {
            for (name, call) in calls {
                for (place, files) in places(call) {
                    let _ = std::fs::remove_file(d.join("helmfile.yaml.gotmpl"));
                    write_files(&d, files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
                    let out = capstan(&d)
                        .env(switch, truth)
                        .arg("template")
                        .output()
                        .expect("run");
                    let text = common::output_text(&out);
                    assert!(
                        !out.status.success(),
                        "{switch}={truth} {name} in {place}: {text}"
                    );
                    assert!(
                        text.contains("HELMFILE_DISABLE_INSECURE_FEATURES or HELMFILE_DISABLE_INSECURE_TEMPLATE_FUNCTIONS is active, insecure function calls are disabled"),
                        "{switch} {name} {place}: {text}"
                    );
                    assert!(!text.contains("s3cr3t-file"), "{name}: {text}");
                    assert!(!d.join("EXECUTED").exists(), "{switch} {name} {place}: ran");
                }
            }
        }
    }
    // Off (false, empty, anything ParseBool does not read as true): they work.
    for off in ["false", "0", "", "yes"] {
        write_files(
            &d,
            [(
                "helmfile.yaml.gotmpl",
                "releases:\n- name: r\n  chart: ./chart\n  labels:\n    x: '{{ readFile \"secret.txt\" }}'\n",
            )],
        );
        let out = capstan(&d)
            .env("HELMFILE_DISABLE_INSECURE_TEMPLATE_FUNCTIONS", off)
            .arg("list")
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{off:?}: {}",
            common::output_text(&out)
        );
    }
}

/// Item 3: `HELMFILE_DISABLE_HOOKS` stops every hook, for every event, in every command
/// (helm stood in by a script): the command fails naming the switch, and the hook's
/// command never runs.
#[test]
fn hooks_can_be_switched_off() {
    let d = tempdir("hooks-off");
    write_files(&d, CHART.iter().copied());
    let helm = common::executable(
        &d,
        "fake-helm",
        "#!/bin/sh\ncase \"$1\" in\n  version) echo v4.3.1+g0;;\n  list) printf 'NAME\\nr\\n';;\n  template) exit 0;;\nesac\nexit 0\n",
    );
    let helm = helm.to_string_lossy().into_owned();
    let events = [
        "prepare",
        "preapply",
        "presync",
        "postsync",
        "preuninstall",
        "postuninstall",
        "cleanup",
    ];
    let commands: [&[&str]; 7] = [
        &["template"],
        &["build"],
        &["lint"],
        &["sync"],
        &["apply"],
        &["destroy"],
        &["diff"],
    ];
    let mut stopped = 0;
    for event in events {
        for at_state in [false, true] {
            let hook = format!(
                "hooks:\n- events: [\"{event}\"]\n  command: touch\n  args: [\"HOOK-RAN\"]\n"
            );
            let state = if at_state {
                format!("{hook}releases:\n- name: r\n  chart: ./chart\n")
            } else {
                format!(
                    "releases:\n- name: r\n  chart: ./chart\n{}",
                    hook.lines().map(|l| format!("  {l}\n")).collect::<String>()
                )
            };
            std::fs::write(d.join("helmfile.yaml"), state).expect("state");
            for args in commands {
                let out = capstan(&d)
                    .env("HELMFILE_DISABLE_HOOKS", "true")
                    .args(["--helm-binary", &helm])
                    .args(args)
                    .output()
                    .expect("run");
                let text = common::output_text(&out);
                assert!(
                    !d.join("HOOK-RAN").exists(),
                    "{event} {args:?}: the hook ran: {text}"
                );
                if text.contains("HELMFILE_DISABLE_HOOKS is active, hooks are disabled") {
                    // A failing `cleanup` hook is a warning in helmfile; any other fails.
                    assert!(
                        !out.status.success()
                            || text.contains("warn: hook[touch]: HELMFILE_DISABLE_HOOKS"),
                        "{event} {args:?}: {text}"
                    );
                    stopped += 1;
                }
            }
        }
    }
    // Each event is reached by at least one command here; without the switch they run.
    assert!(stopped >= events.len() * 2, "{stopped}");
    std::fs::write(
        d.join("helmfile.yaml"),
        "hooks:\n- events: [\"prepare\"]\n  command: touch\n  args: [\"HOOK-RAN\"]\nreleases:\n- name: r\n  chart: ./chart\n",
    )
    .expect("state");
    let out = capstan(&d).arg("template").output().expect("run");
    assert!(out.status.success(), "{}", common::output_text(&out));
    assert!(d.join("HOOK-RAN").exists());
}

/// The secrets of the tests below: environment and release secrets files (sops, age),
/// and a helmfile whose values carry them through templates.
fn secret_project(name: &str) -> (common::TempDir, common::Key, Vec<&'static str>) {
    let d = tempdir(name);
    write_files(&d, CHART.iter().copied());
    let key = common::keygen(&d, "key.txt");
    common::encrypt(
        &d,
        "envsec.yaml",
        "dbpass: s3cr3t-db-pass\nnested:\n  token: t0ken-xyz-123\n",
        &key,
        &[],
    );
    common::encrypt(
        &d,
        "relsec.yaml",
        "relpass: r3l-pass-9876\ncert: |\n  -----BEGIN KEY-----\n  QUJDREVGR0hJSktMTU5PUA==\n  -----END KEY-----\n",
        &key,
        &[],
    );
    for f in ["plain-envsec.yaml", "plain-relsec.yaml"] {
        let _ = std::fs::remove_file(d.join(f));
    }
    std::fs::write(
        d.join("helmfile.yaml.gotmpl"),
        "environments:\n  default:\n    secrets:\n    - envsec.yaml\n---\nreleases:\n- name: r\n  chart: ./chart\n  values:\n  - url: postgres://u:{{ .Values.dbpass }}@db\n    plain: visible-value\n    nested: {{ .Values.nested | toYaml | nindent 6 }}\n  secrets:\n  - relsec.yaml\n",
    )
    .expect("state");
    let secrets = vec![
        "s3cr3t-db-pass",
        "t0ken-xyz-123",
        "r3l-pass-9876",
        "QUJDREVGR0hJSktMTU5PUA==",
    ];
    (d, key, secrets)
}

/// Item 5: `values --explain` (text, JSON, HTML) hides every value a secrets file set,
/// or a template wrote from one, as `print-env --explain` does; `--show-secrets` shows.
#[test]
fn explained_values_hide_secrets() {
    let (d, key, secrets) = secret_project("explain-secrets");
    for output in ["yaml", "json", "html"] {
        for show in [false, true] {
            let mut c = capstan(&d);
            c.env("SOPS_AGE_KEY_FILE", &key.file)
                .args(["values", "--explain", "-o", output]);
            if show {
                c.arg("--show-secrets");
            }
            let out = c.output().expect("run");
            let text = common::output_text(&out);
            assert!(out.status.success(), "{text}");
            assert!(text.contains("visible-value"), "{output}: {text}");
            for s in &secrets {
                assert_eq!(text.contains(s), show, "{output} show={show} {s}: {text}");
            }
        }
    }
    let out = capstan(&d)
        .env("SOPS_AGE_KEY_FILE", &key.file)
        .args(["print-env", "--explain"])
        .output()
        .expect("run");
    let text = common::output_text(&out);
    for s in &secrets {
        assert!(!text.contains(s), "{s}: {text}");
    }
}

/// Item 5: `diff --show-values` hides secret values on both sides (the new one from
/// its layer, the old one as helm recorded it), also with `--suppress-secrets`; and an
/// error quoting a decrypted value hides it, whatever template put it there.
#[test]
fn values_diffs_and_errors_hide_secrets() {
    let (d, key, secrets) = secret_project("diff-secrets");
    let helm = common::executable(
        &d,
        "fake-helm",
        "#!/bin/sh\ncase \"$1 $2\" in\n  version*) echo v4.3.1+g0;;\n  list*) printf 'NAME\\nr\\n';;\n  'get manifest') printf -- '---\\n# Source: chart/templates/cm.yaml\\napiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: r\\n';;\n  'get values') echo '{\"relpass\":\"r3l-pass-9876\",\"url\":\"postgres://u:s3cr3t-db-pass@old\",\"plain\":\"old-visible\"}';;\nesac\nexit 0\n",
    );
    for extra in [&[][..], &["--suppress-secrets"], &["--context", "1"]] {
        let out = capstan(&d)
            .env("SOPS_AGE_KEY_FILE", &key.file)
            .env("KUBECONFIG", d.join("no-kubeconfig"))
            .args([
                "--helm-binary",
                &helm.to_string_lossy(),
                "diff",
                "--show-values",
            ])
            .args(extra)
            .output()
            .expect("run");
        let text = common::output_text(&out);
        assert!(text.contains("values that change"), "{extra:?}: {text}");
        assert!(text.contains("old-visible"), "{extra:?}: {text}");
        for s in &secrets {
            assert!(!text.contains(s), "{extra:?} {s}: {text}");
        }
    }
    // Errors: a template fails with a secret in its message, in the state file and in a
    // values template, directly and through another function.
    for (place, call) in [
        ("state", "{{ fail .Values.dbpass }}"),
        (
            "state",
            "{{ fail (printf \"bad: %s\" .Values.nested.token) }}",
        ),
        (
            "state",
            "{{ required (cat \"missing\" .Values.dbpass) \"\" }}",
        ),
        ("values", "{{ fail (upper \"x\" | cat .Values.dbpass) }}"),
    ] {
        let state = if place == "state" {
            format!("environments:\n  default:\n    secrets:\n    - envsec.yaml\n---\nreleases:\n- name: r\n  chart: ./chart\n  labels:\n    x: '{call}'\n")
        } else {
            std::fs::write(d.join("v.yaml.gotmpl"), format!("x: '{call}'\n")).expect("values");
            "environments:\n  default:\n    secrets:\n    - envsec.yaml\n---\nreleases:\n- name: r\n  chart: ./chart\n  values:\n  - v.yaml.gotmpl\n".to_string()
        };
        std::fs::write(d.join("helmfile.yaml.gotmpl"), state).expect("state");
        let out = capstan(&d)
            .env("SOPS_AGE_KEY_FILE", &key.file)
            .arg("template")
            .output()
            .expect("run");
        let text = common::output_text(&out);
        assert!(!out.status.success(), "{call}: {text}");
        assert!(text.contains("(secret)"), "{call}: {text}");
        for s in &secrets {
            assert!(!text.contains(s), "{call} {s}: {text}");
        }
    }
}

/// Runs `cmd` for at most `secs` seconds; `None` when it had to be killed.
fn output_within(cmd: &mut Command, secs: u64) -> Option<std::process::Output> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed().as_secs() >= secs {
            child.kill().ok();
            child.wait().ok();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().ok()
}

/// Issue 28, item 9: templates that make a map contain itself (directly, through lists,
/// through other maps, through `.Values`, through `merge`), then hand it to every kind of
/// deep walk. Go's encoders report the cycle (and capstan reports the same container
/// type); where Go recurses until it dies (fmt, deepCopy, mergo, TOML, yaml.v3) capstan
/// ends in an error naming the template. Never a crash, never a hang. With the real helm
/// at hand, the outcomes Go reaches are compared.
#[test]
fn maps_that_contain_themselves_never_crash() {
    let makers = [
        r#"{{- $d := dict "a" 1 }}{{- $_ := set $d "self" $d }}"#,
        r#"{{- $d := dict "a" 1 }}{{- $_ := set $d "l" (list 1 $d) }}"#,
        r#"{{- $d := dict "a" 1 }}{{- $_ := set $d "l" (list (list "x" $d)) }}"#,
        r#"{{- $a := dict }}{{- $b := dict "n" 2 }}{{- $_ := set $b "up" (list $a) }}{{- $_ := set $a "down" $b }}{{- $d := $a }}"#,
        r#"{{- $d := dict "a" 1 }}{{- $_ := set $d "x" (dict "y" (dict "z" $d)) }}"#,
        r#"{{- $d := dict "a" 1 }}{{- $_ := merge $d (dict "self" (list $d)) }}"#,
        r#"{{- $d := .Values }}{{- $_ := set .Values "all" .Values }}"#,
        r#"{{- $d := dict "a" 1 }}{{- $_ := mergeOverwrite $d (dict "m" (dict "back" $d)) }}"#,
    ];
    // (use, whether Go's helm gets to an answer)
    let uses = [
        ("toJson $d", true),
        ("mustToJson $d", true),
        ("toJson (list $d)", true),
        ("toPrettyJson $d", true),
        ("mustToPrettyJson (dict \"w\" $d)", true),
        ("toRawJson $d", true),
        ("mustToRawJson (list 1 $d)", true),
        ("toYaml $d", true),
        ("mustToYaml (dict \"w\" (list $d))", true),
        ("len $d", true),
        ("kindOf $d", true),
        ("printf \"%T\" $d", true),
        ("deepEqual $d $d", true),
        ("merge (dict) $d | len", true),
        ("toToml $d", false),
        ("toYamlPretty $d", false),
        ("toString $d", false),
        ("printf \"%v|%d\" $d 1", false),
        ("print 1 $d", false),
        ("$d", false),
        ("list $d | join \",\"", false),
        ("cat \"x\" $d", false),
        ("deepCopy $d | len", false),
        ("merge $d $d | len", false),
        (
            "mergeOverwrite $d (deepCopy (dict \"self\" 1)) | toString",
            false,
        ),
    ];
    let d = tempdir("map-cycles");
    write_files(
        &d,
        [
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
            ),
            ("chart/values.yaml", "a: 1\nnested:\n  b: [1, 2]\n"),
        ],
    );
    let helm = std::env::var("CAPSTAN_TEST_HELM").ok();
    for maker in makers {
        for (use_, go_ends) in uses {
            let template = format!("{maker}\nout: {{{{ {use_} | quote }}}}\n");
            std::fs::create_dir_all(d.join("chart/templates")).expect("dir");
            std::fs::write(d.join("chart/templates/cycle.yaml"), &template).expect("template");
            let what = format!("{maker} / {use_}");
            let ours = output_within(capstan(&d).args(["chart", "template", "r", "./chart"]), 60)
                .unwrap_or_else(|| panic!("{what}: still running after 60 s"));
            let text = common::output_text(&ours);
            match ours.status.code() {
                Some(0) => assert!(text.contains("out: "), "{what}: {text}"),
                Some(1) => {
                    assert!(text.contains("cycle.yaml:2:"), "{what}: {text}");
                    assert!(text.contains("encountered a cycle via "), "{what}: {text}");
                }
                _ => panic!("{what}: crashed: {text}"),
            }
            // Helm's `.Values` is a named map type (`common.Values`, what `%T` and the
            // cycle error name): a known difference (COMPATIBILITY.md), not compared.
            let named_type = maker.contains(".Values");
            if let (Some(helm), true, false) = (&helm, go_ends, named_type) {
                let theirs = Command::new(helm)
                    .args(["template", "r", "./chart"])
                    .current_dir(d.as_path())
                    .output()
                    .expect("helm");
                let first_error = |o: &std::process::Output| {
                    String::from_utf8_lossy(&o.stderr)
                        .lines()
                        .find(|l| l.starts_with("Error:"))
                        .unwrap_or_default()
                        .to_string()
                };
                assert_eq!(ours.status.success(), theirs.status.success(), "{what}");
                assert_eq!(
                    String::from_utf8_lossy(&ours.stdout),
                    String::from_utf8_lossy(&theirs.stdout),
                    "{what}"
                );
                assert_eq!(first_error(&ours), first_error(&theirs), "{what}");
            }
        }
    }
    // The same in a helmfile template: the state's own functions stop the same way.
    std::fs::write(
        d.join("helmfile.yaml.gotmpl"),
        "{{- $d := dict \"a\" 1 }}{{- $_ := set $d \"self\" $d }}\nreleases:\n- name: r\n  chart: ./chart\n  labels:\n    x: {{ toYaml $d | quote }}\n",
    )
    .expect("state");
    let out = output_within(capstan(&d).args(["list"]), 60).expect("list ends");
    let text = common::output_text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("helmfile.yaml.gotmpl"), "{text}");
    assert!(text.contains("encountered a cycle via "), "{text}");
}

/// Issue 28, item 10: pressing Tab after `-l` (or `-e`) in a project's directory runs
/// none of its code. Every template function that reaches outside (`exec`, `readFile`,
/// `requiredEnv`, `fetchSecretValue`, `env`, remote values, secrets, hooks), placed in
/// every part of a state file (release names, labels, values, environments, bases,
/// sub-helmfiles, a second document, an included file), leaves no trace; the releases'
/// literal names and labels are still offered.
#[test]
fn completion_runs_none_of_the_projects_code() {
    let d = tempdir("completion-attack");
    let marker = d.join("pwned");
    let m = marker.display().to_string();
    let calls = [
        format!("{{{{ exec \"touch\" (list \"{m}\") }}}}"),
        format!("{{{{ exec \"sh\" (list \"-c\" \"touch {m}\") | trim }}}}"),
        format!("{{{{ readFile \"{m}.src\" }}}}"),
        "{{ requiredEnv \"CAPSTAN_TEST_UNSET\" }}".to_string(),
        format!("{{{{ fetchSecretValue \"ref+file://{m}.src\" }}}}"),
    ];
    let places = [
        "releases:\n- name: web\n  chart: ./c\n  labels:\n    tier: front\n- name: x-CALL\n  chart: ./c\n",
        "releases:\n- name: web\n  chart: ./c\n  labels:\n    tier: front\n    evil: CALL\n",
        "environments:\n  default:\n    values:\n    - k: CALL\n---\nreleases:\n- name: web\n  chart: ./c\n  labels:\n    tier: front\n",
        "bases:\n- base.yaml\n---\nreleases:\n- name: web\n  chart: ./c\n  labels: {tier: front}\n",
        "helmfiles:\n- path: sub/helmfile.yaml.gotmpl\nreleases:\n- name: web\n  chart: ./c\n  labels:\n    tier: front\n",
        "releases:\n- name: web\n  chart: ./c\n  labels:\n    tier: front\n  hooks:\n  - events: [prepare]\n    command: touch\n    args: [\"MARK\"]\n  values:\n  - v: CALL\n",
        "{{ $x := \"CALL\" }}\nreleases:\n- name: web\n  chart: ./c\n  labels:\n    tier: front\n",
    ];
    std::fs::create_dir_all(d.join("sub")).expect("sub");
    std::fs::write(marker.with_extension("src"), "secret-content").expect("src");
    for place in places {
        for call in &calls {
            let text = place.replace("CALL", call).replace("MARK", &m);
            std::fs::write(d.join("helmfile.yaml.gotmpl"), &text).expect("state");
            std::fs::write(
                d.join("base.yaml"),
                format!("environments:\n  default:\n    values:\n    - k: {call}\n"),
            )
            .expect("base");
            std::fs::write(
                d.join("sub/helmfile.yaml.gotmpl"),
                format!("releases:\n- name: sub\n  chart: ../c\n  labels:\n    x: \"{call}\"\n"),
            )
            .expect("sub");
            for (index, words) in [
                ("2", &["capstan", "-l", ""][..]),
                ("3", &["capstan", "list", "-l", "tier="]),
                ("2", &["capstan", "-e", ""]),
            ] {
                let out = capstan(&d)
                    .env("CAPSTAN_COMPLETE", "bash")
                    .env("_CLAP_IFS", "\u{b}")
                    .env("_CLAP_COMPLETE_INDEX", index)
                    .env("_CLAP_COMPLETE_COMP_TYPE", "9")
                    .env_remove("CAPSTAN_TEST_UNSET")
                    .arg("--")
                    .args(words)
                    .output()
                    .expect("complete");
                let shown = common::output_text(&out);
                assert!(!marker.exists(), "{words:?} ran {call} in:\n{text}");
                assert!(!shown.contains("secret-content"), "{words:?}: {shown}");
                if words[1] != "-e" {
                    assert!(shown.contains("tier=front"), "{words:?} {text}: {shown}");
                }
            }
        }
    }
}

/// Issue 28, low items: a URL's query tokens never show in an error, and what a server
/// says (its status text, a redirect target) reaches the terminal without its control
/// characters.
#[test]
fn errors_show_no_tokens_and_no_terminal_controls() {
    const STATUSES: &[&str] = &[
        "500 \u{1b}[2J\u{1b}]0;pwned\u{7}Oops",
        "404 Not\rFound\u{1b}[31m",
        "403 \u{9b}31mForbidden",
        "418 \u{8}\u{8}\u{8}teapot",
    ];
    let d = tempdir("error-text");
    for status in STATUSES {
        let port = common::serve(move |_| {
            move |path: &str, _: &str| -> common::Reply {
                if path.starts_with("/redirect") {
                    (
                        "302 Found",
                        "Location: /final?access_token=S3CR3T-in-location\r\n".to_string(),
                        Vec::new(),
                    )
                } else {
                    (status, String::new(), b"\x1b[2Jbody".to_vec())
                }
            }
        });
        for url in [
            format!("http://127.0.0.1:{port}/v.yaml?token=S3CR3T-token&ref=main"),
            format!("http://127.0.0.1:{port}/redirect?X-Amz-Signature=S3CR3T-sig"),
            format!("http://user:S3CR3T-pass@127.0.0.1:{port}/v.yaml?sig=S3CR3T-sig2"),
        ] {
            std::fs::write(
                d.join("helmfile.yaml"),
                format!("environments:\n  default:\n    values:\n    - {url}\n---\nreleases: []\n"),
            )
            .expect("state");
            let out = capstan(&d).args(["print-env"]).output().expect("run");
            let text = common::output_text(&out);
            assert_eq!(out.status.code(), Some(1), "{url}: {text}");
            assert!(!text.contains("S3CR3T"), "{url}: {text}");
            assert!(
                !text
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "{url}: {text:?}"
            );
        }
    }
}

/// Issue 28, low item: a release name or chart that starts with `-` (literal, templated,
/// from environment values) never reaches helm, where it would be read as a flag.
#[test]
fn charts_and_names_are_never_helm_flags() {
    let d = tempdir("dash-chart");
    write_files(&d, CHART.iter().copied());
    let marker = d.join("helm-ran");
    let helm = common::executable(
        &d,
        "fake-helm",
        &format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\necho 'version.BuildInfo{{Version:\"v4.3.1\"}}'\n",
            marker.display()
        ),
    );
    let values = [
        "--post-renderer=./evil.sh",
        "-f",
        "--kubeconfig=/tmp/x",
        "-",
        "--",
        "-x ./chart",
    ];
    for v in values {
        for (name, chart) in [
            (format!("'{v}'"), "./chart".to_string()),
            ("web".to_string(), format!("'{v}'")),
            ("web".to_string(), format!("'{{{{ \"{v}\" }}}}'")),
            ("web".to_string(), "'{{ .Values.chart }}'".to_string()),
        ] {
            std::fs::write(
                d.join("helmfile.yaml.gotmpl"),
                format!(
                    "environments:\n  default:\n    values:\n    - chart: '{v}'\n---\nreleases:\n- name: {name}\n  chart: {chart}\n"
                ),
            )
            .expect("state");
            for cmd in [&["template"][..], &["sync"], &["diff"], &["lint"]] {
                let out = capstan(&d)
                    .args(["--helm-binary", &helm.display().to_string()])
                    .args(cmd)
                    .output()
                    .expect("run");
                let text = common::output_text(&out);
                assert_eq!(out.status.code(), Some(1), "{name} {chart} {cmd:?}: {text}");
                assert!(
                    text.contains("helm would read it as a flag"),
                    "{name} {chart} {cmd:?}: {text}"
                );
                let ran = std::fs::read_to_string(&marker).unwrap_or_default();
                assert!(
                    !ran.contains(v.split(' ').next().unwrap_or(v)) || v == "-",
                    "{name} {chart} {cmd:?}: helm got {ran}"
                );
            }
        }
    }
}

/// Issue 28, low items: settings that would silently do something else are loud. Every
/// misspelling of every repository key is an error naming it (not a repository quietly
/// without its password or CA); an empty environment name is the default environment,
/// as in helmfile, with a warning.
#[test]
fn misspelt_repository_keys_and_empty_environments_are_not_silent() {
    let d = tempdir("loud-settings");
    let keys = [
        ("password", "p"),
        ("username", "u"),
        ("caFile", "ca.pem"),
        ("certFile", "c.pem"),
        ("keyFile", "k.pem"),
        ("passCredentials", "true"),
        ("skipTLSVerify", "false"),
        ("oci", "true"),
    ];
    for (key, value) in keys {
        let chars: Vec<char> = key.chars().collect();
        let mut typos = vec![
            key.to_lowercase(),
            key.to_uppercase(),
            format!("{key}s"),
            chars[1..].iter().collect::<String>(),
        ];
        // Each neighbouring pair swapped.
        for i in 0..chars.len() - 1 {
            let mut c = chars.clone();
            c.swap(i, i + 1);
            typos.push(c.into_iter().collect());
        }
        typos.retain(|t| t != key);
        for typo in typos {
            std::fs::write(
                d.join("helmfile.yaml"),
                format!("repositories:\n- name: r\n  url: https://charts.example.com\n  {typo}: {value}\nreleases: []\n"),
            )
            .expect("state");
            let out = capstan(&d).args(["list"]).output().expect("run");
            let text = common::output_text(&out);
            assert_eq!(out.status.code(), Some(1), "{typo}: {text}");
            assert!(
                text.contains(&format!(
                    "field {typo} not found in type state.RepositorySpec"
                )),
                "{typo}: {text}"
            );
            assert!(text.contains("helmfile.yaml:4:3"), "{typo}: {text}");
        }
    }
    std::fs::write(
        d.join("helmfile.yaml"),
        "environments:\n  default:\n    values:\n    - where: default\n---\nreleases:\n- name: r\n  chart: ./c\n  labels:\n    env: {{ .Values.where }}\n",
    )
    .expect("state");
    std::fs::rename(d.join("helmfile.yaml"), d.join("helmfile.yaml.gotmpl")).expect("rename");
    for (args, env) in [
        (&["list"][..], Some("")),
        (&["-e", "", "list"], None),
        (&["list", "--environment="], None),
    ] {
        let mut c = capstan(&d);
        c.args(args);
        if let Some(v) = env {
            c.env("HELMFILE_ENVIRONMENT", v);
        }
        let out = c.output().expect("run");
        let text = common::output_text(&out);
        assert!(out.status.success(), "{args:?}: {text}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("env:default"),
            "{args:?}: {text}"
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("the environment name is empty"),
            "{args:?}: {text}"
        );
    }
}
