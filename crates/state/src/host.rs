//! The outside world as the state loader sees it: files, directories, environment
//! variables and commands. [`OsHost`] is the real one; tests can supply their own.

use crate::StateError;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A directory entry (`readDirEntries`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name.
    pub name: String,
    /// Whether it is a directory.
    pub is_dir: bool,
}

/// Credentials and transport for an OCI registry (from `repositories:`).
#[derive(Clone, Debug, Default)]
pub struct OciAuth {
    /// The registry user name.
    pub username: String,
    /// The registry password.
    pub password: String,
    /// Plain HTTP instead of HTTPS (`--plain-http`).
    pub plain_http: bool,
}

/// Why [`Host::exec`] failed; `Display` is helmfile's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// The command could not be started (Go's `exec: "NAME": REASON`).
    #[error("exec: \"{command}\": {reason}")]
    NotStarted {
        /// The command.
        command: String,
        /// Why it did not start.
        reason: String,
    },
    /// The command ran and failed: helmfile's report with its output.
    #[error("{0}")]
    Failed(String),
}

impl From<ExecError> for StateError {
    fn from(e: ExecError) -> StateError {
        StateError::new(e.to_string())
    }
}

impl From<ExecError> for capstan_gotmpl::FuncError {
    fn from(e: ExecError) -> Self {
        e.to_string().into()
    }
}

/// Everything the state loader reads from outside the process.
pub trait Host: Send + Sync {
    /// The content of a file.
    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Whether `path` is a file.
    fn is_file(&self, path: &Path) -> bool;
    /// Whether `path` is a directory.
    fn is_dir(&self, path: &Path) -> bool;
    /// Entries of a directory, sorted by name (Go's `os.ReadDir`).
    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>>;
    /// An environment variable, as a template's `env` reads it.
    fn env(&self, name: &str) -> Option<String>;
    /// A variable capstan itself reads (a secret store's token, sops keys), never what
    /// a template asks for: the same as [`Host::env`] except in untrusted mode.
    fn process_env(&self, name: &str) -> Option<String> {
        self.env(name)
    }
    /// The limits of untrusted mode, when this run is in it.
    fn tenant(&self) -> Option<&crate::tenant::TenantPolicy> {
        None
    }
    /// Runs `command args` in `dir` with extra environment variables and `stdin`;
    /// returns standard output, or an error carrying standard error.
    fn exec(
        &self,
        command: &str,
        args: &[String],
        envs: &[(String, String)],
        stdin: Option<&str>,
        dir: &Path,
    ) -> Result<String, ExecError>;

    /// Writes files (name, content) with owner-only permissions into a new private
    /// directory and returns it (for values files helm must read).
    fn write_private(&self, _files: &[(String, Vec<u8>)]) -> io::Result<PathBuf> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "writing files is disabled here",
        ))
    }

    /// Removes a directory made by [`Host::write_private`].
    fn remove_private(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    /// The addresses a host name resolves to (Go's `net.LookupHost`), for sprig's
    /// `getHostByName`; none without a network.
    fn lookup_host(&self, _name: &str) -> Vec<String> {
        Vec::new()
    }

    /// An HTTP(S) GET (chart repositories), with basic auth when given.
    fn http_get(&self, url: &str, _user: &str, _password: &str) -> Result<Vec<u8>, StateError> {
        Err(format!(
            "{}: the network is not available here",
            capstan_fetch::redact(url)
        )
        .into())
    }

    /// The tags of an OCI repository (`oci://host/path`).
    fn oci_tags(&self, reference: &str, _auth: &OciAuth) -> Result<Vec<String>, StateError> {
        Err(format!(
            "{}: the network is not available here",
            capstan_fetch::redact(reference)
        )
        .into())
    }

    /// Pulls a chart from an OCI registry: (manifest digest, chart archive).
    fn oci_pull(
        &self,
        reference: &str,
        _tag: &str,
        _auth: &OciAuth,
    ) -> Result<(String, Vec<u8>), StateError> {
        Err(format!(
            "{}: the network is not available here",
            capstan_fetch::redact(reference)
        )
        .into())
    }

    /// Where fetched files are cached (helmfile's cache directory).
    fn cache_dir(&self) -> PathBuf {
        PathBuf::from(".helmfile")
    }

    /// Writes a file into the cache (parent directories created).
    fn write_file(&self, _path: &Path, _data: &[u8]) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "writing files is disabled here",
        ))
    }

    /// The local copy of a remote file (`git::…`, `http(s)://…`, `s3://…`), fetched into
    /// helmfile's cache unless already there.
    fn fetch(&self, src: &str) -> Result<PathBuf, StateError> {
        Err(format!(
            "{}: remote files are not available here",
            capstan_fetch::redact(src)
        )
        .into())
    }

    /// A progress line (`Pulling …`), shown as it happens when the host shows progress.
    fn progress(&self, _line: &str) {}

    /// A warning helmfile logs at warn level (shown also with `-q`).
    fn warn(&self, _line: &str) {}

    /// A line helmfile logs at debug level (`--debug`, `--log-level debug`): the files
    /// processed, each rendered state part, the merged environment, each command run.
    /// Decrypted secrets are hidden from it.
    fn debug(&self, _line: &str) {}

    /// Whether [`Host::debug`] lines are shown (to skip building them otherwise).
    fn shows_debug(&self) -> bool {
        false
    }
}

