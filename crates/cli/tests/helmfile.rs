//! Snapshot tests of the helmfile commands on `examples/helmfile.yaml.gotmpl`, and of
//! the errors bad state files get (run in-process through `capstan_cli::run`).

use std::path::{Path, PathBuf};

mod common;
use common::tempdir;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

fn capstan_in(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let mut argv = vec!["capstan"];
    argv.extend_from_slice(args);
    let out = capstan_cli::run(argv, dir);
    let r = dir.to_string_lossy().into_owned();
    (
        out.stdout.replace(&r, "[ROOT]"),
        out.stderr.replace(&r, "[ROOT]"),
        out.code,
    )
}

fn capstan(args: &[&str]) -> (String, String, i32) {
    capstan_in(&root(), args)
}

const EXAMPLE: &str = "examples/helmfile.yaml.gotmpl";

fn states() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/states")
}

#[test]
fn template_production() {
    let (out, err, code) = capstan(&["-f", EXAMPLE, "-e", "production", "template"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("Templating release=frontend, chart=./webapp"),
        "{err}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn template_development_selected_quiet() {
    let (out, err, code) = capstan(&[
        "template",
        "-f",
        EXAMPLE,
        "-e",
        "development",
        "-l",
        "tier=data",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    insta::assert_snapshot!(out);
}

#[test]
fn build_staging() {
    let (out, _, code) = capstan(&["-f", EXAMPLE, "-e", "staging", "build"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
}

#[test]
fn list_table_and_json() {
    let (table, _, code) = capstan(&["-f", EXAMPLE, "-e", "production", "list"]);
    assert_eq!(code, 0);
    let (json, _, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "development",
        "list",
        "--output",
        "json",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(format!("{table}\n{json}"));
}

#[test]
fn print_env_yaml_and_json() {
    let (yaml, _, code) = capstan(&["-f", EXAMPLE, "-e", "staging", "print-env"]);
    assert_eq!(code, 0);
    let (json, _, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "production",
        "--state-values-set",
        "replicas.api=9,monitoring.interval=5s",
        "print-env",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(format!("{yaml}\n{json}"));
}

#[test]
fn show_dag() {
    let (out, _, code) = capstan(&["-f", EXAMPLE, "-e", "production", "show-dag"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
}

fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(d) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(
                    p.strip_prefix(base)
                        .unwrap_or(&p)
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn write_values_and_output_dir() {
    let tmp = tempdir("write");
    let template = format!("{}/{{{{ .Release.Name }}}}.yaml", tmp.display());
    let (_, err, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "production",
        "write-values",
        "--output-file-template",
        &template,
    ]);
    assert_eq!(code, 0, "{err}");
    let files = listing(&tmp);
    let api = std::fs::read_to_string(tmp.join("api.yaml")).unwrap_or_default();
    let out_dir = tmp.join("manifests");
    let (_, err, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "development",
        "template",
        "--output-dir",
        &out_dir.to_string_lossy(),
        "--output-dir-template",
        "{{ .OutputDir }}/{{ .Release.Name }}",
    ]);
    assert_eq!(code, 0, "{err}");
    let manifests = listing(&out_dir);
    std::fs::remove_dir_all(&tmp).ok();
    insta::assert_snapshot!(format!(
        "{}\n---\n{api}---\n{}\n",
        files.join("\n"),
        manifests.join("\n")
    ));
}

#[test]
fn failures_leave_nothing_half_written() {
    let tmp = tempdir("half");
    let out_dir = tmp.join("out");
    let (_, err, code) = capstan_in(
        &states(),
        &[
            "-f",
            "second-fails.yaml",
            "template",
            "--output-dir",
            &out_dir.to_string_lossy(),
        ],
    );
    assert_eq!(code, 1);
    assert!(err.contains("broken needs .Values.must"), "{err}");
    assert!(!out_dir.exists(), "template wrote files before failing");
    let template = format!("{}/{{{{ .Release.Name }}}}.yaml", tmp.display());
    let (_, _, code) = capstan_in(
        &states(),
        &[
            "-f",
            "missing-values.yaml.gotmpl",
            "write-values",
            "--output-file-template",
            &template,
        ],
    );
    assert_eq!(code, 1);
    assert!(
        listing(&tmp).is_empty(),
        "write-values wrote files before failing"
    );
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn bad_state_files_get_located_errors() {
    let mut all = String::new();
    for (file, env) in [
        ("yaml-error.yaml", "default"),
        ("template-error.yaml.gotmpl", "default"),
        ("unknown-env.yaml.gotmpl", "staging"),
        ("missing-values.yaml.gotmpl", "default"),
        ("needs-cycle.yaml", "default"),
    ] {
        let (out, err, code) = capstan_in(&states(), &["-f", file, "-e", env, "template"]);
        // An environment no file defines is helmfile's "no releases found" (exit 3).
        let expected = if file.starts_with("unknown-env") {
            3
        } else {
            1
        };
        assert_eq!(code, expected, "{file}: {err}");
        assert_eq!(out, "", "{file}");
        assert!(
            err.contains(&format!("--> {file}:")),
            "{file} not located: {err}"
        );
        all.push_str(&format!("== {file}\n{err}\n"));
    }
    insta::assert_snapshot!(all);
}

#[cfg(unix)]
#[test]
fn remote_charts_go_through_helm() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempdir("helm");
    let helm = tmp.join("fake-helm");
    // A stand-in that records its arguments and the values files it was given.
    std::fs::write(
        &helm,
        "#!/bin/sh\necho \"# args: $*\"\nfor a in \"$@\"; do case \"$a\" in *values-*.yaml) echo \"# $(basename \"$a\"):\"; cat \"$a\";; esac; done\n",
    )
    .expect("write stand-in");
    std::fs::set_permissions(&helm, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(
        tmp.join("helmfile.yaml"),
        format!(
            "helmBinary: {}\nreleases:\n  - name: web\n    namespace: ns\n    chart: stable/nginx\n    version: 1.2.3\n    values:\n      - replicas: 2\n    set:\n      - name: image.tag\n        value: \"1.27\"\n",
            helm.display()
        ),
    )
    .expect("write helmfile");
    // --helm-binary/-b over the state's helmBinary.
    let (_, err, code) = capstan_in(&tmp, &["template", "-q", "-b", "/nonexistent/helm"]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/helm"), "{err}");
    let (out, err, code) = capstan_in(&tmp, &["template", "-q"]);
    let dir = out
        .split_whitespace()
        .find(|w| w.contains("values-0.yaml"))
        .and_then(|w| Path::new(w).parent().map(Path::to_path_buf));
    std::fs::remove_dir_all(&tmp).ok();
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("# args: template web stable/nginx --version 1.2.3 --namespace ns --values "),
        "{out}"
    );
    assert!(out.contains("--set image.tag=1.27"), "{out}");
    assert!(out.contains("# values-0.yaml:\nreplicas: 2\n"), "{out}");
    let dir = dir.expect("the values file path is in the arguments");
    assert!(
        !dir.exists(),
        "the private values directory was not removed"
    );
}

#[test]
fn remote_chart_without_helm_is_a_clear_error() {
    let tmp = tempdir("nohelm");
    std::fs::write(
        tmp.join("helmfile.yaml"),
        "helmBinary: /nonexistent/helm\nreleases:\n  - name: web\n    chart: stable/nginx\n",
    )
    .expect("write helmfile");
    let (_, err, code) = capstan_in(&tmp, &["template"]);
    std::fs::remove_dir_all(&tmp).ok();
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "in ./helmfile.yaml: chart \"stable/nginx\" is not a local chart: rendering it needs helm"
        ),
        "{err}"
    );
}

#[test]
fn state_file_from_stdin() {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args(["-f", "-", "template", "-q"])
        .current_dir(states())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run capstan");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"releases:\n  - name: piped\n    chart: ./charts/ok\n    values:\n      - x: from-stdin\n")
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("name: piped") && text.contains("x: \"from-stdin\""),
        "{text}"
    );
}

#[test]
fn a_relative_working_directory_works() {
    // Integration tests run in the crate's directory.
    let out = capstan_cli::run(
        ["capstan", "-f", "ok.yaml", "template", "-q"],
        Path::new("tests/states"),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("x: \"relative\""), "{}", out.stdout);
}

/// Post-renderers (helmDefaults, release, command line), run as Helm 4 runs them: the
/// documents keep their `# Source:` through the renderer, added ones are named
/// `generated-by-postrender-N.yaml`, and a failing renderer fails the release.
#[test]
fn post_renderers_run_over_the_manifests() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir("postrender");
    let script = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}")).expect("script");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    };
    script(
        "add.sh",
        "cat\necho ---\nprintf 'kind: Secret\\nmetadata:\\n  name: %s\\n' \"$1\"\n",
    );
    script("upper.sh", "sed 's/relative/RELATIVE/'\n");
    script("fail.sh", "echo broken >&2\nexit 3\n");
    let chart = states().join("charts/ok");
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!(
            "helmDefaults:\n  postRenderer: ./add.sh\n  postRendererArgs: [from-defaults]\nreleases:\n  - name: a\n    chart: {0}\n    values: [{{x: relative}}]\n  - name: b\n    chart: {0}\n    values: [{{x: relative}}]\n    postRenderer: ./upper.sh\n",
            chart.display()
        ),
    )
    .expect("state");
    let (out, err, code) = capstan_in(&dir, &["template", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        // (helm's install order: the Secret before the ConfigMap)
        "---\n# Source: generated-by-postrender-1.yaml\nkind: Secret\nmetadata:\n  name: from-defaults\n\n---\n# Source: ok/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"relative\"\n\n---\n# Source: ok/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: \"RELATIVE\"\n\n"
    );
    let (out, _, code) = capstan_in(
        &dir,
        &[
            "template",
            "-q",
            "-l",
            "name=b",
            "--post-renderer",
            "./add.sh",
            "--post-renderer-args",
            "cli",
        ],
    );
    assert_eq!(code, 0);
    assert!(out.contains("name: cli"), "{out}");
    let (_, err, code) = capstan_in(&dir, &["template", "-q", "--post-renderer", "./fail.sh"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1);
    assert!(
        err.contains("error while running post render on files") && err.contains("broken"),
        "{err}"
    );
}

/// `capstan chart template --post-renderer` (helm template's flag).
#[test]
fn chart_template_post_renderer() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir("chart-postrender");
    let p = dir.join("tag.sh");
    std::fs::write(&p, "#!/bin/sh\nsed \"s/name: r/name: r-$1/\"\n").expect("script");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let chart = states().join("charts/ok");
    let chart = chart.to_string_lossy();
    let (out, err, code) = capstan_in(
        &dir,
        &[
            "chart",
            "template",
            "r",
            &chart,
            "--post-renderer",
            "./tag.sh",
            "--post-renderer-args",
            "x",
        ],
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "---\n# Source: ok/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r-x\ndata:\n  x: \"none\"\n");
}

/// `strategicMergePatches` and `jsonPatches` are applied natively (helmfile uses
/// chartify and kustomize): the patched resources come out as
/// `CHART/templates/patched_resources.yaml`; a patch without a target is an error.
#[test]
fn release_patches_are_applied() {
    let dir = tempdir("patches");
    let chart = states().join("charts/ok");
    let state = format!(
        "releases:\n  - name: p\n    chart: {}\n    strategicMergePatches:\n      - apiVersion: v1\n        kind: ConfigMap\n        metadata: {{name: p}}\n        data: {{x: patched, z: added}}\n    jsonPatches:\n      - target: {{version: v1, kind: ConfigMap, name: p}}\n        patch:\n          - {{op: add, path: /metadata/labels, value: {{team: a}}}}\n",
        chart.display()
    );
    std::fs::write(dir.join("helmfile.yaml"), &state).expect("state");
    let (out, err, code) = capstan_in(&dir, &["template", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "---\n# Source: ok/templates/patched_resources.yaml\napiVersion: v1\ndata:\n  x: patched\n  z: added\nkind: ConfigMap\nmetadata:\n  labels:\n    team: a\n  name: p\n\n"
    );
    std::fs::write(
        dir.join("helmfile.yaml"),
        state.replace("metadata: {name: p}", "metadata: {name: other}"),
    )
    .expect("state");
    let (_, err, code) = capstan_in(&dir, &["template", "-q"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1);
    assert!(
        err.contains("0 resource(s) match v1 ConfigMap \"other\""),
        "{err}"
    );
}

/// `values`: each release's final values; `--explain`: where each came from, with the
/// trap warnings naming the release; `--strict` fails on them.
#[test]
fn values_and_explain() {
    let (yaml, err, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "production",
        "values",
        "-l",
        "name=frontend",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: release frontend: env: the list from"),
        "{err}"
    );
    let (explained, _, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "development",
        "values",
        "--explain",
        "-l",
        "tier=backend",
    ]);
    assert_eq!(code, 0);
    let (json, _, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "staging",
        "values",
        "-o",
        "json",
        "-l",
        "name=queue",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(format!("{yaml}\n{explained}\n{json}"));
    let (_, err, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "production",
        "values",
        "--strict",
        "-l",
        "name=frontend",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("1 warning(s) and --strict is set"), "{err}");
}

/// `template` warns about value traps as `values` does: numbers in inline values that
/// Helm prints otherwise (at the state file's line), lists replaced whole, `null`s that
/// delete a default; `set:` keeps what is written. `--strict` fails on any of them with
/// nothing printed.
#[test]
fn template_warns_about_value_traps_and_strict_fails() {
    let dir = tempdir("template-traps");
    let chart = states().join("charts/ok");
    let cases: &[(&str, &[&str])] = &[
        ("  - tag: 1.10\n", &["tag: helmfile.yaml:5:10: 1.10 is read as a number and prints as 1.1"]),
        ("  - {mode: 0644, n: 2}\n", &["mode: helmfile.yaml:5:12: 0644 is read as a number and prints as 420"]),
        ("  - big: 3000000\n    tag: \"1.10\"\n", &["big: helmfile.yaml:5:10: 3000000 is read as a number and prints as 3e+06"]),
        ("  - extra: [x]\n  - extra: [y]\n", &["extra: the list from helmfile.yaml:6:5 (-f) replaces the list from helmfile.yaml:5:5 (-f)"]),
        ("  - a: {b: 1}\n  - a: null\n", &["a: null from helmfile.yaml:6:5 deletes the value from helmfile.yaml:5:5"]),
        ("  - tag: \"1.10\"\n", &[]),
    ];
    for (values, expected) in cases {
        std::fs::write(
            dir.join("helmfile.yaml"),
            format!(
                "releases:\n- name: t\n  chart: {}\n  values:\n{values}  set:\n  - name: s\n    value: 1.10\n",
                chart.display()
            ),
        )
        .expect("state");
        let (out, err, code) = capstan_in(&dir, &["template", "-q"]);
        assert_eq!(code, 0, "{err}");
        assert!(!out.is_empty());
        let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
        assert_eq!(warnings.len(), expected.len(), "{values}: {err}");
        for (w, e) in warnings.iter().zip(expected.iter()) {
            assert!(
                w.starts_with(&format!("warning: release t: {e}")),
                "{values}: {w}"
            );
        }
        let (out, err, code) = capstan_in(&dir, &["template", "-q", "--strict"]);
        if expected.is_empty() {
            assert_eq!(code, 0, "{err}");
        } else {
            assert_eq!((code, out.as_str()), (1, ""), "{values}: {err}");
            assert!(
                err.contains(&format!(
                    "{} warning(s) and --strict is set",
                    expected.len()
                )),
                "{err}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `--debug` logs what helmfile's does: each file processed, each rendered part with its
/// numbered lines, the merged environment, the releases found, and for each release the
/// helm call helmfile would make (rendered here in-process); the output is unchanged.
#[test]
fn debug_logs_the_rendered_state_and_each_helm_call() {
    let (plain, _, code) = capstan(&["-f", EXAMPLE, "-e", "staging", "template", "-q"]);
    assert_eq!(code, 0);
    for flags in [&["--debug"][..], &["--log-level", "debug"][..]] {
        let mut args = vec!["-f", EXAMPLE, "-e", "staging"];
        args.extend_from_slice(flags);
        args.push("template");
        let (out, err, code) = capstan(&args);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, plain);
        for shown in [
            "processing file \"helmfile.yaml.gotmpl\" in directory \"examples\"",
            "rendering starting for \"helmfile.yaml.gotmpl.part.1\": inherited=&{staging ",
            "rendering result of \"helmfile.yaml.gotmpl.part.1\":\n 0: ",
            "merged environment: &{staging ",
            "6 release(s) found in helmfile.yaml.gotmpl",
            "rendering in-process what helmfile runs as: helm template frontend examples/webapp --namespace shop-staging --values ",
        ] {
            assert!(err.contains(shown), "{shown}\n{err}");
        }
    }
    let (_, err, _) = capstan(&["-f", EXAMPLE, "-e", "staging", "template"]);
    assert!(!err.contains("merged environment"), "{err}");
}

/// `forceNamespace` as chartify applies it: `metadata.namespace` set in every document.
#[test]
fn force_namespace_sets_every_document() {
    let dir = tempdir("forcens");
    let chart = states().join("charts/ok");
    std::fs::write(
        dir.join("helmfile.yaml"),
        format!("releases:\n  - name: f\n    namespace: ns\n    chart: {}\n    forceNamespace: forced\n", chart.display()),
    )
    .expect("state");
    let (out, err, code) = capstan_in(&dir, &["template", "-q"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "---\n# Source: ok/templates/cm.yaml\n# Source: ok/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n  namespace: forced\ndata:\n  x: \"none\"\n\n"
    );
}

/// A directory of plain manifests as the chart (helmfile makes it a chart with
/// chartify): named after the directory, every manifest a template, the documents
/// written back with their `# Source:` line; the release's namespace is set in them. A
/// kustomization is a clear error.
#[test]
fn manifest_directories_render_as_charts() {
    let dir = tempdir("manifests");
    std::fs::create_dir_all(dir.join("raw/sub")).expect("dirs");
    std::fs::write(
        dir.join("raw/cm.yaml"),
        "kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
    )
    .expect("cm");
    std::fs::write(
        dir.join("raw/sub/s.yml"),
        "kind: Secret\nmetadata:\n  name: s\n",
    )
    .expect("s");
    std::fs::write(dir.join("raw/notes.txt"), "not a manifest").expect("txt");
    std::fs::write(
        dir.join("helmfile.yaml"),
        "releases:\n  - name: m\n    namespace: team\n    chart: ./raw\n",
    )
    .expect("state");
    let (out, err, code) = capstan_in(&dir, &["template", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "---\n# Source: raw/templates/sub/s.yml\n# Source: raw/templates/sub/s.yml\nkind: Secret\nmetadata:\n  name: s\n  namespace: team\n\n---\n# Source: raw/templates/cm.yaml\n# Source: raw/templates/cm.yaml\nkind: ConfigMap\nmetadata:\n  name: m\n  namespace: team\n\n"
    );
    std::fs::write(dir.join("raw/kustomization.yaml"), "resources: [cm.yaml]\n").expect("k");
    let (_, err, code) = capstan_in(&dir, &["template", "-q"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1);
    assert!(err.contains("a kustomization"), "{err}");
}

/// `--chart/-c` puts every selected release on the given chart.
#[test]
fn chart_override_flag() {
    let (out, err, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "production",
        "-l",
        "name=monitoring",
        "template",
        "-q",
        "--chart",
        "./charts/service",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("# Source: service/templates/"), "{out}");
    let (_, err, code) = capstan(&[
        "-f",
        EXAMPLE,
        "-e",
        "production",
        "-l",
        "name=monitoring",
        "-c",
        "./no-such-chart",
        "template",
        "-q",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("no-such-chart"), "{err}");
}

/// `--include-needs` adds what the selected releases need, and in `template` (as the real
/// helmfile v0.166 plans it) what those need too, as `--include-transitive-needs` does.
#[test]
fn template_include_needs() {
    let names = |extra: &[&str]| {
        let mut args = vec![
            "-f",
            EXAMPLE,
            "-e",
            "production",
            "-l",
            "name=frontend",
            "template",
        ];
        args.extend_from_slice(extra);
        let (_, err, code) = capstan(&args);
        assert_eq!(code, 0, "{err}");
        err.lines()
            .filter_map(|l| l.strip_prefix("Templating release="))
            .map(|l| l.split(',').next().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&[]), ["frontend"]);
    assert_eq!(
        names(&["--include-needs"]),
        names(&["--include-transitive-needs"])
    );
    assert_eq!(
        names(&["--include-transitive-needs"]),
        ["frontend", "api", "database", "queue"]
    );
}
