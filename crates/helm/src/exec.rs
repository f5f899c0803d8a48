//! helmfile's `helmexec`: one method per helm command, each building the exact argv
//! helmfile gives helm (global `--kubeconfig`/`--kube-context` first, the user's extra
//! `--args` last, filtered where a command rejects them), its environment, its standard
//! input (passwords go there, never on argv) and the log lines helmfile writes around it.
//!
//! A method returns a [`HelmCall`]: data, not a process. [`Runner`] runs calls; tests use
//! a recording one. Chart URLs are shown with their password replaced by `xxxxx` in the
//! info line (as helmfile) and, unlike helmfile, also in the `exec:` debug line.

use crate::version::HelmVersion;

/// helmfile's log levels (zap's), lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// Debug lines.
    Debug,
    /// Info lines (the default).
    Info,
    /// Warnings.
    Warn,
    /// Errors.
    Error,
}

impl LogLevel {
    /// `--log-level` text (`debug`, `info`, `warn`, `error`; zap's `dpanic`/`panic`/`fatal`
    /// show errors only).
    pub fn parse(s: &str) -> Option<LogLevel> {
        Some(match s.to_ascii_lowercase().as_str() {
            "debug" => LogLevel::Debug,
            "info" | "" => LogLevel::Info,
            "warn" => LogLevel::Warn,
            "error" | "dpanic" | "panic" | "fatal" => LogLevel::Error,
            _ => return None,
        })
    }
}

/// One log line helmfile writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    /// Its level.
    pub level: LogLevel,
    /// Its text.
    pub text: String,
}

impl LogLine {
    fn new(level: LogLevel, text: impl Into<String>) -> LogLine {
        LogLine {
            level,
            text: text.into(),
        }
    }
}

/// What becomes of a command's standard output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputUse {
    /// Logged at info level when not empty (`repo add`, `dependency build`, `pull`...).
    Info,
    /// Written to capstan's standard output (`upgrade`, `diff`, `status`, `template`...).
    Stdout,
    /// Logged at debug level after `PREFIX: ` (helmfile's `az` call).
    DebugAfter(String),
    /// Kept by the caller only (`helm list`, a suppressed diff).
    Discard,
}

/// One command to run: program, argv, environment, standard input, and the lines logged
/// before it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelmCall {
    /// The program (helm, or `az` for a managed repository).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Written to the command's standard input (a password): never logged.
    pub stdin: Option<String>,
    /// Lines logged before it runs.
    pub before: Vec<LogLine>,
    /// What becomes of its standard output.
    pub output: OutputUse,
}

impl HelmCall {
    /// The log text helmfile writes for this call at `level`, given what the command
    /// printed.
    pub fn log(&self, stdout: &str, level: LogLevel) -> String {
        let mut lines: Vec<LogLine> = self.before.clone();
        if !stdout.is_empty() {
            match &self.output {
                OutputUse::Info => lines.push(LogLine::new(LogLevel::Info, stdout)),
                OutputUse::DebugAfter(prefix) => {
                    lines.push(LogLine::new(LogLevel::Debug, format!("{prefix}: {stdout}")))
                }
                OutputUse::Stdout | OutputUse::Discard => {}
            }
        } else if let OutputUse::DebugAfter(prefix) = &self.output {
            lines.push(LogLine::new(LogLevel::Debug, format!("{prefix}:")));
        }
        render_log(&lines, level)
    }
}

/// Log lines as zap's console encoder writes them (the message, then a newline).
pub fn render_log(lines: &[LogLine], level: LogLevel) -> String {
    let mut out = String::new();
    for l in lines.iter().filter(|l| l.level >= level) {
        out.push_str(&l.text);
        out.push('\n');
    }
    out
}

/// A command helmfile refuses before running anything, with what it logged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refused {
    /// helmfile's message.
    pub message: String,
    /// What it logged before refusing.
    pub log: Vec<LogLine>,
}

/// Runs calls. The real runner starts processes; tests record.
pub trait Runner: Send + Sync {
    /// Runs `call`; returns its standard output, or its failure.
    fn run(&self, call: &HelmCall) -> Result<String, Box<RunFailure>>;
}

