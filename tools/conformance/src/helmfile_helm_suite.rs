//! The `helmfile-helm` suite over helmfile's own expectations of the helm commands it
//! runs (`../shared/peer/helmfile-helm`; format in its README):
//!
//! - `helmexec.jsonl`: one `capstan_helm::Execer` method per case; the log it writes
//!   (the info line, `exec: helm …`, logged output) compared with helmfile's, exactly or
//!   as the case's note says (a regexp, collapsed whitespace, trimmed).
//! - `state-flags.jsonl`: the flags a release and `helmDefaults` become
//!   (`flagsForUpgrade`, `flagsForTemplate`), `repo add` arguments from `repositories:`
//!   (`SyncRepos`) and `--set-string` flags, or the exact error.
//! - `app/<command>/<case>/`: whole commands (sync, apply, diff, destroy, lint) run on
//!   the case's files against a recording helm (helmfile's mock: canned `helm list` and
//!   `helm diff` answers), the recorded calls and the error compared as helmfile's test
//!   compares them. `template` (capstan renders natively) and `unittest` are reported as
//!   failed with that reason.

use crate::report::CaseResult;
use capstan_helm::exec::{render_log, RegistryLogin, RepoAdd};
use capstan_helm::flags::{repo_add, set_flags, FlagSource, TemplateOptions, UpgradeOptions};
use capstan_helm::{Execer, HelmVersion, LogLevel};
use capstan_state::merge::Tree;
use capstan_state::release::SetValue;
use capstan_value::{Str, Value};
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::path::Path;

pub fn run(path: &Path) -> Result<Vec<CaseResult>, String> {
    let mut out = Vec::new();
    for (i, case) in crate::read_jsonl(&path.join("helmexec.jsonl"))?
        .iter()
        .enumerate()
    {
        out.push(helmexec_case(i, case));
    }
    for case in crate::read_jsonl(&path.join("state-flags.jsonl"))? {
        out.push(state_flags_case(&case));
    }
    let app = path.join("app");
    for command in crate::dir_ids(&app)? {
        for case in crate::dir_ids(&app.join(&command))? {
            let dir = app.join(&command).join(&case);
            out.push(app_case(&dir, format!("app/{command}/{case}")));
        }
    }
    Ok(out)
}

fn s<'a>(j: &'a J, key: &str) -> &'a str {
    j.get(key).and_then(J::as_str).unwrap_or("")
}

fn b(j: &J, key: &str) -> bool {
    j.get(key).and_then(J::as_bool).unwrap_or(false)
}

