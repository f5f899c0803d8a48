//! helmfile behaviours found on real helmfiles, each checked by running the `capstan`
//! binary on a small helmfile written for the test: where paths resolve (bases, values
//! templates, `_*.tpl` helpers), what `show-dag`, `list` and `build` print, what needs no
//! download, how state fields and flags are read, and helmfile's errors.

mod common;

use common::{capstan_in, tempdir, write_files, Run, TempDir};

const CHART: &[(&str, &str)] = &[
    ("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n"),
    (
        "chart/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  value: {{ .Values.value | default \"none\" | quote }}\n",
    ),
    (
        "chart/templates/hook.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-hook\n  annotations:\n    helm.sh/hook: pre-install\n",
    ),
];

/// A test directory with the chart `chart/` and `files`.
fn dir(name: &str, files: &[(&str, &str)]) -> TempDir {
    let d = tempdir(name);
    write_files(&d, CHART.iter().chain(files).copied());
    d
}

fn capstan(d: &TempDir, args: &[&str], env: &[(&str, &str)]) -> Run {
    capstan_in(d, args, env)
}

fn ok(r: &Run) -> &str {
    assert_eq!(r.code, 0, "stderr: {}\nstdout: {}", r.stderr, r.stdout);
    &r.stdout
}

#[test]
fn a_base_resolves_its_paths_in_the_including_helmfile_directory() {
    let d = dir(
        "bases",
        &[
            (
                "bases/env.yaml.gotmpl",
                "environments:\n  default:\n    values:\n    - values/common.yaml\n    - fromFile: {{ readFile \"data.txt\" | trim | quote }}\n      cwd: {{ exec \"pwd\" (list) | trim | base | quote }}\n",
            ),
            ("bases/data.txt", "beside-the-base\n"),
            ("data.txt", "beside-the-helmfile\n"),
            ("values/common.yaml", "common: yes\n"),
            (
                "helmfile.yaml.gotmpl",
                "bases:\n- bases/env.yaml.gotmpl\n---\nreleases:\n- name: r\n  chart: ./chart\n",
            ),
        ],
    );
    let out = capstan(&d, &["print-env"], &[]);
    let text = ok(&out);
    assert!(text.contains("fromFile: beside-the-helmfile"), "{text}");
    assert!(text.contains("common: \"yes\""), "{text}");
    let own = d
        .file_name()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    assert!(text.contains(&format!("cwd: {own}")), "{text}");
}

#[test]
fn a_values_template_reads_files_beside_itself() {
    let d = dir(
        "values-gotmpl",
        &[
            ("vals/data.txt", "beside-the-values-file\n"),
            ("data.txt", "beside-the-helmfile\n"),
            ("vals/env.yaml.gotmpl", "env: {{ readFile \"data.txt\" | trim }}\n"),
            ("vals/rel.yaml.gotmpl", "value: {{ readFile \"data.txt\" | trim }}\n"),
            (
                "helmfile.yaml.gotmpl",
                "environments:\n  default:\n    values:\n    - vals/env.yaml.gotmpl\n---\nreleases:\n- name: r\n  chart: ./chart\n  values:\n  - vals/rel.yaml.gotmpl\n",
            ),
        ],
    );
    assert!(ok(&capstan(&d, &["print-env"], &[])).contains("env: beside-the-values-file"));
    let out = capstan(&d, &["template", "-q"], &[]);
    assert!(
        ok(&out).contains("value: \"beside-the-values-file\""),
        "{}",
        out.stdout
    );
}

#[test]
fn include_finds_the_helpers_beside_the_state_file() {
    let d = dir(
        "helpers",
        &[
            ("_helpers.tpl", "{{ define \"greeting\" }}hello {{ . }}{{ end }}\n"),
            (
                "helmfile.yaml.gotmpl",
                "releases:\n- name: r\n  chart: ./chart\n  values:\n  - value: {{ include \"greeting\" \"world\" | quote }}\n",
            ),
        ],
    );
    let out = capstan(&d, &["template", "-q"], &[]);
    assert!(
        ok(&out).contains("value: \"hello world\""),
        "{}",
        out.stdout
    );
}