/// A command that failed: its exit code (when it exited) and what it printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("command \"{program}\" exited with non-zero status {code}:\n  {program} {args}\n{}", stderr.trim_end())]
pub struct RunFailure {
    /// The program.
    pub program: String,
    /// Its arguments, as one line.
    pub args: String,
    /// Its exit code.
    pub code: i32,
    /// What it printed on standard output.
    pub stdout: String,
    /// What it printed on standard error.
    pub stderr: String,
    /// Both, interleaved as printed.
    pub combined: String,
}

/// A repository to add (`helm repo add`), as helmfile's `AddRepo` takes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepoAdd {
    /// The repository's name.
    pub name: String,
    /// Its URL.
    pub url: String,
    /// `caFile`.
    pub ca_file: String,
    /// `certFile`.
    pub cert_file: String,
    /// `keyFile`.
    pub key_file: String,
    /// `username`.
    pub username: String,
    /// `password` (given on standard input, never in argv).
    pub password: String,
    /// `acr` (Azure, through `az`) or empty.
    pub managed: String,
    /// `passCredentials`.
    pub pass_credentials: bool,
    /// `skipTLSVerify`.
    pub skip_tls_verify: bool,
}

/// A registry to log in to (`helm registry login`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegistryLogin {
    /// The registry host.
    pub host: String,
    /// `username`.
    pub username: String,
    /// `password` (given on standard input, never in argv).
    pub password: String,
    /// `caFile`.
    pub ca_file: String,
    /// `certFile`.
    pub cert_file: String,
    /// `keyFile`.
    pub key_file: String,
    /// `skipTLSVerify`.
    pub skip_tls_verify: bool,
    /// The repository's `plainHttp`: the registry speaks HTTP, not HTTPS.
    pub plain_http: bool,
}

/// helmfile's execer: the helm binary, the global connection flags, the user's extra
/// arguments and the detected version.
#[derive(Clone, Debug, Default)]
pub struct Execer {
    /// The helm binary.
    pub binary: String,
    /// `--kubeconfig`.
    pub kubeconfig: String,
    /// `--kube-context`.
    pub kube_context: String,
    /// helmfile's `--args`, appended to every command.
    pub extra: Vec<String>,
    /// The detected helm version (flags differ between versions).
    pub version: HelmVersion,
    /// `--disable-force-update`: no `--force-update` on `repo add`.
    pub disable_force_update: bool,
}

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

impl Execer {
    /// helmfile's `exec`: `[--kubeconfig K] [--kube-context C] ARGS EXTRA`, logged at debug.
    pub fn raw(&self, args: Vec<String>, env: Vec<(String, String)>) -> HelmCall {
        self.call(Vec::new(), args, env, None, OutputUse::Stdout, false)
    }

    fn call(
        &self,
        before: Vec<LogLine>,
        args: Vec<String>,
        env: Vec<(String, String)>,
        stdin: Option<String>,
        output: OutputUse,
        dependency_command: bool,
    ) -> HelmCall {
        let mut argv = Vec::new();
        if !self.kubeconfig.is_empty() {
            argv.extend(["--kubeconfig".to_string(), self.kubeconfig.clone()]);
        }
        if !self.kube_context.is_empty() {
            argv.extend(["--kube-context".to_string(), self.kube_context.clone()]);
        }
        argv.extend(args);
        if dependency_command {
            argv.extend(filter_dependency_flags(&self.extra));
        } else {
            argv.extend(self.extra.iter().cloned());
        }
        let mut before = before;
        let shown: Vec<String> = argv.iter().map(|a| redact_url(a)).collect();
        before.push(LogLine::new(
            LogLevel::Debug,
            format!("exec: {} {}", self.binary, shown.join(" ")),
        ));
        HelmCall {
            program: self.binary.clone(),
            args: argv,
            env,
            stdin,
            before,
            output,
        }
    }

    fn info(text: String) -> Vec<LogLine> {
        vec![LogLine::new(LogLevel::Info, text)]
    }

    /// `helm HEAD... FLAGS...` after the info line `info`, no environment or stdin.
    fn command(
        &self,
        info: String,
        head: &[&str],
        flags: &[String],
        output: OutputUse,
    ) -> HelmCall {
        let mut args = strings(head);
        args.extend(flags.iter().cloned());
        self.call(Self::info(info), args, Vec::new(), None, output, false)
    }