/// Private directories holding decrypted or rendered values for helm, still to be
/// removed (also on Ctrl-C: see [`remove_private_dirs`]).
static PRIVATE_DIRS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Files staged for an all-or-nothing write (`*.capstan-tmp`), still to be renamed or
/// removed.
static STAGED_FILES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Records a staged file, so that a signal handler can remove it.
pub fn register_staged(path: &Path) {
    if let Ok(mut files) = STAGED_FILES.lock() {
        files.push(path.to_path_buf());
    }
}

/// Forgets a staged file (renamed into place or removed).
pub fn unregister_staged(path: &Path) {
    if let Ok(mut files) = STAGED_FILES.lock() {
        files.retain(|f| f != path);
    }
}

/// An empty private directory (as [`Host::write_private`] makes them: an unpredictable
/// name, owner only, removed on a signal) that is removed when dropped, so no early
/// return leaves it behind.
pub struct PrivateDir(PathBuf);

impl PrivateDir {
    /// A new private directory (0700), removed when dropped.
    pub fn new() -> io::Result<PrivateDir> {
        OsHost::default().write_private(&[]).map(PrivateDir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = OsHost::default().remove_private(&self.0);
    }
}

/// Removes every private directory and staged file still on disk (for the handler of
/// SIGINT, SIGTERM and SIGHUP): nothing holding values or secrets stays behind.
pub fn remove_private_dirs() {
    capstan_fetch::remove_private_files();
    if let Ok(mut dirs) = PRIVATE_DIRS.lock() {
        for d in dirs.drain(..) {
            let _ = std::fs::remove_dir_all(d);
        }
    }
    if let Ok(mut files) = STAGED_FILES.lock() {
        for f in files.drain(..) {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// The real filesystem, environment and processes; relative paths are resolved against
/// `root` (the working directory helmfile would run in).
#[derive(Clone, Debug, Default)]
pub struct OsHost {
    /// The working directory relative paths start from.
    pub root: PathBuf,
    /// The state file given as `-f -`, read from standard input.
    pub stdin: Option<Vec<u8>>,
    /// Whether progress lines go to standard error.
    pub show_progress: bool,
    /// Whether warnings go to standard error.
    pub show_warnings: bool,
    /// Whether debug lines go to standard error.
    pub show_debug: bool,
    /// Where shown progress lines and warnings go instead of standard error (a caller
    /// running commands in-process collects them).
    pub captured: Option<std::sync::Arc<std::sync::Mutex<String>>>,
    /// `--oci-plain-http`: every OCI registry over plain HTTP.
    pub oci_plain_http: bool,
    /// The terminal's status line for downloads (off unless the caller turns it on).
    pub status: crate::status::StatusLine,
}

impl OsHost {
    /// A host on the real filesystem with relative paths from `root`, quiet.
    pub fn new(root: impl Into<PathBuf>) -> OsHost {
        OsHost {
            root: root.into(),
            stdin: None,
            show_progress: false,
            show_warnings: false,
            show_debug: false,
            captured: None,
            oci_plain_http: false,
            status: Default::default(),
        }
    }

    fn show(&self, line: &str) {
        match &self.captured {
            Some(buf) => {
                let mut b = buf.lock().unwrap_or_else(|e| e.into_inner());
                b.push_str(line);
                b.push('\n');
            }
            None => self.status.print(line),
        }
    }

    fn at(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        }
    }
}

impl Host for OsHost {
    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        match (&self.stdin, path.as_os_str() == "-") {
            (Some(data), true) => Ok(data.clone()),
            _ => std::fs::read(self.at(path)),
        }
    }

    fn is_file(&self, path: &Path) -> bool {
        (self.stdin.is_some() && path.as_os_str() == "-") || self.at(path).is_file()
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.at(path).is_dir()
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        use capstan_chart::fs::ChartFs;
        Ok(capstan_chart::fs::OsFs
            .read_dir(&self.at(path))?
            .into_iter()
            .map(|(name, is_dir)| DirEntry { name, is_dir })
            .collect())
    }

    fn env(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn exec(
        &self,
        command: &str,
        args: &[String],
        envs: &[(String, String)],
        stdin: Option<&str>,
        dir: &Path,
    ) -> Result<String, ExecError> {
        use std::io::Write;
        // Go's exec.Command looks the program up in PATH; helmfile's report names it so.
        let path = look_path(command);
        if self.show_debug {
            self.debug(&format!("exec: {command} {}", args.join(" ")));
        }
        let mut cmd = Command::new(&path);
        cmd.args(args)
            .envs(envs.iter().map(|(k, v)| (k, v)))
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd.current_dir(self.at(dir));
        let mut child = cmd.spawn().map_err(|e| ExecError::NotStarted {
            command: command.to_string(),
            reason: go_io_reason(&e),
        })?;
        if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
            let input = input.to_string();
            std::thread::spawn(move || pipe.write_all(input.as_bytes()));
        }
        let out = child
            .wait_with_output()
            .map_err(|e| ExecError::Failed(e.to_string()))?;
        if !out.status.success() {
            let code = out.status.code().unwrap_or(-1);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let mut argv = vec![command.to_string()];
            argv.extend(args.iter().cloned());
            return Err(ExecError::Failed(exit_error_text(
                &path,
                &argv,
                code,
                &stderr,
                &format!("{stdout}{stderr}"),
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn write_private(&self, files: &[(String, Vec<u8>)]) -> io::Result<PathBuf> {
        // An unpredictable name, made exclusively (never a directory someone made first).
        let dir =
            std::env::temp_dir().join(format!("capstan-{}", capstan_fetch::unpredictable_suffix()));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder.create(&dir)?;
        if let Ok(mut dirs) = PRIVATE_DIRS.lock() {
            dirs.push(dir.clone());
        }
        for (name, text) in files {
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                opts.mode(0o600);
            }
            let written = opts
                .open(dir.join(name))
                .and_then(|mut f| std::io::Write::write_all(&mut f, text));
            if let Err(e) = written {
                let _ = self.remove_private(&dir);
                return Err(e);
            }
        }
        Ok(dir)
    }

    fn remove_private(&self, dir: &Path) -> io::Result<()> {
        if let Ok(mut dirs) = PRIVATE_DIRS.lock() {
            dirs.retain(|d| d != dir);
        }
        std::fs::remove_dir_all(dir)
    }

    fn http_get(&self, url: &str, user: &str, password: &str) -> Result<Vec<u8>, StateError> {
        let _step = self
            .status
            .begin(format!("Downloading {}", capstan_fetch::redact(url)));
        Ok(capstan_fetch::http_get(url, user, password).map_err(|e| e.to_string())?)
    }

    fn lookup_host(&self, name: &str) -> Vec<String> {
        use std::net::ToSocketAddrs;
        let mut out: Vec<String> = Vec::new();
        for a in (name, 0).to_socket_addrs().into_iter().flatten() {
            let ip = a.ip().to_string();
            if !out.contains(&ip) {
                out.push(ip);
            }
        }
        out
    }

    fn oci_tags(&self, reference: &str, auth: &OciAuth) -> Result<Vec<String>, StateError> {
        let env = |k: &str| std::env::var(k).ok();
        let r = capstan_fetch::oci::Reference::parse(reference).map_err(|e| e.to_string())?;
        let _step = self.status.begin(format!(
            "Listing the tags of {}",
            capstan_fetch::redact(reference)
        ));
        Ok(oci_client(auth, self.oci_plain_http, &env)
            .tags(&r)
            .map_err(|e| e.to_string())?)
    }

    fn oci_pull(
        &self,
        reference: &str,
        tag: &str,
        auth: &OciAuth,
    ) -> Result<(String, Vec<u8>), StateError> {
        let env = |k: &str| std::env::var(k).ok();
        let r = capstan_fetch::oci::Reference::parse(reference).map_err(|e| e.to_string())?;
        let _step = self.status.begin(format!(
            "Pulling {}:{tag}",
            capstan_fetch::redact(reference)
        ));
        let pulled = oci_client(auth, self.oci_plain_http, &env)
            .pull(&r, tag)
            .map_err(|e| e.to_string())?;
        Ok((pulled.digest, pulled.archive))
    }

    fn cache_dir(&self) -> PathBuf {
        capstan_fetch::cache_dir(&|k| std::env::var(k).ok())
    }

    fn write_file(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let target = self.at(path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // Written aside and renamed, so a concurrent reader never sees half a file.
        let tmp =
            target.with_extension(format!("partial-{}", capstan_fetch::unpredictable_suffix()));
        std::fs::write(&tmp, data)?;
        std::fs::rename(&tmp, &target)
    }

    fn progress(&self, line: &str) {
        if self.show_progress {
            self.show(line);
        }
    }

    fn warn(&self, line: &str) {
        if self.show_warnings {
            self.show(line);
        }
    }

    fn debug(&self, line: &str) {
        if self.show_debug {
            self.show(&crate::known_secrets::hide(line));
        }
    }

    fn shows_debug(&self) -> bool {
        self.show_debug
    }

    fn fetch(&self, src: &str) -> Result<PathBuf, StateError> {
        let env = |k: &str| std::env::var(k).ok();
        if matches!(
            env("HELMFILE_DISABLE_INSECURE_FEATURES").as_deref(),
            Some("1" | "t" | "T" | "TRUE" | "true" | "True")
        ) {
            return Err(
                "remote sources are disabled due to HELMFILE_DISABLE_INSECURE_FEATURES".into(),
            );
        }
        let fetcher = capstan_fetch::Fetcher {
            home: capstan_fetch::cache_dir(&env),
            env: Box::new(|k| std::env::var(k).ok()),
        };
        let _step = self
            .status
            .begin(format!("Fetching {}", capstan_fetch::redact(src)));
        Ok(fetcher.fetch(src).map_err(|e| e.to_string())?)
    }
}

fn oci_client<'a>(
    auth: &OciAuth,
    plain_http: bool,
    env: &'a dyn Fn(&str) -> Option<String>,
) -> capstan_fetch::oci::Client<'a> {
    capstan_fetch::oci::Client {
        username: auth.username.clone(),
        password: auth.password.clone(),
        plain_http: auth.plain_http || plain_http,
        env,
    }
}

/// Go's `exec.LookPath` as `exec.Command` uses it: a name without a `/` is found in
/// `PATH` (an executable regular file); otherwise, or when not found, it is kept as given.
pub fn look_path(command: &str) -> String {
    if command.contains('/') {
        return command.to_string();
    }
    let Some(path) = std::env::var_os("PATH") else {
        return command.to_string();
    };
    for dir in std::env::split_paths(&path) {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let candidate = dir.join(command);
        let executable = std::fs::metadata(&candidate).is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                m.is_file()
            }
        });
        if executable {
            return candidate.to_string_lossy().into_owned();
        }
    }
    command.to_string()
}

/// helmfile's report of a command that exited with an error (`helmexec.ExitError`):
/// the program's path, its argv, the exit status, then its standard error and combined
/// output when there are any.
pub fn exit_error_text(
    path: &str,
    argv: &[String],
    code: i32,
    stderr: &str,
    combined: &str,
) -> String {
    let mut text = format!(
        "command \"{path}\" exited with non-zero status:\n\nPATH:\n  {path}\n\nARGS:\n{}\nERROR:\n  exit status {code}\n\nEXIT STATUS\n  {code}",
        argv.iter()
            .enumerate()
            .map(|(i, a)| format!("  {i}: {a} ({} bytes)\n", a.len()))
            .collect::<String>()
    );
    if !stderr.is_empty() {
        text.push_str("\n\nSTDERR:\n");
        text.push_str(indent(stderr).trim_end_matches('\n'));
    }
    if !combined.is_empty() {
        text.push_str("\n\nCOMBINED OUTPUT:\n");
        text.push_str(indent(combined).trim_end_matches('\n'));
    }
    text
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("  {l}\n")).collect()
}

/// The reason part of a Go `*PathError` text for an I/O error.
pub(crate) fn go_io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_lowercase(),
                None => s,
            }
        }
    }
}