fn list(j: &J, key: &str) -> Vec<String> {
    j.get(key)
        .and_then(J::as_array)
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn helmexec_case(index: usize, case: &J) -> CaseResult {
    let test = s(case, "test");
    let sub = s(case, "subtest");
    let id = if sub.is_empty() {
        format!("helmexec/{test}#{}", index + 1)
    } else {
        format!("helmexec/{test}/{sub}#{}", index + 1)
    };
    let setup = &case["setup"];
    let call = &case["call"];
    let version = match HelmVersion::parse(s(setup, "helmVersion")) {
        Ok(v) => v,
        Err(e) => return CaseResult::fail(id, e.0, ""),
    };
    let execer = Execer {
        binary: s(setup, "helmBinary").to_string(),
        kubeconfig: s(setup, "kubeconfig").to_string(),
        kube_context: s(setup, "kubeContext").to_string(),
        extra: list(setup, "extraArgs"),
        version,
        disable_force_update: b(&setup["options"], "DisableForceUpdate"),
    };
    let level = LogLevel::parse(s(setup, "logLevel")).unwrap_or(LogLevel::Info);
    let stdout = s(setup, "runnerStdout");
    let flags = list(call, "flags");
    let method = s(call, "method");
    let made = match method {
        "AddRepo" => execer
            .add_repo(&RepoAdd {
                name: s(call, "name").into(),
                url: s(call, "repository").into(),
                ca_file: s(call, "cafile").into(),
                cert_file: s(call, "certfile").into(),
                key_file: s(call, "keyfile").into(),
                username: s(call, "username").into(),
                password: s(call, "password").into(),
                managed: s(call, "managed").into(),
                pass_credentials: b(call, "passCredentials"),
                skip_tls_verify: b(call, "skipTLSVerify"),
            })
            .map(Some),
        "UpdateRepo" => Ok(Some(execer.update_repo())),
        "RegistryLogin" => Ok(execer.registry_login(&RegistryLogin {
            host: s(call, "repository").into(),
            username: s(call, "username").into(),
            password: s(call, "password").into(),
            ca_file: s(call, "caFile").into(),
            cert_file: s(call, "certFile").into(),
            key_file: s(call, "keyFile").into(),
            skip_tls_verify: b(call, "skipTLSVerify"),
            plain_http: b(call, "plainHttp"),
        })),
        "SyncRelease" => Ok(Some(execer.sync_release(
            s(call, "name"),
            s(call, "chart"),
            s(call, "namespace"),
            &flags,
            call["helmContext"]["HistoryMax"].as_i64().unwrap_or(0),
        ))),
        "DiffRelease" => Ok(Some(execer.diff_release(
            s(call, "name"),
            s(call, "chart"),
            s(call, "namespace"),
            &flags,
        ))),
        "DeleteRelease" => Ok(Some(execer.delete_release(s(call, "name"), &flags))),
        "TestRelease" => Ok(Some(execer.test_release(s(call, "name"), &flags))),
        "ReleaseStatus" => Ok(Some(execer.release_status(s(call, "name"), &flags))),
        "exec" => Ok(Some(execer.raw(list(call, "args"), Vec::new()))),
        "Lint" => Ok(Some(execer.lint(s(call, "name"), s(call, "chart"), &flags))),
        "Fetch" => Ok(Some(execer.fetch(s(call, "chart"), &flags))),
        "TemplateRelease" => Ok(Some(execer.template_release(
            s(call, "name"),
            s(call, "chart"),
            &flags,
        ))),
        "ChartPull" => Ok(Some(execer.chart_pull(
            s(call, "chart"),
            s(call, "path"),
            &flags,
        ))),
        "ChartExport" => Ok(execer.chart_export(s(call, "chart"), s(call, "path"))),
        "BuildDeps" => Ok(Some(execer.build_deps(
            s(call, "name"),
            s(call, "chart"),
            &flags,
        ))),
        "UpdateDeps" => Ok(Some(execer.update_deps(s(call, "chart")))),
        other => return CaseResult::fail(id, format!("unknown method {other}"), ""),
    };
    let (log, failed) = match made {
        Ok(Some(c)) => (c.log(stdout, level), false),
        Ok(None) => (String::new(), false),
        Err(refused) => (render_log(&refused.log, level), true),
    };
    let want = s(case, "expected_log");
    if b(case, "expect_error") && !failed {
        return CaseResult::fail(id, "expected an error, got none", log);
    }
    let note = s(case, "note");
    let same = if s(case, "match") == "regexp" {
        regex::Regex::new(want)
            .map(|r| r.is_match(&log))
            .unwrap_or(false)
    } else if note.contains("collapsing whitespace") {
        fields(want) == fields(&log)
    } else if note.contains("TrimSpace") {
        want.trim() == log.trim()
    } else {
        want == log
    };
    if same {
        CaseResult::pass(id)
    } else {
        CaseResult::fail(
            id,
            "log differs",
            format!("--- expected\n{want}\n--- capstan\n{log}"),
        )
    }
}

fn fields(t: &str) -> String {
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// JSON (the case's YAML-keyed settings) → a capstan value.
fn value(j: &J) -> Value {
    match j {
        J::Null => Value::Nil,
        J::Bool(x) => Value::Bool(*x),
        J::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float64(n.as_f64().unwrap_or(0.0)),
        },
        J::String(x) => Value::from(x.as_str()),
        J::Array(a) => Value::list_from(a.iter().map(value).collect()),
        J::Object(_) => Value::map_from(tree(j)),
    }
}

fn tree(j: &J) -> Tree {
    let mut t = Tree::new();
    if let Some(o) = j.as_object() {
        for (k, v) in o {
            t.insert(Str::from(k.as_str()), value(v));
        }
    }
    t
}

/// `helmDefaults.postRendererArgs` rendered as helmfile renders them: a Go template with
/// the release's template data (`.Release.Name`, `.Release.Namespace`, `.Release.Chart`).
fn render_release_arg(release: &Tree, arg: &str) -> Result<String, capstan_state::StateError> {
    let mut r = Tree::new();
    for (field, key) in [
        ("Name", "name"),
        ("Namespace", "namespace"),
        ("Chart", "chart"),
    ] {
        r.insert(
            Str::from(field),
            Value::from(capstan_state::spec::str_of(release, key)),
        );
    }
    let mut data = Tree::new();
    data.insert(Str::from("Release"), Value::map_from(r));
    let mut t = capstan_gotmpl::Templates::new(Default::default());
    t.parse("postRendererArgs", arg)?;
    Ok(t.execute("postRendererArgs", &Value::map_from(data))
        .map_err(|e| e.to_string())?)
}

/// `ref+…` references resolved as capstan resolves them (vals' backends), with no files.
fn echo_ref(r: &str) -> Result<String, capstan_state::StateError> {
    capstan_state::render::resolve_ref(&capstan_state::host::MemHost::default(), r)
}

fn state_flags_case(case: &J) -> CaseResult {
    let function = s(case, "function");
    let id = format!("state-flags/{function}/{}", s(case, "case"));
    let got: Result<Vec<String>, String> = match function {
        "flagsForUpgrade" | "flagsForTemplate" => {
            let helm = match case.get("helmVersion").and_then(J::as_str) {
                Some(v) => match HelmVersion::parse(v) {
                    Ok(v) => v,
                    Err(e) => return CaseResult::fail(id, e.0, ""),
                },
                None => HelmVersion::UNKNOWN,
            };
            let defaults = tree(&case["helmDefaults"]);
            let release = tree(&case["release"]);
            let env = s(case, "environment");
            let env_kube_context = case["environments"][env]["kubeContext"]
                .as_str()
                .unwrap_or("")
                .to_string();
            let render = |a: &str| render_release_arg(&release, a);
            let getenv = |_: &str| None;
            let src = FlagSource {
                helm,
                file: "helmfile.yaml",
                defaults: &defaults,
                release: &release,
                env_kube_context: &env_kube_context,
                repo: None,
                values_files: &[],
                render: &render,
                resolve_ref: &echo_ref,
                getenv: &getenv,
            };
            let opts = if function == "flagsForUpgrade" {
                &case["syncOpts"]
            } else {
                &case["templateOpts"]
            };
            let r = if function == "flagsForUpgrade" {
                src.upgrade_flags(&UpgradeOptions {
                    wait: b(opts, "Wait"),
                    wait_for_jobs: b(opts, "WaitForJobs"),
                    wait_retries: opts["WaitRetries"].as_i64().unwrap_or(0),
                    timeout: opts["Timeout"].as_i64().unwrap_or(0),
                    post_renderer: s(opts, "PostRenderer").into(),
                    post_renderer_args: list(opts, "PostRendererArgs"),
                    skip_schema_validation: b(opts, "SkipSchemaValidation"),
                    hide_notes: b(opts, "HideNotes"),
                    take_ownership: b(opts, "TakeOwnership"),
                    server_side: s(opts, "ServerSide").into(),
                    sync_args: s(opts, "SyncArgs").into(),
                    description: s(opts, "Description").into(),
                })
            } else {
                src.template_flags(&TemplateOptions {
                    post_renderer: s(opts, "PostRenderer").into(),
                    post_renderer_args: list(opts, "PostRendererArgs"),
                    kube_version: s(opts, "KubeVersion").into(),
                    show_only: list(opts, "ShowOnly"),
                    skip_schema_validation: b(opts, "SkipSchemaValidation"),
                    template_args: s(opts, "TemplateArgs").into(),
                })
            };
            r.map_err(|e| e.0)
        }
        "SyncRepos" => {
            let env: BTreeMap<String, String> = case["env"]
                .as_object()
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                        .collect()
                })
                .unwrap_or_default();
            let getenv = |k: &str| env.get(k).cloned();
            let mut args = Vec::new();
            for r in case["repositories"].as_array().into_iter().flatten() {
                let a = repo_add(&tree(r), &getenv);
                args.extend([
                    a.name,
                    a.url,
                    a.ca_file,
                    a.cert_file,
                    a.key_file,
                    a.username,
                    a.password,
                    a.managed,
                    a.pass_credentials.to_string(),
                    a.skip_tls_verify.to_string(),
                ]);
            }
            Ok(args)
        }
        "setStringFlags" => {
            let entries: Vec<SetValue> = case["setString"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| SetValue {
                    name: s(e, "name").into(),
                    value: s(e, "value").into(),
                    file: s(e, "file").into(),
                    values: list(e, "values"),
                })
                .collect();
            set_flags("--set-string", &entries, &echo_ref).map_err(|e| e.to_string())
        }
        other => return CaseResult::fail(id, format!("unknown function {other}"), ""),
    };
    let want_err = case.get("wantErr").and_then(J::as_str).unwrap_or("");
    match got {
        Err(e) if !want_err.is_empty() && e == want_err => CaseResult::pass(id),
        Err(e) => CaseResult::fail(
            id.clone(),
            format!("error: {e}"),
            format!("want error {want_err:?}"),
        ),
        Ok(flags) if want_err.is_empty() => {
            let want = list(case, "want");
            if flags == want {
                CaseResult::pass(id)
            } else {
                CaseResult::fail(id, "flags differ", format!("want {want:?}\ngot  {flags:?}"))
            }
        }
        Ok(flags) => CaseResult::fail(
            id,
            format!("want error {want_err:?}"),
            format!("got {flags:?}"),
        ),
    }
}

