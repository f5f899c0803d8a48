//! Remote values files as helmfile fetches them (its `remote` package over go-getter):
//! `git::URL@PATH?ref=REF` (the real `git` binary), `http(s)://…` (with `user:pass@`),
//! `s3://bucket/key` and `s3::https://host/bucket/key` (the S3 API, signed with the usual
//! AWS credentials), into a cache laid out as helmfile's (`HELMFILE_CACHE_HOME`, else the
//! user cache directory's `helmfile`). A source whose directory part is an archive
//! (`https://host/path/values.tgz@env/prod.yaml`) is downloaded and unpacked, as go-getter
//! does, and the file after `@` is read from it. Credentials never appear in errors.
//!
//! Each part in its own module: the source syntax and cache keys (`source`), HTTP(S)
//! (`http`), S3 (`s3`), OCI registries (`oci`), archives (`unpack`), files that may hold
//! secrets (`private`), credentials kept out of text (`redact`); the fetcher itself (git,
//! the cache) is here.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

mod aws;
mod error;
pub mod guard;
mod http;
pub mod oci;
mod private;
mod redact;
mod s3;
mod source;
pub mod unpack;
mod vault;

pub use aws::{
    secrets_manager_secret, ssm_parameter, ssm_parameter_version, ssm_parameters_by_path, AwsTarget,
};
pub use error::FetchError;
pub(crate) use http::{body, call, CallError};
pub use http::{http_get, DEFAULT_DEADLINE_SECS, MAX_DOWNLOAD};
pub use private::percent_decode;
pub(crate) use private::{beside, write_private, CacheLock, SshKeyFile};
pub use private::{remove_private_files, unpredictable_suffix};
pub use redact::{neutralize_controls, redact, same_origin, shown, SHOWN_REFERENCE_MAX};
pub(crate) use redact::{split_url, UrlParts};
pub use source::{cache_dir, is_remote, parse, Source};
pub(crate) use source::{join_inside, key_of, params_key};
pub use vault::{vault_read, VaultTarget};

/// `raw` without its `cache` query parameter, and whether the cache may be used: helmfile
/// v1.7.4 (`pkg/remote/remote.go:236`) fetches a source whose `cache=false` again every
/// time and leaves the parameter out of the request and the cache key.
fn cache_param(raw: &str) -> (std::borrow::Cow<'_, str>, bool) {
    let Some(q) = raw.find('?') else {
        return (std::borrow::Cow::Borrowed(raw), true);
    };
    let (base, query) = (&raw[..q], &raw[q + 1..]);
    let mut use_cache = true;
    let mut kept: Vec<&str> = Vec::new();
    for pair in query.split('&') {
        match pair.split_once('=').unwrap_or((pair, "")) {
            ("cache", value) => use_cache &= value != "false",
            _ => kept.push(pair),
        }
    }
    if kept.len() == query.split('&').count() {
        return (std::borrow::Cow::Borrowed(raw), true);
    }
    let rebuilt = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (std::borrow::Cow::Owned(rebuilt), use_cache)
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
        let (raw, use_cache) = cache_param(raw);
        let raw = raw.as_ref();
        let file = self.fetch_unchecked(raw, use_cache)?;
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

    fn fetch_unchecked(&self, raw: &str, use_cache: bool) -> Result<PathBuf, FetchError> {
        let src =
            parse(raw).ok_or_else(|| FetchError(format!("{} is not a remote URL", redact(raw))))?;
        let (dir, file) = self.cache_path(&src);
        let plain = src.getter == "normal" && !src.is_archive();
        let is_cached = || if plain { file.is_file() } else { dir.is_dir() };
        if use_cache && is_cached() && !src.is_archive() {
            return Ok(file);
        }
        // One process fetches a cache entry at a time; the others then find it complete.
        let _lock = CacheLock::acquire(&dir)?;
        // `?cache=false`: what an earlier run fetched is fetched again.
        if !use_cache {
            let _ = if plain {
                std::fs::remove_file(&file)
            } else {
                std::fs::remove_dir_all(&dir)
            };
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `?cache=false` read and left out of the request (helmfile v1.7.4
    /// `pkg/remote/remote.go:236`).
    #[test]
    fn the_cache_parameter_is_read_and_left_out() {
        let cases = [
            ("https://h/v.yaml?cache=false", "https://h/v.yaml", false),
            (
                "https://h/v.yaml?a=1&cache=false&b=2",
                "https://h/v.yaml?a=1&b=2",
                false,
            ),
            (
                "git::https://h/r.git@v.yaml?ref=v1&cache=true",
                "git::https://h/r.git@v.yaml?ref=v1",
                true,
            ),
            ("https://h/v.yaml?ref=v1", "https://h/v.yaml?ref=v1", true),
            ("https://h/v.yaml", "https://h/v.yaml", true),
        ];
        for (raw, want, cache) in cases {
            let (got, use_cache) = super::cache_param(raw);
            assert_eq!((got.as_ref(), use_cache), (want, cache), "{raw}");
        }
    }

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