/// `filepath.Join(base, p)` unless `p` is absolute.
pub fn join(base: &Path, p: &str) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() {
        clean(path)
    } else {
        clean(&base.join(path))
    }
}

/// Go's `filepath.Clean` on a path.
pub fn clean(p: &Path) -> PathBuf {
    PathBuf::from(capstan_sprig::path_clean(&p.to_string_lossy()))
}

/// Go's `filepath.Glob` (plus `**` across directories) through a [`Host`]: the matches of
/// `pattern`, sorted; a pattern without wildcards matches itself when it exists.
pub fn glob(host: &dyn Host, pattern: &str) -> Vec<String> {
    let has_meta = |s: &str| s.contains(['*', '?', '[']);
    if !has_meta(pattern) {
        let p = Path::new(pattern);
        return if host.is_file(p) || host.is_dir(p) {
            vec![pattern.to_string()]
        } else {
            Vec::new()
        };
    }
    let absolute = pattern.starts_with('/');
    let segments: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let start = if absolute {
        "/".to_string()
    } else {
        String::new()
    };
    let mut found = Vec::new();
    walk(host, &start, &segments, &mut found);
    found.sort();
    found.dedup();
    found
}

fn child(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else if prefix.ends_with('/') {
        format!("{prefix}{name}")
    } else {
        format!("{prefix}/{name}")
    }
}

