//! The projects of the `helmfile-real` suite ([`crate::helmfile_real`]), generated here:
//! every feature of a state file a helmfile user writes (environments and their values
//! files, `.gotmpl` and HCL values, bases, sub-helmfiles, templates and `inherit`,
//! `needs`, selectors, hooks, repositories, `installed`/`condition`, state values, release
//! values templates with `exec`/`readFile`/`required`), bad input of each kind, and the
//! defects the real binary found (issue 27), each run through `build`, `list`,
//! `list --output json`, `write-values`, `template`, `show-dag` and `lint`, with and
//! without `-e` and `-l`.

use crate::helmfile_real::{Case, Expected, Run};

type Files = Vec<(String, Vec<u8>)>;

pub(crate) fn file(path: &str, text: &str) -> (String, Vec<u8>) {
    (path.to_string(), text.as_bytes().to_vec())
}

/// A chart `name` under `dir` whose one template prints the values a release sets, so
/// every layer of values shows in `template`.
pub(crate) fn chart(dir: &str, name: &str) -> Files {
    vec![
        file(
            &format!("{dir}/Chart.yaml"),
            &format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\nappVersion: \"1.0\"\n"),
        ),
        file(
            &format!("{dir}/values.yaml"),
            "replicas: 1\nimage:\n  repository: nginx\n  tag: \"1.25\"\nlabels: {}\nextra: []\n",
        ),
        file(
            &format!("{dir}/templates/cm.yaml"),
            r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- range $k, $v := .Values.labels }}
    {{ $k }}: {{ $v | quote }}
    {{- end }}
data:
  replicas: {{ .Values.replicas | quote }}
  image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
  env: {{ .Values.env | default "none" | quote }}
  extra: {{ .Values.extra | toJson | quote }}
"#,
        ),
    ]
}

/// Runs from command lines split on spaces.
pub(crate) fn runs(lines: &[&str]) -> Vec<Run> {
    lines.iter().map(|l| run(l)).collect()
}

fn run(line: &str) -> Run {
    Run {
        args: line.split_whitespace().map(String::from).collect(),
        env: Vec::new(),
        v17: None,
    }
}

pub(crate) fn case(id: &str, files: Files, runs: Vec<Run>) -> Case {
    Case {
        id: id.to_string(),
        files,
        runs,
        chart_repo: false,
    }
}

/// The commands every feature case runs.
const EVERY: &[&str] = &[
    "list",
    "list --output json",
    "build",
    "show-dag",
    "template",
    "write-values --output-file-template out/{{.Release.Namespace}}-{{.Release.Name}}.yaml",
    "lint",
];

fn with(extra: &[&str]) -> Vec<Run> {
    let mut all = runs(EVERY);
    all.extend(runs(extra));
    all
}

pub fn cases() -> Vec<Case> {
    let mut all = vec![
        basic(),
        bases(),
        sub_helmfiles(),
        templates_and_inherit(),
        dag(),
        hcl_values(),
        values_templates(),
        installed_and_conditions(),
        state_values(),
        selectors(),
        repositories(),
        helmfile_d(),
        show_dag_without_releases(),
        written_scalars(),
    ];
    all.extend(hooks());
    all.extend(bad_input());
    all.extend(crate::helmfile_real_v17_cases::cases());
    all
}

fn basic() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml.gotmpl",
        r#"environments:
  default:
    values:
    - env: dev
      replicas: 1
  prod:
    values:
    - env/prod.yaml
    - replicas: 3
---
helmDefaults:
  wait: true
  timeout: 120
releases:
- name: backend
  namespace: ns1
  chart: ./charts/app
  labels:
    tier: back
  values:
  - env: {{ .Values.env }}
    replicas: {{ .Values.replicas }}
    labels:
      team: core
  - values/common.yaml
- name: frontend
  namespace: ns2
  chart: ./charts/app
  labels:
    tier: front
  needs:
  - ns1/backend
  set:
  - name: image.tag
    value: "1.10"
  - name: extra[0]
    value: x