#[test]
fn show_dag_prints_helmfiles_table() {
    let d = dir(
        "dag",
        &[(
            "helmfile.yaml",
            "releases:\n- name: db\n  kubeContext: kc\n  chart: ./chart\n- name: api\n  namespace: apps\n  kubeContext: kc\n  chart: ./chart\n  needs: [kc//db]\n- name: web\n  namespace: apps\n  kubeContext: kc\n  chart: ./chart\n  needs: [apps/api, kc//db]\n- name: zeta\n  namespace: aaa\n  chart: ./chart\n",
        )],
    );
    assert_eq!(
        ok(&capstan(&d, &["show-dag"], &[])),
        // As the real helmfile prints it (v0.166): definition order, needs as IDs.
        "GROUP RELEASE     DEPENDENCIES\n\
         1     kc//db      \n\
         1     aaa/zeta    \n\
         2     kc/apps/api kc//db\n\
         3     kc/apps/web kc/apps/api, kc//db\n"
    );
}

#[test]
fn list_sorts_and_shows_the_implicit_labels_and_build_honours_selectors() {
    let d = dir(
        "list",
        &[
            (
                "helmfile.yaml",
                "helmfiles:\n- path: sub/own.yaml\n  selectors: [name=s1]\nreleases:\n- name: zed\n  namespace: b\n  chart: ./chart\n  labels:\n    tier: web\n- name: alpha\n  namespace: b\n  chart: ./chart\n- name: top\n  namespace: a\n  chart: ./chart\n",
            ),
            (
                "sub/own.yaml",
                "releases:\n- name: s1\n  chart: ../chart\n- name: s2\n  chart: ../chart\n",
            ),
        ],
    );
    let table = capstan(&d, &["list"], &[]);
    let names: Vec<&str> = ok(&table)
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap_or("").trim())
        .collect();
    // By namespace, then name; the sub-helmfile's own selectors pick s1 only.
    assert_eq!(names, ["s1", "top", "alpha", "zed"]);
    assert!(
        table
            .stdout
            .contains("chart:chart,name:zed,namespace:b,tier:web"),
        "{}",
        table.stdout
    );
    // The sub-helmfile keeps its own selectors whatever -l says.
    let selected = capstan(&d, &["list", "-l", "name=zed"], &[]);
    let names: Vec<&str> = ok(&selected)
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap_or("").trim())
        .collect();
    assert_eq!(names, ["s1", "zed"]);
    let built = capstan(&d, &["build", "-l", "name=alpha"], &[]);
    assert!(ok(&built).contains("name: alpha"), "{}", built.stdout);
    assert!(!built.stdout.contains("name: zed"), "{}", built.stdout);
}