/// One recorded helm call: the release and the flags after `NAME CHART`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Call {
    name: String,
    flags: Vec<String>,
}

/// helmfile's mock helm (`pkg/exectest/helm.go`): canned `helm list` and `helm diff`
/// answers, every upgrade, delete, diff and lint recorded.
struct RecordingHelm {
    lists: Option<Vec<J>>,
    diffs: Option<Vec<J>>,
    fail_on_unexpected_list: bool,
    fail_on_unexpected_diff: bool,
    calls: std::sync::Mutex<BTreeMap<&'static str, Vec<Call>>>,
}

impl RecordingHelm {
    fn record(&self, kind: &'static str, name: &str, flags: &[String]) {
        self.calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(kind)
            .or_default()
            .push(Call {
                name: name.to_string(),
                flags: flags.to_vec(),
            });
    }

    fn fails(name: &str) -> Result<(), HelmError> {
        if name.contains("error") {
            return Err(HelmError::new(format!(
                "error: release {name} failed on purpose"
            )));
        }
        Ok(())
    }
}

use capstan_helm::ops::{Helm, HelmContext, HelmError};

impl Helm for RecordingHelm {
    fn version(&self) -> HelmVersion {
        HelmVersion::UNKNOWN
    }

    fn set_extra_args(&self, _args: Vec<String>) {}