"#,
    ));
    files.push(file("env/prod.yaml", "env: prod\nregion: eu\n"));
    files.push(file(
        "values/common.yaml",
        "image:\n  repository: registry.local/app\nextra:\n- a\n- b\n",
    ));
    case(
        "basic",
        files,
        with(&[
            "-e prod list",
            "-e prod build",
            "-e prod template",
            "-l tier=back template",
            "-l tier!=back list",
            "-l name=frontend build",
            "-l tier=front -l tier=back show-dag",
            "-n other list",
            "--kube-context kcx build",
            "--kube-context kcx show-dag",
            "--kube-context kcx list --output json",
            "--state-values-set env=qa template",
            "-e prod write-values --output-file-template out/{{.Environment.Name}}/{{.Release.Name}}.yaml",
        ]),
    )
}

/// Unquoted numbers where helmfile reads a string (`set:` values, `version`, labels,
/// `needs`): the text as written; and in inline values, where helmfile reads a number
/// (`tag: 1.10` is 1.1, `010` is 8).
fn written_scalars() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml",
        r#"templates:
  base: &base
    chart: ./charts/app
    version: 0.1.0
    kubeVersion: 1.30
releases:
- name: "10"
  namespace: ns
  <<: *base
  labels:
    track: 2.0
- name: web
  namespace: ns
  <<: *base
  labels:
    tier: 1.10
  needs:
  - ns/10
  values:
  - replicas: 010
    env: 1.10
    image: {tag: 1.0}
    labels: {big: 1000000, hex: 0x1f, frac: 2.50}
  set:
  - name: image.repository
    value: 1.10
  - name: labels.octal
    value: 010
  - name: extra
    values: [1.0, 0x10, 7]
"#,
    ));
    case(
        "written-scalars",
        files,
        with(&[
            "-l tier=1.10 list",
            "-l tier=1.10 template",
            "-l track=2.0 list",
        ]),
    )
}

fn bases() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "bases/environments.yaml",
        r#"environments:
  default:
    values:
    - env/default.yaml
  staging:
    values:
    - env/default.yaml
    - env/staging.yaml
"#,
    ));
    files.push(file(
        "bases/defaults.yaml",
        "helmDefaults:\n  createNamespace: false\n  historyMax: 5\n",
    ));
    files.push(file(
        "env/default.yaml",
        "domain: dev.example.com\nsize: small\n",
    ));
    files.push(file("env/staging.yaml", "domain: staging.example.com\n"));
    files.push(file(
        "helmfile.yaml.gotmpl",
        r#"bases:
- bases/environments.yaml
- bases/defaults.yaml
---
releases:
- name: web
  namespace: web
  chart: ./charts/app
  values:
  - env: {{ .Environment.Name }}
    labels:
      domain: {{ .Values.domain }}
      size: {{ .Values.size }}
"#,
    ));
    case(
        "bases",
        files,
        with(&["-e staging template", "-e staging build"]),
    )
}

fn sub_helmfiles() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml.gotmpl",
        r#"environments:
  default:
    values:
    - shared: from-parent
---
helmfiles:
- path: apps/one.yaml.gotmpl
  values:
  - greeting: hello
- path: apps/two.yaml
  selectors:
  - tier=db
releases:
- name: root
  namespace: root
  chart: ./charts/app
  labels:
    tier: root
"#,
    ));
    files.push(file(
        "apps/one.yaml.gotmpl",
        r#"releases:
- name: one
  namespace: apps
  chart: ../charts/app
  labels:
    tier: web
  values:
  - env: {{ .Values.greeting }}
"#,
    ));
    files.push(file(
        "apps/two.yaml",
        r#"releases:
- name: two
  namespace: apps
  chart: ../charts/app
  labels:
    tier: db
- name: three
  namespace: apps
  chart: ../charts/app
  labels:
    tier: cache
"#,
    ));
    // (No lint here: capstan runs helm from the working directory, so helm names a
    // sub-helmfile's chart `charts/app` where helmfile, run from the sub-helmfile's
    // directory, has it print `../charts/app`; see COMPATIBILITY.md.)
    let mut all = runs(&EVERY[..EVERY.len() - 1]);
    all.extend(runs(&[
        "-l tier=web template",
        "-l tier=root list",
        "-l tier=cache list",
    ]));
    case("sub-helmfiles", files, all)
}

