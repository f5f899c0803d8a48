//! The `helmfile-real` cases of issue 45 (helmfile v1.7.4 as it is today): state files
//! decoded as strictly as v1.7.4's typed structs, local chart paths and labels,
//! `helmfiles:` globs, selectors and conditions, a sub-helmfile's values files. Each is
//! compared with the real helmfile v0.166 where it shows the behaviour (the changes up to
//! v1.7.4 that differ are applied by `crate::helmfile_real`).

use crate::helmfile_real::Case;
use crate::helmfile_real_cases::{case, chart, file, runs};

/// The cases of this module.
pub fn cases() -> Vec<Case> {
    let mut all = wrong_shapes();
    all.push(chart_paths());
    all.push(helmfiles_globs());
    all.push(selected_conditions());
    all.push(sub_helmfile_values_files());
    all
}

/// Values of the wrong shape and unknown keys at every level of the state's structs
/// (issue 45, D9 and D11): helmfile's strict decoding refuses each with the line of the
/// node (`cannot unmarshal !!map into []interface {}`, `field x not found in type
/// state.HelmSpec`); none may be accepted with its values silently dropped. Generated:
/// each field below given each shape it does not take.
fn wrong_shapes() -> Vec<Case> {
    let release = |extra: &str| {
        format!("releases:\n- name: a\n  namespace: x\n  chart: ./charts/app\n{extra}")
    };
    // (id, state file)
    let mut states: Vec<(String, String)> = Vec::new();
    let shapes = [("map", "{a: 1}"), ("scalar", "ns/b"), ("list", "[a, b]")];
    // Release fields by the shapes they refuse.
    let release_fields: &[(&str, &[&str])] = &[
        ("values", &["map", "scalar"]),
        ("secrets", &["map", "scalar"]),
        ("set", &["map", "scalar"]),
        ("setString", &["map"]),
        ("needs", &["map", "scalar"]),
        ("labels", &["list", "scalar"]),
        ("hooks", &["map"]),
        ("apiVersions", &["map"]),
        ("dependencies", &["map"]),
        ("name", &["map", "list"]),
        ("chart", &["list"]),
        ("timeout", &["scalar", "map"]),
        ("wait", &["scalar", "list"]),
    ];
    for (field, refused) in release_fields {
        for (shape, text) in shapes.iter().filter(|(n, _)| refused.contains(n)) {
            states.push((
                format!("shape-release-{field}-{shape}"),
                release(&format!("  {field}: {text}\n")),
            ));
        }
    }
    for (field, text) in [
        ("values", "{a: 1}"),
        ("secrets", "{a: 1}"),
        ("kubeContext", "[a]"),
        ("valuez", "[]"),
    ] {
        states.push((
            format!("shape-environment-{field}"),
            format!(
                "environments:\n  default:\n    {field}: {text}\n---\n{}",
                release("")
            ),
        ));
    }
    for (id, text) in [
        ("helmdefaults-unknown", "helmDefaults:\n  waitx: true\n"),
        (
            "helmdefaults-missingfilehandler",
            "helmDefaults:\n  missingFileHandler: Warn\n",
        ),
        ("helmdefaults-list", "helmDefaults: [a]\n"),
        ("helmdefaults-args-map", "helmDefaults:\n  args: {a: 1}\n"),
        (
            "hook-unknown",
            "hooks:\n- events: [prepare]\n  commandd: echo\n",
        ),
        (
            "hook-args-scalar",
            "hooks:\n- events: [prepare]\n  command: echo\n  args: hi\n",
        ),
        (
            "repository-unknown",
            "repositories:\n- name: r\n  url: https://example.com\n  pasword: x\n",
        ),
        ("releases-map", "releases: {a: 1}\n"),
        ("bases-map", "bases: {a: 1}\n"),
        ("commonlabels-list", "commonLabels: [a]\n"),
        ("environments-list", "environments: [a]\n"),
        (
            "two-errors",
            "helmDefaults:\n  waitx: true\ncommonLabels: [a]\n",
        ),
    ] {
        states.push((
            format!("shape-{id}"),
            format!(
                "{text}{}",
                if text.starts_with("releases") {
                    String::new()
                } else {
                    release("")
                }
            ),
        ));
    }
    states.push((
        "shape-release-hook-unknown".into(),
        release("  hooks:\n  - events: [presync]\n    commandd: echo\n"),
    ));
    states.push((
        "shape-template-unknown".into(),
        format!(
            "templates:\n  t:\n    valuez: []\n{}",
            release("  inherit:\n  - template: t\n")
        ),
    ));
    states
        .into_iter()
        .map(|(id, text)| {
            let mut files = chart("charts/app", "app");
            files.push(file("helmfile.yaml", &text));
            case(&id, files, runs(&["list", "build"]))
        })
        .collect()
}

