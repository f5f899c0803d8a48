//! Each command's module called directly (no argv, no CLI): a small project on disk (two
//! releases of one local chart, one needing the other, an environment value a release's
//! values template reads), and what each command gives back as data.

use capstan_app::build::BuildRequest;
use capstan_app::chart::ChartRequest;
use capstan_app::create::CreateRequest;
use capstan_app::fetch::FetchRequest;
use capstan_app::print_env::{PrintEnvRequest, PrintedEnv};
use capstan_app::spool::Spooled;
use capstan_app::template::{NoProgress, TemplateRequest};
use capstan_app::values::ValuesRequest;
use capstan_app::write_values::WriteValuesRequest;
use capstan_app::{Session, NO_MATCH_EXIT_CODE};
use capstan_state::host::OsHost;
use capstan_state::load::Settings;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const PROJECT: &[(&str, &str)] = &[
    (
        "helmfile.yaml.gotmpl",
        r#"environments:
  default:
    values:
      - env.yaml
---
releases:
  - name: web
    namespace: apps
    chart: ./charts/app
    labels:
      tier: front
    needs:
      - apps/db
    values:
      - replicas: {{ .Values.replicas }}
  - name: db
    namespace: apps
    chart: ./charts/app
    labels:
      tier: back
"#,
    ),
    ("env.yaml", "replicas: 3\n"),
    (
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    ),
    ("charts/app/values.yaml", "replicas: 1\n"),
    (
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  replicas: {{ .Values.replicas | quote }}\n",
    ),
];

/// A fresh directory holding the project, removed when dropped.
struct Project(PathBuf);