fn templates_and_inherit() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml",
        r#"templates:
  default:
    namespace: shared
    chart: ./charts/app
    labels:
      managed: "true"
    values:
    - replicas: 2
      labels:
        from: template
  big:
    values:
    - replicas: 5
releases:
- name: small
  inherit:
  - template: default
- name: large
  namespace: large
  inherit:
  - template: default
  - template: big
  values:
  - env: large
"#,
    ));
    case("templates-inherit", files, with(&["-l managed=true list"]))
}

fn dag() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml",
        r#"helmDefaults:
  kubeContext: kc1
releases:
- name: b
  namespace: ns
  chart: ./charts/app
- name: a
  namespace: ns
  chart: ./charts/app
- name: db
  namespace: data
  chart: ./charts/app
- name: api
  namespace: apps
  chart: ./charts/app
  needs:
  - data/db
  - ns/a
- name: web
  namespace: apps
  chart: ./charts/app
  needs:
  - api
- name: other
  namespace: apps
  kubeContext: kc2
  chart: ./charts/app
  needs:
  - kc1/data/db
"#,
    ));
    case(
        "dag",
        files,
        runs(&[
            "show-dag",
            "build",
            "list",
            "-l name=web show-dag",
            "-l name=web template --include-needs",
            "template",
        ]),
    )
}

fn hcl_values() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml.gotmpl",
        r#"environments:
  default:
    values:
    - env/base.yaml
    - env/values.hcl
    - env/more.hcl
---
releases:
- name: hcl
  namespace: hcl
  chart: ./charts/app
  values:
  - env: {{ .Values.name }}
    replicas: {{ .Values.replicas }}
    labels:
{{ .Values.more_tags | toYaml | indent 6 }}
    extra:
    - {{ .Values.tags | toJson | quote }}
"#,
    ));
    // `tags` from YAML and from HCL's zipmap merge as maps do.
    files.push(file(
        "env/base.yaml",
        "replicas: 1\nname: base\ntags:\n  team: x\n  other: z\n",
    ));
    files.push(file(
        "env/values.hcl",
        r#"locals {
  prefix = "app"
}
values {
  name     = "${local.prefix}-${upper("hcl")}"
  replicas = 2 + 1
  tags     = zipmap(["team", "tier"], ["core", "back"])
}
"#,
    ));
    files.push(file(
        "env/more.hcl",
        r#"values {
  more_tags = merge(hv.tags, { extra = "yes" })
}
"#,
    ));
    case("hcl", files, with(&[]))
}

fn values_templates() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml.gotmpl",
        r#"environments:
  default:
    values:
    - domain: example.com
      tags: [a, b]
  prod:
    values:
    - domain: prod.example.com
      tags: [p]
---
releases:
- name: tpl
  namespace: {{ .Environment.Name }}
  chart: ./charts/app
  values:
  - values/app.yaml.gotmpl
  - env: {{ env "CASE_ENV" | default "unset" }}
  - labels:
      required: {{ requiredEnv "CASE_REQUIRED" }}
      exec: {{ exec "sh" (list "-c" "printf from-exec") }}
      file: {{ readFile "values/plain.txt" | trim }}
"#,
    ));
    files.push(file(
        "values/app.yaml.gotmpl",
        r#"replicas: {{ .Values | get "replicas" 4 }}
image:
  tag: {{ required "a domain is required" .Values.domain | quote }}
extra:
{{ .Values.tags | toYaml }}
labels:
  release: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
  env: {{ .Environment.Name }}
"#,
    ));
    files.push(file("values/plain.txt", "plain text\n"));
    let env = vec![
        ("CASE_ENV".to_string(), "from-env".to_string()),
        ("CASE_REQUIRED".to_string(), "present".to_string()),
    ];
    let mut all = with(&["-e prod template", "-e prod build"]);
    for r in &mut all {
        r.env = env.clone();
    }
    // requiredEnv without the variable: both fail.
    all.push(run("template"));
    case("values-templates", files, all)
}

