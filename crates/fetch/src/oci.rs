//! Helm charts from OCI registries, pulled natively as `helm pull oci://…` does: the
//! registry's distribution API (`/v2/<name>/tags/list`, `/manifests/<tag>`,
//! `/blobs/<digest>`), the bearer-token and basic authentication challenges, the
//! credentials `helm registry login` stores (`registry/config.json`), and the chart
//! layer (`application/vnd.cncf.helm.chart.content.v1.tar+gzip`) checked against its
//! sha256 digest. `localhost`/loopback registries are tried over HTTPS, then plain HTTP.

use crate::{redact, FetchError};
use base64::Engine;
use capstan_value::json::from_json;
use capstan_value::Value;
use sha2::{Digest, Sha256};

const CHART_LAYER: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";
const LEGACY_CHART_LAYER: &str = "application/tar+gzip";
const MANIFEST_TYPES: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

/// The scheme that answered for each registry in this run.
static SCHEMES: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashMap<String, &'static str>>,
> = std::sync::LazyLock::new(Default::default);

/// `host[:port]/path/name` split into the registry and the repository inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// `host[:port]`.
    pub registry: String,
    /// The repository path inside the registry.
    pub repository: String,
}

impl Reference {
    /// Parses `oci://host/path` or `host/path` (no tag: helm takes it from `version`).
    pub fn parse(text: &str) -> Result<Reference, FetchError> {
        let rest = text
            .strip_prefix("oci://")
            .unwrap_or(text)
            .trim_end_matches('/');
        let invalid = || {
            FetchError(format!(
                "invalid OCI reference {:?}: want oci://HOST[:PORT]/PATH",
                redact(text)
            ))
        };
        let (registry, repository) = rest.split_once('/').ok_or_else(invalid)?;
        if repository.is_empty() || registry_url(registry).is_none() {
            return Err(invalid());
        }
        Ok(Reference {
            registry: registry.to_string(),
            repository: repository.to_string(),
        })
    }

    /// The chart's name (the repository's last segment).
    pub fn name(&self) -> &str {
        self.repository
            .rsplit('/')
            .next()
            .unwrap_or(&self.repository)
    }

    /// Whether the registry is this machine (`localhost`, a loopback address), tried
    /// over plain HTTP when HTTPS fails, as helm does.
    fn loopback(&self) -> bool {
        match registry_url(&self.registry)
            .as_ref()
            .and_then(url::Url::host)
        {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(a)) => a.is_loopback(),
            Some(url::Host::Ipv6(a)) => a.is_loopback(),
            None => false,
        }
    }
}

/// `https://REGISTRY/` parsed, when `registry` is a plain `host[:port]` the URL parser
/// reads back whole: no user part, path, query or character it would read otherwise,
/// so every request goes to the host the reference names.
fn registry_url(registry: &str) -> Option<url::Url> {
    let plain = !registry.is_empty()
        && registry
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | ':' | '[' | ']'));
    if !plain {
        return None;
    }
    let url = url::Url::parse(&format!("https://{registry}/")).ok()?;
    let host = url.host_str()?;
    let read_back = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let whole = url.username().is_empty()
        && url.password().is_none()
        && (read_back.eq_ignore_ascii_case(registry)
            || registry
                .strip_suffix(":443")
                .is_some_and(|r| r.eq_ignore_ascii_case(host)));
    whole.then_some(url)
}

/// A pulled chart: the manifest's digest (`Digest:` in helm's output) and the archive.
pub struct Pulled {
    /// The manifest's digest (`sha256:…`).
    pub digest: String,
    /// The chart archive (`.tgz`).
    pub archive: Vec<u8>,
}

/// What a pull needs from outside: credentials and the plain-HTTP switch.
pub struct Client<'a> {
    /// `username`/`password` given in the helmfile for this registry, if any.
    pub username: String,
    /// The password that goes with `username`.
    pub password: String,
    /// Plain HTTP only (helm's `--plain-http`).
    pub plain_http: bool,
    /// Environment lookup (for the registry config file).
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