#[test]
fn commands_that_need_no_chart_download_nothing() {
    // A repository nobody answers on: any download attempt fails the command.
    let d = dir(
        "offline",
        &[(
            "helmfile.yaml",
            "repositories:\n- name: nowhere\n  url: http://127.0.0.1:9/charts\nreleases:\n- name: r\n  chart: nowhere/thing\n  version: 1.0.0\n  values:\n  - value: 1\n",
        )],
    );
    for args in [
        &[
            "write-values",
            "--output-file-template",
            "out/{{ .Release.Name }}.yaml",
        ][..],
        &["list"],
        &["build"],
        &["show-dag"],
        &["print-env"],
    ] {
        let r = capstan(&d, args, &[]);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    assert_eq!(
        std::fs::read_to_string(d.join("out/r.yaml")).expect("written"),
        "value: 1\n"
    );
    // template does need the chart, and says why it could not get it.
    assert_ne!(capstan(&d, &["template"], &[]).code, 0);
}

#[test]
fn render_yaml_default_inherit_and_boolean_fields() {
    let d = dir(
        "fields",
        &[(
            "helmfile.yaml",
            "templates:\n  base:\n    namespace: from-template\n    labels:\n      team: core\ndefaultInherit: [base]\nreleases:\n- name: {{ \"off\" }}\n  chart: ./chart\n  installed: off\n- name: on\n  chart: ./chart\n  installed: yes\n  wait: no\n",
        )],
    );
    // A .yaml state file is a template only with HELMFILE_RENDER_YAML=true.
    assert_ne!(capstan(&d, &["list"], &[]).code, 0);
    let env = [("HELMFILE_RENDER_YAML", "true")];
    let listed = capstan(&d, &["list"], &env);
    let text = ok(&listed);
    assert!(text.contains("from-template"), "{text}");
    assert!(text.contains("team:core"), "{text}");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::trim).collect())
        .collect();
    let installed = |name: &str| rows.iter().find(|r| r[0] == name).map(|r| r[3]);
    assert_eq!(installed("off"), Some("false"));
    assert_eq!(installed("on"), Some("true"));
    let built = capstan(&d, &["build"], &env);
    assert!(ok(&built).contains("installed: false"), "{}", built.stdout);
    assert!(built.stdout.contains("wait: false"), "{}", built.stdout);

    std::fs::write(
        d.join("helmfile.yaml"),
        "releases:\n- name: r\n  chart: ./chart\n  installed: maybe\n",
    )
    .expect("write");
    let refused = capstan(&d, &["list"], &[]);
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("line 4: cannot unmarshal !!str `maybe` into bool"),
        "{}",
        refused.stderr
    );
}

#[test]
fn json_patch_replace_adds_a_missing_key() {
    let d = dir(
        "jsonpatch",
        &[(
            "helmfile.yaml",
            "releases:\n- name: r\n  chart: ./chart\n  jsonPatches:\n  - target:\n      version: v1\n      kind: ConfigMap\n      name: r\n    patch:\n    - op: replace\n      path: /data/added\n      value: by-replace\n    - op: replace\n      path: /data/value\n      value: replaced\n",
        )],
    );
    let out = capstan(&d, &["template", "-q"], &[]);
    let text = ok(&out);
    assert!(text.contains("added: by-replace"), "{text}");
    assert!(text.contains("value: replaced"), "{text}");
}

#[test]
fn missing_files_warn_empty_helmfiles_fail_and_print_env_omits_kube_context() {
    let d = dir(
        "missing",
        &[(
            "helmfile.yaml",
            "environments:\n  default:\n    missingFileHandler: Warn\n    values:\n    - missing-env.yaml\n---\nreleases:\n- name: r\n  chart: ./chart\n  missingFileHandler: Warn\n  values:\n  - missing-rel.yaml\n",
        )],
    );
    let out = capstan(&d, &["template", "-q"], &[]);
    ok(&out);
    assert!(
        out.stderr
            .contains("skipping missing environment values file matching \"missing-env.yaml\""),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("skipping missing values file matching \"missing-rel.yaml\""),
        "{}",
        out.stderr
    );
    let env = capstan(&d, &["print-env"], &[]);
    assert!(!ok(&env).contains("kubeContext"), "{}", env.stdout);

    // An empty state file has no top-level key: v1's checker refuses it (the real
    // helmfile v0.166 in v1 mode too).
    std::fs::write(d.join("helmfile.yaml"), "").expect("write");
    for cmd in ["template", "list", "build", "print-env"] {
        let r = capstan(&d, &[cmd], &[]);
        assert_eq!(r.code, 1, "{cmd}: {}", r.stderr);
        assert!(
            r.stderr.starts_with(
                "in ./helmfile.yaml: no top-level config keys are found in helmfile.yaml"
            ),
            "{cmd}: {}",
            r.stderr
        );
    }
    // A state file with keys but no release: no release matches.
    std::fs::write(d.join("helmfile.yaml"), "helmDefaults: {}\n").expect("write");
    for cmd in ["template", "list", "build"] {
        let r = capstan(&d, &[cmd], &[]);
        assert_eq!(r.code, 3, "{cmd}: {}", r.stderr);
        assert!(
            r.stderr.contains(
                "no releases found that matches specified selector() and environment(default), in any helmfile"
            ),
            "{cmd}: {}",
            r.stderr
        );
    }
    assert_eq!(capstan(&d, &["print-env"], &[]).code, 0);
    assert_eq!(
        capstan(&d, &["--allow-no-matching-release", "list"], &[]).code,
        0
    );
}