    fn sync_release(
        &self,
        _ctx: &HelmContext,
        name: &str,
        _chart: &str,
        _namespace: &str,
        flags: &[String],
    ) -> Result<(), HelmError> {
        Self::fails(name)?;
        let exists = self
            .calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get("upgraded")
            .is_some_and(|u| u.iter().any(|c| c.name == name));
        if name.contains("forbidden") && exists {
            return Err(HelmError::new(format!("cannot upgrade {name}: forbidden")));
        }
        self.record("upgraded", name, flags);
        Ok(())
    }

    fn diff_release(
        &self,
        _ctx: &HelmContext,
        name: &str,
        chart: &str,
        _namespace: &str,
        _suppress: bool,
        flags: &[String],
    ) -> Result<String, HelmError> {
        self.record("diffed", name, flags);
        Self::fails(name)?;
        let Some(diffs) = &self.diffs else {
            return Ok(String::new());
        };
        let key = flags.join(" ");
        match diffs
            .iter()
            .find(|d| s(d, "name") == name && s(d, "chart") == chart && s(d, "flags") == key)
        {
            Some(d) => match d["result"]["exitCode"].as_i64() {
                Some(code) => Err(HelmError {
                    message: format!("exit status {code}"),
                    exit_code: Some(code as i32),
                    stdout: String::new(),
                }),
                None => Ok(String::new()),
            },
            None if self.fail_on_unexpected_diff => Err(HelmError::new(format!(
                "unexpected diff with key: {name} {chart} {key}"
            ))),
            None => Ok(String::new()),
        }
    }