struct Response {
    status: u16,
    challenge: String,
    digest: String,
    body: Vec<u8>,
}

impl Client<'_> {
    /// The tags of a repository (`helm` lists them to resolve a version range).
    pub fn tags(&self, r: &Reference) -> Result<Vec<String>, FetchError> {
        let body = self
            .get(
                r,
                &format!("/v2/{}/tags/list", r.repository),
                "application/json",
            )?
            .body;
        let v = parse_json(&body, r)?;
        Ok(match v.get("tags") {
            Some(Value::List(l)) => l
                .items
                .iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        })
    }

    /// Pulls the chart tagged `tag` (helm's `+` in versions becomes `_` in tags).
    pub fn pull(&self, r: &Reference, tag: &str) -> Result<Pulled, FetchError> {
        let tag = tag.replace('+', "_");
        let resp = self.get(
            r,
            &format!("/v2/{}/manifests/{tag}", r.repository),
            MANIFEST_TYPES,
        )?;
        let digest = if resp.digest.is_empty() {
            sha256_of(&resp.body)
        } else {
            resp.digest.clone()
        };
        let manifest = parse_json(&resp.body, r)?;
        let layers = match manifest.get("layers") {
            Some(Value::List(l)) => l.items.clone(),
            _ => Vec::new(),
        };
        let layer = layers
            .iter()
            .find(|l| {
                matches!(
                    l.get("mediaType")
                        .and_then(|m| m.as_str().map(String::from))
                        .as_deref(),
                    Some(CHART_LAYER | LEGACY_CHART_LAYER)
                )
            })
            .ok_or_else(|| {
                FetchError(format!(
                    "{}/{}:{tag}: the manifest has no helm chart layer",
                    r.registry, r.repository
                ))
            })?;
        let blob = layer
            .get("digest")
            .and_then(|d| d.as_str().map(String::from))
            .unwrap_or_default();
        let data = self
            .get(r, &format!("/v2/{}/blobs/{blob}", r.repository), "*/*")?
            .body;
        if blob.strip_prefix("sha256:").is_some() && sha256_of(&data) != blob {
            return Err(FetchError(format!(
                "{}/{}:{tag}: chart layer digest mismatch (manifest says {blob}, download is {})",
                r.registry,
                r.repository,
                sha256_of(&data)
            )));
        }
        Ok(Pulled {
            digest,
            archive: data,
        })
    }

    fn get(&self, r: &Reference, path: &str, accept: &str) -> Result<Response, FetchError> {
        let known = SCHEMES
            .lock()
            .ok()
            .and_then(|m| m.get(&r.registry).copied());
        let schemes: &[&'static str] = match known {
            Some("http") => &["http"],
            Some(_) => &["https"],
            None if self.plain_http => &["http"],
            None if r.loopback() => &["https", "http"],
            None => &["https"],
        };
        let mut last = None;
        for scheme in schemes {
            let url = format!("{scheme}://{}{path}", r.registry);
            // Only a failed connection (not an HTTP status) moves on to the next scheme.
            let first = match request(&url, accept, None) {
                Ok(resp) => resp,
                Err(e) => {
                    last = Some(e);
                    continue;
                }
            };
            match self.authorized(r, &url, accept, first) {
                Ok(resp) => {
                    if let Ok(mut m) = SCHEMES.lock() {
                        m.insert(r.registry.clone(), scheme);
                    }
                    return Ok(resp);
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| FetchError("no scheme".into())))
    }

    fn authorized(
        &self,
        r: &Reference,
        url: &str,
        accept: &str,
        first: Response,
    ) -> Result<Response, FetchError> {
        let resp = if first.status == 401 {
            let auth = self.answer(r, &first.challenge)?;
            request(url, accept, Some(&auth))?
        } else {
            first
        };
        if !(200..300).contains(&resp.status) {
            return Err(FetchError(format!(
                "GET {}: {} {}",
                redact(url),
                resp.status,
                String::from_utf8_lossy(&resp.body[..resp.body.len().min(300)]).trim()
            )));
        }
        Ok(resp)
    }

    /// The `Authorization` header answering a `WWW-Authenticate` challenge.
    fn answer(&self, r: &Reference, challenge: &str) -> Result<String, FetchError> {
        let creds = self.credentials(r);
        let basic = |(u, p): &(String, String)| {
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"))
            )
        };
        let (kind, params) = challenge.split_once(' ').unwrap_or((challenge, ""));
        if kind.eq_ignore_ascii_case("basic") {
            return creds.as_ref().map(basic).ok_or_else(|| {
                FetchError(format!(
                    "{}: basic credentials required (helm registry login)",
                    r.registry
                ))
            });
        }
        if !kind.eq_ignore_ascii_case("bearer") {
            return Err(FetchError(format!(
                "{}: unsupported authentication scheme {kind:?}",
                r.registry
            )));
        }
        let params = challenge_params(params);
        let param = |k: &str| {
            params
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(k))
                .map(|(_, v)| v.clone())
        };
        let realm = param("realm")
            .ok_or_else(|| FetchError(format!("{}: bearer challenge without realm", r.registry)))?;
        let mut query = Vec::new();
        if let Some(service) = param("service") {
            query.push(format!("service={}", query_escape(&service)));
        }
        let scope = param("scope").unwrap_or_else(|| format!("repository:{}:pull", r.repository));
        query.push(format!("scope={}", query_escape(&scope)));
        let token_url = format!(
            "{realm}{}{}",
            if realm.contains('?') { '&' } else { '?' },
            query.join("&")
        );
        let auth = creds.as_ref().map(basic);
        let resp = request(&token_url, "application/json", auth.as_deref())?;
        if !(200..300).contains(&resp.status) {
            return Err(FetchError(format!(
                "{}: token request failed: {}",
                r.registry, resp.status
            )));
        }
        let v = parse_json(&resp.body, r)?;
        let token = ["token", "access_token"]
            .iter()
            .find_map(|k| v.get(k).and_then(|t| t.as_str().map(String::from)))
            .ok_or_else(|| {
                FetchError(format!("{}: the token response has no token", r.registry))
            })?;
        Ok(format!("Bearer {token}"))
    }

    /// Credentials from the helmfile, else from helm's registry config
    /// (`HELM_REGISTRY_CONFIG`, else `$XDG_CONFIG_HOME/helm/registry/config.json`,
    /// else `~/.config/helm/registry/config.json`), else docker's `config.json`.
    fn credentials(&self, r: &Reference) -> Option<(String, String)> {
        if !self.username.is_empty() || !self.password.is_empty() {
            return Some((self.username.clone(), self.password.clone()));
        }
        let env = self.env;
        let home = env("HOME").unwrap_or_default();
        let config_home = env("XDG_CONFIG_HOME").unwrap_or_else(|| format!("{home}/.config"));
        let files = [
            env("HELM_REGISTRY_CONFIG")
                .unwrap_or_else(|| format!("{config_home}/helm/registry/config.json")),
            env("DOCKER_CONFIG").map_or_else(
                || format!("{home}/.docker/config.json"),
                |d| format!("{d}/config.json"),
            ),
        ];
        files.iter().find_map(|f| {
            let v = from_json(&std::fs::read_to_string(f).ok()?).ok()?;
            let auths = v.get("auths")?;
            let entry = [
                r.registry.clone(),
                format!("https://{}", r.registry),
                format!("http://{}", r.registry),
            ]
            .iter()
            .find_map(|k| auths.get(k))?;
            let auth = entry.get("auth")?.as_str()?.to_string();
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(auth.trim())
                .ok()?;
            let text = String::from_utf8(decoded).ok()?;
            let (u, p) = text.split_once(':')?;
            Some((u.to_string(), p.to_string()))
        })
    }
}

