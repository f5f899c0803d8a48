//! The cluster commands (`sync`, `apply`, `diff`, `destroy`, `status`, `test`, `lint`,
//! `repos`, `deps`, `unittest`): the states loaded, the real helm detected and wired with
//! this process's I/O (values files written to a private directory, 0700 with files
//! 0600, removed when the command ends, also on a signal; hooks run in the state's
//! directory; releases rendered natively for the diff), then handed to
//! `capstan_helm::deploy`.

use crate::{Failure, Session};
use capstan_helm::deploy::{Cluster, ClusterOptions, Command, RenderFor};
use capstan_helm::exec::{Execer, LogLevel};
use capstan_helm::ops::{Output, ProcessHelm};
use capstan_helm::runner::ProcessRunner;
use capstan_state::app::PreparedState;
use capstan_state::load::Settings;
use capstan_state::release::Release;
use capstan_state::release_values::{chart_input_with, Charts, HelmFlags};
use capstan_state::StateError;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What a cluster command is asked for.
pub struct ClusterRequest<'a> {
    /// The command.
    pub command: Command,
    /// Its options (helmfile's flags of that command).
    pub options: ClusterOptions,
    /// Flags of the native renders the diff compares (`--template-args`).
    pub template_flags: HelmFlags,
    /// `--helm-binary` (empty: the state's `helmBinary`, else `helm`).
    pub helm_binary: String,
    /// `--disable-force-update`: `helm repo add` without `--force-update`.
    pub disable_force_update: bool,
    /// Asks a question and says whether the answer was yes (`--interactive`).
    pub confirm: &'a (dyn Fn(&str) -> bool + Sync),
    /// Where helm's standard output goes as it comes (the `capstan` binary's writer);
    /// `None`: it is collected and returned.
    pub live_stdout: Option<fn(&[u8]) -> bool>,
}

/// Where helm's output goes: log lines to standard error (live) or the log buffer,
/// helm's standard output to the live writer or the output buffer.
struct Sink {
    log: Arc<Mutex<String>>,
    stdout: Arc<Mutex<String>>,
    live_stdout: Option<fn(&[u8]) -> bool>,
}

impl Output for Sink {
    fn log(&self, text: &str) {
        if crate::live() {
            eprint!("{text}");
        } else {
            self.log
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_str(text);
        }
    }

    fn stdout(&self, text: &str) {
        if let Some(write) = self.live_stdout {
            write(text.as_bytes());
            return;
        }
        self.stdout
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_str(text);
    }
}

/// The helm binary: `--helm-binary`, else the state's `helmBinary`, else `helm`.
fn helm_binary(given: &str, states: &[PreparedState]) -> String {
    if !given.is_empty() {
        return given.to_string();
    }
    states
        .iter()
        .map(|ps| capstan_state::spec::str_of(&ps.state.doc, "helmBinary"))
        .find(|b| !b.is_empty())
        .unwrap_or_else(|| "helm".into())
}

/// Runs a cluster command: what helm printed on standard output (when not live).
pub fn run(
    session: &Session,
    request: &ClusterRequest,
    log: &mut String,
) -> Result<String, Failure> {
    // --show-values names the layer a value came from: record the environment's layers.
    let mut session = session.clone();
    if request.options.show_values {
        session.settings.env_journal = Some(Default::default());
    }
    let Some(states) = session.load(log)? else {
        return Ok(String::new());
    };
    run_over(&session, request, &states, log)
}

