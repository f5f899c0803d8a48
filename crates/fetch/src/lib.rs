//! Remote values files as helmfile fetches them (its `remote` package over go-getter):
//! `git::URL@PATH?ref=REF` (the real `git` binary), `http(s)://…` (with `user:pass@`),
//! `s3://bucket/key` and `s3::https://host/bucket/key` (the S3 API, signed with the usual
//! AWS credentials), into a cache laid out as helmfile's (`HELMFILE_CACHE_HOME`, else the
//! user cache directory's `helmfile`). A source whose directory part is an archive
//! (`https://host/path/values.tgz@env/prod.yaml`) is downloaded and unpacked, as go-getter
//! does, and the file after `@` is read from it. Credentials never appear in errors.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

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
    /// The URL scheme (`https`, `s3`, `ssh`, …).
    pub scheme: String,
    /// The user before `@` (a git user or credentials), empty when none.
    pub user: String,
    /// The host, with its port.
    pub host: String,
    /// The repository or bucket path: what is downloaded.
    pub dir: String,
    /// The file inside it (after `@`), empty for a whole directory.
    pub file: String,
    /// The query (`ref=…`, `sshkey=…`), without `?`.
    pub query: String,
}

/// Why a source could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError(pub String);

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // It may carry a server's or git's words: no terminal control reaches the screen.
        f.write_str(&neutralize_controls(&self.0))
    }
}

/// Text from outside (a server's answer, git's output, a file) made safe to print on a
/// terminal: control characters other than newline and tab (escape sequences, carriage
/// returns that overwrite a line, C1 controls) are shown as `\xNN`/`\uNNNN`.
pub fn neutralize_controls(s: &str) -> String {
    let s = s.replace("\r\n", "\n");
    if !s.chars().any(is_control) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if !is_control(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{:04x}", c as u32));
        }
    }
    out
}

fn is_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Query parameters whose values are shown in messages (a ref, a depth, a file name);
/// every other value (`token=`, `X-Amz-Signature=`, `sshkey=`, `access_token=`) is hidden.
const SHOWN_QUERY_KEYS: &[&str] = &[
    "ref", "depth", "archive", "checksum", "filename", "region", "version", "subdir", "format",
];

/// Replaces the password of `scheme://user:pass@host` (and any `user:pass@` in a
/// string) and the values of a URL's query parameters other than harmless ones
/// (`?ref=v1&token=REDACTED`) so it can be shown. Every `://` is looked at, also one inside what an earlier
/// one took for its host, so overlapping URL-like text cannot hide a password.
/// Adds to `hidden` the values of the query of the URL whose authority starts at
/// `start`, except those of [`SHOWN_QUERY_KEYS`].
fn hide_query_values(s: &str, start: usize, hidden: &mut Vec<(usize, usize)>) {
    let url_end = s[start..]
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
        .map_or(s.len(), |e| start + e);
    let Some(q) = s[start..url_end].find('?') else {
        return;
    };
    let query_start = start + q + 1;
    let query_end = s[query_start..url_end]
        .find('#')
        .map_or(url_end, |e| query_start + e);
    let mut pos = query_start;
    for pair in s[query_start..query_end].split('&') {
        if let Some(eq) = pair.find('=') {
            let key = &pair[..eq];
            let value = (pos + eq + 1, pos + pair.len());
            if value.0 < value.1 && !SHOWN_QUERY_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key)) {
                hidden.push(value);
            }
        }
        pos += pair.len() + 1;
    }
}