/// Local charts written in every way (issue 45, D2 and D14): `build` prints the
/// `chartPath` helmfile prepared (the clean path) when it differs from `chart:`, and the
/// implicit `chart` label is the last part after `/` (empty for `./`).
fn chart_paths() -> Case {
    let mut files = chart("charts/app", "app");
    files.extend(chart("sub/c", "c"));
    files.extend(chart("top", "top"));
    files.push(file(
        "helmfile.yaml",
        "helmfiles:\n- sub/helmfile.yaml\nreleases:\n- name: dot\n  namespace: x\n  chart: ./charts/app\n- name: slash\n  namespace: x\n  chart: charts/app/\n- name: inner-dot\n  namespace: x\n  chart: ./charts/./app\n- name: clean\n  namespace: x\n  chart: charts/app\n- name: off\n  namespace: x\n  chart: ./charts/app\n  installed: false\n",
    ));
    files.push(file(
        "sub/helmfile.yaml",
        "releases:\n- name: here\n  namespace: y\n  chart: ./c\n- name: self\n  namespace: y\n  chart: ./\n",
    ));
    files.extend(chart("sub", "sub"));
    case(
        "chart-paths",
        files,
        runs(&[
            "build",
            "list",
            "list -l chart=app",
            "list -l chart=",
            "template -l name=self",
        ]),
    )
}

/// `helmfiles:` given as globs, strings and maps (issue 45, D6): `build` prints each as a
/// struct with its `path`, a glob as the files it matched.
fn helmfiles_globs() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml",
        "helmfiles:\n- apps/*.yaml\n- path: more/*.yaml\n  values:\n  - a: 1\n  selectors: [name=m1]\n- path: single.yaml\n  selectorsInherited: true\n",
    ));
    for (name, rel) in [
        ("apps/one.yaml", "a1"),
        ("apps/two.yaml", "a2"),
        ("more/m1.yaml", "m1"),
        ("more/m2.yaml", "m2"),
        ("single.yaml", "s"),
    ] {
        let up = if name.contains('/') { "../" } else { "./" };
        files.push(file(
            name,
            &format!("releases:\n- name: {rel}\n  namespace: n\n  chart: {up}charts/app\n"),
        ));
    }
    case("helmfiles-globs", files, runs(&["build", "list"]))
}

/// `environments:` before `bases:` (issue 45, D1: the two share a priority), an
/// environment's empty `values: []` (D7: not printed by `build`), and selectors that pick
/// releases whose `condition:` is false (D8: left out, and "no releases found" when
/// nothing else is left), with `show-dag`'s table header on that error (D5).
fn selected_conditions() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file("base.yaml", "values:\n- from: base\n"));
    files.push(file(
        "helmfile.yaml",
        "environments:\n  default:\n    values: []\n  other:\n    values:\n    - feature:\n        enabled: true\n---\nbases:\n- base.yaml\n---\nvalues:\n- feature:\n    enabled: false\n---\nreleases:\n- name: gated\n  namespace: x\n  chart: ./charts/app\n  condition: feature.enabled\n  labels: {tier: web}\n- name: open\n  namespace: x\n  chart: ./charts/app\n  labels: {tier: web}\n- name: alone\n  namespace: x\n  chart: ./charts/app\n  condition: feature.enabled\n",
    ));
    case(
        "selected-conditions",
        files,
        runs(&[
            "build",
            "list",
            "list -l tier=web",
            "list -l name=alone",
            "show-dag -l name=alone",
            "template -l tier=web",
            "-e other list -l name=alone",
        ]),
    )
}

/// `write-values` of a sub-helmfile's releases with the default file template and with
/// `.State.Path`/`.State.BaseName` (issue 45, D3): written beside the sub-helmfile, once.
fn sub_helmfile_values_files() -> Case {
    let mut files = chart("sub/charts/app", "app");
    files.push(file("helmfile.yaml", "helmfiles:\n- sub/helmfile.yaml\n"));
    files.push(file(
        "sub/helmfile.yaml",
        "releases:\n- name: a\n  namespace: x\n  chart: ./charts/app\n  values:\n  - replicas: 2\n",
    ));
    case(
        "write-values-sub-helmfile",
        files,
        runs(&[
            "write-values",
            "write-values --output-file-template o/{{.State.Path}}-{{.State.BaseName}}-{{.Release.Name}}.yaml",
        ]),
    )
}
