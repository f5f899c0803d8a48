//! Bad input of every kind a user meets (malformed YAML, HCL and templates in state files,
//! values files, charts; invalid UTF-8; missing files; bad flags), generated here, each run
//! through the real command. Every error goes through the CLI's one renderer: the message,
//! then `--> FILE:LINE:COLUMN` with the line and a caret where the input has a place, a
//! non-zero exit, and nothing on stdout. The snapshot holds every rendering.

use std::path::Path;

mod common;
use common::tempdir;

/// One bad input: its name, the files it consists of, the command line, and the place
/// the error must point at (`FILE:LINE:COLUMN`), if the input has one.
struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static [u8])],
    args: &'static [&'static str],
    at: Option<&'static str>,
}

const CHART: &[(&str, &[u8])] = &[
    (
        "chart/Chart.yaml",
        b"apiVersion: v2\nname: c\nversion: 0.1.0\n",
    ),
    ("chart/values.yaml", b"x: 1\n"),
    (
        "chart/templates/cm.yaml",
        b"kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  x: {{ .Values.x | quote }}\n",
    ),
];

const RELEASE: &[u8] = b"releases:\n- name: r\n  chart: ./chart\n";

const CASES: &[Case] = &[
    Case {
        name: "state file: YAML syntax",
        files: &[("helmfile.yaml", b"releases:\n- name: r\n  chart: [./chart\n")],
        args: &["template"],
        at: Some("helmfile.yaml:3:18"),
    },
    Case {
        name: "state file: template execution",
        files: &[(
            "helmfile.yaml.gotmpl",
            b"releases:\n- name: r\n  chart: ./chart\n  namespace: {{ .Values.nope }}\n",
        )],
        args: &["template"],
        at: Some("helmfile.yaml.gotmpl:4:24"),
    },
    Case {
        name: "state file: template parse",
        files: &[(
            "helmfile.yaml.gotmpl",
            b"releases:\n- name: r\n  chart: ./chart\n  namespace: {{ .Values.nope \n",
        )],
        args: &["template"],
        at: Some("helmfile.yaml.gotmpl:4:30"),
    },
    Case {
        name: "release values file: YAML syntax",
        files: &[
            ("values.yaml", b"a: 1\nb: [1, 2\n"),
            (
                "helmfile.yaml",
                b"releases:\n- name: r\n  chart: ./chart\n  values:\n  - values.yaml\n",
            ),
        ],
        args: &["template"],
        at: Some("values.yaml:2:9"),
    },
    Case {
        name: "release values file: template execution",
        files: &[
            ("values.yaml.gotmpl", b"a: 1\nb: {{ .Values.nope.x }}\n"),
            (
                "helmfile.yaml",
                b"releases:\n- name: r\n  chart: ./chart\n  values:\n  - values.yaml.gotmpl\n",
            ),
        ],
        args: &["template"],
        at: Some("values.yaml.gotmpl:2:14"),
    },
    Case {
        name: "release values file: invalid UTF-8",
        files: &[
            ("values.yaml", b"a: 1\nb: caf\xc3\xa9 \xff\n"),
            (
                "helmfile.yaml",
                b"releases:\n- name: r\n  chart: ./chart\n  values:\n  - values.yaml\n",
            ),
        ],
        args: &["template"],
        at: Some("values.yaml:2:9"),
    },
    Case {
        name: "state file: invalid UTF-8",
        files: &[("helmfile.yaml", b"releases:\n- name: r\xff\n  chart: ./chart\n")],
        args: &["template"],
        at: Some("helmfile.yaml:2:10"),
    },
    Case {
        name: "release values file: missing",
        files: &[(
            "helmfile.yaml",
            b"releases:\n- name: r\n  chart: ./chart\n  values:\n  - nope.yaml\n",
        )],
        args: &["template"],
        at: Some("helmfile.yaml:5:5"),
    },
    Case {
        name: "environment values file: YAML syntax",
        files: &[
            ("env.yaml", b"a:\n  b: {c\n"),
            (
                "helmfile.yaml",
                b"environments:\n  default:\n    values:\n    - env.yaml\n---\nreleases:\n- name: r\n  chart: ./chart\n",
            ),
        ],
        args: &["template"],
        at: Some("env.yaml:2:8"),
    },
    Case {
        name: "environment values file: template execution",
        files: &[
            ("env.yaml.gotmpl", b"a: {{ .Values.x.y }}\n"),
            (
                "helmfile.yaml",
                b"environments:\n  default:\n    values:\n    - env.yaml.gotmpl\n---\nreleases:\n- name: r\n  chart: ./chart\n",
            ),
        ],
        args: &["template"],
        at: Some("env.yaml.gotmpl:1:14"),
    },
    Case {
        name: "environment values file: missing",
        files: &[(
            "helmfile.yaml",
            b"environments:\n  default:\n    values:\n    - nope.yaml\n---\nreleases:\n- name: r\n  chart: ./chart\n",
        )],
        args: &["template"],
        at: Some("helmfile.yaml:4:7"),
    },
    Case {
        name: "HCL values: syntax",
        files: &[
            ("env.hcl", b"values {\n  a = \n}\n"),
            (
                "helmfile.yaml",
                b"environments:\n  default:\n    values:\n    - env.hcl\n---\nreleases:\n- name: r\n  chart: ./chart\n",
            ),
        ],
        args: &["template"],
        at: Some("env.hcl:2:7"),
    },
    Case {
        name: "HCL values: unknown reference",
        files: &[
            ("env.hcl", b"values {\n  a = hv.nope\n}\n"),
            (
                "helmfile.yaml",
                b"environments:\n  default:\n    values:\n    - env.hcl\n---\nreleases:\n- name: r\n  chart: ./chart\n",
            ),
        ],
        args: &["template"],
        at: Some("env.hcl:2:7"),
    },
    Case {
        name: "--state-values-file: YAML syntax",
        files: &[("sv.yaml", b"a: [\n"), ("helmfile.yaml", RELEASE)],
        args: &["--state-values-file", "sv.yaml", "template"],
        at: Some("sv.yaml:1:5"),
    },
    Case {
        name: "sub-helmfile: YAML syntax",
        files: &[
            ("helmfile.yaml", b"helmfiles:\n- path: sub.yaml\n"),
            ("sub.yaml", b"releases:\n- name: r\n  values: [\n"),
        ],
        args: &["template"],
        at: Some("sub.yaml:3:12"),
    },
    Case {
        name: "chart: template parse",
        files: &[
            ("helmfile.yaml", RELEASE),
            ("chart/templates/bad.yaml", b"a: 1\nb: {{ .Values.x \n"),
        ],
        args: &["template"],
        at: Some("chart/templates/bad.yaml:2:17"),
    },
    Case {
        name: "chart: template execution",
        files: &[
            ("helmfile.yaml", RELEASE),
            (
                "chart/templates/bad.yaml",
                b"a: 1\nb: {{ required \"b is required\" .Values.b }}\n",
            ),
        ],
        args: &["template"],
        at: Some("chart/templates/bad.yaml:2:7"),
    },
    Case {
        name: "chart: error inside an include",
        files: &[
            ("helmfile.yaml", RELEASE),
            (
                "chart/templates/_helpers.tpl",
                b"{{ define \"h\" }}\n{{ .nope.deeper }}\n{{ end }}\n",
            ),
            ("chart/templates/bad.yaml", b"a: {{ include \"h\" .Values }}\n"),
        ],
        args: &["template"],
        at: Some("chart/templates/bad.yaml:1:7"),
    },
    Case {
        name: "chart: values.yaml syntax",
        files: &[
            ("helmfile.yaml", RELEASE),
            ("chart/values.yaml", b"x: 1\ny: [\n"),
        ],
        args: &["template"],
        at: Some("chart/values.yaml:2:5"),
    },
    Case {
        name: "chart: Chart.yaml syntax",
        files: &[
            ("helmfile.yaml", RELEASE),
            ("chart/Chart.yaml", b"apiVersion: v2\nname: [c\n"),
        ],
        args: &["template"],
        at: Some("chart/Chart.yaml:2:9"),
    },
    Case {
        name: "chart template: -f file YAML syntax",
        files: &[("v.yaml", b"a:\n- b\n c: 1\n")],
        args: &["chart", "template", "r", "./chart", "-f", "v.yaml"],
        at: Some("v.yaml:3:3"),
    },
    Case {
        name: "chart template: --set syntax",
        files: &[],
        args: &["chart", "template", "r", "./chart", "--set", "a"],
        at: None,
    },
    Case {
        name: "chart template: bad release name",
        files: &[],
        args: &["chart", "template", "Bad_Name", "./chart"],
        at: None,
    },
    Case {
        name: "unknown environment",
        files: &[("helmfile.yaml", RELEASE)],
        args: &["-e", "nope", "template"],
        at: Some("helmfile.yaml:1:1"),
    },
];