fn installed_and_conditions() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml.gotmpl",
        r#"environments:
  default:
    values:
    - cache:
        enabled: false
      metrics:
        enabled: true
---
releases:
- name: on
  namespace: ns
  chart: ./charts/app
- name: off
  namespace: ns
  chart: ./charts/app
  installed: false
- name: cache
  namespace: ns
  chart: ./charts/app
  condition: cache.enabled
- name: metrics
  namespace: ns
  chart: ./charts/app
  condition: metrics.enabled
"#,
    ));
    case("installed-condition", files, with(&[]))
}

fn state_values() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml.gotmpl",
        r#"values:
- name: root
  nested:
    a: 1
    b: 2
---
releases:
- name: {{ .Values.name }}
  namespace: sv
  chart: ./charts/app
  values:
  - env: "{{ .Values.nested.a }}-{{ .Values.nested.b }}"
"#,
    ));
    files.push(file("override.yaml", "nested:\n  b: 20\n"));
    case(
        "state-values",
        files,
        runs(&[
            "list",
            "build",
            "template",
            "--state-values-set nested.a=10 template",
            "--state-values-file override.yaml template",
            "--state-values-set name=renamed list",
            "--state-values-set-string nested.a=007 template",
        ]),
    )
}

fn selectors() -> Case {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml",
        r#"releases:
- name: a
  namespace: one
  chart: ./charts/app
  labels:
    tier: front
    team: x
- name: b
  namespace: two
  chart: ./charts/app
  labels:
    tier: back
    team: x
- name: c
  namespace: one
  chart: ./charts/app
  labels:
    tier: back
    team: y
"#,
    ));
    case(
        "selectors",
        files,
        runs(&[
            "-l tier=back list",
            "-l tier=back,team=x list",
            "-l tier=front -l team=y list",
            "-l team!=x template",
            "-l namespace=one list --output json",
            "-l name=c build",
            "-l tier=none list",
            "-l tier=none --allow-no-matching-release list",
            "-l tier=none template",
        ]),
    )
}

fn repositories() -> Case {
    let mut files = chart("charts/remote", "remote");
    files.push(file(
        "helmfile.yaml",
        r#"repositories:
- name: myrepo
  url: REPO_URL
releases:
- name: fromrepo
  namespace: repo
  chart: myrepo/remote
  version: 0.1.0
  values:
  - replicas: 7
"#,
    ));
    let mut c = case(
        "repositories",
        files,
        runs(&["list", "list --output json", "build", "template"]),
    );
    c.chart_repo = true;
    c
}

fn helmfile_d() -> Case {
    // One state file loaded twice (helmfile.d/ and helmfiles:), two releases of one name
    // in two namespaces: write-values writes each once (defect 4).
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.d/00-main.yaml",
        r#"helmfiles:
- path: apps.yaml
releases:
- name: same
  namespace: first
  chart: ../charts/app
  values:
  - env: first
- name: same
  namespace: second
  chart: ../charts/app
  values:
  - env: second
"#,
    ));
    files.push(file(
        "helmfile.d/apps.yaml",
        r#"releases:
- name: app
  namespace: apps
  chart: ../charts/app
"#,
    ));
    case(
        "helmfile-d",
        files,
        runs(&[
            "list",
            "build",
            "template",
            "write-values --output-file-template out/{{.Release.Namespace}}-{{.Release.Name}}.yaml",
            // (Not `out/{{.Release.Name}}.yaml`: the two `same` releases then write one
            // file, and which one helmfile writes last follows Go's map order, at random.)
        ]),
    )
}

fn show_dag_without_releases() -> Case {
    case(
        "no-releases",
        vec![file("helmfile.yaml", "helmDefaults:\n  wait: true\n")],
        runs(&["show-dag", "list", "build", "template"]),
    )
}