fn request(url: &str, accept: &str, auth: Option<&str>) -> Result<Response, FetchError> {
    let mut headers = vec![("Accept", accept), ("User-Agent", "Helm/4 (capstan)")];
    if let Some(a) = auth {
        headers.push(("Authorization", a));
    }
    let resp = match crate::call(url, &headers) {
        Ok(r) => r,
        Err(crate::CallError::Status(_, r)) => *r,
        Err(e) => {
            return Err(FetchError(format!(
                "GET {}: {}",
                redact(url),
                redact(&e.to_string())
            )))
        }
    };
    let status = resp.status();
    let challenge = resp.header("WWW-Authenticate").unwrap_or("").to_string();
    let digest = resp
        .header("Docker-Content-Digest")
        .unwrap_or("")
        .to_string();
    let body = crate::body(resp, &redact(url))?;
    Ok(Response {
        status,
        challenge,
        digest,
        body,
    })
}

fn parse_json(body: &[u8], r: &Reference) -> Result<Value, FetchError> {
    from_json(&String::from_utf8_lossy(body)).map_err(|e| {
        FetchError(format!(
            "{}/{}: bad registry response: {e}",
            r.registry, r.repository
        ))
    })
}

fn sha256_of(data: &[u8]) -> String {
    let hex: String = capstan_gocompat::hex::encode(&Sha256::digest(data));
    format!("sha256:{hex}")
}

