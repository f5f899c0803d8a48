//! helmfile's remote source syntax ([`parse`] into a [`Source`]) and where each source
//! lives in the cache ([`cache_dir`], the keys of its directories).

use crate::private::percent_decode;
use crate::redact::{split_url, UrlParts};
use crate::unpack;
use std::path::{Path, PathBuf};

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
pub(crate) fn join_inside(dir: &Path, file: &str) -> PathBuf {
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

pub(crate) fn key_of(s: &str) -> String {
    s.replace(':', "")
        .replace("//", "_")
        .replace(['/', '.'], "_")
}

/// `url.Values.Encode()` of a raw query, `&` replaced by `_` (the cache key's suffix):
/// names and values decoded then escaped as Go's `QueryEscape` does (so no `/` reaches
/// the path), `sshkey` redacted, and the value of any secret-looking parameter (a token,
/// a signature, a password…) replaced by a digest of it, so no secret is written into a
/// directory name while different secrets still get different cache entries.
pub(crate) fn params_key(query: &str) -> String {
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
                let hex: String = capstan_gocompat::hex::encode(&d[..8]);
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