    /// `helm repo add` (or `az acr helm repo add` for `managed: acr`).
    pub fn add_repo(&self, r: &RepoAdd) -> Result<HelmCall, Refused> {
        if r.name.is_empty() && !r.url.is_empty() {
            return Err(Refused {
                message: "empty field name".into(),
                log: Self::info("empty field name\n".into()),
            });
        }
        match r.managed.as_str() {
            "acr" => {
                let args = strings(&["acr", "helm", "repo", "add", "--name", &r.name]);
                let shown = format!("exec: az {}", args.join(" "));
                Ok(HelmCall {
                    program: "az".into(),
                    args,
                    env: Vec::new(),
                    stdin: None,
                    before: vec![
                        LogLine::new(LogLevel::Info, format!("Adding repo {} (acr)", r.name)),
                        LogLine::new(LogLevel::Debug, shown.clone()),
                    ],
                    output: OutputUse::DebugAfter(shown),
                })
            }
            "" => {
                let mut args = strings(&["repo", "add", &r.name, &r.url]);
                if !self.disable_force_update
                    && (self.version.at_least(3, 3, 2) || self.version.triple.is_none())
                {
                    args.push("--force-update".into());
                }
                args.extend(tls_flags(&r.cert_file, &r.key_file, &r.ca_file));
                if r.pass_credentials {
                    args.push("--pass-credentials".into());
                }
                if r.skip_tls_verify {
                    args.push("--insecure-skip-tls-verify".into());
                }
                let mut stdin = None;
                if !r.username.is_empty() && !r.password.is_empty() {
                    args.extend(strings(&["--username", &r.username, "--password-stdin"]));
                    stdin = Some(format!("{}\n", r.password));
                }
                let before = Self::info(format!("Adding repo {} {}", r.name, redact_url(&r.url)));
                Ok(self.call(before, args, Vec::new(), stdin, OutputUse::Info, false))
            }
            other => {
                let message = format!("ERROR: unknown type '{other}' for repository {}", r.name);
                Err(Refused {
                    log: vec![LogLine::new(LogLevel::Error, message.clone())],
                    message,
                })
            }
        }
    }

    /// `helm repo update`.
    pub fn update_repo(&self) -> HelmCall {
        self.call(
            Self::info("Updating repo".into()),
            strings(&["repo", "update"]),
            Vec::new(),
            None,
            OutputUse::Info,
            false,
        )
    }

    /// `helm registry login` (nothing without both a username and a password); the
    /// password goes to standard input.
    pub fn registry_login(&self, l: &RegistryLogin) -> Option<HelmCall> {
        if l.username.is_empty() || l.password.is_empty() {
            return None;
        }
        // Helm 4 refuses a repository path (`invalid registry "host/charts"`) where Helm 3
        // only warned and logged in to the host: give Helm 4 the host alone.
        let host = if self.version.is_helm3() {
            l.host.as_str()
        } else {
            l.host.split('/').next().unwrap_or(&l.host)
        };
        let mut args = strings(&["registry", "login", host]);
        if self.version.at_least(3, 12, 0) || self.version.triple.is_none() {
            args.extend(tls_flags(&l.cert_file, &l.key_file, &l.ca_file));
        }
        if l.skip_tls_verify {
            args.push("--insecure".into());
        }
        // Helm 4's login tries HTTPS only, unless told the registry is plain HTTP.
        if l.plain_http && !self.version.is_helm3() {
            args.push("--plain-http".into());
        }
        args.extend(strings(&["--username", &l.username, "--password-stdin"]));
        Some(self.call(
            Self::info("Logging in to registry".into()),
            args,
            vec![("HELM_EXPERIMENTAL_OCI".into(), "1".into())],
            Some(format!("{}\n", l.password)),
            OutputUse::Info,
            false,
        ))
    }

    /// `helm dependency build CHART FLAGS` (extra arguments `dependency build` rejects are
    /// left out).
    pub fn build_deps(&self, release: &str, chart: &str, flags: &[String]) -> HelmCall {
        let mut args = strings(&["dependency", "build", chart]);
        args.extend(flags.iter().cloned());
        self.call(
            Self::info(format!(
                "Building dependency release={release}, chart={chart}"
            )),
            args,
            Vec::new(),
            None,
            OutputUse::Info,
            true,
        )
    }

