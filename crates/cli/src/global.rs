//! helmfile's global flags (`Global`: `--file`, `--environment`, selectors, state
//! values, logging, helm and kube settings), read as pflag reads them (`go_bool`), with
//! the environment variables helmfile also takes; every command shares them.

use crate::chart::Failure;
use clap::Args;

/// An environment variable set to one of Go's `strconv.ParseBool` true values.
fn env_true(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| go_bool(&v) == Ok(true))
}

capstan_source::message_error!(
    /// A flag value pflag refuses (its text).
    FlagValueError
);

impl From<FlagValueError> for Failure {
    fn from(e: FlagValueError) -> Failure {
        Failure::new(e.0, None)
    }
}

/// Go's `strconv.ParseBool`, as pflag reads a boolean flag's value (`--flag=false`).
pub(crate) fn go_bool(s: &str) -> Result<bool, FlagValueError> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        other => Err(format!(
            "invalid argument {other:?}: strconv.ParseBool: parsing {other:?}: invalid syntax"
        )
        .into()),
    }
}

/// helmfile's global flags.
#[derive(Args, Clone, Debug, Default)]
pub struct Global {
    /// Load config from file or directory (`-` for stdin). Defaults to `helmfile.yaml`,
    /// `helmfile.yaml.gotmpl` or `helmfile.d/`.
    #[arg(
        short = 'f',
        long = "file",
        env = "HELMFILE_FILE_PATH",
        default_value = ""
    )]
    pub file: String,
    /// The environment to use.
    #[arg(
        short = 'e',
        long = "environment",
        env = "HELMFILE_ENVIRONMENT",
        default_value = "default",
        add = clap_complete::engine::ArgValueCandidates::new(crate::completion::environment_candidates)
    )]
    pub environment: String,
    /// Only releases matching these labels (`key=value,key2!=value2`); repeat to OR.
    #[arg(short = 'l', long = "selector", add = clap_complete::engine::ArgValueCandidates::new(crate::completion::selector_candidates))]
    pub selector: Vec<String>,
    /// Override the namespace of every release.
    #[arg(short = 'n', long = "namespace", default_value = "")]
    pub namespace: String,
    /// The kube context to use.
    #[arg(long = "kube-context", default_value = "")]
    pub kube_context: String,
    /// Set state values (`a.b=1,c=2`), typed like helmfile's.
    #[arg(long = "state-values-set")]
    pub state_values_set: Vec<String>,
    /// Set state values as strings.
    #[arg(long = "state-values-set-string")]
    pub state_values_set_string: Vec<String>,
    /// State values files, merged over the environment's values.
    #[arg(long = "state-values-file")]
    pub state_values_file: Vec<String>,
    /// Silence progress output.
    #[arg(short = 'q', long = "quiet", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub quiet: bool,
    /// Log level (debug, info, warn, error).
    #[arg(long = "log-level", default_value = "info")]
    pub log_level: String,
    /// Colored output: helmfile colours only `diff` (a cluster command); the other
    /// commands print no colour, with or without it.
    #[arg(long = "color", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub color: bool,
    /// No colored output (also `NO_COLOR`): see `--color`.
    #[arg(long = "no-color", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub no_color: bool,
    /// Exit successfully when no release matches the selectors.
    #[arg(long = "allow-no-matching-release", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub allow_no_matching_release: bool,
    /// Skip `helm dependency build` (capstan renders local charts with their
    /// `charts/` as they are).
    #[arg(long = "skip-deps", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub skip_deps: bool,
    /// Show helm's output as it runs: cluster commands; helmfile turns it off for
    /// `template`, and capstan's own progress is always live.
    #[arg(long = "enable-live-output", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub enable_live_output: bool,
    /// The chart every release uses instead of its own.
    #[arg(short = 'c', long = "chart", default_value = "")]
    pub chart: String,
    /// The helm binary for charts only helm can render (over the state's `helmBinary`).
    #[arg(short = 'b', long = "helm-binary", default_value = "")]
    pub helm_binary: String,
    /// The kustomize binary (capstan applies patches itself and never runs it).
    #[arg(short = 'k', long = "kustomize-binary", default_value = "")]
    pub kustomize_binary: String,
    /// The kubeconfig helm gets for cluster commands.
    #[arg(long = "kubeconfig", default_value = "")]
    pub kubeconfig: String,
    /// Debug output (log level debug; overrides --quiet).
    #[arg(long = "debug", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub debug: bool,
    /// Ask before changing a cluster (cluster commands).
    #[arg(short = 'i', long = "interactive", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub interactive: bool,
    /// Skip `helm repo update` (capstan reads each repository index once per run).
    #[arg(long = "skip-refresh", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub skip_refresh: bool,
    /// Go on preparing other charts when one fails, and report the failures at the end.
    #[arg(long = "allow-failed-releases", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub allow_failed_releases: bool,
    /// Strip values from helm command lines shown in errors (cluster commands).
    #[arg(long = "strip-args-values-on-exit-error", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "true", value_parser = go_bool)]
    pub strip_args_values_on_exit_error: bool,
    /// Do not force `helm repo add` to update (cluster commands).
    #[arg(long = "disable-force-update", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub disable_force_update: bool,
    /// Refuse helm plugins that cannot be verified (cluster commands).
    #[arg(long = "enforce-plugin-verification", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub enforce_plugin_verification: bool,
    /// Plain HTTP for every OCI registry (as each repository's `plainHttp: true`).
    #[arg(long = "oci-plain-http", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub oci_plain_http: bool,
    /// Retries of `helm repo add/update` and `helm registry login` (cluster commands).
    #[arg(long = "repo-retries", default_value_t = -1, allow_negative_numbers = true)]
    pub repo_retries: i64,
    /// Process `helmfile.d` files one after the other (capstan always keeps file order).
    #[arg(long = "sequential-helmfiles", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub sequential_helmfiles: bool,
    /// Render a repository you do not trust (also `CAPSTAN_UNTRUSTED`; the Argo CD
    /// plugin's default): no command runs, no file outside the project folder is read,
    /// templates see no process variable, only public chart hosts are reached, and no
    /// remote values, secret stores or sops unless `CAPSTAN_UNTRUSTED_*` allows them
    /// (SECURITY.md).
    #[arg(long = "untrusted", action = clap::ArgAction::Set, num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false", value_parser = go_bool)]
    pub untrusted: bool,
    /// Set by the command, not a flag: helmfile checks the selectors while preparing
    /// charts in `template`, `lint`, `diff`, `sync`, `apply` and `destroy`, so a malformed
    /// one is reported in that step's error list (`[malformed label: …]`).
    #[arg(skip)]
    pub listed_selector_errors: bool,
    /// Set by the command line, not a flag: `-e ""` or an empty `HELMFILE_ENVIRONMENT`,
    /// taken for `default` as helmfile does (and warned about).
    #[arg(skip)]
    pub empty_environment: bool,
}