fn hooks() -> Vec<Case> {
    let mut files = chart("charts/app", "app");
    files.push(file(
        "helmfile.yaml",
        r#"hooks:
- events: ["prepare", "cleanup"]
  showlogs: true
  command: "echo"
  args: ["global", "{{`{{ .Event.Name }}`}}"]
releases:
- name: hooked
  namespace: hooks
  chart: ./charts/app
  hooks:
  - name: say
    events: ["prepare"]
    showlogs: true
    command: "echo"
    args: ["release", "{{`{{ .Release.Name }}`}}"]
  - events: ["presync"]
    command: "true"
"#,
    ));
    let ok = case("hooks", files, runs(&["build", "template", "show-dag"]));
    let mut failing = chart("charts/app", "app");
    failing.push(file(
        "helmfile.yaml",
        r#"releases:
- name: hooked
  namespace: hooks
  chart: ./charts/app
  hooks:
  - events: ["prepare"]
    command: "sh"
    args: ["-c", "exit 7"]
"#,
    ));
    // build runs prepare hooks (defect 3): a failing one fails the command.
    // v0.168 (helmfile#1681) stopped running prepare hooks in list and write-values.
    let mut quiet = runs(&["list", "write-values"]);
    for r in &mut quiet {
        r.v17 = Some(Expected {
            code: 0,
            first_error_line: String::new(),
            change: "list and write-values run no prepare hooks (v0.168.0, helmfile#1681)",
        });
    }
    let mut all = runs(&["build", "template"]);
    all.extend(quiet);
    let failing = case("hook-fails", failing, all);
    // A failing top-level prepare hook fails list and write-values too: v1.7.4 still
    // triggers the global events there (pkg/app/run.go:49, 106), as v0.166 does; with
    // --skip-charts list runs none.
    let mut global = chart("charts/app", "app");
    global.push(file(
        "helmfile.yaml",
        "hooks:\n- events: [\"prepare\"]\n  command: \"sh\"\n  args: [\"-c\", \"exit 4\"]\nreleases:\n- name: hooked\n  namespace: hooks\n  chart: ./charts/app\n",
    ));
    let global = case(
        "global-hook-fails",
        global,
        runs(&[
            "list",
            "list --skip-charts",
            "write-values",
            "build",
            "template",
        ]),
    );
    vec![ok, failing, global]
}

