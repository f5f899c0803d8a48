//! `.Chart` as Helm 4.3.1 shows it (issue 45, C4 and C5): `Chart.yaml`'s numbers and
//! booleans in string fields made strings as sigs.k8s.io/yaml makes them (`version:
//! 1.10` is "1.1", `alias: yes` is "true"), `.Chart.Dependencies` items under Go's field
//! names with aliases applied and disabled ones left out, absent lists empty and absent
//! annotations a nil map. The expected texts are what the real `helm template` printed
//! for these charts (`helm template r .` in each chart folder, Helm v4.3.1); with
//! `CAPSTAN_TEST_HELM` set, the real helm is asked again.

use std::path::Path;
use std::process::Command;

mod common;
use common::{tempdir, write_files};

fn rendered(bin: &str, args: &[&str], dir: &Path) -> String {
    let out = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{bin}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn check(dir: &Path, expected: &str) {
    let capstan = rendered(
        env!("CARGO_BIN_EXE_capstan"),
        &["chart", "template", "r", "."],
        dir,
    );
    assert_eq!(capstan, expected);
    if let Ok(helm) = std::env::var("CAPSTAN_TEST_HELM") {
        assert_eq!(
            rendered(&helm, &["template", "r", "."], dir),
            expected,
            "the real helm disagrees"
        );
    }
}

#[test]
fn dependencies_and_string_fields_are_helms() {
    let d = tempdir("chart-object-deps");
    write_files(
        &d,
        [
            ("Chart.yaml", "apiVersion: v2\nname: c5\nversion: 0.1.0\ndependencies:\n- name: \"off\"\n  version: 1.10\n  alias: yes\n  condition: on\n- name: gone\n  version: 1.0.0\n  condition: gone.enabled\n"),
            ("values.yaml", "gone:\n  enabled: false\n"),
            ("charts/off/Chart.yaml", "apiVersion: v2\nname: \"off\"\nversion: 1.10.0\n"),
            ("charts/off/templates/cm.yaml", "kind: ConfigMap\nmetadata: {name: sub}\n"),
            ("charts/gone/Chart.yaml", "apiVersion: v2\nname: gone\nversion: 1.0.0\n"),
            (
                "templates/cm.yaml",
                "kind: ConfigMap\nmetadata: {name: x}\ndata:\n  deps: {{ range .Chart.Dependencies }}{{ .Name }}-{{ .Version }}-{{ .Alias }}-{{ .Enabled }} {{ end }}\n  ann: {{ .Chart.Annotations | toJson | quote }}\n",
            ),
        ],
    );
    check(
        &d,
        "---\n# Source: c5/charts/off/templates/cm.yaml\nkind: ConfigMap\nmetadata: {name: sub}\n\n---\n# Source: c5/templates/cm.yaml\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  deps: true-1.1-true-true \n  ann: \"null\"\n",
    );
}

#[test]
fn absent_fields_and_scalars_in_string_lists() {
    let d = tempdir("chart-object-fields");
    write_files(
        &d,
        [
            ("Chart.yaml", "apiVersion: v2\nname: c4\nversion: 0.1.0\nappVersion: 1.10\nkeywords: [a, 1]\n"),
            (
                "templates/cm.yaml",
                "kind: ConfigMap\nmetadata: {name: x}\ndata:\n  deps: {{ .Chart.Dependencies | toJson | quote }}\n  depsp: {{ printf \"%v\" .Chart.Dependencies | quote }}\n  ann: {{ printf \"%v\" .Chart.Annotations | quote }}\n  src: {{ .Chart.Sources | toJson | quote }}\n  mnt: {{ printf \"%v\" .Chart.Maintainers | quote }}\n  kw: {{ .Chart.Keywords | toJson | quote }}\n  app: {{ .Chart.AppVersion | toJson | quote }}\n  tags: {{ .Chart.Tags | quote }}\n",
            ),
        ],
    );
    check(
        &d,
        "---\n# Source: c4/templates/cm.yaml\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  deps: \"[]\"\n  depsp: \"[]\"\n  ann: \"map[]\"\n  src: \"[]\"\n  mnt: \"[]\"\n  kw: \"[\\\"a\\\",\\\"1\\\"]\"\n  app: \"\\\"1.1\\\"\"\n  tags: \"\"\n",
    );
}