    fn delete_release(
        &self,
        _ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<(), HelmError> {
        Self::fails(name)?;
        self.record("deleted", name, flags);
        Ok(())
    }

    fn list(
        &self,
        _ctx: &HelmContext,
        filter: &str,
        flags: &[String],
    ) -> Result<String, HelmError> {
        let Some(lists) = &self.lists else {
            return Ok("dummy non-empty helm-list output".into());
        };
        let key = flags.join(" ");
        match lists
            .iter()
            .find(|l| s(l, "filter") == filter && s(l, "flags") == key)
        {
            Some(l) => Ok(s(l, "output").to_string()),
            None if self.fail_on_unexpected_list => Err(HelmError::new(format!(
                "unexpected list key: {filter} {key}"
            ))),
            None => Ok(String::new()),
        }
    }

    fn release_status(
        &self,
        _ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<(), HelmError> {
        if name.contains("notFound") {
            return Err(HelmError::new("Error: release: not found"));
        }
        self.record("upgraded", name, flags);
        Ok(())
    }

    fn test_release(
        &self,
        _ctx: &HelmContext,
        name: &str,
        flags: &[String],
    ) -> Result<(), HelmError> {
        self.record("upgraded", name, flags);
        Ok(())
    }

    fn lint(&self, name: &str, _chart: &str, flags: &[String]) -> Result<(), HelmError> {
        self.record("linted", name, flags);
        Self::fails(name)
    }

    /// helmfile's mock fetches nothing and succeeds (its tests do not record fetches).
    fn fetch_chart(&self, _chart: &str, _flags: &[String]) -> Result<(), HelmError> {
        Ok(())
    }

    fn unittest(&self, name: &str, _chart: &str, flags: &[String]) -> Result<(), HelmError> {
        self.record("unittested", name, flags);
        Self::fails(name)
    }

    fn add_repo(&self, _r: &RepoAdd) -> Result<(), HelmError> {
        Ok(())
    }

    fn registry_login(&self, _l: &RegistryLogin) -> Result<(), HelmError> {
        Ok(())
    }
}

fn opt_bool(o: &J, k: &str) -> bool {
    o.get(k).and_then(J::as_bool).unwrap_or(false)
}

/// A whole-command case: the case's files in memory, the command run against the
/// recording helm, then the recorded calls and the error compared as helmfile's test does.
fn app_case(dir: &Path, id: String) -> CaseResult {
    let case: J = match std::fs::read_to_string(dir.join("case.json"))
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(c) => c,
        Err(e) => return CaseResult::fail(id, e, ""),
    };
    let command = match s(&case, "command") {
        "sync" => capstan_helm::deploy::Command::Sync,
        "apply" => capstan_helm::deploy::Command::Apply,
        "diff" => capstan_helm::deploy::Command::Diff,
        "destroy" => capstan_helm::deploy::Command::Destroy,
        "lint" => capstan_helm::deploy::Command::Lint,
        "unittest" => capstan_helm::deploy::Command::Unittest,
        other => {
            return CaseResult::fail(
                id,
                format!("`{other}` through helm is not built: capstan renders templates natively"),
                "",
            )
        }
    };
    let cwd = s(&case, "cwd").to_string();
    let mut host = capstan_state::host::MemHost::default();
    let files_root = dir.join("files");
    let mut stack = vec![files_root.clone()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let (Ok(rel), Ok(bytes)) = (p.strip_prefix(&files_root), std::fs::read(&p)) {
                let abs = format!("/{}", rel.display());
                let key = abs
                    .strip_prefix(&format!("{cwd}/"))
                    .map(String::from)
                    .unwrap_or(abs);
                host.files.insert(key.into(), bytes);
            }
        }
    }
    if let Some(env) = case["env"].as_object() {
        for (k, v) in env {
            host.env
                .insert(k.clone(), v.as_str().unwrap_or("").to_string());
        }
    }
    let env_vars = host.env.clone();
    let app = &case["app"];
    let settings = capstan_state::load::Settings {
        host: std::sync::Arc::new(host),
        root: ".".into(),
        env: match s(app, "Env") {
            "" => "default".into(),
            e => e.into(),
        },
        namespace: s(app, "Namespace").into(),
        kube_context: s(app, "OverrideKubeContext").into(),
        hcl: capstan_state::hcl_evaluator(),
        secrets: capstan_state::load::secrets_unsupported,
        limits: None,
        chart: String::new(),
        helm_binary: "helm".into(),
        renderers: Default::default(),
        charts: Default::default(),
        env_journal: None,
    };
    let run_opts = capstan_state::app::RunOptions {
        listed_selector_errors: false,
        file: String::new(),
        selectors: list(app, "Selectors"),
        cli: capstan_state::load::Overrides {
            entries: Vec::new(),
            set: Vec::new(),
            set_string: Vec::new(),
            base: ".".into(),
        },
    };
    let o = &case["options"];
    let options = capstan_helm::deploy::ClusterOptions {
        // helmfile's mock records calls in the order they happen; with helm calls in
        // parallel that order would vary from run to run, so the stand-in gets them one
        // at a time (the order helmfile starts them in).
        concurrency: 1,
        // helmfile's tests exercise its helm-diff plugin calls.
        diff_plugin: true,
        skip_needs: opt_bool(o, "skipNeeds"),
        include_needs: opt_bool(o, "includeNeeds"),
        include_transitive_needs: opt_bool(o, "includeTransitiveNeeds"),
        detailed_exitcode: opt_bool(o, "detailedExitcode"),
        no_hooks: opt_bool(o, "noHooks"),
        skip_diff_on_install: opt_bool(o, "skipDiffOnInstall"),
        fail_fast: opt_bool(o, "failFast"),
        debug_plugin: opt_bool(o, "debugPlugin"),
        color: opt_bool(o, "color"),
        delete_wait: opt_bool(o, "deleteWait"),
        delete_timeout: o["deleteTimeout"].as_i64().unwrap_or(0),
        upgrade: UpgradeOptions {
            timeout: o["timeout"].as_i64().unwrap_or(0),
            ..UpgradeOptions::default()
        },
        ..Default::default()
    };
    let mock = &case["mock"];
    let helm = RecordingHelm {
        lists: mock["lists"].as_array().cloned(),
        diffs: mock["diffs"].as_array().cloned(),
        fail_on_unexpected_list: opt_bool(mock, "FailOnUnexpectedList"),
        fail_on_unexpected_diff: opt_bool(mock, "FailOnUnexpectedDiff"),
        calls: Default::default(),
    };
    let no_values =
        |_: &capstan_state::app::PreparedState, _: &capstan_state::release::Release| Ok(Vec::new());
    let getenv = |k: &str| env_vars.get(k).cloned();
    let log = |_: capstan_helm::LogLevel, _: &str| {};
    let result = match capstan_state::app::load_run(&settings, &run_opts) {
        Err(e) => Err((e.to_string(), 1)),
        Ok((states, _)) => {
            let cluster = capstan_helm::deploy::Cluster {
                settings: &settings,
                helm: &helm,
                options: &options,
                values_files: &no_values,
                getenv: &getenv,
                log: &log,
                print: &|_: &str| {},
                confirm: &|_: &str| true,
                user_values: &|_: &capstan_state::app::PreparedState,
                               r: &capstan_state::release::Release| {
                    Err(format!("release {}: the recording helm computes no values", r.name).into())
                },
                // Hooks run for real, as helmfile's tests run them (`echo`).
                exec: &|program: &str, args: &[String], _dir: &str| {
                    Ok(std::process::Command::new(program)
                        .args(args)
                        .output()
                        .map_err(|e| e.to_string())
                        .and_then(|o| {
                            if o.status.success() {
                                Ok(String::from_utf8_lossy(&o.stdout).into_owned())
                            } else {
                                Err(format!("exit status {}", o.status.code().unwrap_or(1)))
                            }
                        })?)
                },
                render: &|_: &capstan_state::app::PreparedState,
                          r: &capstan_state::release::Release,
                          _: &capstan_helm::deploy::RenderFor| {
                    Err(format!("release {}: the recording helm has no renderer", r.name).into())
                },
            };
            capstan_helm::deploy::run(&cluster, &states, command)
                .map(|_| ())
                .map_err(|e| (e.message, e.code))
        }
    };
    let expected = &case["expected"];
    let want_error = s(expected, "error");
    let (got_error, got_code) = match &result {
        Ok(()) => (String::new(), 0),
        Err((m, c)) => (m.clone(), *c),
    };
    if got_error != want_error {
        return CaseResult::fail(
            id,
            "error differs",
            format!("want {want_error:?}\ngot  {got_error:?}"),
        );
    }
    if let Some(code) = expected["errorCode"].as_i64() {
        if code as i32 != got_code {
            return CaseResult::fail(id, format!("exit code {got_code}, want {code}"), "");
        }
    }
    let calls = helm.calls.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let exact = s(&case, "comparison") == "exact";
    for kind in ["upgraded", "deleted", "diffed", "linted", "unittested"] {
        let got = calls.get(kind).cloned().unwrap_or_default();
        let want: Vec<Call> = expected[kind]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|c| Call {
                        name: s(c, "name").into(),
                        flags: list(c, "flags"),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let ok = if exact {
            expected.get(kind).is_none() && !matches!(kind, "diffed" | "linted" | "unittested")
                || got == want
        } else {
            want.iter().enumerate().all(|(i, w)| {
                got.get(i).is_some_and(|g| {
                    g.name == w.name
                        && w.flags
                            .iter()
                            .enumerate()
                            .all(|(j, f)| g.flags.get(j) == Some(f))
                })
            })
        };
        if !ok {
            return CaseResult::fail(
                id,
                format!("{kind} calls differ"),
                format!("want {want:?}\ngot  {got:?}"),
            );
        }
    }
    CaseResult::pass(id)
}
