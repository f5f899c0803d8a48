//! The helm flags a release becomes, as helmfile v1.7 builds them: `flagsForUpgrade`
//! (`helm upgrade --install`), `flagsForTemplate` (`helm template`), the values part every
//! command shares (`--namespace`, `--values`, `--set`, `--set-string`), and `repo add`
//! arguments from `repositories:`.
//!
//! Settings are read from the release and `helmDefaults` as written in the state file
//! (YAML keys): a release's own setting wins over `helmDefaults`, and command-line options
//! sit where helmfile puts them (between the two for most, above both for `--timeout`,
//! `--description` and `--kube-version`). Version gates are helmfile's (Helm 4 turns
//! `force` into `--force-replace` and `atomic` into `--rollback-on-failure`).

use crate::exec::RepoAdd;
use crate::version::HelmVersion;
use capstan_state::merge::Tree;
use capstan_state::release::SetValue;
use capstan_state::spec::{bool_of, list_of, str_of, strings_of};
use capstan_state::StateError;
use capstan_value::Value;

/// A release setting helmfile refuses, with its message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FlagError(pub String);

/// What the flags are built from.
pub struct FlagSource<'a> {
    /// The helm version the flags are for.
    pub helm: HelmVersion,
    /// The state file the release is in (for messages).
    pub file: &'a str,
    /// `helmDefaults:`.
    pub defaults: &'a Tree,
    /// The release, after templating.
    pub release: &'a Tree,
    /// The selected environment's `kubeContext`.
    pub env_kube_context: &'a str,
    /// The `repositories:` entry the chart comes from, if any.
    pub repo: Option<&'a Tree>,
    /// Temporary values files, in order (`--values`).
    pub values_files: &'a [String],
    /// Renders a `helmDefaults.postRendererArgs` entry with the release's template data.
    pub render: &'a dyn Fn(&str) -> Result<String, StateError>,
    /// Resolves a `ref+…` secret reference in a `set:` value.
    pub resolve_ref: &'a dyn Fn(&str) -> Result<String, StateError>,
    /// The process environment (the deprecated release `env:` section).
    pub getenv: &'a dyn Fn(&str) -> Option<String>,
}

/// `helmfile sync/apply` options that reach `helm upgrade` (Go's `SyncOpts`).
#[derive(Clone, Debug, Default)]
pub struct UpgradeOptions {
    /// `--wait`.
    pub wait: bool,
    /// `--wait-for-jobs`.
    pub wait_for_jobs: bool,
    /// `--wait-retries`.
    pub wait_retries: i64,
    /// `--timeout` seconds; 0: not given.
    pub timeout: i64,
    /// `--post-renderer`.
    pub post_renderer: String,
    /// `--post-renderer-args`.
    pub post_renderer_args: Vec<String>,
    /// `--skip-schema-validation`.
    pub skip_schema_validation: bool,
    /// `--hide-notes`.
    pub hide_notes: bool,
    /// `--take-ownership`.
    pub take_ownership: bool,
    /// `--server-side` (`true`, `false`, `auto`; empty: not given).
    pub server_side: String,
    /// `--sync-args`.
    pub sync_args: String,
    /// `--description`.
    pub description: String,
}

/// `helmfile diff/apply` options that reach a release's `helm diff upgrade` flags.
#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    /// `--post-renderer`.
    pub post_renderer: String,
    /// `--post-renderer-args`.
    pub post_renderer_args: Vec<String>,
    /// `--skip-schema-validation`.
    pub skip_schema_validation: bool,
    /// `--suppress-output-line-regex`.
    pub suppress_output_line_regex: Vec<String>,
}

/// `helmfile template` options that reach `helm template` (Go's `TemplateOpts`).
#[derive(Clone, Debug, Default)]
pub struct TemplateOptions {
    /// `--post-renderer`.
    pub post_renderer: String,
    /// `--post-renderer-args`.
    pub post_renderer_args: Vec<String>,
    /// `--kube-version`.
    pub kube_version: String,
    /// `--show-only`.
    pub show_only: Vec<String>,
    /// `--skip-schema-validation`.
    pub skip_schema_validation: bool,
    /// `--template-args`.
    pub template_args: String,
}