/// `fetch` copies local charts under `--output-dir` (helmfile's default layout), and
/// `--write-output` prints the helmfile pointing at the copies, which renders the same
/// from anywhere (helmfile's air-gapped workflow).
#[test]
fn fetch_copies_local_charts_and_writes_an_air_gapped_helmfile() {
    let d = dir(
        "fetch",
        &[(
            "helmfile.yaml",
            "releases:\n- name: r\n  namespace: apps\n  chart: ./chart\n  values:\n  - value: fetched\n",
        )],
    );
    let out = capstan(
        &d,
        &["fetch", "--output-dir", "fetched", "--write-output"],
        &[],
    );
    let printed = ok(&out).to_string();
    assert!(
        out.stderr
            .contains("Building dependency release=r, chart=./chart"),
        "{}",
        out.stderr
    );
    let copy = d.join("fetched/apps/r/chart/latest");
    for f in ["Chart.yaml", "templates/cm.yaml", "templates/hook.yaml"] {
        assert!(copy.join(f).is_file(), "{f} not copied");
    }
    assert!(
        printed.starts_with("---\n#  Source: [DIR]/helmfile.yaml\n\n"),
        "{printed}"
    );
    assert!(
        printed.contains("  - chart: [DIR]/fetched/apps/r/chart/latest\n"),
        "{printed}"
    );
    // The printed helmfile, moved elsewhere, renders what the original renders.
    let elsewhere = dir("fetch-elsewhere", &[]);
    std::fs::write(
        elsewhere.join("helmfile.yaml"),
        printed.replace("[DIR]", &d.to_string_lossy()),
    )
    .expect("write");
    let original = capstan(&d, &["template", "-q"], &[]);
    let moved = capstan(&elsewhere, &["template", "-q"], &[]);
    assert_eq!(ok(&moved), ok(&original));
    assert!(
        original.stdout.contains("value: \"fetched\""),
        "{}",
        original.stdout
    );

    let no_dir = capstan(&d, &["fetch", "--write-output"], &[]);
    assert_ne!(no_dir.code, 0);
    assert!(
        no_dir
            .stderr
            .contains("--write-output requires --output-dir"),
        "{}",
        no_dir.stderr
    );
    let nested = dir(
        "fetch-nested",
        &[
            ("sub.yaml", "releases:\n- name: s\n  chart: ./chart\n"),
            (
                "helmfile.yaml",
                "helmfiles:\n- sub.yaml\nreleases:\n- name: r\n  chart: ./chart\n",
            ),
        ],
    );
    let two = capstan(
        &nested,
        &["fetch", "--output-dir", "o", "--write-output"],
        &[],
    );
    assert_ne!(two.code, 0);
    assert!(
        two.stderr
            .contains("needs a single helmfile state file, but 2 were loaded"),
        "{}",
        two.stderr
    );
    assert!(!nested.join("o").exists());
}