    /// `helm dependency update CHART`.
    pub fn update_deps(&self, chart: &str) -> HelmCall {
        self.call(
            Self::info(format!("Updating dependency {chart}")),
            strings(&["dependency", "update", chart]),
            Vec::new(),
            None,
            OutputUse::Info,
            true,
        )
    }

    /// `helm upgrade --install NAME CHART FLAGS --history-max N`.
    pub fn sync_release(
        &self,
        name: &str,
        chart: &str,
        namespace: &str,
        flags: &[String],
        history_max: i64,
    ) -> HelmCall {
        let mut args = strings(&["upgrade", "--install", name, chart]);
        args.extend(flags.iter().cloned());
        args.extend(["--history-max".to_string(), history_max.to_string()]);
        self.call(
            Self::info(format!(
                "Upgrading release={name}, chart={}, namespace={namespace}",
                redact_url(chart)
            )),
            args,
            Vec::new(),
            None,
            OutputUse::Stdout,
            false,
        )
    }

    /// `helm status NAME FLAGS`.
    pub fn release_status(&self, name: &str, flags: &[String]) -> HelmCall {
        self.command(
            format!("Getting status {name}"),
            &["status", name],
            flags,
            OutputUse::Stdout,
        )
    }

    /// `helm list --filter FILTER FLAGS` (its header line is dropped by the caller).
    pub fn list(&self, filter: &str, flags: &[String]) -> HelmCall {
        self.command(
            format!("Listing releases matching {filter}"),
            &["list", "--filter", filter],
            flags,
            OutputUse::Stdout,
        )
    }

    /// `helm diff upgrade --allow-unreleased NAME CHART FLAGS` (the helm-diff plugin). On
    /// Helm 4 the plugin takes no `--color`/`--no-color`.
    pub fn diff_release(
        &self,
        name: &str,
        chart: &str,
        namespace: &str,
        flags: &[String],
    ) -> HelmCall {
        let mut args = strings(&["diff", "upgrade", "--allow-unreleased", name, chart]);
        args.extend(
            flags
                .iter()
                .filter(|f| !(self.version.is_helm4() && (*f == "--color" || *f == "--no-color")))
                .cloned(),
        );
        self.call(
            Self::info(format!(
                "Comparing release={name}, chart={}, namespace={namespace}\n",
                redact_url(chart)
            )),
            args,
            Vec::new(),
            None,
            OutputUse::Stdout,
            false,
        )
    }

    /// `helm template NAME CHART FLAGS` (its output is logged when it writes files).
    pub fn template_release(&self, name: &str, chart: &str, flags: &[String]) -> HelmCall {
        let to_files = flags.iter().any(|f| f.starts_with("--output-dir"));
        self.command(
            format!("Templating release={name}, chart={}", redact_url(chart)),
            &["template", name, chart],
            flags,
            if to_files {
                OutputUse::Info
            } else {
                OutputUse::Stdout
            },
        )
    }

    /// `helm lint CHART FLAGS`.
    pub fn lint(&self, name: &str, chart: &str, flags: &[String]) -> HelmCall {
        self.command(
            format!("Linting release={name}, chart={chart}"),
            &["lint", chart],
            flags,
            OutputUse::Stdout,
        )
    }

    /// `helm fetch CHART FLAGS`.
    pub fn fetch(&self, chart: &str, flags: &[String]) -> HelmCall {
        self.command(
            format!("Fetching {}", redact_url(chart)),
            &["fetch", chart],
            flags,
            OutputUse::Info,
        )
    }

    /// `helm pull oci://CHART --destination PATH --untar FLAGS` (Helm ≥ 3.7), or the old
    /// `helm chart pull CHART`.
    pub fn chart_pull(&self, chart: &str, path: &str, flags: &[String]) -> HelmCall {
        let args = if self.version.at_least(3, 7, 0) || self.version.triple.is_none() {
            let url = oci_chart_url(chart);
            let mut a = strings(&["pull", &url, "--destination", path, "--untar"]);
            a.extend(flags.iter().cloned());
            a
        } else {
            strings(&["chart", "pull", chart])
        };
        self.call(
            Self::info(format!("Pulling {chart}")),
            args,
            vec![("HELM_EXPERIMENTAL_OCI".into(), "1".into())],
            None,
            OutputUse::Info,
            false,
        )
    }