/// An integer field (a number, or text holding one).
pub(crate) fn int_of(t: &Tree, key: &str) -> Option<i64> {
    match t.get(key)? {
        Value::Int(i) | Value::Int64(i) => Some(*i),
        Value::Uint64(u) => i64::try_from(*u).ok(),
        Value::Float64(f) => Some(*f as i64),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

impl FlagSource<'_> {
    /// The release's boolean, else `helmDefaults`' (false when neither says).
    fn setting(&self, key: &str) -> bool {
        bool_of(self.release, key).unwrap_or_else(|| bool_of(self.defaults, key).unwrap_or(false))
    }

    /// The release's boolean when set to true, else the option, else `helmDefaults`' when
    /// the release leaves it unset (helmfile's wait/waitForJobs/skipSchemaValidation order).
    fn setting_with_option(&self, key: &str, option: bool) -> bool {
        match bool_of(self.release, key) {
            Some(true) => true,
            _ if option => true,
            Some(false) => false,
            None => bool_of(self.defaults, key).unwrap_or(false),
        }
    }

    fn repo_bool(&self, key: &str) -> bool {
        self.repo.and_then(|r| bool_of(r, key)).unwrap_or(false)
    }

    fn repo_str(&self, key: &str) -> String {
        self.repo.map(|r| str_of(r, key)).unwrap_or_default()
    }

    fn is_oci_chart(&self) -> bool {
        str_of(self.release, "chart").starts_with("oci://") || self.repo_bool("oci")
    }

    fn chart_version(&self, flags: &mut Vec<String>) {
        let version = str_of(self.release, "version");
        if !version.is_empty() {
            flags.extend(["--version".into(), version]);
        }
        if self.setting("devel") {
            flags.push("--devel".into());
        }
    }

    fn kube_context(&self, flags: &mut Vec<String>) {
        let release = str_of(self.release, "kubeContext");
        let context = if !release.is_empty() {
            release
        } else if !self.env_kube_context.is_empty() {
            self.env_kube_context.to_string()
        } else {
            str_of(self.defaults, "kubeContext")
        };
        if !context.is_empty() {
            flags.extend(["--kube-context".into(), context]);
        }
    }

    fn chart_download(&self, flags: &mut Vec<String>) {
        let plain = bool_of(self.release, "plainHttp").unwrap_or(false)
            || bool_of(self.defaults, "plainHttp").unwrap_or(false)
            || self.repo_bool("plainHttp");
        if plain {
            flags.push("--plain-http".into());
            return;
        }
        let skip = bool_of(self.release, "insecureSkipTLSVerify").unwrap_or(false)
            || bool_of(self.defaults, "insecureSkipTLSVerify").unwrap_or(false)
            || self.repo_bool("skipTLSVerify");
        if skip {
            flags.push("--insecure-skip-tls-verify".into());
        }
    }

    fn verify_and_keyring(&self, flags: &mut Vec<String>) {
        let verify = match bool_of(self.release, "verify") {
            Some(v) => v,
            None => self.repo_bool("verify") || bool_of(self.defaults, "verify").unwrap_or(false),
        };
        if verify {
            flags.push("--verify".into());
        }
        let keyring = [
            str_of(self.release, "keyring"),
            self.repo_str("keyring"),
            str_of(self.defaults, "keyring"),
        ]
        .into_iter()
        .find(|k| !k.is_empty());
        if let Some(k) = keyring {
            flags.extend(["--keyring".into(), k]);
        }
    }

    fn adopt(&self, flags: &mut Vec<String>) {
        for a in strings_of(self.release, "adopt") {
            flags.extend(["--adopt".into(), a]);
        }
    }

    fn post_renderer(&self, flags: &mut Vec<String>, option: &str) {
        let path = [
            str_of(self.release, "postRenderer"),
            option.to_string(),
            str_of(self.defaults, "postRenderer"),
        ]
        .into_iter()
        .find(|p| !p.is_empty());
        let Some(mut path) = path else { return };
        // Helm 4 post-renderers are plugins: a script path names the plugin by its stem.
        if !self.helm.is_helm3() && (path.ends_with(".sh") || path.ends_with(".bash")) {
            let base = path.rsplit('/').next().unwrap_or(&path).to_string();
            path = base
                .rsplit_once('.')
                .map_or(base.clone(), |(stem, _)| stem.to_string());
        }
        flags.extend(["--post-renderer".into(), path]);
    }

    fn post_renderer_args(
        &self,
        flags: &mut Vec<String>,
        option: &[String],
    ) -> Result<(), FlagError> {
        let release = strings_of(self.release, "postRendererArgs");
        let args = if !release.is_empty() {
            release
        } else if !option.is_empty() {
            option.to_vec()
        } else {
            let name = str_of(self.release, "name");
            strings_of(self.defaults, "postRendererArgs")
                .iter()
                .map(|a| {
                    (self.render)(a).map_err(|e| {
                        FlagError(format!(
                            "failed rendering postRendererArg {a:?} for release {name:?}: {e}"
                        ))
                    })
                })
                .collect::<Result<_, _>>()?
        };
        for a in args.into_iter().filter(|a| !a.is_empty()) {
            flags.push(format!("--post-renderer-args={a}"));
        }
        Ok(())
    }

    /// Helm 4's `--server-side VALUE` (helmfile v1.7.4 `pkg/state/helmx.go:838-876`): the
    /// release's `serverSide`, else `--server-side`, else `helmDefaults.serverSide`; one
    /// of `true`, `false`, `auto`; with Helm 3 a state's setting is an error and the flag
    /// is left out.
    fn server_side(&self, flags: &mut Vec<String>, option: &str) -> Result<(), FlagError> {
        let release = str_of(self.release, "serverSide");
        let defaults = str_of(self.defaults, "serverSide");
        if !self.helm.is_helm4() {
            for (set, place) in [
                (&release, "releases[].serverSide"),
                (&defaults, "helmDefaults.serverSide"),
            ] {
                if !set.is_empty() {
                    return Err(FlagError(format!(
                        "serverSide requires Helm 4 or greater (set via {place})"
                    )));
                }
            }
            return Ok(());
        }
        let value = [release.as_str(), option, defaults.as_str()]
            .into_iter()
            .find(|v| !v.is_empty())
            .unwrap_or("");
        match value {
            "" => {}
            "true" | "false" | "auto" => flags.extend(["--server-side".into(), value.to_string()]),
            other => {
                return Err(FlagError(format!(
                    "invalid serverSide value {other:?}: must be \"true\", \"false\", or \"auto\""
                )))
            }
        }
        Ok(())
    }

    fn skip_schema_validation(&self, flags: &mut Vec<String>, option: bool) {
        if bool_of(self.release, "skipSchemaValidation") == Some(true)
            || option
            || bool_of(self.defaults, "skipSchemaValidation") == Some(true)
        {
            flags.push("--skip-schema-validation".into());
        }
    }

    fn api_versions(&self, flags: &mut Vec<String>, kube_version_option: &str) {
        for a in strings_of(self.release, "apiVersions") {
            flags.extend(["--api-versions".into(), a]);
        }
        let kube_version = [
            kube_version_option.to_string(),
            str_of(self.release, "kubeVersion"),
        ]
        .into_iter()
        .find(|k| !k.is_empty());
        if let Some(k) = kube_version {
            flags.extend(["--kube-version".into(), k]);
        }
    }

    /// `helm upgrade --install` flags (helmfile's `flagsForUpgrade`).
    pub fn upgrade_flags(&self, opt: &UpgradeOptions) -> Result<Vec<String>, FlagError> {
        let helm = self.helm;
        let mut flags = Vec::new();
        self.chart_version(&mut flags);
        if self.setting("enableDNS") {
            flags.push("--enable-dns".into());
        }
        let wait = self.setting_with_option("wait", opt.wait);
        if wait {
            flags.push("--wait".into());
            if helm.at_least(3, 15, 0) {
                let retries = match int_of(self.release, "waitRetries") {
                    Some(r) if r > 0 => r,
                    _ if opt.wait_retries > 0 => opt.wait_retries,
                    None => int_of(self.defaults, "waitRetries").unwrap_or(0),
                    Some(_) => 0,
                };
                if retries > 0 {
                    flags.extend(["--wait-retries".into(), retries.to_string()]);
                }
            }
        }
        if self.setting_with_option("waitForJobs", opt.wait_for_jobs) {
            flags.push("--wait-for-jobs".into());
        }
        if !self.is_oci_chart() {
            self.verify_and_keyring(&mut flags);
        }
        let mut timeout = int_of(self.defaults, "timeout").unwrap_or(0);
        if let Some(t) = int_of(self.release, "timeout") {
            timeout = t;
        }
        if opt.timeout != 0 {
            timeout = opt.timeout;
        }
        if timeout != 0 {
            flags.extend(["--timeout".into(), format!("{timeout}s")]);
        }
        let force = self.setting("force");
        let force_conflicts = self.setting("forceConflicts");
        if force && force_conflicts {
            return Err(FlagError("force and forceConflicts are mutually exclusive (check both releases[].force/forceConflicts and helmDefaults.force/forceConflicts)".into()));
        }
        if force {
            flags.push(
                if helm.is_helm4() {
                    "--force-replace"
                } else {
                    "--force"
                }
                .into(),
            );
        }
        if force_conflicts {
            if !helm.is_helm4() {
                return Err(FlagError("forceConflicts requires Helm 4 or greater (set via releases[].forceConflicts or helmDefaults.forceConflicts)".into()));
            }
            flags.push("--force-conflicts".into());
        }
        if self.setting("recreatePods") {
            flags.push("--recreate-pods".into());
        }
        let atomic = self.setting("atomic");
        let rollback = self.setting("rollbackOnFailure");
        if atomic && rollback {
            return Err(FlagError("atomic and rollbackOnFailure are mutually exclusive (check both releases[].atomic/rollbackOnFailure and helmDefaults.atomic/rollbackOnFailure)".into()));
        }
        if rollback && !helm.is_helm4() {
            return Err(FlagError("rollbackOnFailure requires Helm 4 or greater (set via releases[].rollbackOnFailure or helmDefaults.rollbackOnFailure)".into()));
        }
        if atomic || rollback {
            flags.push(
                if helm.is_helm4() {
                    "--rollback-on-failure"
                } else {
                    "--atomic"
                }
                .into(),
            );
        }
        if self.setting("cleanupOnFail") {
            flags.push("--cleanup-on-fail".into());
        }
        let release_ns = bool_of(self.release, "createNamespace");
        let default_ns = bool_of(self.defaults, "createNamespace");
        if release_ns == Some(true) || release_ns.is_none() && default_ns != Some(false) {
            if helm.at_least(3, 2, 0) {
                flags.push("--create-namespace".into());
            } else if release_ns.is_some() || default_ns.is_some() {
                return Err(FlagError(
                    "releases[].createNamespace requires Helm 3.2.0 or greater".into(),
                ));
            }
        }
        let no_openapi = bool_of(self.release, "disableOpenAPIValidation")
            .or_else(|| bool_of(self.defaults, "disableOpenAPIValidation"))
            .unwrap_or(false);
        if no_openapi {
            flags.push("--disable-openapi-validation".into());
        }
        self.kube_context(&mut flags);
        self.chart_download(&mut flags);
        self.adopt(&mut flags);
        self.post_renderer(&mut flags, &opt.post_renderer);
        self.post_renderer_args(&mut flags, &opt.post_renderer_args)?;
        self.skip_schema_validation(&mut flags, opt.skip_schema_validation);
        if opt.hide_notes && (helm.at_least(3, 16, 0) || helm.is_helm4()) {
            flags.push("--hide-notes".into());
        }
        if opt.take_ownership && (helm.at_least(3, 17, 0) || helm.is_helm4()) {
            flags.push("--take-ownership".into());
        }
        self.server_side(&mut flags, &opt.server_side)?;
        if !opt.sync_args.is_empty() {
            flags.extend(collect_args(&opt.sync_args));
        } else if self.defaults.contains_key("syncArgs") {
            flags.extend(collect_args(
                &strings_of(self.defaults, "syncArgs").join(" "),
            ));
        }
        let description_ok = helm.at_least(3, 3, 0) || helm.is_helm4();
        if !opt.description.is_empty() {
            if !description_ok {
                return Err(FlagError(
                    "--description flag requires Helm 3.3.0 or greater".into(),
                ));
            }
            flags.extend(["--description".into(), opt.description.clone()]);
        } else {
            let d = str_of(self.release, "description");
            if !d.is_empty() {
                if !description_ok {
                    return Err(FlagError(
                        "releases[].description requires Helm 3.3.0 or greater".into(),
                    ));
                }
                flags.extend(["--description".into(), d]);
            }
        }
        flags.extend(self.namespace_and_values()?);
        Ok(flags)
    }

    /// A release's `helm diff upgrade` flags (helmfile's `flagsForDiff`), before the flags
    /// every release shares. `disable_validation`: `disableValidationOnInstall` on a
    /// release not installed yet (a release's or `helmDefaults`' `disableValidation` wins).
    pub(crate) fn diff_flags(
        &self,
        opt: &DiffOptions,
        disable_validation: bool,
    ) -> Result<Vec<String>, FlagError> {
        let mut flags = Vec::new();
        self.chart_version(&mut flags);
        let no_openapi = bool_of(self.release, "disableOpenAPIValidation")
            .or_else(|| bool_of(self.defaults, "disableOpenAPIValidation"))
            .unwrap_or(false);
        if no_openapi {
            flags.push("--disable-openapi-validation".into());
        }
        let disable_validation = bool_of(self.release, "disableValidation")
            .or_else(|| bool_of(self.defaults, "disableValidation"))
            .unwrap_or(disable_validation);
        if disable_validation {
            flags.push("--disable-validation".into());
        }
        self.api_versions(&mut flags, "");
        self.kube_context(&mut flags);
        self.chart_download(&mut flags);
        // helm-diff has no --plain-http.
        flags.retain(|f| f != "--plain-http");
        self.adopt(&mut flags);
        self.post_renderer(&mut flags, &opt.post_renderer);
        self.post_renderer_args(&mut flags, &opt.post_renderer_args)?;
        self.skip_schema_validation(&mut flags, opt.skip_schema_validation);
        let regexes = [
            strings_of(self.release, "suppressOutputLineRegex"),
            opt.suppress_output_line_regex.clone(),
            strings_of(self.defaults, "suppressOutputLineRegex"),
        ]
        .into_iter()
        .find(|r| !r.is_empty())
        .unwrap_or_default();
        for r in regexes.into_iter().filter(|r| !r.is_empty()) {
            flags.extend(["--suppress-output-line-regex".into(), r]);
        }
        flags.extend(self.namespace_and_values()?);
        Ok(flags)
    }

    /// `helm lint` flags (helmfile's `flagsForLint`).
    pub(crate) fn lint_flags(&self) -> Result<Vec<String>, FlagError> {
        let mut flags = self.namespace_and_values()?;
        self.adopt(&mut flags);
        Ok(flags)
    }

    /// `helm template` flags (helmfile's `flagsForTemplate`).
    pub fn template_flags(&self, opt: &TemplateOptions) -> Result<Vec<String>, FlagError> {
        let mut flags = Vec::new();
        self.chart_version(&mut flags);
        self.kube_context(&mut flags);
        self.adopt(&mut flags);
        self.post_renderer(&mut flags, &opt.post_renderer);
        self.post_renderer_args(&mut flags, &opt.post_renderer_args)?;
        self.api_versions(&mut flags, &opt.kube_version);
        self.chart_download(&mut flags);
        for s in &opt.show_only {
            flags.extend(["--show-only".into(), s.clone()]);
        }
        self.skip_schema_validation(&mut flags, opt.skip_schema_validation);
        if !opt.template_args.is_empty() {
            flags.extend(collect_args(&opt.template_args));
        } else if self.defaults.contains_key("templateArgs") {
            flags.extend(collect_args(
                &strings_of(self.defaults, "templateArgs").join(" "),
            ));
        }
        flags.extend(self.namespace_and_values()?);
        Ok(flags)
    }

    /// `--namespace`, `--values` files, `--set`, `--set-string` and the old `env:` section.
    pub(crate) fn namespace_and_values(&self) -> Result<Vec<String>, FlagError> {
        let mut flags = Vec::new();
        let ns = str_of(self.release, "namespace");
        if !ns.is_empty() {
            flags.extend(["--namespace".into(), ns]);
        }
        for f in self.values_files {
            flags.extend(["--values".into(), f.clone()]);
        }
        let file = self.file;
        let name = str_of(self.release, "name");
        let set = set_values(self.release, "set");
        if !set.is_empty() {
            flags.extend(set_flags("--set", &set, self.resolve_ref).map_err(|e| {
                FlagError(format!(
                    "Failed to render set value entry in {file} for release {name}: {e}"
                ))
            })?);
        }
        let set_string = set_values(self.release, "setString");
        if !set_string.is_empty() {
            flags.extend(
                set_flags("--set-string", &set_string, self.resolve_ref).map_err(|e| {
                    FlagError(format!(
                        "Failed to render set string value entry in {file} for release {name}: {e}"
                    ))
                })?,
            );
        }
        let env = list_of(self.release, "env");
        if !env.is_empty() {
            let mut found = Vec::new();
            let mut missing = Vec::new();
            for e in &env {
                let t = e.as_map().map(|m| m.snapshot()).unwrap_or_default();
                let var = str_of(&t, "value");
                match (self.getenv)(&var) {
                    Some(v) => {
                        found.push(format!("{}={}", escape(&str_of(&t, "name")), escape(&v)))
                    }
                    None => missing.push(format!("\t{var}")),
                }
            }
            if !missing.is_empty() {
                return Err(FlagError(format!(
                    "Environment Variables not found. Please make sure they are set and try again:\n{}",
                    missing.join("\n")
                )));
            }
            flags.extend(["--set".into(), found.join(",")]);
        }
        Ok(flags)
    }
}

fn set_values(release: &Tree, key: &str) -> Vec<SetValue> {
    list_of(release, key)
        .iter()
        .map(SetValue::from_value)
        .collect()
}

use capstan_state::release_values::escape_set as escape;

fn resolved(
    resolve: &dyn Fn(&str) -> Result<String, StateError>,
    s: &str,
) -> Result<String, StateError> {
    if s.starts_with("ref+") {
        resolve(s)
    } else {
        Ok(s.to_string())
    }
}

/// `--set`/`--set-string` flags from `set:`/`setString:` entries (`value`, `file` for
/// `--set` only, or `values` as `{a,b}`), `ref+…` references resolved.
pub fn set_flags(
    flag: &str,
    entries: &[SetValue],
    resolve: &dyn Fn(&str) -> Result<String, StateError>,
) -> Result<Vec<String>, StateError> {
    let mut flags = Vec::new();
    for e in entries {
        if !e.value.is_empty() {
            let v = resolved(resolve, &e.value)?;
            flags.extend([
                flag.to_string(),
                format!("{}={}", escape(&e.name), escape(&v)),
            ]);
        } else if !e.file.is_empty() && flag == "--set" {
            flags.extend([
                "--set-file".to_string(),
                format!("{}={}", escape(&e.name), e.file),
            ]);
        } else if !e.values.is_empty() {
            let items: Vec<String> = e
                .values
                .iter()
                .map(|v| resolved(resolve, v).map(|v| escape(&v)))
                .collect::<Result<_, _>>()?;
            flags.extend([
                flag.to_string(),
                format!("{}={{{}}}", escape(&e.name), items.join(",")),
            ]);
        }
    }
    Ok(flags)
}

/// helmfile's `argparser.CollectArgs`: the words of `--sync-args`/`--template-args`.
pub(crate) fn collect_args(args: &str) -> Vec<String> {
    args.split_whitespace().map(String::from).collect()
}

/// A `repositories:` entry as `helm repo add` takes it: credentials from the entry, else
/// from `NAME_USERNAME`/`NAME_PASSWORD` in the environment (the name upper-cased, every
/// character other than a letter or digit turned into `_`).
pub fn repo_add(repo: &Tree, getenv: &dyn Fn(&str) -> Option<String>) -> RepoAdd {
    let name = str_of(repo, "name");
    let prefix: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    let mut username = str_of(repo, "username");
    if username.is_empty() {
        username = getenv(&format!("{prefix}_USERNAME")).unwrap_or_default();
    }
    let mut password = str_of(repo, "password");
    if password.is_empty() {
        password = getenv(&format!("{prefix}_PASSWORD")).unwrap_or_default();
    }
    RepoAdd {
        name,
        url: str_of(repo, "url"),
        ca_file: str_of(repo, "caFile"),
        cert_file: str_of(repo, "certFile"),
        key_file: str_of(repo, "keyFile"),
        username,
        password,
        managed: str_of(repo, "managed"),
        pass_credentials: bool_of(repo, "passCredentials").unwrap_or(false),
        skip_tls_verify: bool_of(repo, "skipTLSVerify").unwrap_or(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(yaml: &str) -> Tree {
        capstan_yaml::decode_helmfile_value(yaml)
            .ok()
            .and_then(|v| v.as_map().map(|m| m.snapshot()))
            .unwrap_or_default()
    }

    /// helmfile v1.7.4's `appendServerSideFlagsForUpgrade` (`pkg/state/helmx.go:853`):
    /// the release's `serverSide` over `--server-side` over `helmDefaults`, one of three
    /// values, after `--take-ownership`; Helm 3 refuses a state's setting.
    #[test]
    fn server_side_is_the_releases_then_the_flags_then_the_defaults() {
        let no_render = |s: &str| -> Result<String, StateError> { Ok(s.to_string()) };
        let no_env = |_: &str| -> Option<String> { None };
        let flags = |helm: HelmVersion, release: &str, defaults: &str, option: &str| {
            let (release, defaults) = (tree(release), tree(defaults));
            let source = FlagSource {
                helm,
                file: "helmfile.yaml",
                defaults: &defaults,
                release: &release,
                env_kube_context: "",
                repo: None,
                values_files: &[],
                render: &no_render,
                resolve_ref: &no_render,
                getenv: &no_env,
            };
            let opt = UpgradeOptions {
                server_side: option.to_string(),
                take_ownership: true,
                ..Default::default()
            };
            source.upgrade_flags(&opt).map(|f| {
                let at = f.iter().position(|x| x == "--server-side");
                (at.map(|i| f[i + 1].clone()), at.map(|i| f[i - 1].clone()))
            })
        };
        let h4 = HelmVersion::new(4, 3, 1);
        let take = Some("--take-ownership".to_string());
        assert_eq!(
            flags(
                h4,
                "name: a\nserverSide: \"false\"\n",
                "serverSide: auto\n",
                "true"
            ),
            Ok((Some("false".into()), take.clone()))
        );
        assert_eq!(
            flags(h4, "name: a\n", "serverSide: auto\n", "true"),
            Ok((Some("true".into()), take.clone()))
        );
        assert_eq!(
            flags(h4, "name: a\n", "serverSide: auto\n", ""),
            Ok((Some("auto".into()), take.clone()))
        );
        assert_eq!(flags(h4, "name: a\n", "", ""), Ok((None, None)));
        assert_eq!(
            flags(h4, "name: a\nserverSide: yes-please\n", "", ""),
            Err(FlagError(
                "invalid serverSide value \"yes-please\": must be \"true\", \"false\", or \"auto\""
                    .into()
            ))
        );
        let h3 = HelmVersion::new(3, 18, 0);
        assert_eq!(
            flags(h3, "name: a\nserverSide: \"true\"\n", "", ""),
            Err(FlagError(
                "serverSide requires Helm 4 or greater (set via releases[].serverSide)".into()
            ))
        );
        assert_eq!(flags(h3, "name: a\n", "", "true"), Ok((None, None)));
    }
}
