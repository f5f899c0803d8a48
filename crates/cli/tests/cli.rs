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

/// Every command's `--help` lists its own flags before helmfile's global ones (under
/// "Global options:"), and every flag says what it does.
#[test]
fn every_help_lists_its_own_flags_first_and_explains_each() {
    let (top, _, code) = capstan(&["--help"]);
    assert_eq!(code, 0);
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 20, "{top}");
    for c in &commands {
        let (help, _, code) = capstan(&[c, "--help"]);
        assert_eq!(code, 0, "{c}");
        let lines: Vec<&str> = help.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let flag = l.starts_with("  -") && !l.trim_start().starts_with("-h, --help");
            if flag {
                let next = lines.get(i + 1).copied().unwrap_or("");
                // Short help puts the text on the flag's line, long help below it.
                let inline = l
                    .trim_start()
                    .split("  ")
                    .filter(|s| !s.trim().is_empty())
                    .count()
                    >= 2;
                assert!(
                    inline || (next.starts_with("          ") && !next.trim().is_empty()),
                    "`{c} --help`: {l:?} has no help text"
                );
            }
        }
        // helmfile's global flags (`--environment` is one) come under their heading,
        // after the command's own.
        if let Some(env) = lines.iter().position(|l| l.contains("--environment <")) {
            let global = lines.iter().position(|l| *l == "Global options:");
            assert!(
                global.is_some_and(|g| g < env),
                "`{c} --help` lists the global options among its own:\n{help}"
            );
        }
        if let Some(global) = lines.iter().position(|l| *l == "Global options:") {
            let own = lines.iter().position(|l| *l == "Options:");
            assert!(
                own.is_some_and(|o| o < global),
                "`{c} --help` lists the global options first:\n{help}"
            );
            // The global flags come after every flag of the command's own.
            assert!(
                !lines[global..]
                    .iter()
                    .any(|l| l.starts_with("      --concurrency")),
                "{c}"
            );
        }
    }
}