/// `s` with the secrets of every URL in it replaced by `REDACTED`: passwords, and query
/// values other than the harmless keys (`ref`, `depth`, …), for messages and logs.
pub fn redact(s: &str) -> String {
    // Byte ranges to replace by `REDACTED`.
    let mut hidden: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(found) = s[from..].find("://") {
        let i = from + found;
        from = i + 1;
        let scheme = s[..i]
            .rsplit(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
        let start = i + 3;
        let end = s[start..]
            .find(['/', ' ', '"', '\n'])
            .map_or(s.len(), |e| start + e);
        let authority = &s[start..end];
        hide_query_values(s, start, &mut hidden);
        if let Some(at) = authority.rfind('@') {
            let userinfo = &authority[..at];
            match userinfo.find(':') {
                Some(colon) => hidden.push((start + colon + 1, start + at)),
                // A lone user name in an http(s) URL is usually a token.
                None if web => hidden.push((start, start + at)),
                None => {}
            }
        }
    }
    hidden.sort();
    let mut out = String::with_capacity(s.len());
    let mut pos = 0;
    for (a, b) in hidden {
        if b <= pos {
            continue;
        }
        let a = a.max(pos);
        out.push_str(&s[pos..a]);
        out.push_str("REDACTED");
        pos = b;
    }
    out.push_str(&s[pos..]);
    out
}

/// A URL's parts as Go's `url.Parse` reads them: the scheme (lowercased), the user part,
/// `host[:port]`, the path and the query. `None` for what Go refuses, so a URL whose
/// host a reader could take differently (a `\\`, a space or a control character in the
/// authority, anything outside the characters Go allows there) is never requested: the
/// fragment is cut first, and the user part and host hold only the characters both Go
/// and the URL parser that makes the request agree on.
struct UrlParts {
    scheme: String,
    user: String,
    host: String,
    path: String,
    query: String,
}

fn split_url(u: &str) -> Option<UrlParts> {
    let (scheme, rest) = u.split_once("://")?;
    let valid_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return None;
    }
    let rest = rest.split_once('#').map_or(rest, |(r, _)| r);
    let (before_q, query) = match rest.split_once('?') {
        Some((a, b)) => (a, b.to_string()),
        None => (rest, String::new()),
    };
    let (authority, path) = match before_q.find('/') {
        Some(i) => (&before_q[..i], before_q[i..].to_string()),
        None => (before_q, String::new()),
    };
    let (user, host) = match authority.rfind('@') {
        Some(i) => (&authority[..i], &authority[i + 1..]),
        None => ("", authority),
    };
    if !user.chars().all(user_char) || !host.chars().all(host_char) {
        return None;
    }
    Some(UrlParts {
        scheme: scheme.to_ascii_lowercase(),
        user: user.to_string(),
        host: host.to_string(),
        path,
        query,
    })
}

/// RFC 3986's unreserved and sub-delimiter characters, with `%` and `:`: what both a
/// URL's user part and its `host[:port]` may hold.
fn url_part_char(c: char) -> bool {
    matches!(
        c,
        '-' | '.'
            | '_'
            | '~'
            | '!'
            | '$'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | '+'
            | ','
            | ';'
            | '='
            | '%'
            | ':'
    )
}

/// A character Go's `url.Parse` accepts in a URL's user part.
fn user_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || url_part_char(c) || c == '@'
}

/// A character accepted in a URL's `host[:port]` (Go's, less the quotes and angle
/// brackets no host has): never a separator another reader could see.
fn host_char(c: char) -> bool {
    c.is_alphanumeric() || url_part_char(c) || c == '[' || c == ']'
}