fn walk(host: &dyn Host, prefix: &str, segments: &[&str], found: &mut Vec<String>) {
    let Some((seg, rest)) = segments.split_first() else {
        found.push(prefix.to_string());
        return;
    };
    let dir = if prefix.is_empty() { "." } else { prefix };
    if *seg == "**" {
        walk(host, prefix, rest, found);
        if let Ok(entries) = host.read_dir(Path::new(dir)) {
            for e in entries
                .iter()
                .filter(|e| e.is_dir && !e.name.starts_with('.'))
            {
                walk(host, &child(prefix, &e.name), segments, found);
            }
        }
        return;
    }
    if !seg.contains(['*', '?', '[']) {
        let next = child(prefix, seg);
        if rest.is_empty() {
            let p = Path::new(&next);
            if host.is_file(p) || host.is_dir(p) {
                found.push(next);
            }
        } else if host.is_dir(Path::new(&next)) {
            walk(host, &next, rest, found);
        }
        return;
    }
    let Ok(entries) = host.read_dir(Path::new(dir)) else {
        return;
    };
    for e in entries {
        if capstan_gocompat::glob::glob_match(seg, &e.name) {
            let next = child(prefix, &e.name);
            if rest.is_empty() {
                found.push(next);
            } else if e.is_dir {
                walk(host, &next, rest, found);
            }
        }
    }
}

