//! Snapshot tests of the `capstan` binary on the chart in `examples/`.

use std::process::Command;

fn capstan(args: &[&str]) -> (String, String, i32) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("running capstan");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn chart_template_example_with_prod_values() {
    let (out, err, code) = capstan(&[
        "chart",
        "template",
        "demo",
        "examples/webapp",
        "-f",
        "examples/webapp/values-prod.yaml",
    ]);
    assert_eq!(code, 0);
    assert!(
        err.starts_with(
            "warning: env: the list from examples/webapp/values-prod.yaml:2:1 (-f) replaces"
        ),
        "{err}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn chart_template_show_only() {
    let (out, _, code) = capstan(&[
        "chart",
        "template",
        "demo",
        "examples/webapp",
        "-s",
        "templates/service.yaml",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
}

#[test]
fn chart_values_with_set_disabling_the_subchart() {
    let (out, _, code) = capstan(&[
        "chart",
        "values",
        "examples/webapp",
        "--set",
        "cache.enabled=false,replicaCount=2",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
}

#[test]
fn errors_go_to_stderr_with_nonzero_exit() {
    let (out, err, code) = capstan(&[
        "chart",
        "template",
        "demo",
        "examples/webapp",
        "--set",
        "a[x]=1",
    ]);
    assert_eq!((code, out.as_str()), (1, ""));
    insta::assert_snapshot!(err);
    let (out, err, code) = capstan(&["chart", "template", "demo", "examples/missing"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(err, "Error: path \"examples/missing\" not found\n");
}

const TRAPS: &str = "crates/cli/tests/charts/traps";

#[test]
fn chart_values_explain_with_subchart_and_list_replacement() {
    let user = format!("{TRAPS}/user.yaml");
    let (out, _, code) = capstan(&["chart", "values", TRAPS, "-f", &user, "--set", "db.port=1"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("traps_values", out);
    let (out, err, code) = capstan(&[
        "chart",
        "values",
        TRAPS,
        "-f",
        &user,
        "--set",
        "db.port=1",
        "--explain",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("traps_explain", out);
    insta::assert_snapshot!("traps_warnings", err);
}

#[test]
fn strict_turns_warnings_into_errors() {
    let user = format!("{TRAPS}/user.yaml");
    let (out, err, code) = capstan(&["chart", "template", "r", TRAPS, "-f", &user, "--strict"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.ends_with("Error: 5 warning(s) and --strict is set\n"),
        "{err}"
    );
    let (_, err, code) = capstan(&["chart", "template", "r", "examples/webapp", "--strict"]);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn errors_show_the_offending_line() {
    let dir = std::env::temp_dir().join(format!("capstan-cli-err-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("chart/templates")).unwrap();
    std::fs::write(
        dir.join("chart/Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(dir.join("chart/values.yaml"), "a: 1\n").unwrap();
    std::fs::write(
        dir.join("chart/templates/cm.yaml"),
        "kind: ConfigMap\nname: {{ .Values.a \n",
    )
    .unwrap();
    std::fs::write(dir.join("bad.yaml"), "a: 1\nlist: [1, 2\n").unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        )
    };
    let (err, code) = run(&["chart", "template", "r", "chart", "-f", "bad.yaml"]);
    std::fs::write(dir.join("bad.yaml"), "a: 1\n").unwrap();
    let (err2, code2) = run(&["chart", "template", "r", "chart"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, Some(1));
    insta::assert_snapshot!("bad_values_file", err);
    assert_eq!(code2, Some(1));
    insta::assert_snapshot!("unclosed_action", err2);
}