fn run(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let mut argv = vec!["capstan"];
    argv.extend_from_slice(args);
    let out = capstan_cli::run(argv, dir);
    // Files are shown as the user named them, relative to the directory they ran in.
    let root = format!("{}/", dir.to_string_lossy());
    (
        out.stdout.replace(&root, ""),
        out.stderr.replace(&root, ""),
        out.code,
    )
}

#[test]
fn every_bad_input_is_located_and_rendered_the_same_way() {
    let mut all = String::new();
    let mut wrong = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let dir = tempdir(&format!("bad-{i}"));
        for (name, bytes) in CHART.iter().chain(case.files) {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("mkdir");
            }
            std::fs::write(&path, bytes).expect("write input");
        }
        let (out, err, code) = run(&dir, case.args);
        std::fs::remove_dir_all(&dir).ok();
        assert_ne!(code, 0, "{}: succeeded\n{out}", case.name);
        assert_eq!(out, "", "{}: wrote to stdout", case.name);
        // helm's commands print `Error: …`; helmfile's print the message bare, after
        // their progress lines.
        let progress = |l: &str| {
            l.is_empty()
                || l.starts_with("Building dependency")
                || l.starts_with("Templating release")
        };
        let error = err
            .find("Error: ")
            .map(|i| &err[i..])
            .or_else(|| {
                let skipped: usize = err
                    .split_inclusive('\n')
                    .take_while(|l| progress(l.trim_end()))
                    .map(str::len)
                    .sum();
                (skipped < err.len()).then(|| &err[skipped..])
            })
            .unwrap_or_else(|| panic!("{}: no error line in {err}", case.name));
        match case.at {
            Some(at) => {
                let caret = error
                    .lines()
                    .any(|l| l.trim_start().starts_with("| ") && l.trim_end().ends_with('^'));
                if !error.contains(&format!("\n --> {at}\n")) || !caret {
                    wrong.push(format!(
                        "{}: expected --> {at} and a caret\n{error}",
                        case.name
                    ));
                }
            }
            None => {
                if error.contains("\n --> ") {
                    wrong.push(format!("{}: expected no location\n{error}", case.name));
                }
            }
        }
        all.push_str(&format!("== {}\n{error}\n", case.name));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    insta::assert_snapshot!(all);
}
