//! Remote values files as helmfile fetches them (its `remote` package over go-getter):
//! `git::URL@PATH?ref=REF` (the real `git` binary), `http(s)://…` (with `user:pass@`),
//! `s3://bucket/key` and `s3::https://host/bucket/key` (the S3 API, signed with the usual
//! AWS credentials), into a cache laid out as helmfile's (`HELMFILE_CACHE_HOME`, else the
//! user cache directory's `helmfile`). A source whose directory part is an archive
//! (`https://host/path/values.tgz@env/prod.yaml`) is downloaded and unpacked, as go-getter
//! does, and the file after `@` is read from it. Credentials never appear in errors.

pub mod oci;
mod s3;
pub mod unpack;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A parsed remote source (helmfile's `remote.Source`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// `git`, `s3`, … (before `::`), `normal` for plain `http(s)://`/`s3://` URLs.
    pub getter: String,
    pub scheme: String,
    pub user: String,
    pub host: String,
    pub dir: String,
    pub file: String,
    pub query: String,
}

/// Why a source could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError(pub String);

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Replaces the password of `scheme://user:pass@host` (and any `user:pass@` in a
/// string) so it can be shown.
pub fn redact(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("://") {
        let scheme = rest[..i]
            .rsplit(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
        out.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let end = rest.find(['/', ' ', '"', '\n']).unwrap_or(rest.len());
        let authority = &rest[..end];
        match authority.rfind('@') {
            Some(at) => {
                let userinfo = &authority[..at];
                match userinfo.split_once(':') {
                    Some((user, _)) => {
                        out.push_str(user);
                        out.push_str(":REDACTED");
                    }
                    // A lone user name in an http(s) URL is usually a token.
                    None if web => out.push_str("REDACTED"),
                    None => out.push_str(userinfo),
                }
                out.push_str(&authority[at..]);
            }
            None => out.push_str(authority),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn split_url(u: &str) -> Option<(String, String, String, String, String)> {
    let (scheme, rest) = u.split_once("://")?;
    let (before_q, query) = match rest.split_once('?') {
        Some((a, b)) => (a, b.to_string()),
        None => (rest, String::new()),
    };
    let (authority, path) = match before_q.find('/') {
        Some(i) => (&before_q[..i], before_q[i..].to_string()),
        None => (before_q, String::new()),
    };
    let (user, host) = match authority.rfind('@') {
        Some(i) => (authority[..i].to_string(), authority[i + 1..].to_string()),
        None => (String::new(), authority.to_string()),
    };
    Some((scheme.to_ascii_lowercase(), user, host, path, query))
}

fn dir_and_file(path: &str) -> (String, String) {
    match path.rfind('/') {
        Some(i) => {
            let dir = &path[..i];
            (
                dir.strip_prefix('/').unwrap_or(dir).to_string(),
                path[i + 1..].to_string(),
            )
        }
        None => (String::new(), path.to_string()),
    }
}

/// `dir/file` as `filepath.Join` cleans it, kept inside `dir`: a leading `/` (the
/// documentation's `repo.git@/environments/x.yaml`) is relative to `dir`, and `..` stops
/// at it.
fn join_inside(dir: &Path, file: &str) -> PathBuf {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in Path::new(file).components() {
        match c {
            std::path::Component::Normal(p) => parts.push(p),
            std::path::Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    parts.iter().fold(dir.to_path_buf(), |p, c| p.join(c))
}

/// helmfile's `remote.Parse`; `None` for a local path.
pub fn parse(src: &str) -> Option<Source> {
    if let Some((getter, rest)) = src.split_once("::") {
        let (scheme, user, host, path, query) = split_url(rest)?;
        if scheme.is_empty() {
            return None;
        }
        let (dir, file) = match path.split_once('@') {
            Some((d, f)) if !f.contains('@') => (d.to_string(), f.to_string()),
            _ => dir_and_file(&path),
        };
        return Some(Source {
            getter: getter.to_string(),
            scheme,
            user,
            host,
            dir,
            file,
            query,
        });
    }
    let (scheme, user, host, path, query) = split_url(src)?;
    if !matches!(scheme.as_str(), "s3" | "http" | "https") {
        return None;
    }
    // `…/archive.tgz@path/in/archive`: a file inside an archive go-getter unpacks.
    let (dir, file) = match path.split_once('@') {
        Some((d, f)) if !f.contains('@') && unpack::archive_kind(d, &query).is_some() => {
            (d.trim_start_matches('/').to_string(), f.to_string())
        }
        _ => dir_and_file(&path),
    };
    Some(Source {
        getter: "normal".into(),
        scheme,
        user,
        host,
        dir,
        file,
        query,
    })
}

impl Source {
    /// Whether the source's directory part is an archive go-getter unpacks.
    pub fn is_archive(&self) -> bool {
        unpack::archive_kind(&self.dir, &self.query).is_some()
    }
}

/// Whether a values entry names a remote file.
pub fn is_remote(src: &str) -> bool {
    parse(src).is_some()
}

/// helmfile's cache directory.
pub fn cache_dir(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    if let Some(h) = env("HELMFILE_CACHE_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    if let Some(x) = env("XDG_CACHE_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(x).join("helmfile");
    }
    match env("HOME").filter(|h| !h.is_empty()) {
        Some(h) => PathBuf::from(h).join(".cache").join("helmfile"),
        None => PathBuf::from(".helmfile"),
    }
}

fn key_of(s: &str) -> String {
    s.replace(':', "")
        .replace("//", "_")
        .replace(['/', '.'], "_")
}

/// `url.Values.Encode()` of a raw query, `&` replaced by `_` (the cache key's suffix).
fn params_key(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let v = if k == "sshkey" { "redacted" } else { v };
            (k.to_string(), v.to_string())
        })
        .collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("_")
}

/// Reads an environment variable.
pub type EnvReader = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Fetches remote files into the cache.
pub struct Fetcher {
    pub home: PathBuf,
    pub env: EnvReader,
}

impl Fetcher {
    /// Where `src` is cached, and the file inside.
    pub fn cache_path(&self, src: &Source) -> (PathBuf, PathBuf) {
        if src.getter == "normal" && !src.is_archive() {
            let key = key_of(&format!("{}://{}", src.scheme, src.host));
            let dir = self.home.join(key).join(&src.dir);
            let file = join_inside(&dir, &src.file);
            return (dir, file);
        }
        let dir_key = key_of(&format!(
            "{}://{}/{}",
            src.scheme,
            src.host,
            src.dir.trim_start_matches('/')
        ));
        let key = if src.query.is_empty() {
            dir_key
        } else {
            format!("{dir_key}.{}", params_key(&src.query))
        };
        let dir = self.home.join(key);
        let file = join_inside(&dir, &src.file);
        (dir, file)
    }

    /// The local path of a remote file, fetching it unless cached.
    pub fn fetch(&self, raw: &str) -> Result<PathBuf, FetchError> {
        let src =
            parse(raw).ok_or_else(|| FetchError(format!("{} is not a remote URL", redact(raw))))?;
        let (dir, file) = self.cache_path(&src);
        let cached = if src.getter == "normal" && !src.is_archive() {
            file.is_file()
        } else {
            dir.is_dir()
        };
        if cached && !src.is_archive() {
            return Ok(file);
        }
        if src.is_archive() {
            if !cached {
                self.archive(raw, &src, &dir)?;
            }
            return if file.is_file() {
                Ok(file)
            } else {
                Err(FetchError(format!(
                    "{}: the archive has no file {:?}",
                    redact(raw),
                    src.file
                )))
            };
        }
        let result = match (src.getter.as_str(), src.scheme.as_str()) {
            ("normal", "http" | "https") => self.http(raw, &file),
            ("normal", "s3") => s3::get_s3_url(
                &*self.env,
                &src.host,
                format!("{}/{}", src.dir, src.file).trim_start_matches('/'),
                &file,
            ),
            ("s3", _) => s3::get_s3_getter_url(&*self.env, &src, &file),
            ("git", _) => self.git(&src, &dir),
            (other, _) => Err(FetchError(format!(
                "unsupported remote getter {other:?} in {}",
                redact(raw)
            ))),
        };
        if let Err(e) = result {
            if src.getter != "normal" {
                let _ = std::fs::remove_dir_all(&dir);
            }
            return Err(FetchError(redact(&e.0)));
        }
        if !file.exists() {
            return Err(FetchError(format!(
                "{}: the fetched source has no file {:?}",
                redact(raw),
                src.file
            )));
        }
        Ok(file)
    }

    /// go-getter's archive sources: the archive downloaded (HTTP(S) or S3), unpacked into
    /// a temporary directory beside `dir`, then renamed to it, so the cache holds a whole
    /// archive or nothing.
    fn archive(&self, raw: &str, src: &Source, dir: &Path) -> Result<(), FetchError> {
        let kind = unpack::archive_kind(&src.dir, &src.query)
            .ok_or_else(|| FetchError(format!("{} is not an archive", redact(raw))))?;
        let query = unpack::without_archive_param(&src.query);
        let data = match (src.getter.as_str(), src.scheme.as_str()) {
            ("normal", "http" | "https") => {
                let url = format!(
                    "{}://{}/{}{}",
                    src.scheme,
                    src.host,
                    src.dir.trim_start_matches('/'),
                    if query.is_empty() {
                        String::new()
                    } else {
                        format!("?{query}")
                    }
                );
                self.download(&url, &src.user, raw)?
            }
            ("normal", "s3") => {
                s3::get_object(&*self.env, &src.host, src.dir.trim_start_matches('/'))?
            }
            ("s3", _) => {
                s3::get_getter_object(&*self.env, &src.scheme, &src.host, &src.dir, &query)?
            }
            (other, _) => {
                return Err(FetchError(format!(
                    "unsupported remote getter {other:?} for an archive in {}",
                    redact(raw)
                )))
            }
        };
        let parent = dir.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent)
            .map_err(|e| FetchError(format!("mkdir {}: {e}", parent.display())))?;
        let tmp = dir.with_extension(format!("unpacking-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let unpacked = unpack::unpack(kind, &data, &tmp).and_then(|_| {
            std::fs::rename(&tmp, dir)
                .map_err(|e| FetchError(format!("rename {}: {e}", dir.display())))
        });
        if unpacked.is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
        unpacked
    }

    /// A GET of `url` with basic auth from a `user:pass` user part.
    fn download(&self, url: &str, user: &str, shown: &str) -> Result<Vec<u8>, FetchError> {
        let mut req = get(url);
        if !user.is_empty() {
            use base64::Engine;
            let token = base64::engine::general_purpose::STANDARD.encode(percent_decode(user));
            req = req.set("Authorization", &format!("Basic {token}"));
        }
        let resp = req.call().map_err(|e| {
            FetchError(format!("GET {}: {}", redact(shown), redact(&e.to_string())))
        })?;
        body(resp, &redact(shown))
    }

    fn http(&self, raw: &str, file: &Path) -> Result<(), FetchError> {
        let (scheme, user, host, path, query) =
            split_url(raw).ok_or_else(|| FetchError(format!("invalid URL {}", redact(raw))))?;
        let url = if query.is_empty() {
            format!("{scheme}://{host}{path}")
        } else {
            format!("{scheme}://{host}{path}?{query}")
        };
        let body = self.download(&url, &user, raw)?;
        write_private(file, &body)
    }

    fn git(&self, src: &Source, dir: &Path) -> Result<(), FetchError> {
        let mut reference = String::new();
        let mut depth = String::new();
        let mut rest_query = Vec::new();
        for p in src.query.split('&').filter(|p| !p.is_empty()) {
            match p.split_once('=') {
                Some(("ref", v)) => reference = v.to_string(),
                Some(("depth", v)) => depth = v.to_string(),
                _ => rest_query.push(p),
            }
        }
        let auth = if src.user.is_empty() {
            String::new()
        } else {
            format!("{}@", src.user)
        };
        let mut url = format!("{}://{}{}{}", src.scheme, auth, src.host, src.dir);
        if !rest_query.is_empty() {
            url = format!("{url}?{}", rest_query.join("&"));
        }
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| FetchError(format!("mkdir {}: {e}", parent.display())))?;
        }
        let mut clone = Command::new("git");
        clone.arg("clone").arg("--quiet");
        if !depth.is_empty() {
            clone.args(["--depth", &depth]);
        }
        clone.arg("--").arg(&url).arg(dir);
        run_git(clone, &url)?;
        if !reference.is_empty() {
            let mut co = Command::new("git");
            co.arg("-C")
                .arg(dir)
                .args(["checkout", "--quiet", &reference]);
            run_git(co, &url)?;
        }
        Ok(())
    }
}

/// The HTTP agent for every download: a stalled server fails the run instead of
/// hanging it (30 s to connect, 120 s without data).
pub(crate) fn get(url: &str) -> ureq::Request {
    static AGENT: std::sync::LazyLock<ureq::Agent> = std::sync::LazyLock::new(|| {
        ureq::AgentBuilder::new()
            .timeout_connect(std::time::Duration::from_secs(30))
            .timeout_read(std::time::Duration::from_secs(120))
            .build()
    });
    AGENT.get(url)
}

/// The most any download may bring (a chart archive is at most 100 MiB decompressed
/// for helm; values files are far smaller).
pub const MAX_DOWNLOAD: u64 = 256 * 1024 * 1024;

/// A response body, up to [`MAX_DOWNLOAD`] bytes (an error beyond, not a full memory).
pub(crate) fn body(resp: ureq::Response, shown: &str) -> Result<Vec<u8>, FetchError> {
    let mut body = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(resp.into_reader(), MAX_DOWNLOAD + 1),
        &mut body,
    )
    .map_err(|e| FetchError(format!("GET {shown}: {e}")))?;
    if body.len() as u64 > MAX_DOWNLOAD {
        return Err(FetchError(format!(
            "GET {shown}: larger than {} MiB",
            MAX_DOWNLOAD >> 20
        )));
    }
    Ok(body)
}

/// A plain HTTP(S) GET (basic auth when `user`/`password` are given); the body, or an
/// error without credentials.
pub fn http_get(url: &str, user: &str, password: &str) -> Result<Vec<u8>, FetchError> {
    let mut req = get(url);
    if !user.is_empty() || !password.is_empty() {
        use base64::Engine;
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        req = req.set("Authorization", &format!("Basic {token}"));
    }
    let resp = req
        .call()
        .map_err(|e| FetchError(format!("GET {}: {}", redact(url), redact(&e.to_string()))))?;
    body(resp, &redact(url))
}

fn run_git(mut c: Command, url: &str) -> Result<(), FetchError> {
    let out = c
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| FetchError(format!("running git for {}: {e}", redact(url))))?;
    if !out.status.success() {
        return Err(FetchError(format!(
            "git failed for {}: {}",
            redact(url),
            redact(String::from_utf8_lossy(&out.stderr).trim())
        )));
    }
    Ok(())
}

fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (b[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Writes a fetched file with owner-only permissions.
pub(crate) fn write_private(file: &Path, data: &[u8]) -> Result<(), FetchError> {
    if let Some(dir) = file.parent() {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        b.create(dir)
            .map_err(|e| FetchError(format!("mkdir {}: {e}", dir.display())))?;
    }
    let tmp = file.with_extension("capstan-partial");
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let written = opts
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, data))
        .and_then(|_| std::fs::rename(&tmp, file));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        FetchError(format!("write {}: {e}", file.display()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_helmfile_remote_forms() {
        let g = parse("git::https://github.com/org/repo.git@env/values.yaml?ref=v1").unwrap();
        assert_eq!(
            (
                g.getter.as_str(),
                g.host.as_str(),
                g.dir.as_str(),
                g.file.as_str(),
                g.query.as_str()
            ),
            (
                "git",
                "github.com",
                "/org/repo.git",
                "env/values.yaml",
                "ref=v1"
            )
        );
        let h = parse("https://user:pw@example.com/a/b/v.yaml").unwrap();
        assert_eq!(
            (
                h.getter.as_str(),
                h.user.as_str(),
                h.dir.as_str(),
                h.file.as_str()
            ),
            ("normal", "user:pw", "a/b", "v.yaml")
        );
        assert!(parse("values/prod.yaml").is_none());
        assert!(parse("ftp://x/y").is_none());
        let s = parse("s3://bucket/dir/key.yaml").unwrap();
        assert_eq!(
            (s.host.as_str(), s.dir.as_str(), s.file.as_str()),
            ("bucket", "dir", "key.yaml")
        );
    }

    #[test]
    fn cache_keys_follow_helmfile() {
        let f = Fetcher {
            home: PathBuf::from("/c"),
            env: Box::new(|_| None),
        };
        let g =
            parse("git::https://github.com/cloudposse/helmfiles.git@releases/x.yaml?ref=0.40.0")
                .unwrap();
        assert_eq!(
            f.cache_path(&g).1,
            PathBuf::from(
                "/c/https_github_com_cloudposse_helmfiles_git.ref=0.40.0/releases/x.yaml"
            )
        );
        let h = parse("https://example.com/a/v.yaml").unwrap();
        assert_eq!(
            f.cache_path(&h).1,
            PathBuf::from("/c/https_example_com/a/v.yaml")
        );
        // The documentation's `repo.git@/environments/…`: the file is inside the clone.
        let lead = parse("git::https://h/org/repo.git@/environments/s.yaml?ref=main").unwrap();
        assert_eq!(
            f.cache_path(&lead).1,
            PathBuf::from("/c/https_h_org_repo_git.ref=main/environments/s.yaml")
        );
        let up = parse("git::https://h/r.git@../../etc/passwd").unwrap();
        assert!(f.cache_path(&up).1.starts_with("/c/https_h_r_git"));
        // An archive: the part before `@` is downloaded and unpacked, the rest picked.
        let a = parse("http://h:8080/art/test.tgz@environments/staging.secret.yaml").unwrap();
        assert!(a.is_archive());
        assert_eq!(
            (a.dir.as_str(), a.file.as_str()),
            ("art/test.tgz", "environments/staging.secret.yaml")
        );
        assert_eq!(
            f.cache_path(&a).1,
            PathBuf::from("/c/http_h8080_art_test_tgz/environments/staging.secret.yaml")
        );
        // `@` elsewhere in a plain URL's path is part of the name.
        let at = parse("https://h/pkg@1.2/values.yaml").unwrap();
        assert!(!at.is_archive());
        assert_eq!(
            (at.dir.as_str(), at.file.as_str()),
            ("pkg@1.2", "values.yaml")
        );
    }

    #[test]
    fn credentials_are_redacted() {
        assert_eq!(
            redact("GET https://me:secret@host/x failed"),
            "GET https://me:REDACTED@host/x failed"
        );
        assert_eq!(
            redact("git::https://token@host/r.git"),
            "git::https://REDACTED@host/r.git"
        );
        assert_eq!(
            redact("git::ssh://git@host/r.git"),
            "git::ssh://git@host/r.git"
        );
    }
}
