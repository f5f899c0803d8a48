//! Untrusted mode (`--untrusted`, `CAPSTAN_UNTRUSTED`; the Argo CD plugin's default):
//! rendering a repository whose author is not trusted. [`TenantPolicy`] is what such a
//! repository may do, read once from the administrator's configuration (never from the
//! repository); `tenant_host::TenantHost` wraps the real `Host` and holds every file
//! read, command, variable and download of the run to it:
//!
//! - files are read only inside the application's folder and the run's private cache,
//!   judged on the path with every symbolic link resolved;
//! - no command runs (`exec`, hooks, post-renderers, a state's `helmBinary`, the sops
//!   binary);
//! - templates see the application's own variables, a documented few of Argo CD's, and
//!   the names the administrator lists; never the process's credentials or settings;
//! - chart repositories and registries are reached only on public addresses or on
//!   hosts the administrator lists (checked where each connection resolves its name:
//!   `capstan_fetch::guard`); remote values only from listed hosts; secret stores and
//!   sops decryption only when the administrator turns them on, with the process's own
//!   store address and identity.

use crate::StateError;
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// The variables the administrator configures untrusted mode with.
pub mod config {
    /// Turns untrusted mode on for the CLI (`--untrusted`).
    pub const UNTRUSTED: &str = "CAPSTAN_UNTRUSTED";
    /// Hosts chart repositories and registries may be on: `public` (the default: any
    /// host whose addresses are all public), names, `*.domain`, `host:port`.
    pub const HOSTS: &str = "CAPSTAN_UNTRUSTED_HOSTS";
    /// Hosts remote values (`git::`, `https://`, `s3://`) may come from (none by
    /// default).
    pub const VALUES_HOSTS: &str = "CAPSTAN_UNTRUSTED_VALUES_HOSTS";
    /// Further process variables templates may read (comma-separated names).
    pub const ENV: &str = "CAPSTAN_UNTRUSTED_ENV";
    /// `true`: sops files are decrypted (natively, with the process's age keys).
    pub const SOPS: &str = "CAPSTAN_UNTRUSTED_SOPS";
    /// Secret stores `ref+` references may read: `vault`, `awsssm`, `awssecrets`.
    pub const SECRET_STORES: &str = "CAPSTAN_UNTRUSTED_SECRET_STORES";
    /// The application's own variables, a JSON object (the Argo CD plugin sets it).
    pub const APP_ENV: &str = "CAPSTAN_UNTRUSTED_APP_ENV";
    /// The most memory the run may take, in MiB (default 4096).
    pub const MEMORY_MB: &str = "CAPSTAN_UNTRUSTED_MEMORY_MB";
    /// The most output a render may print, in MiB (default 64).
    pub const MAX_OUTPUT_MB: &str = "CAPSTAN_UNTRUSTED_MAX_OUTPUT_MB";
}

/// Variables every untrusted render may read besides the application's own: what Argo
/// CD sets for a plugin about the application (none of them a credential).
pub const PASSED_ENV: &[&str] = &[
    "ARGOCD_APP_NAME",
    "ARGOCD_APP_NAMESPACE",
    "ARGOCD_APP_PROJECT_NAME",
    "ARGOCD_APP_REVISION",
    "ARGOCD_APP_REVISION_SHORT",
    "ARGOCD_APP_REVISION_SHORT_8",
    "ARGOCD_APP_SOURCE_PATH",
    "ARGOCD_APP_SOURCE_REPO_URL",
    "ARGOCD_APP_SOURCE_TARGET_REVISION",
    "KUBE_VERSION",
    "KUBE_API_VERSIONS",
];