    /// `helm chart export CHART --destination PATH` (Helm < 3.7 only; newer helm pulls
    /// charts unpacked).
    pub fn chart_export(&self, chart: &str, path: &str) -> Option<HelmCall> {
        if self.version.at_least(3, 7, 0) || self.version.triple.is_none() {
            return None;
        }
        Some(self.call(
            Self::info(format!("Exporting {chart}")),
            strings(&["chart", "export", chart, "--destination", path]),
            vec![("HELM_EXPERIMENTAL_OCI".into(), "1".into())],
            None,
            OutputUse::Info,
            false,
        ))
    }

    /// `helm delete NAME FLAGS`.
    pub fn delete_release(&self, name: &str, flags: &[String]) -> HelmCall {
        self.command(
            format!("Deleting {name}"),
            &["delete", name],
            flags,
            OutputUse::Stdout,
        )
    }

    /// `helm get manifest NAME FLAGS`: the manifest helm recorded for the deployed release
    /// (capstan's own diff compares it with its rendering).
    pub(crate) fn get_manifest(&self, name: &str, flags: &[String]) -> HelmCall {
        self.get_record(&["get", "manifest", name], flags)
    }

    /// `helm get hooks NAME FLAGS`: the hooks of the latest revision (capstan's diff
    /// compares them too, as helm-diff does).
    pub(crate) fn get_hooks(&self, name: &str, flags: &[String]) -> HelmCall {
        self.get_record(&["get", "hooks", name], flags)
    }

    /// `helm get values NAME -o json FLAGS`: the values helm recorded for the deployed
    /// release (`diff --show-values`), kept by the caller, never printed (they hold
    /// secrets).
    pub(crate) fn get_values(&self, name: &str, flags: &[String]) -> HelmCall {
        self.get_record(&["get", "values", name, "-o", "json"], flags)
    }

    /// A `helm get …` call whose output the caller keeps and never prints.
    fn get_record(&self, command: &[&str], flags: &[String]) -> HelmCall {
        let mut args = strings(command);
        args.extend(flags.iter().cloned());
        self.call(
            Vec::new(),
            args,
            Vec::new(),
            None,
            OutputUse::Discard,
            false,
        )
    }

    /// `helm unittest CHART FLAGS` (the helm-unittest plugin).
    pub fn unittest(&self, name: &str, chart: &str, flags: &[String]) -> HelmCall {
        self.command(
            format!("Unit testing release={name}, chart={chart}"),
            &["unittest", chart],
            flags,
            OutputUse::Stdout,
        )
    }

    /// `helm test NAME FLAGS`.
    pub fn test_release(&self, name: &str, flags: &[String]) -> HelmCall {
        self.command(
            format!("Testing {name}"),
            &["test", name],
            flags,
            OutputUse::Stdout,
        )
    }
}

/// `--cert-file C --key-file K` (both given) and `--ca-file A`.
fn tls_flags(cert: &str, key: &str, ca: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !cert.is_empty() && !key.is_empty() {
        out.extend(strings(&["--cert-file", cert, "--key-file", key]));
    }
    if !ca.is_empty() {
        out.extend(strings(&["--ca-file", ca]));
    }
    out
}

/// `repo/chart:tag` → `oci://repo/chart` (the tag goes in `--version`, among the flags).
fn oci_chart_url(chart: &str) -> String {
    let colon = chart.rfind(':');
    let slash = chart.rfind('/');
    let end = match (colon, slash) {
        (Some(c), Some(s)) if c > s => c,
        (Some(c), None) => c,
        _ => chart.len(),
    };
    format!("oci://{}", &chart[..end])
}

/// A URL with its password replaced by `xxxxx` (Go's `URL.Redacted`); anything else as is.
pub(crate) fn redact_url(s: &str) -> String {
    let Some(scheme_end) = s.find("://") else {
        return s.to_string();
    };
    let scheme = &s[..scheme_end];
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return s.to_string();
    }
    let rest = &s[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let Some(at) = authority.rfind('@') else {
        return s.to_string();
    };
    let userinfo = &authority[..at];
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:xxxxx@{}", &rest[at + 1..]),
        None => s.to_string(),
    }
}

