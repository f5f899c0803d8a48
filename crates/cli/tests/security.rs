//! Security round 2 (issue 28): each test builds the attack itself, in many variants,
//! and checks the promise in SECURITY.md it attacks: output that cannot be written is a
//! failure, nothing holding rendered output or secrets stays behind, secrets are not
//! printed, hostile values and schemas end in an error instead of a crash.

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