/// One state file each, every one a kind of bad input; each runs the commands listed.
fn bad_input() -> Vec<Case> {
    let chart_files = chart("charts/app", "app");
    let one = |id: &str, name: &str, text: &str, commands: &[&str]| {
        let mut files = chart_files.clone();
        files.push(file(name, text));
        case(id, files, runs(commands))
    };
    let mut all = vec![
        one(
            "bad-yaml",
            "helmfile.yaml",
            "releases:\n- name: a\n  chart: [unclosed\n",
            &["list", "build", "template"],
        ),
        one(
            "bad-indent",
            "helmfile.yaml",
            "releases:\n- name: a\n\tchart: ./charts/app\n",
            &["list", "template"],
        ),
        one(
            "unclosed-action",
            "helmfile.yaml.gotmpl",
            "environments:\n  default: {}\n---\nreleases:\n- name: a\n  namespace: {{ .Environment.Name\nreleases:\n- name: b\n",
            &["list", "build"],
        ),
        one(
            "unclosed-if",
            "helmfile.yaml.gotmpl",
            "releases:\n{{ if true }}\n- name: a\n  chart: ./charts/app\n",
            &["list", "template"],
        ),
        one(
            "undefined-function",
            "helmfile.yaml.gotmpl",
            "releases:\n- name: {{ nosuchfunc 1 }}\n  chart: ./charts/app\n",
            &["list"],
        ),
        one(
            "missing-values-file",
            "helmfile.yaml",
            "releases:\n- name: a\n  namespace: x\n  chart: ./charts/app\n  values:\n  - missing.yaml\n",
            &["template", "write-values", "build", "list"],
        ),
        one(
            "missing-values-file-warn",
            "helmfile.yaml",
            "releases:\n- name: a\n  namespace: x\n  chart: ./charts/app\n  missingFileHandler: Warn\n  values:\n  - missing.yaml\n",
            &["template", "list"],
        ),
        one(
            "missing-env-file",
            "helmfile.yaml",
            "environments:\n  default:\n    values:\n    - env/none.yaml\nreleases:\n- name: a\n  chart: ./charts/app\n",
            &["list", "template"],
        ),
        one(
            "missing-chart",
            "helmfile.yaml",
            "releases:\n- name: a\n  namespace: x\n  chart: ./charts/none\n",
            &["template", "list", "build"],
        ),
        one(
            "required-value",
            "helmfile.yaml.gotmpl",
            "releases:\n- name: {{ required \"name is required\" .Values.name }}\n  chart: ./charts/app\n",
            &["list", "template"],
        ),
        one(
            "exec-fails",
            "helmfile.yaml.gotmpl",
            "releases:\n- name: {{ exec \"sh\" (list \"-c\" \"echo oops >&2; exit 3\") }}\n  chart: ./charts/app\n",
            &["list"],
        ),
        one(
            "needs-missing",
            "helmfile.yaml",
            "releases:\n- name: a\n  namespace: x\n  chart: ./charts/app\n  needs:\n  - x/none\n",
            &["template", "show-dag", "list"],
        ),
        one(
            "needs-cycle",
            "helmfile.yaml",
            "releases:\n- name: a\n  namespace: x\n  chart: ./charts/app\n  needs: [x/b]\n- name: b\n  namespace: x\n  chart: ./charts/app\n  needs: [x/a]\n",
            &["template", "show-dag"],
        ),
        one(
            "unknown-environment",
            "helmfile.yaml.gotmpl",
            "# a comment that mentions environments: before the key\nenvironments:\n  default: {}\n---\nreleases:\n- name: a\n  namespace: x\n  chart: ./charts/app\n",
            &["-e nope list", "-e nope build", "-e nope template", "-e nope show-dag", "-e nope write-values", "-e nope lint"],
        ),
        one(
            "malformed-selector",
            "helmfile.yaml",
            "releases:\n- name: a\n  namespace: x\n  chart: ./charts/app\n",
            &["-l =a list", "-l a list", "-l a=b=c template", "-l !=x build"],
        ),
        one(
            "bad-release-name",
            "helmfile.yaml",
            "releases:\n- name: Bad_Name\n  namespace: x\n  chart: ./charts/app\n",
            &["template"],
        ),
        one(
            "int-keys",
            "helmfile.yaml.gotmpl",
            // One int key: helmfile names the first it meets in Go's map order.
            "environments:\n  default:\n    values:\n    - m:\n        1: a\n        x: z\n---\nreleases:\n- name: r\n  chart: ./charts/app\n",
            &["list", "build"],
        ),
        one(
            "unknown-key",
            "helmfile.yaml",
            "releases:\n- name: a\n  chart: ./charts/app\n  nosuchfield: 1\n",
            &["list", "template"],
        ),
    ];
    // v1's checker (v0.166 in v1 mode too): no key at column 0 is an error.
    for (i, text) in [
        "  releases:\n  - name: a\n    chart: ./charts/app\n",
        "",
        "# only a comment\n",
    ]
    .iter()
    .enumerate()
    {
        let mut no_top = chart_files.clone();
        no_top.push(file("helmfile.yaml", text));
        all.push(case(
            &format!("no-top-level-keys-{i}"),
            no_top,
            runs(&["list", "build", "template"]),
        ));
    }
    // v1.7 refuses what v0.166 took.
    let mut context = chart_files;
    context.push(file(
        "helmfile.yaml",
        "context: kc\nreleases:\n- name: a\n  namespace: x\n  chart: ./charts/app\n",
    ));
    let mut list = run("list");
    list.v17 = Some(Expected {
        code: 1,
        first_error_line: String::new(),
        change: "the top-level `context:` key was removed (v1.0.0, helmfile#1919)",
    });
    all.push(case("removed-context-key", context, vec![list]));
    all
}
