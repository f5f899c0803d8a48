//! HashiCorp Vault (and OpenBao, which speaks its API) KV reads as vals makes them:
//! the address from the reference (`address=`, or `proto=` and `host=`) or
//! `VAULT_ADDR`; a token from `token_env=`, `token_file=`, `VAULT_TOKEN`,
//! `VAULT_TOKEN_FILE` or `~/.vault-token`, or from an AppRole login (`auth_method=approle`
//! or `VAULT_AUTH_METHOD`, with `role_id`/`secret_id` or `VAULT_ROLE_ID`/`VAULT_SECRET_ID`);
//! `namespace=` or `VAULT_NAMESPACE`. The mount's KV version is asked first
//! (`sys/internal/ui/mounts`), so that a KV v2 path gets its `data/` segment. Requests
//! are never redirected, and no error carries the token.

use crate::FetchError;
use serde_json::Value;

type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A reference's Vault settings (vals' query parameters).
#[derive(Debug, Default, Clone)]
pub struct VaultTarget {
    /// `address=`.
    pub address: Option<String>,
    /// `proto=` (default https) and `host=`.
    pub proto: Option<String>,
    /// `host=`.
    pub host: Option<String>,
    /// `namespace=`.
    pub namespace: Option<String>,
    /// `auth_method=`: `token` or `approle`.
    pub auth_method: Option<String>,
    /// `role_id=`.
    pub role_id: Option<String>,
    /// `secret_id=`.
    pub secret_id: Option<String>,
    /// `token_env=`: the variable holding the token.
    pub token_env: Option<String>,
    /// `token_file=`: the file holding the token.
    pub token_file: Option<String>,
    /// `version=`: a KV v2 version.
    pub version: Option<String>,
}

/// An authenticated client of one Vault server.
struct Client {
    address: String,
    token: String,
    namespace: Option<String>,
}

/// Vault's API error text (`api.ResponseError`).
fn api_error(method: &str, url: &str, status: u16, body: &[u8]) -> FetchError {
    let errors: Vec<String> = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("errors").cloned())
        .and_then(|e| e.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|e| e.as_str().map(str::to_string))
        .collect();
    let listed = if errors.is_empty() {
        "\n\n* (no error text)".to_string()
    } else {
        errors
            .iter()
            .map(|e| format!("\n\n* {e}"))
            .collect::<String>()
    };
    FetchError(format!(
        "Error making API request.\n\nURL: {method} {}\nCode: {status}. Errors:{listed}",
        crate::shown(url)
    ))
}

impl Client {
    fn headers(&self) -> Vec<(String, String)> {
        let mut h = vec![("X-Vault-Request".to_string(), "true".to_string())];
        if !self.token.is_empty() {
            h.push(("X-Vault-Token".to_string(), self.token.clone()));
        }
        if let Some(ns) = &self.namespace {
            h.push(("X-Vault-Namespace".to_string(), ns.clone()));
        }
        h
    }