/// [`run`] over loaded states.
fn run_over(
    session: &Session,
    request: &ClusterRequest,
    states: &[PreparedState],
    log: &mut String,
) -> Result<String, Failure> {
    let s = &session.settings;
    // helm would run with the repository's argv (`args:`, `helmBinary`, post-renderer
    // plugins, kube settings) against the caller's cluster: untrusted mode renders only.
    if s.host.tenant().is_some() {
        return Err(Failure::new(
            "untrusted repository: cluster commands run helm with the repository's settings; untrusted mode only renders (template, build, list, values, write-values, show-dag, print-env)",
            None,
        ));
    }
    if request.command == Command::Test && request.options.cleanup {
        crate::logln!(log, "warn: requested cleanup will not be applied. To clean up test resources with Helm 3, you have to remove them manually or set helm.sh/hook-delete-policy");
    }
    let binary = helm_binary(&request.helm_binary, states);
    let (_, version) = capstan_helm::setup::detect(&binary, session.cwd())?;
    let log_buf = Arc::new(Mutex::new(String::new()));
    let stdout = Arc::new(Mutex::new(String::new()));
    let sink = || Sink {
        log: log_buf.clone(),
        stdout: stdout.clone(),
        live_stdout: request.live_stdout,
    };
    let helm = ProcessHelm::new(
        Execer {
            binary,
            kubeconfig: session.kubeconfig.clone(),
            kube_context: String::new(),
            extra: Vec::new(),
            version,
            disable_force_update: request.disable_force_update,
        },
        Box::new(ProcessRunner {
            cwd: session.cwd().to_path_buf(),
        }),
        session.log_level,
        Box::new(sink()),
    );
    let dirs: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let values_files = |ps: &PreparedState, r: &Release| values_files_for(s, ps, r, &dirs);
    let getenv = |k: &str| std::env::var(k).ok();
    let info = |at: LogLevel, text: &str| crate::hooks::log_line(session, &log_buf, at, text);
    let printer = sink();
    let print = |text: &str| printer.stdout(text);
    let render = |ps: &PreparedState, r: &Release, how: &RenderFor| -> Result<String, StateError> {
        let flags = HelmFlags {
            no_hooks: !how.hooks,
            is_upgrade: how.is_upgrade,
            cluster: how.cluster.clone(),
            skip_deps: session.skip_deps,
            ..request.template_flags.clone()
        };
        Ok(capstan_state::commands::render_one(s, ps, r, &flags)
            .map(|rendered| rendered.manifest)
            .map_err(|e| e.message)?)
    };
    let exec = |program: &str, args: &[String], dir: &str| -> Result<String, StateError> {
        // After a signal no hook starts (helmfile stops at once; a postsync hook for
        // some releases only would be worse than none).
        if capstan_helm::runner::stopping() {
            return Err(StateError::new(format!(
                "{program}: not started: capstan was interrupted"
            )));
        }
        Ok(s.host.exec(program, args, &[], None, &s.root.join(dir))?)
    };
    let user_values =
        |ps: &PreparedState, r: &Release| capstan_state::commands::user_values_explained(s, ps, r);
    let cluster = Cluster {
        confirm: request.confirm,
        user_values: &user_values,
        exec: &exec,
        render: &render,
        print: &print,
        settings: s,
        helm: &helm,
        options: &request.options,
        values_files: &values_files,
        getenv: &getenv,
        log: &info,
    };
    let result = capstan_helm::deploy::run(&cluster, states, request.command);
    for d in dirs.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        let _ = s.host.remove_private(&d);
    }
    log.push_str(&log_buf.lock().unwrap_or_else(|e| e.into_inner()));
    let out = std::mem::take(&mut *stdout.lock().unwrap_or_else(|e| e.into_inner()));
    match result {
        Ok(_) => Ok(out),
        Err(e) => Err(Failure {
            stdout: out,
            code: e.code,
            ..Failure::new(e.message, None)
        }),
    }
}

/// A release's values files for helm, in helmfile's order: files from the release's
/// `values:`/`secrets:` (rendered, decrypted) written to a private directory, files on
/// disk passed as they are.
fn values_files_for(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
    dirs: &Mutex<Vec<PathBuf>>,
) -> Result<Vec<String>, StateError> {
    let input = chart_input_with(s, ps, r, &HelmFlags::default(), Charts::Offline)?;
    let named = capstan_state::release_values::overlay_for_helm(&input);
    let dir = if named.is_empty() {
        None
    } else {
        let d = s
            .host
            .write_private(&named)
            .map_err(|e| format!("writing the values of release {:?} for helm: {e}", r.name))?;
        dirs.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(d.clone());
        Some(d)
    };
    Ok(input
        .options
        .values
        .files
        .iter()
        .map(
            |f| match (capstan_state::release_values::overlay_name(&input, f), &dir) {
                (Some(name), Some(d)) => d.join(name).display().to_string(),
                _ => s.root.join(f).display().to_string(),
            },
        )
        .collect())
}