#[test]
fn flags_are_read_as_pflag_reads_them() {
    let d = dir(
        "flags",
        &[(
            "helmfile.yaml",
            "releases:\n- name: a\n  chart: ./chart\n  labels: {app: a}\n  needs: [b]\n- name: b\n  chart: ./chart\n",
        )],
    );
    // --skip-needs=false with a selector: a release needing an unselected one is
    // helmfile's error.
    let refused = capstan(&d, &["template", "-l", "app=a", "--skip-needs=false"], &[]);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains(
            "release \"a\" depends on \"b\" which does not match the selectors. Please add a selector like \"--selector name=b\""
        ),
        "{}",
        refused.stderr
    );
    // --args takes a value starting with a dash; booleans take =true/=false.
    let out = capstan(
        &d,
        &[
            "--debug",
            "-i",
            "--kubeconfig",
            "/nonexistent",
            "--skip-refresh=true",
            "--strip-args-values-on-exit-error=false",
            "template",
            "--args",
            "--kube-version=1.30.0",
            "--include-crds=false",
            "--no-hooks",
        ],
        &[],
    );
    let text = ok(&out);
    assert!(!text.contains("kind: Job"), "--no-hooks: {text}");
    let only = capstan(
        &d,
        &["template", "-q", "--show-only", "templates/hook.yaml"],
        &[],
    );
    assert!(ok(&only).contains("kind: Job"), "{}", only.stdout);
    assert!(!only.stdout.contains("kind: ConfigMap"), "{}", only.stdout);
    let bad = capstan(&d, &["--log-level=bogus", "list"], &[]);
    assert_eq!(bad.code, 1);
    assert!(
        bad.stderr.contains("unrecognized level: \"bogus\""),
        "{}",
        bad.stderr
    );
    let bad_bool = capstan(&d, &["template", "--skip-tests=maybe"], &[]);
    assert_ne!(bad_bool.code, 0);
}

/// The environments documentation's `defaults:` example, as print-env and a chart see it.
#[test]
fn environment_defaults_as_documented() {
    let d = dir(
        "env-defaults",
        &[(
            "helmfile.yaml.gotmpl",
            "environments:\n  default:\n    defaults:\n      - cluster: dev\n        replicas: 1\n    values:\n      - replicas: 3\n---\nreleases:\n- name: r\n  chart: ./chart\n  values:\n  - value: \"{{ .Values.replicas }}-{{ .Values.cluster }}\"\n",
        )],
    );
    let env = capstan(&d, &["print-env"], &[]);
    assert_eq!(
        ok(&env),
        "filePath: [DIR]/helmfile.yaml.gotmpl\nname: default\nvalues:\n  cluster: dev\n  replicas: 3\n"
    );
    let out = capstan(&d, &["template", "-q"], &[]);
    assert!(ok(&out).contains("value: \"3-dev\""), "{}", out.stdout);
    let built = capstan(&d, &["build"], &[]);
    assert!(
        ok(&built).contains("    defaults:\n      - cluster: dev\n        replicas: 1\n    values:\n      - replicas: 3\n"),
        "{}",
        built.stdout
    );
}