/// `realm="…",service="…",scope="…"` as (name, value) pairs.
fn challenge_params(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = s.trim();
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].trim().trim_start_matches(',').trim().to_string();
        let after = &rest[eq + 1..];
        let (value, next) = if let Some(q) = after.strip_prefix('"') {
            let end = q.find('"').unwrap_or(q.len());
            (q[..end].to_string(), q.get(end + 1..).unwrap_or(""))
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_string(), &after[end..])
        };
        out.push((name, value));
        rest = next.trim_start_matches(',').trim();
    }
    out
}

fn query_escape(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_challenges() {
        let r = Reference::parse("oci://localhost:5000/myrepo/raw").unwrap();
        assert_eq!(
            (r.registry.as_str(), r.repository.as_str(), r.name()),
            ("localhost:5000", "myrepo/raw", "raw")
        );
        assert!(r.loopback());
        assert!(!Reference::parse("ghcr.io/org/chart").unwrap().loopback());
        assert!(Reference::parse("oci://nohost").is_err());
        let p = challenge_params(
            r#"realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull""#,
        );
        assert_eq!(p[0], ("realm".into(), "https://auth.example/token".into()));
        assert_eq!(p[2], ("scope".into(), "repository:a/b:pull".into()));
        assert_eq!(
            query_escape("repository:a/b:pull"),
            "repository%3Aa%2Fb%3Apull"
        );
    }

    /// Issue 28: the registry is a plain `host[:port]` (anything else would send the
    /// requests, and the plain-HTTP fallback, somewhere else), and loopback is decided by
    /// the parsed address, not by the text's first characters.
    #[test]
    fn registries_are_plain_hosts_and_loopback_is_parsed() {
        for bad in [
            "oci://127.0.0.1:5000@evil.example/c",
            "oci://127.0.0.1:5000\\@evil.example/c",
            "oci://localhost#@evil.example/c",
            "oci://localhost?x@evil.example/c",
            "oci://u:p@registry.example/c",
            "oci://127.0.0.1:5000\t/c",
            "oci://reg istry/c",
            "oci:///c",
            "oci://host:99999/c",
        ] {
            assert!(Reference::parse(bad).is_err(), "{bad} accepted");
        }
        for (text, loopback) in [
            ("oci://localhost:5000/c", true),
            ("oci://LOCALHOST/c", true),
            ("oci://127.0.0.1/c", true),
            ("oci://127.8.9.10:5000/c", true),
            ("oci://[::1]:5000/c", true),
            ("oci://127.example.com/c", false),
            ("oci://127.0.0.1.nip.io/c", false),
            ("oci://localhost.evil.example/c", false),
            ("oci://ghcr.io/org/c", false),
        ] {
            let r = Reference::parse(text).unwrap_or_else(|e| panic!("{text}: {}", e.0));
            assert_eq!(r.loopback(), loopback, "{text}");
        }
    }
}