impl Project {
    fn new(name: &str) -> Project {
        let dir = std::env::temp_dir().join(format!(
            "capstan-app-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default()
        ));
        for (path, text) in PROJECT {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&p, text).expect("write");
        }
        Project(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// Replaces the first `from` in the state file with `to`.
    fn edit_state(&self, from: &str, to: &str) {
        let state = self.0.join("helmfile.yaml.gotmpl");
        let text = std::fs::read_to_string(&state).expect("state");
        std::fs::write(&state, text.replacen(from, to, 1)).expect("write the state");
    }

    fn session(&self) -> Session {
        let mut session = Session::new(Settings::new(Arc::new(OsHost::new(&self.0)), &self.0));
        session.progress = false;
        session
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn printed(s: Spooled) -> String {
    match s {
        Spooled::Text(t) => t,
        Spooled::File { .. } => panic!("a small output stays in memory"),
    }
}

#[test]
fn template_renders_in_needs_order_with_the_environment_value() {
    let p = Project::new("template");
    let mut log = String::new();
    let done = capstan_app::template::run(
        &p.session(),
        &TemplateRequest::default(),
        &NoProgress,
        &mut log,
    )
    .expect("rendered")
    .expect("releases matched");
    assert_eq!(done.releases, 2);
    assert!(done.written.is_empty());
    let out = printed(done.printed.expect("printed"));
    let db = out.find("name: db").expect("db rendered");
    let web = out.find("name: web").expect("web rendered");
    assert!(db < web, "db comes first (web needs it):\n{out}");
    assert!(out.contains("replicas: \"3\""), "{out}");
    assert!(out.contains("replicas: \"1\""), "{out}");
}

#[test]
fn template_writes_one_directory_per_release_under_the_output_dir() {
    let p = Project::new("template-dir");
    let request = TemplateRequest {
        output_dir: "out".into(),
        ..Default::default()
    };
    let done = capstan_app::template::run(&p.session(), &request, &NoProgress, &mut String::new())
        .expect("rendered")
        .expect("releases matched");
    assert!(done.printed.is_none());
    assert_eq!(done.written.len(), 2, "{:?}", done.written);
    for f in &done.written {
        assert!(f.starts_with("out/"), "{f}");
        let text = std::fs::read_to_string(p.path().join(f)).expect("written");
        assert!(text.contains("kind: ConfigMap"), "{text}");
    }
}

#[test]
fn a_selector_matching_nothing_is_helmfiles_error_unless_allowed() {
    let p = Project::new("no-match");
    let mut session = p.session();
    session.run.selectors = vec!["name=nothing".into()];
    let err = capstan_app::show_dag::run(&session, &mut String::new()).expect_err("no match");
    assert_eq!(err.code, NO_MATCH_EXIT_CODE);
    assert!(err.message.contains("no releases found"), "{}", err.message);
    session.allow_no_matching_release = true;
    let run = capstan_app::template::run(
        &session,
        &TemplateRequest::default(),
        &NoProgress,
        &mut String::new(),
    )
    .expect("allowed");
    assert!(run.is_none());
}

#[test]
fn list_build_and_show_dag_describe_the_releases() {
    let p = Project::new("list");
    let session = p.session();
    let rows = capstan_app::list::run(&session, false, &mut String::new()).expect("listed");
    let names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    // In the order of their `needs:`, as helmfile lists them.
    assert_eq!(names, ["db", "web"]);
    assert_eq!(rows[1][1], "apps");
    assert!(rows[1][4].contains("tier:front"), "{:?}", rows[1]);
    assert!(capstan_app::list::table(&rows).starts_with("NAME"));
    let build = capstan_app::build::run(&session, &BuildRequest::default(), &mut String::new())
        .expect("built");
    assert!(
        build.contains("name: web") && build.contains("chart: ./charts/app"),
        "{build}"
    );
    let dag = capstan_app::show_dag::run(&session, &mut String::new()).expect("dag");
    let db = dag.find("apps/db").expect("db in the dag");
    let web = dag.find("apps/web").expect("web in the dag");
    assert!(db < web, "{dag}");
}

#[test]
fn write_values_writes_private_files_with_the_merged_values() {
    let p = Project::new("write-values");
    let request = WriteValuesRequest {
        output_file_template: "vals/{{ .Release.Name }}.yaml".into(),
        ..Default::default()
    };
    let written = capstan_app::write_values::run(&p.session(), &request, &mut String::new())
        .expect("written");
    assert_eq!(written, ["vals/web.yaml", "vals/db.yaml"]);
    let web = std::fs::read_to_string(p.path().join("vals/web.yaml")).expect("web's values");
    assert_eq!(web, "replicas: 3\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(p.path().join("vals/web.yaml"))
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn values_hands_each_release_to_the_formatter_in_order() {
    let p = Project::new("values");
    let request = ValuesRequest {
        explain: true,
        ..Default::default()
    };
    let done = capstan_app::values::run(
        &p.session(),
        &request,
        &|r| {
            let replicas = r
                .leaves
                .iter()
                .find(|l| l.path.to_string() == "replicas")
                .map(|l| format!("{:?}", l.value))
                .unwrap_or_default();
            Ok((r.name, replicas))
        },
        &capstan_app::template::NoProgress,
        &mut String::new(),
    )
    .expect("explained")
    .expect("releases matched");
    let names: Vec<&str> = done.releases.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["web", "db"]);
    assert!(done.releases[0].1.contains('3'), "{:?}", done.releases[0]);
    assert!(done.releases[1].1.contains('1'), "{:?}", done.releases[1]);
}

#[test]
fn print_env_gives_the_values_or_their_layers() {
    let p = Project::new("print-env");
    let session = p.session();
    let text =
        capstan_app::print_env::run(&session, &PrintEnvRequest::default(), &mut String::new())
            .expect("printed");
    let PrintedEnv::Text(text) = text else {
        panic!("text without explain")
    };
    assert!(text.contains("replicas: 3"), "{text}");
    let request = PrintEnvRequest {
        explain: true,
        json: false,
    };
    let PrintedEnv::Explained(envs) =
        capstan_app::print_env::run(&session, &request, &mut String::new()).expect("explained")
    else {
        panic!("explained with explain")
    };
    assert_eq!(envs.len(), 1);
    assert_eq!(envs[0].environment, "default");
    assert!(!envs[0].leaves.is_empty());
}

#[test]
fn fetch_copies_local_charts_and_can_print_the_state_pointing_at_them() {
    let p = Project::new("fetch");
    let request = FetchRequest {
        output_dir: "fetched".into(),
        write_output: true,
        ..Default::default()
    };
    let out = capstan_app::fetch::run(&p.session(), &request, &mut String::new()).expect("fetched");
    assert!(
        p.path()
            .join("fetched/apps/web/app/latest/Chart.yaml")
            .is_file(),
        "the chart is copied along helmfile's default template"
    );
    assert!(out.contains("fetched/apps/web/app/latest"), "{out}");
    let no_dir = FetchRequest {
        write_output: true,
        ..Default::default()
    };
    let err = capstan_app::fetch::run(&p.session(), &no_dir, &mut String::new())
        .expect_err("--write-output needs --output-dir");
    assert!(err.message.contains("--output-dir"), "{}", err.message);
}

#[test]
fn chart_template_and_values_need_no_state_file() {
    let p = Project::new("chart");
    let options = capstan_chart::TemplateOptions {
        release_name: "one".into(),
        namespace: "default".into(),
        ..Default::default()
    };
    let request = ChartRequest {
        chart: p.path().join("charts/app"),
        options,
        strict: false,
    };
    let manifest = capstan_app::chart::template(&request, p.path(), &[], false, &mut String::new())
        .expect("rendered");
    assert!(manifest.contains("name: one"), "{manifest}");
    let values = capstan_app::chart::values(request, p.path(), &mut String::new()).expect("values");
    assert_eq!(
        values
            .values
            .get("replicas")
            .map(|v| format!("{v:?}"))
            .as_deref()
            .map(|s| s.contains('1')),
        Some(true)
    );
    assert!(values.traps.is_empty());
}

#[test]
fn create_writes_the_scaffold_once_unless_forced() {
    let p = Project::new("create");
    let request = CreateRequest {
        dir: "new".into(),
        force: false,
    };
    let mut log = String::new();
    capstan_app::create::run(&request, p.path(), &mut log).expect("created");
    assert!(p.path().join("new/helmfile.yaml").is_file());
    assert!(p.path().join("new/values/.gitkeep").is_file());
    let err = capstan_app::create::run(&request, p.path(), &mut log).expect_err("exists");
    assert!(err.message.contains("already exists"), "{}", err.message);
    let forced = CreateRequest {
        force: true,
        ..request
    };
    capstan_app::create::run(&forced, p.path(), &mut log).expect("forced");
}

#[test]
fn a_cluster_command_without_helm_says_which_binary_is_missing() {
    let p = Project::new("cluster");
    let request = cluster_request(
        capstan_helm::deploy::Command::Status,
        &p.path().join("no-such-helm"),
    );
    let err =
        capstan_app::cluster::run(&p.session(), &request, &mut String::new()).expect_err("no helm");
    assert!(err.message.contains("no-such-helm"), "{}", err.message);
}

/// A stand-in helm in the project (`fake-helm`): `version --short` answers v4.3.1, every
/// other call appends its argv to `calls.log` and succeeds.
#[cfg(unix)]
fn stand_in_helm(p: &Project) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = p.path().join("fake-helm");
    let log = p.path().join("calls.log");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nif [ \"$1\" = version ]; then echo v4.3.1+g0000000; exit 0; fi\necho \"$@\" >> '{}'\n",
            log.display()
        ),
    )
    .expect("write the stand-in");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// A cluster command's request with the stand-in helm at `helm`.
fn cluster_request(
    command: capstan_helm::deploy::Command,
    helm: &Path,
) -> capstan_app::cluster::ClusterRequest<'static> {
    capstan_app::cluster::ClusterRequest {
        command,
        options: Default::default(),
        template_flags: Default::default(),
        helm_binary: helm.display().to_string(),
        disable_force_update: false,
        confirm: &|_| false,
        live_stdout: None,
    }
}

#[cfg(unix)]
#[test]
fn lint_runs_helm_lint_per_release_with_its_values_file() {
    let p = Project::new("lint");
    let helm = stand_in_helm(&p);
    let request = cluster_request(capstan_helm::deploy::Command::Lint, &helm);
    capstan_app::cluster::run(&p.session(), &request, &mut String::new()).expect("linted");
    let calls = std::fs::read_to_string(p.path().join("calls.log")).expect("helm was called");
    let lints: Vec<&str> = calls.lines().filter(|l| l.starts_with("lint ")).collect();
    assert_eq!(lints.len(), 2, "{calls}");
    // web has inline values: helm gets them in a private file, removed afterwards.
    let web = lints
        .iter()
        .find(|l| l.contains("--values"))
        .expect("web's values file");
    let file = web
        .split_whitespace()
        .skip_while(|w| *w != "--values")
        .nth(1)
        .expect("a path after --values");
    assert!(
        !Path::new(file).exists(),
        "the private values file {file} is removed when the command ends"
    );
}

#[cfg(unix)]
#[test]
fn repos_adds_the_states_repositories_and_status_asks_per_release() {
    let p = Project::new("repos");
    p.edit_state(
        "environments:",
        "repositories:
  - name: stable
    url: https://charts.example.test/stable
---
environments:",
    );
    let helm = stand_in_helm(&p);
    let request = |command| cluster_request(command, &helm);
    let session = p.session();
    capstan_app::cluster::run(
        &session,
        &request(capstan_helm::deploy::Command::Repos),
        &mut String::new(),
    )
    .expect("repos");
    let calls = std::fs::read_to_string(p.path().join("calls.log")).expect("helm was called");
    assert!(
        calls
            .lines()
            .any(|l| l.starts_with("repo add stable https://charts.example.test/stable")),
        "{calls}"
    );
    capstan_app::cluster::run(
        &session,
        &request(capstan_helm::deploy::Command::Status),
        &mut String::new(),
    )
    .expect("status");
    let calls = std::fs::read_to_string(p.path().join("calls.log")).expect("helm was called");
    let statuses: Vec<&str> = calls.lines().filter(|l| l.starts_with("status ")).collect();
    assert_eq!(statuses.len(), 2, "{calls}");
    assert!(
        statuses.iter().all(|l| l.contains("--namespace apps")),
        "{calls}"
    );
}

#[test]
fn a_local_chart_path_that_does_not_exist_is_named_with_its_line() {
    let p = Project::new("chart-typo");
    p.edit_state("chart: ./charts/app", "chart: ./chrts/app");
    let err = capstan_app::template::run(
        &p.session(),
        &TemplateRequest::default(),
        &NoProgress,
        &mut String::new(),
    )
    .expect_err("no such chart");
    // helm's own words (what helm would print after helmfile's dump of its argv).
    assert!(
        err.message.ends_with("path \"./chrts/app\" not found"),
        "{}",
        err.message
    );
    let at = err.location.expect("the chart's line");
    assert!(at.file.ends_with("helmfile.yaml.gotmpl"), "{at}");
    assert_eq!((at.line, at.column), (9, 12), "{at}");
}