impl Global {
    /// helmfile's log level (zap's): `--debug` makes it debug, `--quiet` warn, else
    /// `--log-level` (or `HELMFILE_LOG_LEVEL`), info by default. Progress lines are
    /// info; warnings show at every level up to warn.
    pub(crate) fn log_level(&self) -> Result<u8, Failure> {
        if self.debug || env_true("HELMFILE_DEBUG") {
            return Ok(0);
        }
        if self.quiet || env_true("HELMFILE_QUIET") {
            return Ok(2);
        }
        let given = if self.log_level != "info" {
            self.log_level.clone()
        } else {
            std::env::var("HELMFILE_LOG_LEVEL").unwrap_or_else(|_| "info".into())
        };
        match given.to_ascii_lowercase().as_str() {
            "debug" => Ok(0),
            "info" | "" => Ok(1),
            "warn" => Ok(2),
            "error" => Ok(3),
            "dpanic" => Ok(4),
            "panic" => Ok(5),
            "fatal" => Ok(6),
            _ => Err(format!(
                "--log-level: unrecognized level: {given:?} (debug, info, warn, error, dpanic, panic, fatal)"
            ).into()),
        }
    }

    /// Whether progress (info) lines are shown.
    pub(crate) fn shows_progress(&self) -> Result<bool, Failure> {
        Ok(self.log_level()? <= 1)
    }