/// Whether `a` and `b` have one origin (scheme, host and port) as the URL parser that
/// makes the requests reads them. Credentials meant for `a` may go to `b` only then; a
/// URL the parser refuses has no origin.
pub fn same_origin(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => {
            let (a, b) = (a.origin(), b.origin());
            a.is_tuple() && a == b
        }
        _ => false,
    }
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
    let (getter, rest) = match src.split_once("::") {
        Some((getter, rest)) => (Some(getter), rest),
        None => (None, src),
    };
    let UrlParts {
        scheme,
        user,
        host,
        path,
        query,
    } = split_url(rest)?;
    if getter.is_none() && !matches!(scheme.as_str(), "s3" | "http" | "https") {
        return None;
    }
    let (dir, file) = match (getter, path.split_once('@')) {
        // `git::…/repo@path/in/repo`
        (Some(_), Some((d, f))) if !f.contains('@') => (d.to_string(), f.to_string()),
        // `…/archive.tgz@path/in/archive`: a file inside an archive go-getter unpacks.
        (None, Some((d, f))) if !f.contains('@') && unpack::archive_kind(d, &query).is_some() => {
            (d.trim_start_matches('/').to_string(), f.to_string())
        }
        _ => dir_and_file(&path),
    };
    Some(Source {
        getter: getter.unwrap_or("normal").to_string(),
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
    pub(crate) fn is_archive(&self) -> bool {
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

/// `url.Values.Encode()` of a raw query, `&` replaced by `_` (the cache key's suffix):
/// names and values decoded then escaped as Go's `QueryEscape` does (so no `/` reaches
/// the path), `sshkey` redacted, and the value of any secret-looking parameter (a token,
/// a signature, a password…) replaced by a digest of it, so no secret is written into a
/// directory name while different secrets still get different cache entries.
fn params_key(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let k = String::from_utf8_lossy(&percent_decode(&k.replace('+', " "))).into_owned();
            let v = String::from_utf8_lossy(&percent_decode(&v.replace('+', " "))).into_owned();
            let v = if k == "sshkey" {
                "redacted".to_string()
            } else if is_secret_name(&k) {
                use sha2::Digest;
                let d = sha2::Sha256::digest(v.as_bytes());
                let hex: String = d[..8].iter().map(|b| format!("{b:02x}")).collect();
                format!("sha256-{hex}")
            } else {
                v
            };
            (query_escape(&k), query_escape(&v))
        })
        .collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("_")
}

/// Whether a query parameter's name says its value is a credential.
fn is_secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "token",
        "secret",
        "password",
        "passwd",
        "pass",
        "pwd",
        "key",
        "sig",
        "auth",
        "credential",
        "session",
        "code",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Go's `url.QueryEscape`.
fn query_escape(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            b' ' => "+".to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Reads an environment variable.
pub type EnvReader = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Fetches remote files into the cache.
pub struct Fetcher {
    /// The cache directory (helmfile's `~/.cache/helmfile`).
    pub home: PathBuf,
    /// The environment variables the getters read (credentials, `AWS_*`).
    pub env: EnvReader,
}

impl Fetcher {
    /// Where `src` is cached, and the file inside.
    pub fn cache_path(&self, src: &Source) -> (PathBuf, PathBuf) {
        if src.getter == "normal" && !src.is_archive() {
            let mut key = key_of(&format!("{}://{}", src.scheme, src.host));
            // The same path with another query (another token, another version) is
            // another file.
            if !src.query.is_empty() {
                key = format!("{key}.{}", params_key(&src.query));
            }
            let dir = join_inside(&self.home.join(key), &src.dir);
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

    /// The local path of a remote file, fetching it unless cached. The file must be
    /// inside what was fetched once symlinks are followed: a link in a cloned
    /// repository or an unpacked archive (`values.yaml -> ~/.kube/config`) is refused.
    pub fn fetch(&self, raw: &str) -> Result<PathBuf, FetchError> {
        let file = self.fetch_unchecked(raw)?;
        let src =
            parse(raw).ok_or_else(|| FetchError(format!("{} is not a remote URL", redact(raw))))?;
        let (dir, _) = self.cache_path(&src);
        let root = if src.getter == "normal" && !src.is_archive() {
            // A plain download: the file itself is what was fetched.
            file.parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| dir.clone())
        } else {
            dir
        };
        let (Ok(real_root), Ok(real_file)) = (root.canonicalize(), file.canonicalize()) else {
            return Err(FetchError(format!(
                "{}: the fetched file cannot be resolved",
                redact(raw)
            )));
        };
        if !real_file.starts_with(&real_root) {
            return Err(FetchError(format!(
                "{}: {:?} resolves outside what was fetched (a symbolic link); refused",
                redact(raw),
                src.file
            )));
        }
        Ok(file)
    }

    fn fetch_unchecked(&self, raw: &str) -> Result<PathBuf, FetchError> {
        let src =
            parse(raw).ok_or_else(|| FetchError(format!("{} is not a remote URL", redact(raw))))?;
        let (dir, file) = self.cache_path(&src);
        let is_cached = || {
            if src.getter == "normal" && !src.is_archive() {
                file.is_file()
            } else {
                dir.is_dir()
            }
        };
        if is_cached() && !src.is_archive() {
            return Ok(file);
        }
        // One process fetches a cache entry at a time; the others then find it complete.
        let _lock = CacheLock::acquire(&dir)?;
        let cached = is_cached();
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
        let tmp = beside(dir, &format!("unpacking-{}", unpredictable_suffix()));
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
        let mut headers = Vec::new();
        let basic;
        if !user.is_empty() {
            use base64::Engine;
            let token = base64::engine::general_purpose::STANDARD.encode(percent_decode(user));
            basic = format!("Basic {token}");
            headers.push(("Authorization", basic.as_str()));
        }
        let resp = call(url, &headers).map_err(|e| {
            FetchError(format!("GET {}: {}", redact(shown), redact(&e.to_string())))
        })?;
        body(resp, &redact(shown))
    }

    fn http(&self, raw: &str, file: &Path) -> Result<(), FetchError> {
        let UrlParts {
            scheme,
            user,
            host,
            path,
            query,
        } = split_url(raw).ok_or_else(|| FetchError(format!("invalid URL {}", redact(raw))))?;
        let url = if query.is_empty() {
            format!("{scheme}://{host}{path}")
        } else {
            format!("{scheme}://{host}{path}?{query}")
        };
        let body = self.download(&url, &user, raw)?;
        write_private(file, &body)
    }

    /// go-getter's git getter: a clone (at `depth`) checked out at `ref`, made in a
    /// temporary directory beside `dir` and renamed to it, so the cache holds a whole
    /// checkout or nothing. `sshkey` (a base64 private key) goes to ssh through a private
    /// file named in `GIT_SSH_COMMAND`, never on a command line.
    fn git(&self, src: &Source, dir: &Path) -> Result<(), FetchError> {
        let mut reference = String::new();
        let mut depth = String::new();
        let mut sshkey = String::new();
        let mut rest_query = Vec::new();
        for p in src.query.split('&').filter(|p| !p.is_empty()) {
            match p.split_once('=') {
                Some(("ref", v)) => {
                    reference = String::from_utf8_lossy(&percent_decode(v)).into_owned()
                }
                Some(("depth", v)) => depth = v.to_string(),
                Some(("sshkey", v)) => {
                    sshkey = String::from_utf8_lossy(&percent_decode(v)).into_owned()
                }
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
        if reference.starts_with('-') || reference.chars().any(|c| c.is_control() || c == ' ') {
            return Err(FetchError(format!(
                "{}: invalid git ref {reference:?}",
                redact(&url)
            )));
        }
        if !depth.bytes().all(|b| b.is_ascii_digit()) {
            return Err(FetchError(format!(
                "{}: invalid git depth {depth:?}",
                redact(&url)
            )));
        }
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| FetchError(format!("mkdir {}: {e}", parent.display())))?;
        }
        let key = if sshkey.is_empty() {
            None
        } else {
            Some(SshKeyFile::write(dir, &sshkey)?)
        };
        let ssh_command = key.as_ref().map(|k| {
            let base = (self.env)("GIT_SSH_COMMAND")
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| "ssh".to_string());
            format!("{base} -i {}", k.0.display())
        });
        let tmp = beside(dir, &format!("cloning-{}", unpredictable_suffix()));
        let _ = std::fs::remove_dir_all(&tmp);
        let cloned = (|| {
            let mut clone = Command::new("git");
            clone.arg("clone").arg("--quiet");
            if !depth.is_empty() {
                clone.args(["--depth", &depth]);
            }
            clone.arg("--").arg(&url).arg(&tmp);
            if let Some(c) = &ssh_command {
                clone.env("GIT_SSH_COMMAND", c);
            }
            run_git(clone, &url)?;
            if !reference.is_empty() {
                let mut co = Command::new("git");
                // `--end-of-options`: the ref is never read as an option.
                co.arg("-C").arg(&tmp).args([
                    "checkout",
                    "--quiet",
                    "--end-of-options",
                    &reference,
                ]);
                run_git(co, &url)?;
            }
            std::fs::rename(&tmp, dir)
                .map_err(|e| FetchError(format!("rename {}: {e}", dir.display())))
        })();
        if cloned.is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
        cloned
    }
}

/// A private file holding a `sshkey=` private key while git runs; removed when dropped
/// (and by [`remove_private_files`] on a signal).
struct SshKeyFile(PathBuf);

impl SshKeyFile {
    fn write(next_to: &Path, encoded: &str) -> Result<SshKeyFile, FetchError> {
        use base64::Engine;
        let engines = [
            base64::engine::general_purpose::STANDARD,
            base64::engine::general_purpose::URL_SAFE,
        ];
        let key = engines
            .iter()
            .find_map(|e| e.decode(encoded.trim()).ok())
            .ok_or_else(|| FetchError("sshkey: not base64-encoded".into()))?;
        let path = beside(next_to, &format!("sshkey-{}", unpredictable_suffix()));
        register_private(&path);
        write_private(&path, &key).inspect_err(|_| forget_private(&path))?;
        Ok(SshKeyFile(path))
    }
}

impl Drop for SshKeyFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        forget_private(&self.0);
    }
}

