//! What the real helmfile showed capstan getting wrong (issue 27) and the differential
//! suite (`conformance helmfile-real`) cannot check, because helmfile has no such command
//! or because the difference is in what capstan adds (its error locations): each checked
//! on inputs generated here.

mod common;

use common::{capstan_in, tempdir, write_files, Run, TempDir};

const CHART: &[(&str, &str)] = &[
    ("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n"),
    (
        "chart/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\ndata:\n  value: {{ .Values.value | default \"none\" | quote }}\n",
    ),
];

/// A test directory with the chart `chart/` and `files`.
fn dir(name: &str, files: &[(String, String)]) -> TempDir {
    let d = tempdir(name);
    write_files(&d, CHART.iter().copied());
    write_files(&d, files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    d
}

fn capstan(d: &TempDir, args: &[&str], env: &[(&str, &str)]) -> Run {
    capstan_in(d, args, env)
}

/// `values -o json` had one entry per release name: two `app` releases in two
/// namespaces became one (data lost, exit 0). Now one entry per release ID, for any
/// number of namespaces.
#[test]
fn values_json_keeps_every_release_of_one_name() {
    for n in [2usize, 3, 5] {
        let mut state = String::from("releases:\n");
        for i in 0..n {
            state.push_str(&format!(
                "- name: app\n  namespace: ns{i}\n  chart: ./chart\n  values:\n  - value: v{i}\n"
            ));
        }
        let d = dir(&format!("json-{n}"), &[("helmfile.yaml".into(), state)]);
        let r = capstan(&d, &["values", "-o", "json"], &[]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let json: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
        let obj = json.as_object().expect("an object");
        assert_eq!(obj.len(), n, "{}", r.stdout);
        for i in 0..n {
            assert_eq!(
                obj[&format!("ns{i}/app")]["value"],
                format!("v{i}"),
                "{}",
                r.stdout
            );
        }
    }
}

/// The global flags take their defaults from helmfile's environment variables, and a
/// flag given wins over the variable.
#[test]
fn global_flags_default_to_helmfile_environment_variables() {
    let d = dir(
        "envvars",
        &[(
            "helmfile.yaml".into(),
            "releases:\n- name: a\n  namespace: ns\n  chart: ./chart\n".into(),
        )],
    );
    for ns in ["from-env", "other-ns", "x1"] {
        let r = capstan(
            &d,
            &["list", "--output", "json"],
            &[("HELMFILE_NAMESPACE", ns)],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stdout.contains(&format!("\"namespace\":\"{ns}\"")),
            "{}",
            r.stdout
        );
        let r = capstan(
            &d,
            &["-n", "flag", "list", "--output", "json"],
            &[("HELMFILE_NAMESPACE", ns)],
        );
        assert!(r.stdout.contains("\"namespace\":\"flag\""), "{}", r.stdout);
    }
    let r = capstan(&d, &["build"], &[("HELMFILE_KUBE_CONTEXT", "kc-env")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("kubeContext: kc-env"), "{}", r.stdout);
    // A helm binary that does not exist: the command that needs helm names it.
    let r = capstan(
        &d,
        &["lint"],
        &[("HELMFILE_HELM_BINARY", "/nonexistent/helm-env")],
    );
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("/nonexistent/helm-env"), "{}", r.stderr);
}

/// A warning printed before a failure (a missing values file under
/// `missingFileHandler: Warn`) is shown, whatever fails after it.
#[test]
fn warnings_before_a_failure_are_shown() {
    let failures = [
        (
            "missing chart",
            "- name: b\n  namespace: x\n  chart: ./nochart\n",
        ),
        (
            "missing values file",
            "- name: b\n  namespace: x\n  chart: ./chart\n  values:\n  - nothere.yaml\n",
        ),
        (
            "bad release name",
            "- name: B_ad\n  namespace: x\n  chart: ./chart\n",
        ),
    ];
    for (what, second) in failures {
        let state = format!(
            "environments:\n  default:\n    missingFileHandler: Warn\n    values:\n    - env/missing.yaml\n---\nreleases:\n- name: a\n  namespace: x\n  chart: ./chart\n  missingFileHandler: Warn\n  values:\n  - warned-missing.yaml\n{second}"
        );
        let d = dir(
            what.replace(' ', "-").as_str(),
            &[("helmfile.yaml.gotmpl".into(), state)],
        );
        let r = capstan(&d, &["template"], &[]);
        assert_ne!(r.code, 0, "{what}: {}", r.stdout);
        for warned in ["env/missing.yaml", "warned-missing.yaml"] {
            assert!(
                r.stderr.contains(warned),
                "{what}: no warning for {warned}:\n{}",
                r.stderr
            );
        }
        // The warnings come first, the error after them.
        let warned_at = r.stderr.find("warned-missing.yaml").unwrap_or(usize::MAX);
        let error_at = r.stderr.find("in ./helmfile.yaml.gotmpl").unwrap_or(0);
        assert!(warned_at < error_at, "{what}:\n{}", r.stderr);
    }
}

/// An unknown `-e` points at the `environments:` key, not at the same word earlier in a
/// comment or a value; and it exits 3 in every command, as helmfile does.
#[test]
fn an_unknown_environment_points_at_the_key() {
    let decoys = [
        "# environments: are listed below\n",
        "# a comment\n# environments:\n",
        "values:\n- note: \"environments: below\"\n---\n",
    ];
    for (i, decoy) in decoys.iter().enumerate() {
        let state = format!(
            "{decoy}environments:\n  default: {{}}\n---\nreleases:\n- name: a\n  namespace: x\n  chart: ./chart\n"
        );
        let line = decoy.lines().count() + 1;
        let d = dir(
            &format!("unknown-env-{i}"),
            &[("helmfile.yaml.gotmpl".into(), state)],
        );
        for cmd in [
            "list",
            "build",
            "template",
            "show-dag",
            "write-values",
            "lint",
        ] {
            let r = capstan(&d, &["-e", "nope", cmd], &[]);
            assert_eq!(r.code, 3, "{cmd}: {}", r.stderr);
            assert!(
                r.stderr.starts_with("err: no releases found that matches specified selector() and environment(nope), in any helmfile"),
                "{cmd}: {}",
                r.stderr
            );
            assert!(
                r.stderr
                    .contains(&format!("--> helmfile.yaml.gotmpl:{line}:1")),
                "{cmd}: not at line {line}:\n{}",
                r.stderr
            );
        }
    }
}

/// `show-dag` keeps each group in definition order and names needs by their full IDs,
/// kube context included (`helmDefaults.kubeContext`), for generated chains.
#[test]
fn show_dag_keeps_definition_order_and_full_ids() {
    for n in [3usize, 5, 8] {
        // Releases defined in reverse alphabetical order, each needing the next one.
        let names: Vec<String> = (0..n).map(|i| format!("r{:02}", n - i)).collect();
        let mut state = String::from("helmDefaults:\n  kubeContext: kc1\nreleases:\n");
        for (i, name) in names.iter().enumerate() {
            state.push_str(&format!(
                "- name: {name}\n  namespace: ns\n  chart: ./chart\n"
            ));
            if i % 2 == 0 && i + 1 < n {
                state.push_str(&format!("  needs:\n  - ns/{}\n", names[i + 1]));
            }
        }
        let d = dir(&format!("dag-{n}"), &[("helmfile.yaml".into(), state)]);
        let r = capstan(&d, &["show-dag"], &[]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let rows: Vec<Vec<&str>> = r
            .stdout
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().collect())
            .collect();
        // Group 1: every release needed by another or needing nothing, in file order.
        let group1: Vec<&str> = rows.iter().filter(|r| r[0] == "1").map(|r| r[1]).collect();
        let mut expected: Vec<String> = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if !(i % 2 == 0 && i + 1 < n) {
                expected.push(format!("kc1/ns/{name}"));
            }
        }
        assert_eq!(group1, expected, "{}", r.stdout);
        for row in rows.iter().filter(|r| r[0] == "2") {
            assert!(row[2].starts_with("kc1/ns/"), "{}", r.stdout);
        }
        let build = capstan(&d, &["build"], &[]);
        assert!(build.stdout.contains("      - kc1/ns/"), "{}", build.stdout);
    }
}