/// `defaults:` take what `values:` takes (files, `.gotmpl` files, globs, inline maps),
/// are seen by the environment's values templates, sit over the root `values:`, add up
/// across `bases:`, and stay the lowest environment layer under `mergeStrategy: fallback`.
#[test]
fn environment_defaults_take_every_entry_and_merge_across_bases() {
    let d = dir(
        "env-defaults-entries",
        &[
            ("defaults/a.yaml", "fromGlobA: a\nshared: glob-a\n"),
            ("defaults/b.yaml", "fromGlobB: b\nshared: glob-b\n"),
            (
                "defaults.yaml.gotmpl",
                "fromTemplate: {{ .Environment.Name }}\nshared: template\nroot: from-env-defaults\n",
            ),
            (
                "values.yaml.gotmpl",
                "sawDefault: {{ .Values.fromBase }}-{{ .Values.shared }}\n",
            ),
            (
                "base.yaml",
                "environments:\n  prod:\n    defaults:\n      - fromBase: base\n        shared: base\n",
            ),
            (
                "helmfile.yaml.gotmpl",
                "bases:\n  - base.yaml\n---\nvalues:\n  - root: from-root\n    onlyRoot: r\nenvironments:\n  prod:\n    defaults:\n      - defaults.yaml.gotmpl\n      - defaults/*.yaml\n    values:\n      - values.yaml.gotmpl\n---\nreleases: []\n",
            ),
        ],
    );
    let prod = capstan(&d, &["-e", "prod", "print-env"], &[]);
    let text = ok(&prod);
    for want in [
        "fromBase: base",
        "fromTemplate: prod",
        "fromGlobA: a",
        "fromGlobB: b",
        // base's defaults, then this file's, in order: the last glob match wins.
        "shared: glob-b",
        "sawDefault: base-glob-b",
        // the environment's defaults over the root values.
        "root: from-env-defaults",
        "onlyRoot: r",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    let fallback = capstan(
        &dir(
            "env-defaults-fallback",
            &[(
                "helmfile.yaml",
                "environments:\n  default:\n    mergeStrategy: fallback\n    defaults:\n      - shared: from-defaults\n        onlyDefaults: d\n    values:\n      - shared: first-values\n      - shared: second-values\n        extra: e\n",
            )],
        ),
        &["print-env"],
        &[],
    );
    let text = ok(&fallback);
    for want in ["shared: first-values", "extra: e", "onlyDefaults: d"] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    let missing = capstan(
        &dir(
            "env-defaults-missing",
            &[(
                "helmfile.yaml",
                "environments:\n  default:\n    defaults:\n      - nope.yaml\n",
            )],
        ),
        &["print-env"],
        &[],
    );
    assert_ne!(missing.code, 0);
    assert!(
        missing.stderr.contains("nope.yaml") && missing.stderr.contains("helmfile.yaml:4:9"),
        "{}",
        missing.stderr
    );
}

/// helm flags given through `--args` change the output as they change helm's, cluster
/// settings are accepted, anything else is refused; global flags before `chart` are
/// helm's (`-n`) or refused (helmfile's); a huge list index is Helm's error, not an
/// allocation that kills the process.
#[test]
fn helm_args_global_flags_for_chart_and_index_limits() {
    let d = dir(
        "args",
        &[
            (
                "chart/templates/ns.yaml",
                "kind: Namespace\nmetadata:\n  name: {{ .Release.Namespace }}\n  upgrade: {{ .Release.IsUpgrade }}\n",
            ),
            ("helmfile.yaml", "releases:\n- name: r\n  chart: ./chart\n"),
        ],
    );
    let out = capstan(
        &d,
        &[
            "template",
            "-q",
            "--args",
            "--set value=from-args --is-upgrade --wait --timeout 5m --no-hooks",
        ],
        &[],
    );
    let text = ok(&out);
    assert!(text.contains("value: \"from-args\""), "{text}");
    assert!(text.contains("upgrade: true"), "{text}");
    assert!(!text.contains("-hook"), "--no-hooks: {text}");
    for (args, want) in [
        ("--bogus", "--args: unknown flag --bogus for helm template"),
        ("--dry-run=server", "API server"),
        ("--version 1.0.0", "set the release's `version:`"),
    ] {
        let refused = capstan(&d, &["template", "--args", args], &[]);
        assert_ne!(refused.code, 0, "{args}");
        assert!(refused.stderr.contains(want), "{args}: {}", refused.stderr);
    }
    let ns = capstan(
        &d,
        &[
            "-n",
            "foo",
            "chart",
            "template",
            "r",
            "./chart",
            "-s",
            "templates/ns.yaml",
        ],
        &[],
    );
    assert!(ok(&ns).contains("name: foo"), "{}", ns.stdout);
    let own = capstan(
        &d,
        &[
            "-n",
            "foo",
            "chart",
            "template",
            "r",
            "./chart",
            "-n",
            "bar",
            "-s",
            "templates/ns.yaml",
        ],
        &[],
    );
    assert!(ok(&own).contains("name: bar"), "{}", own.stdout);
    let refused = capstan(
        &d,
        &["-e", "prod", "chart", "template", "r", "./chart"],
        &[],
    );
    assert_ne!(refused.code, 0);
    assert!(
        refused.stderr.contains("--environment is a helmfile flag"),
        "{}",
        refused.stderr
    );
    let huge = capstan(
        &d,
        &["--state-values-set", "a[99999999999]=1", "print-env"],
        &[],
    );
    assert_eq!(huge.code, 1);
    assert!(
        huge.stderr
            .contains("index of 99999999999 is greater than maximum supported index of 65536"),
        "{}",
        huge.stderr
    );
}

/// `--debug` makes a YAML error show the rendered files first (helm's `--debug`, which
/// the error's hint names); `--color`, `--no-color`, `--enable-live-output` and
/// `list --skip-charts` change nothing in these commands' output, as in helmfile.
#[test]
fn debug_shows_rendered_files_and_no_op_flags_change_nothing() {
    let d = dir(
        "debug",
        &[
            ("chart/templates/bad.yaml", "{{ if .Values.bad }}a: b: c{{ end }}\n"),
            (
                "helmfile.yaml",
                "releases:\n- name: r\n  chart: ./chart\n- name: broken\n  chart: ./chart\n  values:\n  - bad: true\n  labels:\n    broken: \"yes\"\n",
            ),
        ],
    );
    let plain = capstan(&d, &["template", "-q", "-l", "broken!=yes"], &[]);
    for flags in [
        &["--color", "template", "-q", "-l", "broken!=yes"][..],
        &["--no-color", "template", "-q", "-l", "broken!=yes"],
        &[
            "--enable-live-output",
            "template",
            "-q",
            "-l",
            "broken!=yes",
        ],
    ] {
        let out = capstan(&d, flags, &[]);
        assert_eq!(ok(&out), ok(&plain), "{flags:?}");
    }
    let list = capstan(&d, &["list"], &[]);
    let skipped = capstan(&d, &["list", "--skip-charts"], &[]);
    assert_eq!(ok(&list), ok(&skipped));

    let quiet = capstan(&d, &["template", "-q", "-l", "broken=yes"], &[]);
    assert_eq!(quiet.code, 1);
    assert!(quiet.stdout.is_empty(), "{}", quiet.stdout);
    assert!(
        quiet
            .stderr
            .contains("Use --debug flag to render out invalid YAML"),
        "{}",
        quiet.stderr
    );
    let debug = capstan(&d, &["--debug", "template", "-l", "broken=yes"], &[]);
    assert_eq!(debug.code, 1);
    assert!(
        debug
            .stdout
            .contains("# Source: chart/templates/bad.yaml\na: b: c"),
        "{}",
        debug.stdout
    );
}

/// `template` runs helmfile's `prepare` and `cleanup` hooks (the state's, then each
/// release's) around the rendering, with `.HelmfileCommand` and `.Event.Name`; a failing
/// `prepare` hook stops it before anything renders.
#[test]
fn template_runs_prepare_and_cleanup_hooks() {
    let hooks = "hooks:\n- events: [prepare, cleanup]\n  command: sh\n  args: [\"-c\", \"echo state {{ .Event.Name }} >> log\"]\nreleases:\n- name: r\n  chart: ./chart\n  hooks:\n  - events: [prepare, cleanup, presync]\n    command: sh\n    args: [\"-c\", \"echo {{ .HelmfileCommand }} {{ .Event.Name }} {{ .Release.Name }} >> log\"]\n";
    let d = dir("template-hooks", &[("helmfile.yaml", hooks)]);
    let out = capstan(&d, &["template"], &[]);
    assert!(ok(&out).contains("name: r"));
    let log = std::fs::read_to_string(d.join("log")).expect("hooks ran");
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        [
            "state prepare",
            "template prepare r",
            "state cleanup",
            "template cleanup r"
        ]
    );
    let failing = "releases:\n- name: r\n  chart: ./chart\n  hooks:\n  - events: [prepare]\n    command: sh\n    args: [\"-c\", \"exit 4\"]\n";
    let d = dir("template-hook-fails", &[("helmfile.yaml", failing)]);
    let out = capstan(&d, &["template"], &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("hook[sh]: command `sh` failed"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
}

/// helmfile v1.7.4's `conditionTemplate` (`pkg/state/state_exec_tmpl.go:61`: the rendered
/// text is read as a YAML boolean and becomes `condition: "true"|"false"`) and the literal
/// conditions `true`/`false` (`ConditionEnabled`, `pkg/state/state.go:3488`), in every
/// environment; a template that is not a boolean is an error naming the field.
#[test]
fn condition_templates_and_literal_conditions() {
    let d = dir(
        "condition-template",
        &[(
            "helmfile.yaml.gotmpl",
            "environments:\n  default: {}\n  prod: {}\n---\nreleases:\n- name: templated\n  chart: ./chart\n  conditionTemplate: '{{ `{{ eq .Environment.Name \"prod\" }}` }}'\n- name: never\n  chart: ./chart\n  condition: \"False\"\n- name: always\n  chart: ./chart\n  condition: \"true\"\n",
        )],
    );
    for (env, templated) in [("default", "false"), ("prod", "true")] {
        let out = capstan(&d, &["-e", env, "list"], &[]);
        let table = ok(&out);
        let enabled = |name: &str| {
            table
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split('\t').nth(2))
                .map(|c| c.trim().to_string())
        };
        assert_eq!(enabled("templated").as_deref(), Some(templated), "{table}");
        assert_eq!(enabled("never").as_deref(), Some("false"), "{table}");
        assert_eq!(enabled("always").as_deref(), Some("true"), "{table}");
        let rendered = capstan(&d, &["-e", env, "template", "-q"], &[]);
        let names: Vec<&str> = ok(&rendered)
            .lines()
            .filter_map(|l| l.strip_prefix("  name: "))
            .filter(|n| !n.ends_with("-hook"))
            .collect();
        let want: &[&str] = if templated == "true" {
            &["always", "templated"]
        } else {
            &["always"]
        };
        let mut names = names;
        names.sort();
        assert_eq!(names, want);
    }
    write_files(
        &d,
        [(
            "helmfile.yaml.gotmpl",
            "releases:\n- name: bad\n  chart: ./chart\n  conditionTemplate: maybe\n",
        )],
    );
    let out = capstan(&d, &["list"], &[]);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr
            .contains("conditionTemplate: failed deserialising string maybe"),
        "{}",
        out.stderr
    );
}

/// helmfile v1.7.4's `set[].values` holding maps and numbers (helmfile#2615;
/// `renderValsSecretsAny`, `pkg/state/state.go:5266`): `build` prints them as written
/// (`[]any`), and helm gets each non-string item as Go's JSON of it, escaped like every
/// set value (a list of that text).
#[test]
fn set_values_lists_may_hold_maps() {
    let d = dir(
        "set-values-maps",
        &[(
            "helmfile.yaml",
            "releases:\n- name: a\n  chart: ./chart\n  set:\n  - name: value\n    values:\n    - {b: 1, a: x}\n    - 2\n    - plain\n",
        )],
    );
    let built = capstan(&d, &["build"], &[]);
    assert!(ok(&built).contains("        values:\n          - a: x\n            b: 1\n          - 2\n          - plain\n"), "{}", built.stdout);
    let rendered = capstan(&d, &["template", "-q"], &[]);
    assert!(
        ok(&rendered).contains(r#"value: "[{\"a\":\"x\",\"b\":1} 2 plain]""#),
        "{}",
        rendered.stdout
    );
}