/// `path` with `.suffix` added to its last component (never replacing what follows a
/// dot already there: cache keys such as `repo_git.ref=v1` hold dots).
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(suffix);
    path.with_file_name(name)
}

/// A suffix for temporary names no other process can guess (64 random bits from the
/// operating system), so no one can create the name first to make a write fail or to
/// steer it. Every temporary file or directory is also made exclusively (never an
/// existing one reused).
pub fn unpredictable_suffix() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::getrandom(&mut bytes).is_err() {
        // No randomness source: the standard library's per-process random hash keys.
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        bytes = h.finish().to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Files holding secrets while a fetch runs.
static PRIVATE_FILES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn register_private(p: &Path) {
    if let Ok(mut v) = PRIVATE_FILES.lock() {
        v.push(p.to_path_buf());
    }
}

fn forget_private(p: &Path) {
    if let Ok(mut v) = PRIVATE_FILES.lock() {
        v.retain(|f| f != p);
    }
}

/// Removes every file holding a secret for a running fetch (for signal handlers).
pub fn remove_private_files() {
    if let Ok(mut v) = PRIVATE_FILES.lock() {
        for f in v.drain(..) {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// An exclusive lock on a cache entry (`ENTRY.lock` beside it), held while it is
/// fetched: concurrent runs wait, then find the entry complete.
struct CacheLock(#[allow(dead_code)] std::fs::File);

impl CacheLock {
    fn acquire(entry: &Path) -> Result<CacheLock, FetchError> {
        let parent = entry.parent().unwrap_or(entry);
        std::fs::create_dir_all(parent)
            .map_err(|e| FetchError(format!("mkdir {}: {e}", parent.display())))?;
        let path = beside(entry, "lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| FetchError(format!("locking {}: {e}", path.display())))?;
        file.lock()
            .map_err(|e| FetchError(format!("locking {}: {e}", path.display())))?;
        Ok(CacheLock(file))
    }
}

/// The HTTP agent for every download: a stalled server fails the run instead of
/// hanging it (30 s to connect, 120 s without data), and a server trickling bytes meets
/// an overall deadline per download: [`DEFAULT_DEADLINE_SECS`], or
/// `CAPSTAN_FETCH_TIMEOUT` seconds. Redirects are followed by [`call`], not by ureq.
fn agent() -> &'static (ureq::Agent, std::time::Duration) {
    static AGENT: std::sync::LazyLock<(ureq::Agent, std::time::Duration)> =
        std::sync::LazyLock::new(|| {
            let deadline = std::env::var("CAPSTAN_FETCH_TIMEOUT")
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .filter(|&s| s > 0)
                .unwrap_or(DEFAULT_DEADLINE_SECS);
            let agent = ureq::AgentBuilder::new()
                .timeout_connect(std::time::Duration::from_secs(30.min(deadline)))
                .timeout_read(std::time::Duration::from_secs(120.min(deadline)))
                .redirects(0)
                .build();
            (agent, std::time::Duration::from_secs(deadline))
        });
    &AGENT
}

/// How many redirects one GET follows (Go's http client: 10).
const MAX_REDIRECTS: usize = 10;

/// Why a GET brought no 2xx response.
pub(crate) enum CallError {
    /// The server answered with this status (4xx, 5xx).
    Status(u16, Box<ureq::Response>),
    /// No answer: a transport error, the deadline, a refused redirect.
    Other(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Status(code, r) => write!(f, "status code {code} {}", r.status_text()),
            CallError::Other(e) => f.write_str(e),
        }
    }
}

/// A GET of `url` with `headers`, following redirects as Go's client does: at most
/// [`MAX_REDIRECTS`], only to `http`/`https` URLs (a `file:`, `data:` or other target
/// is an error), credentials dropped when the redirect leaves the host, and the whole
/// chain within the download deadline.
pub(crate) fn call(url: &str, headers: &[(&str, &str)]) -> Result<ureq::Response, CallError> {
    let (agent, deadline) = agent();
    let started = std::time::Instant::now();
    let origin = url::Url::parse(url).map_err(|e| CallError::Other(format!("invalid URL: {e}")))?;
    let mut current = origin.clone();
    for _ in 0..=MAX_REDIRECTS {
        let remaining = deadline
            .checked_sub(started.elapsed())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| CallError::Other(format!("timed out after {} s", deadline.as_secs())))?;
        let same_host = current.origin() == origin.origin();
        let mut req = agent.get(current.as_str()).timeout(remaining);
        for (k, v) in headers {
            let private = ["authorization", "cookie", "x-amz-security-token"]
                .contains(&k.to_ascii_lowercase().as_str());
            if same_host || !private {
                req = req.set(k, v);
            }
        }
        let resp = match req.call() {
            Ok(r) => r,
            Err(ureq::Error::Status(code, r)) => return Err(CallError::Status(code, Box::new(r))),
            Err(e) => return Err(CallError::Other(e.to_string())),
        };
        let status = resp.status();
        if (200..300).contains(&status) {
            return Ok(resp);
        }
        // Only a redirect with somewhere to go is followed; any other answer (a 300, a
        // 304, a 3xx without `Location`, a 1xx) is no file, as in Go's clients.
        let location = match (status, resp.header("Location")) {
            (301 | 302 | 303 | 307 | 308, Some(l)) => l.to_string(),
            _ => return Err(CallError::Status(status, Box::new(resp))),
        };
        let next = current
            .join(&location)
            .map_err(|e| CallError::Other(format!("invalid redirect location: {e}")))?;
        if !matches!(next.scheme(), "http" | "https") {
            return Err(CallError::Other(format!(
                "redirect to a {:?} URL refused: only http and https redirects are followed",
                next.scheme()
            )));
        }
        current = next;
    }
    Err(CallError::Other(format!(
        "stopped after {MAX_REDIRECTS} redirects"
    )))
}

/// The longest one download may take, from connecting to the last byte.
pub const DEFAULT_DEADLINE_SECS: u64 = 600;

/// The most any download may bring (a chart archive is at most 100 MiB decompressed
/// for helm; values files are far smaller).
pub const MAX_DOWNLOAD: u64 = 256 * 1024 * 1024;

/// A response body, up to [`MAX_DOWNLOAD`] bytes (an error beyond, not a full memory).
pub(crate) fn body(resp: ureq::Response, shown: &str) -> Result<Vec<u8>, FetchError> {
    capstan_source::read_capped(resp.into_reader(), MAX_DOWNLOAD)
        .map_err(|e| FetchError(format!("GET {shown}: {e}")))?
        .ok_or_else(|| {
            FetchError(format!(
                "GET {shown}: larger than {} MiB",
                MAX_DOWNLOAD >> 20
            ))
        })
}

/// A plain HTTP(S) GET (basic auth when `user`/`password` are given); the body, or an
/// error without credentials.
pub fn http_get(url: &str, user: &str, password: &str) -> Result<Vec<u8>, FetchError> {
    let mut headers = Vec::new();
    let basic;
    if !user.is_empty() || !password.is_empty() {
        use base64::Engine;
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        basic = format!("Basic {token}");
        headers.push(("Authorization", basic.as_str()));
    }
    let resp = call(url, &headers)
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

/// `%XX` escapes decoded (an invalid escape stays as it is, as Go's lenient readers do).
fn percent_decode(s: &str) -> Vec<u8> {
    percent_encoding::percent_decode_str(s).collect()
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
    let tmp = beside(file, &format!("capstan-partial-{}", unpredictable_suffix()));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
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

    /// Tokens under any key, in any spelling of a URL in a message, never show; the
    /// harmless keys still do.
    #[test]
    fn query_tokens_are_hidden_in_every_spelling() {
        let secret_keys = [
            "token",
            "access_token",
            "X-Amz-Signature",
            "sig",
            "password",
            "sshkey",
            "aws_access_key_secret",
            "private_token",
            "k",
        ];
        let prefixes = [
            "https://h.example/v.yaml",
            "git::https://h.example/r.git@f.yaml",
            "s3://b/k",
            "http://u:p@h:8/x",
        ];
        for prefix in prefixes {
            for key in secret_keys {
                for (before, after) in [
                    ("", ""),
                    ("ref=v1&", ""),
                    ("", "&depth=1"),
                    ("a=&", "#frag"),
                ] {
                    for quote in ["", "\"", "'", "`"] {
                        let url = format!("{prefix}?{before}{key}=S3CR3T-{key}{after}");
                        let msg =
                            format!("fetching {quote}{url}{quote}: failed: 404\nnext line {url}");
                        let shown = redact(&msg);
                        assert!(!shown.contains("S3CR3T"), "{msg} -> {shown}");
                        assert!(shown.contains(&format!("{key}=REDACTED")), "{shown}");
                        if before.starts_with("ref") {
                            assert!(shown.contains("ref=v1"), "{shown}");
                        }
                        if after.contains("depth") {
                            assert!(shown.contains("depth=1"), "{shown}");
                        }
                    }
                }
            }
        }
    }

    /// Every control character but newline and tab is shown as an escape, never sent.
    #[test]
    fn control_characters_never_reach_the_terminal() {
        for c in (0u32..0x20).chain(0x7f..0xa0).filter_map(char::from_u32) {
            let text = format!("remote: a{c}[2J{c}]0;title\u{7}b\r\nline\tx");
            let shown = neutralize_controls(&text);
            assert!(
                !shown
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "{c:?}: {shown:?}"
            );
            assert!(shown.contains("line\tx"), "{shown:?}");
            let err = FetchError(text.clone()).to_string();
            assert_eq!(err, shown);
        }
    }

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

    /// Issue 28: what Go's `url.Parse` refuses in a user part or host is no remote
    /// source (helmfile then reads it as a local path), so no reader can take another
    /// host from it; origins are compared as the request's parser reads them.
    #[test]
    fn urls_whose_host_could_be_read_two_ways_are_refused() {
        for sep in [
            "\\", "\t", "\n", " ", "<", ">", "\"", "^", "|", "`", "{", "}",
        ] {
            let raw = format!("https://good.example{sep}@evil.example/v.yaml");
            assert!(parse(&raw).is_none(), "{raw:?} parsed");
            let raw = format!("https://evil.example{sep}/v.yaml");
            assert!(parse(&raw).is_none(), "{raw:?} parsed");
        }
        let cut = parse("https://good.example#@evil.example/v.yaml").unwrap();
        assert_eq!(cut.host, "good.example");
        let last_at = parse("https://a@b@host.example/v.yaml").unwrap();
        assert_eq!(
            (last_at.user.as_str(), last_at.host.as_str()),
            ("a@b", "host.example")
        );
        assert!(same_origin("http://A.example/x", "HTTP://a.example:80/y"));
        assert!(!same_origin("http://a.example/x", "https://a.example/x"));
        assert!(!same_origin("http://a.example:1/x", "http://a.example:2/x"));
        assert!(!same_origin(
            "http://b.example\\@a.example/x",
            "http://a.example/"
        ));
        assert!(!same_origin("not a url", "not a url"));
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
        // A second URL starting inside what the first took for its host (fuzzing).
        assert_eq!(
            redact("a://u:p1@xzz:://v:p2@h/"),
            "a://u:REDACTED@xzz:://v:REDACTED@h/"
        );
        assert_eq!(
            redact("x://a:b@c://d:e@f"),
            "x://a:REDACTED@c://d:REDACTED@f"
        );
    }
}