/// Files held in memory (tests and fuzzing): no environment, no commands.
#[derive(Clone, Debug, Default)]
pub struct MemHost {
    /// The files, by path.
    pub files: std::collections::BTreeMap<PathBuf, Vec<u8>>,
    /// The environment variables.
    pub env: std::collections::BTreeMap<String, String>,
}

impl MemHost {
    fn key(p: &Path) -> PathBuf {
        clean(p)
    }
}

impl Host for MemHost {
    /// An empty private directory is a name only (nothing is ever written to it: the
    /// helm a test gives this host records its calls); files cannot be written.
    fn write_private(&self, files: &[(String, Vec<u8>)]) -> io::Result<PathBuf> {
        if files.is_empty() {
            Ok(PathBuf::from("/private"))
        } else {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "writing files is disabled here",
            ))
        }
    }

    fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .get(&Self::key(path))
            .cloned()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(&Self::key(path))
    }

    fn is_dir(&self, path: &Path) -> bool {
        let k = Self::key(path);
        k.as_os_str() == "." || self.files.keys().any(|f| f.starts_with(&k) && *f != k)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let k = Self::key(path);
        let mut out: Vec<DirEntry> = Vec::new();
        for f in self.files.keys() {
            let rel = if k.as_os_str() == "." {
                Some(f.as_path())
            } else {
                f.strip_prefix(&k).ok()
            };
            let Some(rel) = rel else { continue };
            let mut comps = rel.components();
            let Some(first) = comps.next() else { continue };
            let name = first.as_os_str().to_string_lossy().into_owned();
            let is_dir = comps.next().is_some();
            if !out.iter().any(|e| e.name == name) {
                out.push(DirEntry { name, is_dir });
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    fn env(&self, name: &str) -> Option<String> {
        self.env.get(name).cloned()
    }

    fn exec(
        &self,
        command: &str,
        _args: &[String],
        _envs: &[(String, String)],
        _stdin: Option<&str>,
        _dir: &Path,
    ) -> Result<String, ExecError> {
        Err(ExecError::NotStarted {
            command: command.to_string(),
            reason: "running commands is disabled here".into(),
        })
    }
}

/// A [`Host`] as the chart loader's file source.
pub struct HostFs<'a>(pub &'a dyn Host);

impl capstan_chart::fs::ChartFs for HostFs<'_> {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.0.read_file(path)
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<(String, bool)>> {
        Ok(self
            .0
            .read_dir(path)?
            .into_iter()
            .map(|e| (e.name, e.is_dir))
            .collect())
    }

    fn is_file(&self, path: &Path) -> bool {
        self.0.is_file(path)
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.0.is_dir(path)
    }
}