/// Whether `name` (in any case) is a variable capstan, helm, git, sops, gpg, a cloud
/// SDK, a TLS or proxy library, the loader, the shell or the C library reads: such a
/// name is never taken from an application.
pub fn reserved_name(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "LD_",
        "DYLD_",
        "CAPSTAN_",
        "HELM_",
        "HELMFILE_",
        "XDG_",
        "ARGOCD_",
        "GIT_",
        "SSH_",
        "GNUPG",
        "GPG_",
        "SOPS_",
        "AGE_",
        "AWS_",
        "AZURE_",
        "GOOGLE_",
        "GCP_",
        "GCE_",
        "CLOUDSDK_",
        "VAULT_",
        "BAO_",
        "KUBE",
        "SSL_",
        "OPENSSL_",
        "CURL_",
        "REQUESTS_",
        "DOCKER_",
        "REGISTRY_",
        "OCI_",
        "LC_",
        "LANG",
        "MALLOC_",
        "MIMALLOC_",
        "GLIBC_",
        "GODEBUG",
        "GOMAXPROCS",
        "GOGC",
        "GOMEMLIMIT",
        "GOTRACEBACK",
        "GOFLAGS",
        "GOPROXY",
        "GOPATH",
        "GOROOT",
        "GOPRIVATE",
        "GONOSUMDB",
        "GOINSECURE",
        "CGO_",
        "RUST_",
        "CARGO_",
        "BASH_",
        "NODE_",
        "PYTHON",
        "PERL",
        "RUBY",
        "NIX_",
        "TERM",
        "OPENBAO_",
        "VALS_",
        "TF_",
        "NO_PROXY",
    ];
    const NAMES: &[&str] = &[
        "PATH",
        "HOME",
        "SHELL",
        "TMPDIR",
        "TMP",
        "TEMP",
        "TEMPDIR",
        "IFS",
        "ENV",
        "PWD",
        "OLDPWD",
        "USER",
        "LOGNAME",
        "HOSTALIASES",
        "RES_OPTIONS",
        "LOCALDOMAIN",
        "TZ",
        "TZDIR",
        "GCONV_PATH",
        "LOCPATH",
        "NLSPATH",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "CDPATH",
        "MAIL",
        "HOSTNAME",
        "SHLVL",
        "POSIXLY_CORRECT",
        "NO_COLOR",
        "KRB5_CONFIG",
        "KRB5CCNAME",
        "NETRC",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT_COMMAND",
    ];
    let upper = name.to_ascii_uppercase();
    NAMES.contains(&upper.as_str())
        || PREFIXES.iter().any(|p| upper.starts_with(p))
        || upper.ends_with("_PROXY")
}

/// Why an untrusted repository was refused something; the text says what and who may
/// allow it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("untrusted repository: {0}")]
pub struct Refused(pub String);

impl From<Refused> for StateError {
    fn from(r: Refused) -> StateError {
        StateError::new(r.to_string())
    }
}

/// A list of hosts: `public`, exact names, `*.suffix`, `name:port`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostList {
    /// Any host whose addresses are all public.
    pub public: bool,
    /// Names the administrator listed (lower case), reachable at any address.
    pub names: Vec<String>,
}

impl HostList {
    /// Parses a comma-separated list; `None` (unset) is `default`.
    pub fn parse(text: Option<&str>, default: HostList) -> HostList {
        let Some(text) = text else {
            return default;
        };
        let mut list = HostList::default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if item.eq_ignore_ascii_case("public") {
                list.public = true;
            } else {
                list.names.push(item.to_ascii_lowercase());
            }
        }
        list
    }

    /// Whether `host` (with `port` when known) is one of the listed names.
    pub fn names_host(&self, host: &str, port: Option<u16>) -> bool {
        let host = host
            .trim_matches(['[', ']'])
            .trim_end_matches('.')
            .to_ascii_lowercase();
        self.names.iter().any(|pattern| {
            let (name, want_port) = match pattern.rsplit_once(':') {
                Some((n, p)) if !n.contains(':') || n.ends_with(']') => (n, p.parse::<u16>().ok()),
                _ => (pattern.as_str(), None),
            };
            let name = name.trim_matches(['[', ']']);
            let name_ok = match name.strip_prefix("*.") {
                Some(suffix) => {
                    host.len() > suffix.len() + 1 && host.ends_with(&format!(".{suffix}"))
                }
                None => host == name,
            };
            name_ok && (want_port.is_none() || want_port == port)
        })
    }
}