    fn url(&self, path: &str) -> String {
        format!(
            "{}/v1/{}",
            self.address.trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }

    /// A request; the status and the decoded body (`Null` when there is none).
    fn call(
        &self,
        method: &str,
        url: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Vec<u8>), FetchError> {
        let mut headers = self.headers();
        let bytes = match body {
            Some(b) => {
                headers.push(("Content-Type".into(), "application/json".into()));
                serde_json::to_vec(b).map_err(|e| FetchError(e.to_string()))?
            }
            None => Vec::new(),
        };
        crate::http::send(method, url, &headers, &bytes).map_err(|e| FetchError(crate::redact(&e)))
    }
}

fn read_token_file(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The authenticated client for `t`.
fn client(env: Env, t: &VaultTarget) -> Result<Client, FetchError> {
    let address = t
        .address
        .clone()
        .or_else(|| {
            t.host.as_ref().map(|h| {
                format!(
                    "{}://{h}",
                    t.proto.clone().unwrap_or_else(|| "https".into())
                )
            })
        })
        .or_else(|| env("VAULT_ADDR"))
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| "https://127.0.0.1:8200".into());
    let namespace = t
        .namespace
        .clone()
        .or_else(|| env("VAULT_NAMESPACE"))
        .filter(|n| !n.is_empty());
    let method = t
        .auth_method
        .clone()
        .or_else(|| env("VAULT_AUTH_METHOD").filter(|m| m == "approle"))
        .unwrap_or_else(|| "token".into());
    let mut c = Client {
        address,
        token: String::new(),
        namespace,
    };
    match method.as_str() {
        "approle" => {
            let role_id = t
                .role_id
                .clone()
                .or_else(|| env("VAULT_ROLE_ID"))
                .unwrap_or_default();
            let secret_id = t
                .secret_id
                .clone()
                .or_else(|| env("VAULT_SECRET_ID"))
                .unwrap_or_default();
            let mount = env("VAULT_LOGIN_MOUNT_POINT").unwrap_or_else(|| "approle".into());
            let url = c.url(&format!("auth/{}/login", mount.trim_matches('/')));
            let body = serde_json::json!({"role_id": role_id, "secret_id": secret_id});
            let (status, answer) = c.call("PUT", &url, Some(&body))?;
            if !(200..300).contains(&status) {
                return Err(api_error("PUT", &url, status, &answer));
            }
            let answer: Value = serde_json::from_slice(&answer).unwrap_or_default();
            c.token = answer
                .pointer("/auth/client_token")
                .and_then(|t| t.as_str())
                .map(str::to_string)
                .ok_or_else(|| FetchError("no auth info returned".into()))?;
        }
        "token" => {
            let mut token = env("VAULT_TOKEN").unwrap_or_default();
            if let Some(var) = &t.token_env {
                token = env(var).filter(|v| !v.is_empty()).ok_or_else(|| {
                    FetchError(format!(
                        "token_env configured to read vault token from envvar {var:?}, but it isn't set"
                    ))
                })?;
            }
            if let Some(file) = &t.token_file {
                token = read_token_file(file)
                    .ok_or_else(|| FetchError(format!("open {file}: no such file or directory")))?;
            }
            if token.is_empty() {
                let file = env("VAULT_TOKEN_FILE")
                    .or_else(|| env("HOME").map(|h| format!("{h}/.vault-token")));
                if let Some(t) = file.and_then(|f| read_token_file(&f)) {
                    token = t;
                }
            }
            c.token = token.trim().to_string();
        }
        other => {
            return Err(FetchError(format!(
            "vault auth_method {other:?} is not supported by capstan (supported: token, approle)"
        )))
        }
    }
    Ok(c)
}

/// `path.Join` of slash-separated parts (empty parts dropped, no trailing slash).
fn join(parts: &[&str]) -> String {
    parts
        .iter()
        .flat_map(|p| p.split('/'))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("/")
}

/// The secret at `path`: its data map (for KV v2, the data of its current or chosen
/// version).
pub fn vault_read(
    env: Env,
    t: &VaultTarget,
    path: &str,
) -> Result<serde_json::Map<String, Value>, FetchError> {
    let c =
        client(env, t).map_err(|e| FetchError(format!("Cannot create Vault Client: {}", e.0)))?;
    // Which KV version the mount is (a 404: an old server, version 1).
    let url = c.url(&format!("sys/internal/ui/mounts/{path}"));
    let (status, answer) = c.call("GET", &url, None)?;
    let (mount, v2) = match status {
        404 => (String::new(), false),
        200..=299 => {
            let v: Value = serde_json::from_slice(&answer).unwrap_or_default();
            let mount = v
                .pointer("/data/path")
                .and_then(|p| p.as_str())
                .unwrap_or("")
                .to_string();
            let version = v
                .pointer("/data/options/version")
                .and_then(|p| p.as_str())
                .unwrap_or("");
            (mount, version == "2")
        }
        _ => return Err(api_error("GET", &url, status, &answer)),
    };
    let key = if v2 {
        if path == mount || path == mount.trim_end_matches('/') {
            join(&[&mount, "data"])
        } else {
            join(&[
                &mount,
                "data",
                path.strip_prefix(mount.as_str()).unwrap_or(path),
            ])
        }
    } else {
        path.to_string()
    };
    let mut url = c.url(&key);
    if let Some(v) = &t.version {
        url.push_str(&format!("?version={}", crate::aws::uri_encode(v, true)));
    }
    let (status, answer) = c.call("GET", &url, None)?;
    if status == 404 {
        return Err(FetchError(format!("no secret found for path {key:?}")));
    }
    if !(200..300).contains(&status) {
        return Err(api_error("GET", &url, status, &answer));
    }
    let v: Value =
        serde_json::from_slice(&answer).map_err(|e| FetchError(format!("GET {url}: {e}")))?;
    let data = v.get("data").and_then(|d| d.as_object()).cloned();
    let Some(mut data) = data else {
        return Err(FetchError(format!("no secret found for path {key:?}")));
    };
    if v2 {
        if let Some(inner) = data.get("data").and_then(|d| d.as_object()) {
            data = inner.clone();
        }
    }
    Ok(data)
}
