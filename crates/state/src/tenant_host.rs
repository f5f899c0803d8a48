//! The host of an untrusted run: the real [`Host`] held to a [`TenantPolicy`]
//! (`crate::tenant` says what the policy allows and why).

use crate::host::{DirEntry, ExecError, Host, OciAuth};
use crate::tenant::{Refused, TenantPolicy};
use crate::StateError;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The real host with untrusted mode's limits.
pub struct TenantHost {
    inner: Arc<dyn Host>,
    policy: Arc<TenantPolicy>,
    /// The run's private cache, removed with the host.
    _cache: Option<crate::host::PrivateDir>,
}

impl TenantHost {
    /// `inner` held to `policy`; installs the connection guard for this process.
    pub fn new(inner: Arc<dyn Host>, policy: TenantPolicy) -> TenantHost {
        let policy = Arc::new(policy);
        let guard = policy.clone();
        capstan_fetch::guard::install(Box::new(move |host, port, ip| {
            guard.allows_address(host, Some(port), ip)
        }));
        TenantHost {
            inner,
            policy,
            _cache: None,
        }
    }

    /// The host of an untrusted run in `root`: the policy from this process's
    /// variables, and a new private cache (owner only, removed when the host is
    /// dropped or the process is stopped by a signal), so that nothing one run fetched
    /// is seen by another.
    pub fn for_run(inner: Arc<dyn Host>, root: &Path) -> Result<TenantHost, StateError> {
        let cache = crate::host::PrivateDir::new()
            .map_err(|e| StateError::new(format!("the run's private cache: {e}")))?;
        let env = |k: &str| std::env::var(k).ok();
        let policy = TenantPolicy::from_env(root, cache.path(), &env)?;
        let mut host = TenantHost::new(inner, policy);
        host._cache = Some(cache);
        Ok(host)
    }

    fn path(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.policy.root.join(p)
        }
    }
}

impl Host for TenantHost {
    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        if path.as_os_str() == "-" {
            return self.inner.read_file(path);
        }
        let real = self.policy.inside(&self.path(path))?;
        self.inner.read_file(&real)
    }

    fn is_file(&self, path: &Path) -> bool {
        if path.as_os_str() == "-" {
            return self.inner.is_file(path);
        }
        self.policy
            .inside(&self.path(path))
            .is_ok_and(|real| self.inner.is_file(&real))
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.policy
            .inside(&self.path(path))
            .is_ok_and(|real| self.inner.is_dir(&real))
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let real = self.policy.inside(&self.path(path))?;
        self.inner.read_dir(&real)
    }

    fn env(&self, name: &str) -> Option<String> {
        self.policy.env(name, &|n| self.inner.env(n))
    }

    fn process_env(&self, name: &str) -> Option<String> {
        self.inner.env(name)
    }

    fn exec(
        &self,
        command: &str,
        _args: &[String],
        _envs: &[(String, String)],
        _stdin: Option<&str>,
        _dir: &Path,
    ) -> Result<String, ExecError> {
        Err(ExecError::Failed(
            Refused(format!(
                "commands do not run ({command:?}: exec, hooks, post-renderers, helmBinary and the sops binary are off)"
            ))
            .to_string(),
        ))
    }

    fn write_private(&self, files: &[(String, Vec<u8>)]) -> io::Result<PathBuf> {
        self.inner.write_private(files)
    }

    fn remove_private(&self, dir: &Path) -> io::Result<()> {
        self.inner.remove_private(dir)
    }

    fn lookup_host(&self, name: &str) -> Vec<String> {
        // getHostByName answers only what a connection could reach.
        self.inner
            .lookup_host(name)
            .into_iter()
            .filter(|ip| {
                ip.parse()
                    .is_ok_and(|ip| self.policy.allows_address(name, None, ip))
            })
            .collect()
    }

    fn http_get(&self, url: &str, user: &str, password: &str) -> Result<Vec<u8>, StateError> {
        self.policy.check_chart_url(url)?;
        self.inner.http_get(url, user, password)
    }

    fn oci_tags(&self, reference: &str, auth: &OciAuth) -> Result<Vec<String>, StateError> {
        self.policy.check_chart_url(&oci_url(reference))?;
        self.inner.oci_tags(reference, auth)
    }

    fn oci_pull(
        &self,
        reference: &str,
        tag: &str,
        auth: &OciAuth,
    ) -> Result<(String, Vec<u8>), StateError> {
        self.policy.check_chart_url(&oci_url(reference))?;
        self.inner.oci_pull(reference, tag, auth)
    }

    fn cache_dir(&self) -> PathBuf {
        self.policy.cache.join("helmfile")
    }

    fn write_file(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let target = self.path(path);
        let parent = target.parent().unwrap_or(&target);
        std::fs::create_dir_all(parent)?;
        let real = std::fs::canonicalize(parent)?;
        if !real.starts_with(&self.policy.cache) {
            return Err(io::Error::other(
                "outside the run's cache (an untrusted repository writes nothing else)",
            ));
        }
        self.inner
            .write_file(&real.join(target.file_name().unwrap_or_default()), data)
    }

    fn fetch(&self, src: &str) -> Result<PathBuf, StateError> {
        self.policy.check_values_source(src)?;
        let fetcher = capstan_fetch::Fetcher {
            home: self.cache_dir(),
            env: Box::new(|k| std::env::var(k).ok()),
        };
        let got = fetcher
            .fetch(src)
            .map_err(|e| StateError::new(e.to_string()))?;
        self.policy
            .inside(&got)
            .map_err(|e| StateError::new(format!("{}: {e}", capstan_fetch::redact(src))))
    }

    fn progress(&self, line: &str) {
        self.inner.progress(line)
    }

    fn warn(&self, line: &str) {
        self.inner.warn(line)
    }

    fn debug(&self, line: &str) {
        self.inner.debug(line)
    }

    fn shows_debug(&self) -> bool {
        self.inner.shows_debug()
    }

    fn tenant(&self) -> Option<&TenantPolicy> {
        Some(&self.policy)
    }
}

/// An `oci://host/path` reference (or a bare `host/path`) as a URL whose host can be
/// read.
fn oci_url(reference: &str) -> String {
    let bare = reference.trim_start_matches("oci://");
    format!("https://{bare}")
}
