//! Runs [`HelmCall`]s as processes: the program found on `PATH` (or as given), argv as
//! built, the call's environment added to capstan's, its standard input written and
//! closed (passwords never reach argv), standard output and error captured. A helm that
//! fails becomes a [`RunFailure`] naming the command and its exit status, with what helm
//! printed on stderr; values after `--set`-like flags are not repeated in the message.

use crate::exec::{HelmCall, RunFailure, Runner};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Process groups of the commands running now (each child leads its own group).
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Set once a signal asked capstan to stop: no new command starts after it.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Whether a signal asked capstan to stop (hooks and helm calls are not started then).
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Stops every command still running (SIGTERM to its process group) and lets no new one
/// start, for the handler of SIGINT, SIGTERM and SIGHUP: helm does not outlive capstan.
/// Each stopped command still ends as a failure with what it printed, so the run reports
/// it; [`wait_for_children`] waits for that.
pub fn stop_children() {
    STOPPING.store(true, Ordering::SeqCst);
    let groups: Vec<u32> = RUNNING.lock().map(|r| r.clone()).unwrap_or_default();
    signal_groups("-TERM", &groups);
}

/// Waits until every stopped command has exited, at most `limit`; those still running
/// then are killed (SIGKILL). Whether they all ended in time.
pub fn wait_for_children(limit: std::time::Duration) -> bool {
    let started = std::time::Instant::now();
    loop {
        let left: Vec<u32> = RUNNING.lock().map(|r| r.clone()).unwrap_or_default();
        if left.is_empty() {
            return true;
        }
        if started.elapsed() >= limit {
            signal_groups("-KILL", &left);
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Sends `signal` to each process group.
fn signal_groups(signal: &str, groups: &[u32]) {
    for g in groups {
        // `kill` keeps capstan free of unsafe code; a group already gone is no error.
        let _ = Command::new("kill")
            .args([signal, "--", &format!("-{g}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn forget(pid: u32) {
    if let Ok(mut r) = RUNNING.lock() {
        r.retain(|p| *p != pid);
    }
}

/// The real runner, in a working directory.
pub struct ProcessRunner {
    /// The directory the commands run in.
    pub cwd: PathBuf,
}

/// Flags whose value may hold secrets or values: left out of error messages.
const VALUE_FLAGS: &[&str] = &[
    "--set",
    "--set-string",
    "--set-file",
    "--set-json",
    "--set-literal",
    "--password",
    "--username",
];

/// The argv as shown in an error: values of `--set`-like flags replaced by `***`, chart
/// URL passwords redacted.
pub(crate) fn shown_args(args: &[String]) -> String {
    let mut out = Vec::new();
    let mut hide_next = false;
    for a in args {
        if hide_next {
            out.push("***".to_string());
            hide_next = false;
            continue;
        }
        if VALUE_FLAGS.contains(&a.as_str()) {
            hide_next = true;
            out.push(a.clone());
            continue;
        }
        match a.split_once('=') {
            Some((flag, _)) if VALUE_FLAGS.contains(&flag) => out.push(format!("{flag}=***")),
            _ => out.push(crate::exec::redact_url(a)),
        }
    }
    out.join(" ")
}

impl Runner for ProcessRunner {
    fn run(&self, call: &HelmCall) -> Result<String, Box<RunFailure>> {
        let failure = |code: i32, stdout: String, stderr: String| {
            Box::new(RunFailure {
                program: call.program.clone(),
                args: shown_args(&call.args),
                code,
                combined: format!("{stdout}{stderr}"),
                stdout,
                stderr,
            })
        };
        if stopping() {
            return Err(failure(
                130,
                String::new(),
                "not started: capstan was interrupted".into(),
            ));
        }
        let mut cmd = Command::new(&call.program);
        cmd.args(&call.args)
            .current_dir(&self.cwd)
            .stdin(if call.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a signal to capstan stops it through
            // [`stop_children`], and helm's own children with it.
            .process_group(0);
        for (k, v) in &call.env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| failure(127, String::new(), format!("exec: {:?}: {e}", call.program)))?;
        let pid = child.id();
        if let Ok(mut r) = RUNNING.lock() {
            r.push(pid);
        }
        // A signal between the check above and the list: this one was not stopped.
        if stopping() {
            signal_groups("-TERM", &[pid]);
        }
        if let (Some(input), Some(mut stdin)) = (&call.stdin, child.stdin.take()) {
            // A helm that exits before reading its password is reported by its status.
            let _ = stdin.write_all(input.as_bytes());
        }
        let out = child.wait_with_output();
        forget(pid);
        let out = out.map_err(|e| failure(1, String::new(), e.to_string()))?;
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.success() {
            Ok(stdout)
        } else {
            let code = out.status.code().unwrap_or(1);
            Err(failure(code, stdout, stderr))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_passwords_stay_out_of_messages() {
        let args: Vec<String> = [
            "upgrade",
            "r",
            "https://u:pw@h/c.tgz",
            "--set",
            "db.password=hunter2",
            "--set-string=a=b",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let shown = shown_args(&args);
        assert!(
            !shown.contains("hunter2") && !shown.contains("pw@") && !shown.contains("a=b"),
            "{shown}"
        );
    }

    #[test]
    fn runs_a_process_with_stdin_and_reports_failure() {
        let r = ProcessRunner {
            cwd: std::env::temp_dir(),
        };
        let call = HelmCall {
            program: "sh".into(),
            args: vec!["-c".into(), "read x; echo got:$x".into()],
            env: vec![],
            stdin: Some("secret\n".into()),
            before: vec![],
            output: crate::exec::OutputUse::Stdout,
        };
        assert_eq!(r.run(&call).unwrap(), "got:secret\n");
        let fail = HelmCall {
            args: vec!["-c".into(), "echo oops >&2; exit 3".into()],
            stdin: None,
            ..call
        };
        let e = r.run(&fail).unwrap_err();
        assert_eq!((e.code, e.stderr.as_str()), (3, "oops\n"));
    }
}