/// What an untrusted repository may do.
#[derive(Clone, Debug, Default)]
pub struct TenantPolicy {
    /// The application's folder, every link resolved.
    pub root: PathBuf,
    /// The run's own cache (charts, remote values), every link resolved.
    pub cache: PathBuf,
    /// The application's variables, as templates see them.
    pub app_env: BTreeMap<String, String>,
    /// Process variables templates may read too.
    pub passed_env: BTreeSet<String>,
    /// Where chart repositories and registries may be.
    pub chart_hosts: HostList,
    /// Where remote values may come from.
    pub values_hosts: HostList,
    /// Whether sops files are decrypted.
    pub sops: bool,
    /// The secret stores `ref+` references may read.
    pub secret_stores: BTreeSet<String>,
    /// Where those stores are, as the process's own configuration names them
    /// (`VAULT_ADDR`, `AWS_ENDPOINT_URL…`): reachable at any address.
    pub store_hosts: HostList,
}

/// Whether `s` is one of Go's `strconv.ParseBool` true values.
fn go_true(s: &str) -> bool {
    matches!(s, "1" | "t" | "T" | "TRUE" | "true" | "True")
}

impl TenantPolicy {
    /// The policy for the application in `root` with its private cache `cache`, from
    /// the administrator's variables ([`config`]).
    pub fn from_env(
        root: &Path,
        cache: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<TenantPolicy, StateError> {
        let canonical = |p: &Path, what: &str| {
            std::fs::canonicalize(p)
                .map_err(|e| StateError::new(format!("{what} {}: {e}", p.display())))
        };
        let list = |name: &str| -> Vec<String> {
            env(name)
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        };
        let app_env = match env(config::APP_ENV).filter(|s| !s.trim().is_empty()) {
            None => BTreeMap::new(),
            Some(json) => serde_json::from_str::<BTreeMap<String, String>>(&json).map_err(|e| {
                StateError::new(format!(
                    "{}: not a JSON object of strings: {e}",
                    config::APP_ENV
                ))
            })?,
        };
        if let Some(bad) = app_env.keys().find(|k| reserved_name(k)) {
            return Err(StateError::new(format!(
                "{}: the application may not set {bad} (a variable capstan or a program it runs reads)",
                config::APP_ENV
            )));
        }
        let stores: BTreeSet<String> = list(config::SECRET_STORES).into_iter().collect();
        if let Some(bad) = stores
            .iter()
            .find(|s| !["vault", "awsssm", "awssecrets"].contains(&s.as_str()))
        {
            return Err(StateError::new(format!(
                "{}: unknown secret store {bad:?} (vault, awsssm, awssecrets)",
                config::SECRET_STORES
            )));
        }
        let mut store_hosts = HostList::default();
        let mut add_store = |var: &str| {
            if let Some((host, port)) = env(var).as_deref().and_then(host_of) {
                store_hosts.names.push(match port {
                    Some(p) => format!("{host}:{p}"),
                    None => host,
                });
            }
        };
        if stores.contains("vault") {
            add_store("VAULT_ADDR");
        }
        if stores.contains("awsssm") || stores.contains("awssecrets") {
            for var in [
                "AWS_ENDPOINT_URL",
                "AWS_ENDPOINT_URL_SSM",
                "AWS_ENDPOINT_URL_SECRETS_MANAGER",
            ] {
                add_store(var);
            }
        }
        Ok(TenantPolicy {
            store_hosts,
            root: canonical(root, "the application's folder")?,
            cache: canonical(cache, "the run's cache")?,
            app_env,
            passed_env: PASSED_ENV
                .iter()
                .map(|s| s.to_string())
                .chain(list(config::ENV))
                .collect(),
            chart_hosts: HostList::parse(
                env(config::HOSTS).as_deref(),
                HostList {
                    public: true,
                    names: Vec::new(),
                },
            ),
            values_hosts: HostList::parse(
                env(config::VALUES_HOSTS).as_deref(),
                HostList::default(),
            ),
            sops: env(config::SOPS).is_some_and(|v| go_true(&v)),
            secret_stores: stores,
        })
    }

    /// `path` with every link resolved, when it lies inside the application's folder or
    /// the run's cache; an error otherwise (also for a missing file whose nearest
    /// existing folder lies outside). The answer for a path outside is the same whether
    /// it exists or not.
    pub fn inside(&self, path: &Path) -> io::Result<PathBuf> {
        let outside = || {
            io::Error::other(
                "outside the application's folder (an untrusted repository reads only its own files)",
            )
        };
        let within = |p: &Path| p.starts_with(&self.root) || p.starts_with(&self.cache);
        match std::fs::canonicalize(path) {
            Ok(real) if within(&real) => Ok(real),
            Ok(_) => Err(outside()),
            Err(e) => {
                let mut up = path.parent();
                while let Some(dir) = up {
                    if let Ok(real) = std::fs::canonicalize(dir) {
                        return if within(&real) {
                            Err(e)
                        } else {
                            Err(outside())
                        };
                    }
                    up = dir.parent();
                }
                Err(outside())
            }
        }
    }

    /// What a template's `env "NAME"` gives: the application's variable, else a
    /// passed process variable.
    pub fn env(&self, name: &str, process: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        if let Some(v) = self.app_env.get(name) {
            return Some(v.clone());
        }
        self.passed_env
            .contains(name)
            .then(|| process(name))
            .flatten()
    }

    /// Whether the connection guard lets `host` connect to `ip`: a listed host (chart,
    /// values or secret-store host) at any address, any other only at public addresses
    /// and only when `public` is allowed.
    pub fn allows_address(&self, host: &str, port: Option<u16>, ip: std::net::IpAddr) -> bool {
        let listed = self.chart_hosts.names_host(host, port)
            || self.values_hosts.names_host(host, port)
            || self.store_hosts.names_host(host, port);
        listed || (self.chart_hosts.public && capstan_fetch::guard::is_public(ip))
    }

    /// Refuses a chart repository or registry URL on a host that is not allowed (the
    /// address itself is checked when connecting).
    pub fn check_chart_url(&self, url: &str) -> Result<(), Refused> {
        let (host, port) = host_of(url).ok_or_else(|| {
            Refused(format!(
                "{}: not a URL with a host",
                capstan_fetch::redact(url)
            ))
        })?;
        if self.chart_hosts.public || self.chart_hosts.names_host(&host, port) {
            return Ok(());
        }
        Err(Refused(format!(
            "charts from {host} are not allowed (the administrator lists chart hosts in {})",
            config::HOSTS
        )))
    }

    /// Refuses a remote values source whose host the administrator did not list.
    pub fn check_values_source(&self, src: &str) -> Result<(), Refused> {
        let shown = capstan_fetch::redact(src);
        let host = capstan_fetch::parse(src)
            .map(|s| s.host)
            .unwrap_or_default();
        let (name, port) = match host.rsplit_once(':') {
            Some((n, p)) if !n.contains(':') || n.ends_with(']') => (n.to_string(), p.parse().ok()),
            _ => (host.clone(), None),
        };
        if !name.is_empty() && self.values_hosts.names_host(&name, port) {
            return Ok(());
        }
        Err(Refused(format!(
            "remote values ({shown}) are not allowed (the administrator lists their hosts in {})",
            config::VALUES_HOSTS
        )))
    }

    /// Refuses a secret-store reference the administrator did not allow, or one that
    /// chooses the store's address, identity or an administrative path: the store and
    /// its identity are the process's own.
    pub fn check_secret_reference(
        &self,
        backend: &str,
        path: &str,
        params: &[&str],
    ) -> Result<(), Refused> {
        if !self.secret_stores.contains(backend) {
            return Err(Refused(format!(
                "ref+{backend}:// references are not allowed (the administrator lists secret stores in {})",
                config::SECRET_STORES
            )));
        }
        // Only what picks a version or a shape of the answer; never the address, the
        // identity, the region (which names the endpoint) or the token's source.
        let allowed: &[&str] = match backend {
            "vault" => &["version"],
            "awsssm" => &["mode", "recursive", "version"],
            _ => &["version_stage", "version_id"],
        };
        if let Some(p) = params.iter().find(|p| !allowed.contains(p)) {
            return Err(Refused(format!(
                "a ref+{backend}:// reference may not set {p:?}: the store's address and identity are the administrator's"
            )));
        }
        let first = path
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if backend == "vault"
            && ["auth", "sys", "identity", "cubbyhole", "token"].contains(&first.as_str())
        {
            return Err(Refused(format!(
                "ref+vault:// may not read {first}/ (an administrative path of the store)"
            )));
        }
        Ok(())
    }
}

/// The host (lower case) and port of a URL.
fn host_of(url: &str) -> Option<(String, Option<u16>)> {
    let u = url::Url::parse(url).ok()?;
    let host = u.host_str()?.trim_matches(['[', ']']).to_ascii_lowercase();
    Some((host, u.port_or_known_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(dir: &Path) -> TenantPolicy {
        let root = dir.join("app");
        let cache = dir.join("cache");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&cache).unwrap();
        TenantPolicy::from_env(&root, &cache, &|_| None).unwrap()
    }

    fn tempdir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "capstan-tenant-{}",
            capstan_fetch::unpredictable_suffix()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn files_outside_the_application_are_refused_alike_whether_they_exist_or_not() {
        let dir = tempdir();
        let p = policy(&dir);
        std::fs::write(dir.join("secret"), "s").unwrap();
        std::fs::write(dir.join("app/own.yaml"), "a: 1").unwrap();
        std::os::unix::fs::symlink(dir.join("secret"), dir.join("app/link")).unwrap();
        std::os::unix::fs::symlink(&dir, dir.join("app/up")).unwrap();
        assert!(p.inside(&dir.join("app/own.yaml")).is_ok());
        let outside = |q: PathBuf| {
            let e = p.inside(&q).unwrap_err();
            assert!(
                e.to_string().contains("outside the application's folder"),
                "{}: {e}",
                q.display()
            );
        };
        outside(dir.join("secret"));
        outside(dir.join("missing"));
        outside(dir.join("app/link"));
        outside(dir.join("app/up/secret"));
        outside(dir.join("app/up/missing"));
        outside(dir.join("app/up/nope/deeper"));
        outside(dir.join("app/../secret"));
        outside(PathBuf::from("/proc/self/environ"));
        assert_eq!(
            p.inside(&dir.join("app/missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn templates_see_the_applications_variables_and_the_passed_ones_only() {
        let dir = tempdir();
        let root = dir.join("app");
        std::fs::create_dir_all(&root).unwrap();
        let env = |k: &str| match k {
            "CAPSTAN_UNTRUSTED_APP_ENV" => Some(r#"{"REGION":"eu"}"#.to_string()),
            "CAPSTAN_UNTRUSTED_ENV" => Some("TEAM".to_string()),
            k if k.starts_with("CAPSTAN_") => None,
            _ => Some(format!("process-{k}")),
        };
        let p = TenantPolicy::from_env(&root, &root, &env).unwrap();
        assert_eq!(p.env("REGION", &env).as_deref(), Some("eu"));
        assert_eq!(p.env("TEAM", &env).as_deref(), Some("process-TEAM"));
        assert_eq!(
            p.env("ARGOCD_APP_NAME", &env).as_deref(),
            Some("process-ARGOCD_APP_NAME")
        );
        for hidden in [
            "VAULT_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "HOME",
            "PATH",
            "CAPSTAN_UNTRUSTED_APP_ENV",
            "argocd_app_name",
        ] {
            assert_eq!(p.env(hidden, &env), None, "{hidden}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn names_programs_read_are_reserved_in_any_case() {
        for name in [
            "PATH",
            "path",
            "Home",
            "LD_PRELOAD",
            "GIT_CONFIG_COUNT",
            "git_config_key_0",
            "AWS_ENDPOINT_URL",
            "aws_access_key_id",
            "VAULT_ADDR",
            "SOPS_AGE_KEY_FILE",
            "GNUPGHOME",
            "SSL_CERT_FILE",
            "https_proxy",
            "HTTP_PROXY",
            "no_proxy",
            "DOCKER_CONFIG",
            "KUBECONFIG",
            "LANG",
            "LC_ALL",
            "CAPSTAN_UNTRUSTED",
            "HELMFILE_DISABLE_INSECURE_FEATURES",
            "ARGOCD_APP_NAME",
            "GODEBUG",
            "TZ",
        ] {
            assert!(reserved_name(name), "{name}");
        }
        for name in ["REGION", "TEAM", "db_host", "APP_TIER"] {
            assert!(!reserved_name(name), "{name}");
        }
    }

    #[test]
    fn host_lists_match_names_suffixes_and_ports() {
        let l = HostList::parse(
            Some("charts.example.com, *.corp.example,registry.local:5000,PUBLIC"),
            HostList::default(),
        );
        assert!(l.public);
        assert!(l.names_host("charts.example.com", Some(443)));
        assert!(l.names_host("CHARTS.example.com.", None));
        assert!(l.names_host("a.b.corp.example", None));
        assert!(!l.names_host("corp.example", None));
        assert!(!l.names_host("evilcorp.example", None));
        assert!(l.names_host("registry.local", Some(5000)));
        assert!(!l.names_host("registry.local", Some(5001)));
        assert!(!l.names_host("charts.example.com.evil", None));
        let none = HostList::parse(
            Some(""),
            HostList {
                public: true,
                names: vec![],
            },
        );
        assert!(!none.public);
    }

    #[test]
    fn secret_references_cannot_choose_the_store_or_its_identity() {
        let mut p = TenantPolicy::default();
        assert!(p
            .check_secret_reference("vault", "secret/app", &[])
            .is_err());
        p.secret_stores.insert("vault".into());
        assert!(p.check_secret_reference("vault", "secret/app", &[]).is_ok());
        for bad in [
            "auth/token/lookup-self",
            "/sys/mounts",
            "Identity/entity",
            "cubbyhole/x",
        ] {
            assert!(
                p.check_secret_reference("vault", bad, &[]).is_err(),
                "{bad}"
            );
        }
        for param in [
            "address",
            "token_file",
            "token_env",
            "auth_method",
            "role_id",
            "secret_id",
            "proto",
            "host",
            "namespace",
            "x",
        ] {
            assert!(
                p.check_secret_reference("vault", "secret/app", &[param])
                    .is_err(),
                "{param}"
            );
        }
        assert!(p
            .check_secret_reference("vault", "secret/app", &["version"])
            .is_ok());
        p.secret_stores.insert("awsssm".into());
        assert!(p
            .check_secret_reference("awsssm", "/app/x", &["region"])
            .is_err());
        assert!(p
            .check_secret_reference("awsssm", "/app/x", &["recursive"])
            .is_ok());
        p.secret_stores.remove("awsssm");
        assert!(p.check_secret_reference("awsssm", "/app/x", &[]).is_err());
    }
}
