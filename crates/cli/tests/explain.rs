//! `print-env --explain` and `values --explain` on the environments documentation's
//! examples, run through the real binary: every environment layer (root values,
//! `defaults:`, values files and inline maps, HCL, sops secrets, `--state-values-file`,
//! `--state-values-set`) under both merge strategies, the chain from a release value a
//! template wrote back to the environment value it read, and a chart with subcharts.
//! Each explained line is checked as a whole.

use std::path::Path;
use std::process::Command;

mod common;
use common::{encrypt, keygen, tempdir};

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, text).expect("write");
    }
}

fn capstan(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> String {
    let mut c = Command::new(env!("CARGO_BIN_EXE_capstan"));
    c.args(args)
        .current_dir(dir)
        .env_remove("HELMFILE_ENVIRONMENT")
        .env_remove("SOPS_AGE_KEY")
        .env_remove("SOPS_AGE_KEY_FILE")
        .env("HELMFILE_CACHE_HOME", dir.join(".cache"));
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run capstan");
    assert!(
        out.status.success(),
        "capstan {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The documentation's `domain` example: a release's `values.yaml.gotmpl` reads the
/// environment's `domain` with a default.
const DOMAIN_EXAMPLE: &[(&str, &str)] = &[
    (
        "helmfile.yaml",
        "environments:\n  default:\n    values:\n    - environments/default.yaml\n  production:\n    values:\n    - environments/production.yaml\n---\nreleases:\n- name: myapp\n  chart: ./chart\n  values:\n  - values.yaml.gotmpl\n",
    ),
    ("environments/default.yaml", "replicas: 1\n"),
    (
        "environments/production.yaml",
        "domain: prod.example.com\nreplicas: 3\n",
    ),
    (
        "values.yaml.gotmpl",
        "domain: {{ .Values | get \"domain\" \"dev.example.com\" }}\nreplicas: {{ .Values.replicas }}\nurl: https://{{ .Values | get \"domain\" \"dev.example.com\" }}/\n",
    ),
    ("chart/Chart.yaml", "apiVersion: v2\nname: myapp\nversion: 0.1.0\n"),
    ("chart/values.yaml", "domain: example.com\nreplicas: 1\n"),
    ("chart/templates/cm.yaml", "x: {{ .Values.domain }}\n"),
];

#[test]
fn the_domain_example_chains_back_to_the_environment() {
    let dir = tempdir("domain");
    write(&dir, DOMAIN_EXAMPLE);
    let prod = capstan(&dir, &["-e", "production", "values", "--explain"], &[]);
    let dev = capstan(&dir, &["values", "--explain"], &[]);
    let json = capstan(
        &dir,
        &["-e", "production", "values", "--explain", "-o", "json"],
        &[],
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        prod,
        "# release myapp (namespace default, chart ./chart)\n\
         domain = \"prod.example.com\"  <- values.yaml.gotmpl:1:1 (-f) <- values.yaml.gotmpl:1 (get \"domain\") <- environments/production.yaml:1:1 (environment values)\n\
         \x20   overrides chart/values.yaml:1:1 = \"example.com\" (chart defaults)\n\
         replicas = 3  <- values.yaml.gotmpl:2:1 (-f) <- values.yaml.gotmpl:2 (.Values.replicas) <- environments/production.yaml:2:1 (environment values)\n\
         \x20   overrides chart/values.yaml:2:1 = 1 (chart defaults)\n\
         url = \"https://prod.example.com/\"  <- values.yaml.gotmpl:3:1 (-f) <- computed in values.yaml.gotmpl:3 from get \"domain\" <- environments/production.yaml:1:1 (environment values)\n"
    );
    // Without `-e production` the template's default wins, and says so.
    assert!(
        dev.contains("domain = \"dev.example.com\"  <- values.yaml.gotmpl:1:1 (-f) <- values.yaml.gotmpl:1 (the template's default: no environment value domain)\n"),
        "{dev}"
    );
    assert!(
        dev.contains("replicas = 1  <- values.yaml.gotmpl:2:1 (-f) <- values.yaml.gotmpl:2 (.Values.replicas) <- environments/default.yaml:1:1 (environment values)\n"),
        "{dev}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["schema"], 1);
    let domain = &v["releases"][0]["values"][0];
    assert_eq!(domain["path"], serde_json::json!(["domain"]));
    assert_eq!(
        domain["origin"],
        serde_json::json!({"file": "values.yaml.gotmpl", "line": 1, "column": 1})
    );
    assert_eq!(domain["layer"], "-f");
    assert_eq!(
        domain["through"],
        serde_json::json!([
            "values.yaml.gotmpl:1 (get \"domain\")",
            "environments/production.yaml:1:1 (environment values)"
        ])
    );
}

/// A release's inline values are named by where each key is written in the state file
/// (not by the line it would have in the entry re-serialized with sorted keys), in a
/// plain and in a templated state file, entry by entry, nested keys included.
#[test]
fn inline_release_values_point_at_their_source_lines() {
    let dir = tempdir("inline-lines");
    let state = "releases:\n- name: other\n  chart: ./chart\n  values:\n  - zeta: 9\n- name: app\n  chart: ./chart\n  values:\n  - zeta: z\n    db:\n      port: 1\n      host: h\n    alpha: a\n  - extra.yaml\n  - # second\n    mid: m\n    zeta: y\n";
    write(
        &dir,
        &[
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
            ),
            ("chart/values.yaml", "{}\n"),
            ("extra.yaml", "other: 1\n"),
            ("t/extra.yaml", "other: 1\n"),
            ("helmfile.yaml", state),
            (
                "t/helmfile.yaml.gotmpl",
                &state
                    .replace("alpha: a", "alpha: {{ \"a\" }}")
                    .replace("./chart", "../chart"),
            ),
        ],
    );
    for file in ["helmfile.yaml", "t/helmfile.yaml.gotmpl"] {
        let out = capstan(
            &dir,
            &["-f", file, "-l", "name=app", "values", "--explain"],
            &[],
        );
        for line in [
            format!("alpha = \"a\"  <- {file}:13:5 (-f)"),
            format!("db.host = \"h\"  <- {file}:12:7 (-f)"),
            format!("db.port = 1  <- {file}:11:7 (-f)"),
            format!("mid = \"m\"  <- {file}:16:5 (-f)"),
            format!("zeta = \"y\"  <- {file}:17:5 (-f)"),
            format!("\x20   overrides {file}:9:5 = \"z\" (-f)"),
        ] {
            // (In the template, `alpha` goes on: "<- computed in …".)
            assert!(
                out.contains(&format!("{line}\n")) || out.contains(&format!("{line} <- ")),
                "{line}\n{out}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn print_env_explains_every_layer() {
    let dir = tempdir("layers");
    let key = keygen(&dir, "key.txt");
    write(
        &dir,
        &[
            (
                "helmfile.yaml",
                "values:\n- common.yaml\nenvironments:\n  production:\n    defaults:\n    - region: eu-west-1\n    values:\n    - env/production.yaml\n    - replicas: 4\n    - env/extra.hcl\n    secrets:\n    - secrets.yaml\n---\nreleases:\n- name: app\n  chart: ./chart\n",
            ),
            ("common.yaml", "domain: dev.example.com\nreplicas: 1\nteam: web\n"),
            (
                "env/production.yaml",
                "domain: prod.example.com\nreplicas: 3\nlimits:\n  cpu: 2\n",
            ),
            (
                "env/extra.hcl",
                "values {\n  base = \"example.com\"\n  url = \"https://${local.z}.${hv.base}\"\n}\nlocals {\n  z = \"b\"\n}\n",
            ),
            ("override.yaml", "limits:\n  cpu: 8\n"),
        ],
    );
    encrypt(&dir, "secrets.yaml", "password: hunter2\n", &key, &[]);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "-e",
            "production",
            "--state-values-file",
            "override.yaml",
            "--state-values-set",
            "team=ops",
            "print-env",
            "--explain",
        ];
        args.extend_from_slice(extra);
        capstan(&dir, &args, &[("SOPS_AGE_KEY_FILE", &key.file)])
    };
    let hidden = run(&[]);
    let shown = run(&["--show-secrets"]);
    let json = run(&["-o", "json"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        hidden,
        "# environment production (helmfile.yaml)\n\
         base = \"example.com\"  <- env/extra.hcl:2:3 (HCL, environment values)\n\
         domain = \"prod.example.com\"  <- env/production.yaml:1:1 (environment values)\n\
         \x20   overrides common.yaml:1:1 = \"dev.example.com\" (values)\n\
         limits.cpu = 8  <- override.yaml:2:3 (--state-values-file)\n\
         \x20   overrides env/production.yaml:4:3 = 2 (environment values)\n\
         password = \"(secret)\"  <- secrets.yaml:1:1 (environment secrets)\n\
         region = \"eu-west-1\"  <- helmfile.yaml:6:7 (environment defaults)\n\
         replicas = 4  <- helmfile.yaml:9:7 (environment values)\n\
         \x20   overrides env/production.yaml:2:1 = 3 (environment values)\n\
         \x20   overrides common.yaml:2:1 = 1 (values)\n\
         team = \"ops\"  <- --state-values-set team=ops (--state-values-set)\n\
         \x20   overrides common.yaml:3:1 = \"web\" (values)\n\
         url = \"https://b.example.com\"  <- env/extra.hcl:3:3 (from local.z, hv.base) (HCL, environment values)\n"
    );
    assert!(!hidden.contains("hunter2"), "{hidden}");
    assert!(
        shown.contains("password = \"hunter2\"  <- secrets.yaml:1:1 (environment secrets)\n"),
        "{shown}"
    );
    assert!(!json.contains("hunter2"), "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["schema"], 1);
    let env = &v["environments"][0];
    assert_eq!(env["environment"], "production");
    let leaf = |path: &str| {
        env["values"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["path"] == serde_json::json!([path])))
            .cloned()
            .unwrap_or_else(|| panic!("{path} in {json}"))
    };
    let replicas = leaf("replicas");
    assert_eq!(replicas["layer"], "environment values");
    assert_eq!(
        replicas["origin"],
        serde_json::json!({"file": "helmfile.yaml", "line": 9, "column": 7})
    );
    assert_eq!(
        replicas["overrides"][1]["origin"],
        serde_json::json!({"file": "common.yaml", "line": 2, "column": 1})
    );
    assert_eq!(replicas["overrides"][1]["layer"], "values");
    let url = leaf("url");
    assert_eq!(url["layer"], "HCL environment values");
    assert_eq!(
        url["origin"],
        serde_json::json!({"file": "env/extra.hcl", "line": 3, "column": 3, "note": "from local.z, hv.base"})
    );
    assert_eq!(
        leaf("team")["origin"],
        serde_json::json!({"flag": "--state-values-set team=ops"})
    );
    assert_eq!(leaf("team")["layer"], "--state-values-set");
}

#[test]
fn under_fallback_the_first_file_keeps_its_value() {
    let dir = tempdir("fallback");
    write(
        &dir,
        &[
            (
                "helmfile.yaml",
                "environments:\n  default:\n    mergeStrategy: fallback\n    values:\n    - a.yaml\n    - b.yaml\n---\nreleases:\n- name: app\n  chart: ./chart\n",
            ),
            ("a.yaml", "x: from-a\n"),
            ("b.yaml", "x: from-b\ny: only-b\n"),
        ],
    );
    let out = capstan(&dir, &["print-env", "--explain"], &[]);
    let plain = capstan(&dir, &["print-env"], &[]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(plain.contains("x: from-a"), "{plain}");
    assert_eq!(
        out,
        "# environment default (helmfile.yaml)\n\
         x = \"from-a\"  <- a.yaml:1:1 (environment values)\n\
         \x20   overrides b.yaml:1:1 = \"from-b\" (environment values)\n\
         y = \"only-b\"  <- b.yaml:2:1 (environment values)\n"
    );
}

#[test]
fn subchart_values_chain_through_the_parent_template() {
    let dir = tempdir("subchart");
    write(
        &dir,
        &[
            (
                "helmfile.yaml",
                "environments:\n  default:\n    values:\n    - env.yaml\n---\nreleases:\n- name: shop\n  chart: ./parent\n  values:\n  - values.yaml.gotmpl\n",
            ),
            ("env.yaml", "db:\n  size: 10Gi\n"),
            (
                "values.yaml.gotmpl",
                "postgres:\n  storage:\n    {{- toYaml .Values.db | nindent 4 }}\n",
            ),
            (
                "parent/Chart.yaml",
                "apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n- name: postgres\n  version: 0.1.0\n",
            ),
            ("parent/values.yaml", "postgres:\n  storage:\n    size: 1Gi\n"),
            (
                "parent/charts/postgres/Chart.yaml",
                "apiVersion: v2\nname: postgres\nversion: 0.1.0\n",
            ),
            (
                "parent/charts/postgres/values.yaml",
                "storage:\n  size: 5Gi\n  class: standard\n",
            ),
        ],
    );
    let out = capstan(&dir, &["values", "--explain"], &[]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        out,
        "# release shop (namespace default, chart ./parent)\n\
         postgres.global = {}  <- computed (Helm gives every subchart an empty global map)\n\
         postgres.storage.class = \"standard\"  <- parent/charts/postgres/values.yaml:3:3 (subchart postgres defaults)\n\
         postgres.storage.size = \"10Gi\"  <- values.yaml.gotmpl:3:5 (-f) <- values.yaml.gotmpl:2 (.Values.db) <- env.yaml:2:3 (environment values)\n\
         \x20   overrides parent/values.yaml:3:5 = \"1Gi\" (chart defaults)\n\
         \x20   overrides parent/charts/postgres/values.yaml:2:3 = \"5Gi\" (subchart postgres defaults)\n"
    );
}

/// Runs headless Chromium on `url` with `args`; its stdout and stderr.
fn chromium(args: &[&str], url: &str) -> (String, String) {
    common::need("chromium");
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .args(args)
        .arg(url)
        .env("HOME", std::env::temp_dir())
        .output()
        .expect("run chromium");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Writes `page` to `dir/name` and opens it in headless Chromium: the page is
/// self-contained (nothing loaded from anywhere) and its script runs to the end without
/// an error. Its URL and the DOM after the script.
fn open_page(dir: &Path, name: &str, page: &str) -> (String, String) {
    let file = dir.join(name);
    std::fs::write(&file, page).expect("write page");
    assert!(!page.contains(" src=") && !page.contains("<link"), "{page}");
    let url = format!("file://{}", file.display());
    let (dom, log) = chromium(&["--dump-dom"], &url);
    assert!(dom.contains("data-ready=\"yes\""), "{dom}\n{log}");
    assert!(!log.contains("Uncaught"), "{log}");
    (url, dom)
}

#[test]
fn the_explain_page_works_in_a_real_browser() {
    let dir = tempdir("page");
    write(&dir, DOMAIN_EXAMPLE);
    // A trap: the release's list replaces the chart's as a whole.
    write(
        &dir,
        &[
            ("chart/values.yaml", "domain: example.com\nreplicas: 1\nhosts: [a, b]\n"),
            (
                "values.yaml.gotmpl",
                "domain: {{ .Values | get \"domain\" \"dev.example.com\" }}\nreplicas: {{ .Values.replicas }}\nhosts: [c]\n",
            ),
        ],
    );
    let page = capstan(
        &dir,
        &["-e", "production", "values", "--explain", "-o", "html"],
        &[],
    );
    let (url, dom) = open_page(&dir, "page.html", &page);
    assert!(dom.contains("data-shown=\"3\""), "{dom}");
    assert!(dom.contains("class=\"leaf trap\""), "{dom}");
    // The release's summary counts its warnings (seen with the release folded).
    assert!(
        dom.contains("<span class=\"warning\" title=\"value traps\">⚠ 1</span></summary>"),
        "{dom}"
    );
    assert!(dom.contains("replaces the list from"), "{dom}");

    // A search filters the tree: only `replicas` stays visible.
    let (filtered, _) = chromium(&["--dump-dom"], &format!("{url}#q=replicas"));
    assert!(filtered.contains("data-shown=\"1\""), "{filtered}");
    let visible: Vec<&str> = filtered
        .split("<li class=\"leaf")
        .skip(1)
        .filter(|li| !li.split('>').next().unwrap_or_default().contains("hidden"))
        .collect();
    assert_eq!(visible.len(), 1, "{filtered}");
    assert!(visible[0].contains(">replicas<"), "{}", visible[0]);

    // A malformed filter in the address (a stray `%`, a cut escape, invalid UTF-8) is
    // taken as typed: the script still runs to the end.
    for bad in ["%", "%zz", "%E0%A4%A", "%C0%80", "repl%", "%%41", "&q=%FF"] {
        let (dom, log) = chromium(&["--dump-dom"], &format!("{url}#q={bad}"));
        assert!(dom.contains("data-ready=\"yes\""), "{bad}: {dom}\n{log}");
        assert!(!log.contains("Uncaught"), "{bad}: {log}");
    }

    // A screenshot of the filtered page, kept with the test's output.
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("explain-page.png");
    let _ = std::fs::remove_file(&shot);
    let shot_arg = format!("--screenshot={}", shot.display());
    chromium(
        &["--hide-scrollbars", "--window-size=1300,700", &shot_arg],
        &format!("{url}#q=prod"),
    );
    std::fs::remove_dir_all(&dir).ok();
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    println!("screenshot of the explain page: {}", shot.display());
}

#[test]
fn environment_templates_chain_too() {
    let dir = tempdir("envtemplates");
    write(
        &dir,
        &[
            (
                "helmfile.yaml.gotmpl",
                "environments:\n  production:\n    defaults:\n    - region: eu\n    values:\n    - computed.yaml.gotmpl\n---\nreleases:\n- name: myapp\n  chart: ./chart\n  values:\n  - values.yaml.gotmpl\n",
            ),
            (
                "computed.yaml.gotmpl",
                "zone: {{ .Values.region }}-a\nregion2: {{ .Values.region }}\n",
            ),
            ("values.yaml.gotmpl", "where: {{ .Values.region2 }}\n"),
            ("chart/Chart.yaml", "apiVersion: v2\nname: myapp\nversion: 0.1.0\n"),
        ],
    );
    let env = capstan(&dir, &["-e", "production", "print-env", "--explain"], &[]);
    let values = capstan(&dir, &["-e", "production", "values", "--explain"], &[]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        env,
        "# environment production (helmfile.yaml.gotmpl)\n\
         region = \"eu\"  <- helmfile.yaml.gotmpl:4:7 (environment defaults)\n\
         region2 = \"eu\"  <- computed.yaml.gotmpl:2:1 (environment values) <- computed.yaml.gotmpl:2 (.Values.region) <- helmfile.yaml.gotmpl:4:7 (environment defaults)\n\
         zone = \"eu-a\"  <- computed.yaml.gotmpl:1:1 (environment values) <- computed in computed.yaml.gotmpl:1 from .Values.region <- helmfile.yaml.gotmpl:4:7 (environment defaults)\n"
    );
    assert_eq!(
        values,
        "# release myapp (namespace default, chart ./chart)\n\
         where = \"eu\"  <- values.yaml.gotmpl:1:1 (-f) <- values.yaml.gotmpl:1 (.Values.region2) <- computed.yaml.gotmpl:2:1 (environment values) <- computed.yaml.gotmpl:2 (.Values.region) <- helmfile.yaml.gotmpl:4:7 (environment defaults)\n"
    );
}

/// `print-env --explain --compare A B`: the values that differ between two environments,
/// each side with the layer that sets it, as text, JSON and a page (in a real browser:
/// the rows, the filter and `#q=` kept while typing).
#[test]
fn print_env_compares_two_environments() {
    let dir = tempdir("compare");
    write(
        &dir,
        &[
            (
                "helmfile.yaml",
                "environments:\n  staging:\n    values:\n    - common.yaml\n    - staging.yaml\n  production:\n    values:\n    - common.yaml\n    - production.yaml\n",
            ),
            ("common.yaml", "domain: example.com\nreplicas: 1\nregion: eu\n"),
            ("staging.yaml", "domain: staging.example.com\n"),
            ("production.yaml", "replicas: 5\ntls: true\n"),
        ],
    );
    let text = capstan(
        &dir,
        &[
            "print-env",
            "--explain",
            "--compare",
            "staging",
            "production",
        ],
        &[],
    );
    assert_eq!(
        text,
        "# environments staging and production (helmfile.yaml): 3 differ, 1 the same\n\
         domain\n\
         \x20 staging:    \"staging.example.com\"  <- staging.yaml:1:1 (environment values)\n\
         \x20 production: \"example.com\"  <- common.yaml:1:1 (environment values)\n\
         replicas\n\
         \x20 staging:    1  <- common.yaml:2:1 (environment values)\n\
         \x20 production: 5  <- production.yaml:1:1 (environment values)\n\
         tls\n\
         \x20 staging:    (not set)\n\
         \x20 production: true  <- production.yaml:2:1 (environment values)\n"
    );
    let json = capstan(
        &dir,
        &[
            "print-env",
            "--compare",
            "staging",
            "production",
            "-o",
            "json",
        ],
        &[],
    );
    let doc: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(doc["schema"], 1);
    let doc = &doc["comparisons"];
    assert_eq!(
        doc[0]["environments"],
        serde_json::json!(["staging", "production"])
    );
    assert_eq!(doc[0]["same"], 1);
    let tls = &doc[0]["differences"][2];
    assert_eq!(tls["path"], serde_json::json!(["tls"]));
    assert!(tls["values"][0].is_null(), "{json}");
    assert_eq!(
        tls["values"][1]["origin"],
        serde_json::json!({"file": "production.yaml", "line": 2, "column": 1})
    );
    assert_eq!(tls["values"][1]["value"], true);

    let page = capstan(
        &dir,
        &[
            "print-env",
            "--compare",
            "staging",
            "production",
            "-o",
            "html",
        ],
        &[],
    );
    let (url, dom) = open_page(&dir, "compare.html", &page);
    assert!(dom.contains("data-shown=\"3\""), "{dom}");
    assert_eq!(dom.matches("<tr class=\"leaf\"").count(), 3, "{dom}");
    assert!(dom.contains("<td class=\"unset\">not set</td>"), "{dom}");
    let (filtered, _) = chromium(&["--dump-dom"], &format!("{url}#q=production.yaml"));
    assert!(filtered.contains("data-shown=\"2\""), "{filtered}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The page with several releases: an index, each release and subtree folding, filters
/// by layer, by release and "only values that override another" read from the address,
/// and every `file:line:col` a link (to the file, or an editor's URL with `--link`).
#[test]
fn the_explain_page_has_an_index_filters_and_links() {
    let dir = tempdir("page-index");
    write(
        &dir,
        &[
            (
                "helmfile.yaml",
                "releases:\n- name: api\n  chart: ./chart\n  values:\n  - api.yaml\n- name: web\n  chart: ./chart\n",
            ),
            ("api.yaml", "replicas: 3\n"),
            ("chart/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n"),
            ("chart/values.yaml", "replicas: 1\nimage:\n  tag: v1\n"),
        ],
    );
    let page = capstan(&dir, &["values", "--explain", "-o", "html"], &[]);
    let (url, dom) = open_page(&dir, "page.html", &page);
    // The index names both releases; each release folds.
    let index = dom.split("<nav id=\"index\">").nth(1).expect("an index");
    let index = index.split("</nav>").next().unwrap_or_default();
    assert_eq!(index.matches("data-target=").count(), 2, "{index}");
    assert!(
        index.contains("release api") && index.contains("release web"),
        "{index}"
    );
    assert_eq!(
        dom.matches("<section id=").count(),
        dom.matches("<section id=\"s").count()
    );
    assert!(
        dom.contains("<details open=\"\"><summary><h2>release api"),
        "{dom}"
    );
    assert!(
        dom.contains("id=\"collapse\"") && dom.contains("id=\"expand\""),
        "{dom}"
    );
    assert!(dom.contains("data-shown=\"4\""), "{dom}");
    // Origins link to their files, relative to the directory capstan ran in.
    assert!(
        dom.contains("<a href=\"api.yaml\">api.yaml:1:1</a>"),
        "{dom}"
    );
    assert!(
        dom.contains("<a href=\"chart/values.yaml\">chart/values.yaml:1:1</a>"),
        "{dom}"
    );

    // Filters from the address: only `-f` values; only values overriding another; one
    // release; and the address keeps what was read.
    let (by_layer, _) = chromium(&["--dump-dom"], &format!("{url}#layer=-f"));
    assert!(by_layer.contains("data-shown=\"1\""), "{by_layer}");
    let (overriding, _) = chromium(&["--dump-dom"], &format!("{url}#overrides=1"));
    assert!(overriding.contains("data-shown=\"1\""), "{overriding}");
    let (one, _) = chromium(
        &["--dump-dom"],
        &format!("{url}#release=release%20web%20(namespace%20default%2C%20chart%20.%2Fchart)"),
    );
    assert!(one.contains("data-shown=\"2\""), "{one}");
    let (both, _) = chromium(
        &["--dump-dom"],
        &format!(
            "{url}#q=replicas&release=release%20web%20(namespace%20default%2C%20chart%20.%2Fchart)"
        ),
    );
    assert!(both.contains("data-shown=\"1\""), "{both}");

    // An editor's links.
    let vscode = capstan(
        &dir,
        &["values", "--explain", "-o", "html", "--link", "vscode"],
        &[],
    );
    let abs = std::path::absolute(&dir).expect("absolute");
    assert!(
        vscode.contains(&format!(
            "href=\"vscode://file{}/api.yaml:1:1\"",
            abs.display()
        )),
        "{vscode}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Typing into the filter box, one key at a time as a user does (real `input` events in
/// the real browser): after each key the count and `#q=` follow what is typed; with
/// more releases than the page opens at first, the releases the filter finds values in
/// open; a collapsed page of many releases starts with nothing hidden.
#[test]
fn typing_into_the_filter_box_updates_the_address_and_opens_what_it_finds() {
    let dir = tempdir("page-typing");
    let mut state = String::from("releases:\n");
    for i in 0..30 {
        state.push_str(&format!(
            "- name: r{i}\n  chart: ./chart\n  values:\n  - {{special{}: {i}}}\n",
            if i % 10 == 7 { "Key" } else { "" }
        ));
    }
    write(
        &dir,
        &[
            ("helmfile.yaml", state.as_str()),
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 0.1.0\n",
            ),
            ("chart/values.yaml", "replicas: 1\n"),
        ],
    );
    let page = capstan(&dir, &["values", "--explain", "-o", "html"], &[]);
    // 30 releases: every one starts collapsed, nothing hidden.
    assert_eq!(page.matches("<details><summary><h2>release").count(), 30);
    // What a user types, then erases back to "spec".
    let keys = [
        "s", "p", "e", "c", "i", "a", "l", "K", "\u{8}", "\u{8}", "\u{8}", "\u{8}",
    ];
    let typing = format!(
        r#"<script>
(function(){{
  var box=document.getElementById('filter'),seen=[];
  {keys:?}.forEach(function(k){{
    box.focus();
    if(k==='\u0008')box.value=box.value.slice(0,-1);else box.value+=k;
    box.dispatchEvent(new InputEvent('input',{{bubbles:true,data:k}}));
    var open=0;document.querySelectorAll('section').forEach(function(s){{
      if(!s.hidden&&s.querySelector('details').open)open++;}});
    seen.push(location.hash+' '+document.body.getAttribute('data-shown')+' '+open);
  }});
  document.body.setAttribute('data-typed',seen.join('|'));
}})();
</script>"#
    );
    let (_, dom) = open_page(&dir, "page.html", &format!("{page}{typing}"));
    let typed = dom
        .split("data-typed=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .expect("the typing script ran");
    let steps: Vec<&str> = typed.split('|').collect();
    assert_eq!(
        steps,
        [
            // "s" is in every path and file name: 60 values, every release open.
            "#q=s 60 30",
            "#q=sp 30 30",
            "#q=spe 30 30",
            "#q=spec 30 30",
            "#q=speci 30 30",
            "#q=specia 30 30",
            "#q=special 30 30",
            // The filter is not case-sensitive: three releases have `specialKey`.
            "#q=specialK 3 3",
            "#q=special 30 30",
            "#q=specia 30 30",
            "#q=speci 30 30",
            "#q=spec 30 30",
        ],
        "{typed}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Every origin is the source file's own line and column: an environment's inline values
/// (not the line within the entry), the state's root `values:`, and each key of an HCL
/// object (not the object's line).
#[test]
fn origins_name_the_source_line_of_inline_values_and_hcl_object_keys() {
    let dir = tempdir("source-lines");
    write(
        &dir,
        &[
            (
                "net.hcl",
                "values {\n  net = {\n    cidr = \"10.0.0.0/16\"\n    gw = {\n      ip = \"10.0.0.1\"\n    }\n  }\n  name = \"n\"\n}\n",
            ),
            (
                "helmfile.yaml",
                "values:\n- root: r\nenvironments:\n  default:\n    values:\n    - net.hcl\n    - region: eu\n      deep:\n        zone: a\n---\nreleases: []\n",
            ),
        ],
    );
    let out = capstan(&dir, &["print-env", "--explain"], &[]);
    std::fs::remove_dir_all(&dir).ok();
    for line in [
        "deep.zone = \"a\"  <- helmfile.yaml:9:9 (environment values)",
        "name = \"n\"  <- net.hcl:8:3 (HCL, environment values)",
        "net.cidr = \"10.0.0.0/16\"  <- net.hcl:3:5 (HCL, environment values)",
        "net.gw.ip = \"10.0.0.1\"  <- net.hcl:5:7 (HCL, environment values)",
        "region = \"eu\"  <- helmfile.yaml:7:7 (environment values)",
        "root = \"r\"  <- helmfile.yaml:2:3 (",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
}

/// What ended at "computed" before: a release's `set:`/`setString:` entries (their place
/// in the state file, layer `set:`), `import-values` (the subchart's `values.yaml` line,
/// layer `import-values`), a subchart's empty `global`, and a value built around what a
/// template read (the reads, then where they came from).
#[test]
fn set_entries_imports_and_interpolation_have_origins() {
    let dir = tempdir("computed");
    write(
        &dir,
        &[
            ("chart/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  import-values:\n  - child: exported\n    parent: imported\n"),
            ("chart/values.yaml", "replicas: 1\n"),
            ("chart/charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n"),
            ("chart/charts/sub/values.yaml", "other: 1\nexported:\n  port: 8080\n"),
            (
                "helmfile.yaml.gotmpl",
                "environments:\n  default:\n    values:\n    - region: eu\n---\nreleases:\n- name: r\n  chart: ./chart\n  values:\n  - url: https://{{ .Values.region }}.example.com\n  set:\n  - name: a.b\n    value: x\n  - name: list\n    values: [p, q]\n  setString:\n  - name: s\n    value: \"2\"\n",
            ),
        ],
    );
    let out = capstan(&dir, &["values", "--explain"], &[]);
    let json = capstan(&dir, &["values", "--explain", "-o", "json"], &[]);
    std::fs::remove_dir_all(&dir).ok();
    for line in [
        "a.b = \"x\"  <- helmfile.yaml.gotmpl:12:5 (set:)",
        "list = [\"p\",\"q\"]  <- helmfile.yaml.gotmpl:14:5 (set:)",
        "s = \"2\"  <- helmfile.yaml.gotmpl:17:5 (setString:)",
        "imported.port = 8080  <- chart/charts/sub/values.yaml:3:3 (import-values from sub (exported))",
        "sub.global = {}  <- computed (Helm gives every subchart an empty global map)",
        "url = \"https://eu.example.com\"  <- helmfile.yaml.gotmpl:10:5 (-f) <- computed in helmfile.yaml.gotmpl:10 from .Values.region <- helmfile.yaml.gotmpl:4:7 (environment values)",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let leaves = json["releases"][0]["values"].as_array().expect("values");
    let leaf = |path: serde_json::Value| {
        leaves
            .iter()
            .find(|l| l["path"] == path)
            .cloned()
            .unwrap_or_else(|| panic!("{path} in {leaves:?}"))
    };
    let ab = leaf(serde_json::json!(["a", "b"]));
    assert_eq!(ab["layer"], "set:");
    assert_eq!(
        ab["origin"],
        serde_json::json!({"file": "helmfile.yaml.gotmpl", "line": 12, "column": 5})
    );
    let imported = leaf(serde_json::json!(["imported", "port"]));
    assert_eq!(imported["layer"], "import-values");
    assert_eq!(imported["subchart"], "sub");
}

/// JSON schema 1 over the example's every environment: `schema` is 1, every path is an
/// array, every origin a place (file, line, column), a flag or "computed", and every
/// layer one of the documented list (never `other`).
#[test]
fn the_json_schema_holds_over_the_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for env in ["development", "staging", "production"] {
        for command in ["values", "print-env"] {
            let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
                .args([
                    "-f",
                    "examples/helmfile.yaml.gotmpl",
                    "-e",
                    env,
                    command,
                    "--explain",
                    "-o",
                    "json",
                ])
                .current_dir(&root)
                .output()
                .expect("capstan runs");
            assert!(out.status.success(), "{env} {command}: {out:?}");
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
            assert_eq!(doc["schema"], 1, "{env} {command}");
            let key = if command == "values" {
                "releases"
            } else {
                "environments"
            };
            let sections = doc[key].as_array().expect("sections");
            assert!(!sections.is_empty(), "{env} {command}");
            let mut leaves = 0;
            for s in sections {
                for leaf in s["values"].as_array().expect("values") {
                    leaves += 1;
                    assert!(leaf["path"].is_array(), "{leaf}");
                    let mut contributions = vec![leaf];
                    contributions.extend(leaf["overrides"].as_array().expect("overrides"));
                    for c in contributions {
                        let o = &c["origin"];
                        let place =
                            o["file"].is_string() && o["line"].is_u64() && o["column"].is_u64();
                        assert!(
                            place || o["flag"].is_string() || o["computed"].is_string(),
                            "{env} {command}: {c}"
                        );
                        let layer = c["layer"].as_str().expect("a layer");
                        assert_ne!(layer, "other", "{env} {command}: {c}");
                    }
                }
            }
            assert!(leaves > 5, "{env} {command}: {leaves} leaves");
        }
    }
}