/// The flags `helm dependency build/update` accepts: helm's global flags and the
/// dependency command's own. Anything else in `--args` (`--wait`, `--dry-run=server`...)
/// is left out, as helmfile does.
const DEPENDENCY_FLAGS: &[&str] = &[
    // helm's global flags
    "--burst-limit",
    "--content-cache",
    "--debug",
    "--kube-apiserver",
    "--kube-as-group",
    "--kube-as-groups",
    "--kube-as-user",
    "--kube-ca-file",
    "--kube-config",
    "--kube-context",
    "--kube-insecure-skip-tls-verify",
    "--kube-tls-server-name",
    "--kube-token",
    "--kubeconfig",
    "--namespace",
    "-n",
    "--plugins-directory",
    "--qps",
    "--registry-config",
    "--repository-cache",
    "--repository-config",
    "--max-history",
    "--color",
    // `helm dependency build/update`
    "--verify",
    "--keyring",
    "--skip-refresh",
    "--username",
    "--password",
    "--cert-file",
    "--key-file",
    "--ca-file",
    "--insecure-skip-tls-verify",
    "--insecure-skip-tlsverify",
    "--plain-http",
    "--column-width",
];

fn filter_dependency_flags(extra: &[String]) -> Vec<String> {
    extra
        .iter()
        .filter(|f| {
            let name = f.split_once('=').map_or(f.as_str(), |(n, _)| n);
            !name.starts_with('-') || DEPENDENCY_FLAGS.contains(&name)
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn execer() -> Execer {
        Execer {
            binary: "helm".into(),
            kubeconfig: "config".into(),
            kube_context: "dev".into(),
            version: HelmVersion::new(4, 0, 1),
            ..Execer::default()
        }
    }

    #[test]
    fn passwords_go_to_stdin_never_argv() {
        let call = execer()
            .add_repo(&RepoAdd {
                name: "r".into(),
                url: "https://x/".into(),
                username: "u".into(),
                password: "secret".into(),
                ..RepoAdd::default()
            })
            .unwrap();
        assert!(!call.args.iter().any(|a| a.contains("secret")));
        assert_eq!(call.stdin.as_deref(), Some("secret\n"));
        assert!(!call.log("", LogLevel::Debug).contains("secret"));
    }

    #[test]
    fn registry_login_gives_helm4_the_host_alone() {
        let login = RegistryLogin {
            host: "127.0.0.1:5000/charts".into(),
            username: "u".into(),
            password: "secret".into(),
            plain_http: true,
            ..RegistryLogin::default()
        };
        let call = execer().registry_login(&login).unwrap();
        assert_eq!(
            call.args,
            strings(&[
                "--kubeconfig",
                "config",
                "--kube-context",
                "dev",
                "registry",
                "login",
                "127.0.0.1:5000",
                "--plain-http",
                "--username",
                "u",
                "--password-stdin"
            ])
        );
        assert_eq!(call.stdin.as_deref(), Some("secret\n"));
        let helm3 = Execer {
            version: HelmVersion::new(3, 12, 0),
            ..execer()
        };
        let call = helm3.registry_login(&login).unwrap();
        assert!(call.args.contains(&"127.0.0.1:5000/charts".to_string()));
        assert!(!call.args.contains(&"--plain-http".to_string()));
    }

    #[test]
    fn chart_urls_are_redacted_in_logs() {
        let call = execer().sync_release("r", "https://u:pw@host/c.tgz", "ns", &[], 0);
        let log = call.log("", LogLevel::Debug);
        assert!(!log.contains("pw@"), "{log}");
        assert!(log.contains("https://u:xxxxx@host/c.tgz"));
        assert!(call.args.iter().any(|a| a == "https://u:pw@host/c.tgz"));
    }

    #[test]
    fn dependency_commands_drop_install_flags() {
        let mut e = execer();
        e.extra = strings(&[
            "--debug",
            "--dry-run=server",
            "--verify",
            "--wait",
            "--keyring=/k",
        ]);
        let call = e.build_deps("r", "./c", &[]);
        assert_eq!(
            call.args[4..].to_vec(),
            strings(&[
                "dependency",
                "build",
                "./c",
                "--debug",
                "--verify",
                "--keyring=/k"
            ])
        );
    }

    #[test]
    fn oci_urls() {
        assert_eq!(oci_chart_url("repo/c:1.0"), "oci://repo/c");
        assert_eq!(oci_chart_url("registry:443/c"), "oci://registry:443/c");
        assert_eq!(oci_chart_url("registry:443/c:2"), "oci://registry:443/c");
    }
}