    /// These flags given after the command, over the ones given before it.
    pub(crate) fn over(&self, before: &Global) -> Global {
        let pick = |a: &str, b: &str, default: &str| {
            if a != default {
                a.to_string()
            } else {
                b.to_string()
            }
        };
        let env_default =
            std::env::var("HELMFILE_ENVIRONMENT").unwrap_or_else(|_| "default".into());
        let file_default = std::env::var("HELMFILE_FILE_PATH").unwrap_or_default();
        let cat =
            |a: &[String], b: &[String]| b.iter().chain(a.iter()).cloned().collect::<Vec<_>>();
        Global {
            file: pick(&self.file, &before.file, &file_default),
            environment: pick(&self.environment, &before.environment, &env_default),
            selector: cat(&self.selector, &before.selector),
            namespace: pick(&self.namespace, &before.namespace, ""),
            kube_context: pick(&self.kube_context, &before.kube_context, ""),
            state_values_set: cat(&self.state_values_set, &before.state_values_set),
            state_values_set_string: cat(
                &self.state_values_set_string,
                &before.state_values_set_string,
            ),
            state_values_file: cat(&self.state_values_file, &before.state_values_file),
            quiet: self.quiet || before.quiet,
            log_level: pick(&self.log_level, &before.log_level, "info"),
            color: self.color || before.color,
            no_color: self.no_color || before.no_color,
            allow_no_matching_release: self.allow_no_matching_release
                || before.allow_no_matching_release,
            skip_deps: self.skip_deps || before.skip_deps,
            enable_live_output: self.enable_live_output || before.enable_live_output,
            chart: pick(&self.chart, &before.chart, ""),
            helm_binary: pick(&self.helm_binary, &before.helm_binary, ""),
            kustomize_binary: pick(&self.kustomize_binary, &before.kustomize_binary, ""),
            kubeconfig: pick(&self.kubeconfig, &before.kubeconfig, ""),
            debug: self.debug || before.debug,
            interactive: self.interactive || before.interactive,
            skip_refresh: self.skip_refresh || before.skip_refresh,
            allow_failed_releases: self.allow_failed_releases || before.allow_failed_releases,
            strip_args_values_on_exit_error: self.strip_args_values_on_exit_error
                && before.strip_args_values_on_exit_error,
            disable_force_update: self.disable_force_update || before.disable_force_update,
            enforce_plugin_verification: self.enforce_plugin_verification
                || before.enforce_plugin_verification,
            oci_plain_http: self.oci_plain_http || before.oci_plain_http,
            repo_retries: if self.repo_retries != -1 {
                self.repo_retries
            } else {
                before.repo_retries
            },
            sequential_helmfiles: self.sequential_helmfiles || before.sequential_helmfiles,
            untrusted: self.untrusted || before.untrusted,
            listed_selector_errors: false,
            empty_environment: false,
        }
        .with_environment_defaults()
    }

    /// Global flags not given take their defaults from helmfile's environment variables
    /// (`HELMFILE_KUBE_CONTEXT`, `HELMFILE_NAMESPACE`, `HELMFILE_HELM_BINARY`,
    /// `HELMFILE_KUSTOMIZE_BINARY`, `HELMFILE_KUBECONFIG`), as `-e` and `-f` take theirs
    /// from `HELMFILE_ENVIRONMENT` and `HELMFILE_FILE_PATH`.
    pub(crate) fn with_environment_defaults(mut self) -> Global {
        // Untrusted mode can be turned on from outside, never off.
        self.untrusted |= env_true(capstan_state::tenant::config::UNTRUSTED);
        if self.environment.is_empty() {
            self.environment = "default".into();
            self.empty_environment = true;
        }
        for (value, var) in [
            (&mut self.kube_context, "HELMFILE_KUBE_CONTEXT"),
            (&mut self.namespace, "HELMFILE_NAMESPACE"),
            (&mut self.helm_binary, "HELMFILE_HELM_BINARY"),
            (&mut self.kustomize_binary, "HELMFILE_KUSTOMIZE_BINARY"),
            (&mut self.kubeconfig, "HELMFILE_KUBECONFIG"),
        ] {
            if value.is_empty() {
                *value = std::env::var(var).unwrap_or_default();
            }
        }
        self
    }
}
