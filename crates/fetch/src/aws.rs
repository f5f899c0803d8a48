//! What every AWS call shares: credentials (`AWS_ACCESS_KEY_ID` /
//! `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`, else the shared credentials file's
//! profile: `AWS_PROFILE` or the one a reference names, default `default`), Signature
//! Version 4, and the JSON-protocol calls of SSM Parameter Store and Secrets Manager
//! (endpoint `AWS_ENDPOINT_URL_<SERVICE>` / `AWS_ENDPOINT_URL`, else AWS's regional
//! one). A signed request goes to its endpoint only: redirects are not followed, and
//! no error carries a credential.

use crate::FetchError;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

pub(crate) struct Creds {
    key: String,
    secret: String,
    token: Option<String>,
}

/// The credentials of the environment, or of `profile` (else `AWS_PROFILE`, else
/// `default`) in the shared credentials file.
pub(crate) fn credentials(env: Env, profile: Option<&str>) -> Result<Creds, FetchError> {
    if profile.is_none() {
        if let (Some(key), Some(secret)) = (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"))
        {
            return Ok(Creds {
                key,
                secret,
                token: env("AWS_SESSION_TOKEN"),
            });
        }
    }
    let file = env("AWS_SHARED_CREDENTIALS_FILE")
        .or_else(|| env("HOME").map(|h| format!("{h}/.aws/credentials")))
        .ok_or_else(|| {
            FetchError("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY".into())
        })?;
    let profile = profile
        .map(str::to_string)
        .or_else(|| env("AWS_PROFILE"))
        .unwrap_or_else(|| "default".into());
    let text = std::fs::read_to_string(&file)
        .map_err(|_| FetchError("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or write ~/.aws/credentials".into()))?;
    let mut section = String::new();
    let (mut key, mut secret, mut token) = (None, None, None);
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.trim().to_string();
            continue;
        }
        if section != profile {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            let v = v.trim().to_string();
            match k.trim() {
                "aws_access_key_id" => key = Some(v),
                "aws_secret_access_key" => secret = Some(v),
                "aws_session_token" => token = Some(v),
                _ => {}
            }
        }
    }
    match (key, secret) {
        (Some(key), Some(secret)) => Ok(Creds { key, secret, token }),
        _ => Err(FetchError(format!(
            "no AWS credentials in profile {profile:?}"
        ))),
    }
}

pub(crate) fn hex(b: &[u8]) -> String {
    capstan_gocompat::hex::encode(b)
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
    m.update(data.as_bytes());
    m.finalize().into_bytes().to_vec()
}

/// SigV4's URI encoding (`/` kept unless `slash`).
pub(crate) fn uri_encode(s: &str, slash: bool) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b'/' if !slash => out.push('/'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `YYYYMMDDTHHMMSSZ` now.
fn amz_date() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let days = now.div_euclid(86400);
    let secs = now.rem_euclid(86400);
    let (y, m, d) = capstan_gocompat::time::civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// One request to sign: `path` and `query` already encoded, `headers` beyond the ones
/// signing adds (lower-case names).
pub(crate) struct Request<'a> {
    pub method: &'a str,
    /// `scheme://host[:port]`.
    pub endpoint: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub headers: Vec<(String, String)>,
    pub body: &'a [u8],
    pub region: &'a str,
    pub service: &'a str,
}

/// The headers that sign `req` with `creds` (its own headers included).
pub(crate) fn signed_headers(req: &Request, creds: &Creds) -> Vec<(String, String)> {
    let host = req
        .endpoint
        .split_once("://")
        .map(|(_, h)| h)
        .unwrap_or(req.endpoint)
        .trim_end_matches('/');
    let date = amz_date();
    let day = &date[..8];
    let payload = hex(&Sha256::digest(req.body));
    let mut headers = req.headers.clone();
    headers.push(("host".to_string(), host.to_string()));
    headers.push(("x-amz-content-sha256".to_string(), payload.clone()));
    headers.push(("x-amz-date".to_string(), date.clone()));
    if let Some(t) = &creds.token {
        headers.push(("x-amz-security-token".into(), t.clone()));
    }
    headers.sort();
    let signed: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
    let canonical_headers: String = headers
        .iter()
        .map(|(k, v)| format!("{k}:{}\n", v.trim()))
        .collect();
    let canonical = format!(
        "{}\n{}\n{}\n{canonical_headers}\n{}\n{payload}",
        req.method,
        req.path,
        req.query,
        signed.join(";")
    );
    let scope = format!("{day}/{}/{}/aws4_request", req.region, req.service);
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{date}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let k = hmac(format!("AWS4{}", creds.secret).as_bytes(), day);
    let k = hmac(&k, req.region);
    let k = hmac(&k, req.service);
    let k = hmac(&k, "aws4_request");
    let signature = hex(&hmac(&k, &to_sign));
    let auth = format!(
        "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={}, Signature={signature}",
        creds.key,
        signed.join(";")
    );
    let mut out: Vec<(String, String)> = headers.into_iter().filter(|(k, _)| k != "host").collect();
    out.push(("authorization".into(), auth));
    out
}

/// The endpoint of `service` (`ssm`, `secretsmanager`): `AWS_ENDPOINT_URL_SSM` and the
/// like, else `AWS_ENDPOINT_URL`, else `https://SERVICE.REGION.amazonaws.com`.
fn service_endpoint(env: Env, service: &str, region: &str) -> String {
    let specific = format!("AWS_ENDPOINT_URL_{}", service.to_ascii_uppercase());
    env(&specific)
        .or_else(|| env("AWS_ENDPOINT_URL"))
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| format!("https://{service}.{region}.amazonaws.com"))
}

/// A reference's AWS settings: `region=` and `profile=` (vals' query), else the
/// environment (`AWS_REGION`, `AWS_DEFAULT_REGION`).
#[derive(Debug, Default, Clone)]
pub struct AwsTarget {
    /// The region, when the reference names one.
    pub region: Option<String>,
    /// The shared credentials profile, when the reference names one.
    pub profile: Option<String>,
}

/// A JSON-protocol call (`X-Amz-Target: TARGET`) with `body`; the decoded answer, or
/// AWS's error as the Go SDK words it (`Code: message`).
pub(crate) fn json_call(
    env: Env,
    at: &AwsTarget,
    service: &str,
    target: &str,
    body: &serde_json::Value,
) -> Result<serde_json::Value, FetchError> {
    let region = at
        .region
        .clone()
        .or_else(|| env("AWS_REGION"))
        .or_else(|| env("AWS_DEFAULT_REGION"))
        .filter(|r| !r.is_empty())
        .ok_or_else(|| FetchError("MissingRegion: could not find region configuration".into()))?;
    let creds = credentials(env, at.profile.as_deref())?;
    let endpoint = service_endpoint(env, service, &region);
    let body = serde_json::to_vec(body).map_err(|e| FetchError(e.to_string()))?;
    let req = Request {
        method: "POST",
        endpoint: &endpoint,
        path: "/",
        query: "",
        headers: vec![
            ("content-type".into(), "application/x-amz-json-1.1".into()),
            ("x-amz-target".into(), target.into()),
        ],
        body: &body,
        region: &region,
        service,
    };
    let headers = signed_headers(&req, &creds);
    let url = format!("{}/", endpoint.trim_end_matches('/'));
    let (status, answer) = crate::http::send("POST", &url, &headers, &body)
        .map_err(|e| FetchError(crate::redact(&e)))?;
    let decoded: serde_json::Value = serde_json::from_slice(&answer).unwrap_or_default();
    if (200..300).contains(&status) {
        return Ok(decoded);
    }
    let code = decoded
        .get("__type")
        .and_then(|t| t.as_str())
        .map(|t| t.rsplit('#').next().unwrap_or(t).to_string())
        .unwrap_or_else(|| format!("status code {status}"));
    let message = decoded
        .get("message")
        .or_else(|| decoded.get("Message"))
        .and_then(|m| m.as_str())
        .unwrap_or("");
    Err(FetchError(format!("{code}: {message}")))
}

/// SSM `GetParameter` (decrypted): the parameter's value.
pub fn ssm_parameter(env: Env, at: &AwsTarget, name: &str) -> Result<String, FetchError> {
    let answer = json_call(
        env,
        at,
        "ssm",
        "AmazonSSM.GetParameter",
        &serde_json::json!({"Name": name, "WithDecryption": true}),
    )
    .map_err(|e| FetchError(format!("get parameter: {}", e.0)))?;
    answer
        .pointer("/Parameter/Value")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .ok_or_else(|| FetchError("datasource.ssm.Get() out.Parameter.Value is nil".into()))
}

/// SSM `GetParameterHistory` (decrypted): the value of `version`.
pub fn ssm_parameter_version(
    env: Env,
    at: &AwsTarget,
    name: &str,
    version: i64,
) -> Result<String, FetchError> {
    let mut next: Option<String> = None;
    loop {
        let mut body = serde_json::json!({"Name": name, "WithDecryption": true});
        if let Some(t) = &next {
            body["NextToken"] = serde_json::Value::from(t.as_str());
        }
        let answer = json_call(env, at, "ssm", "AmazonSSM.GetParameterHistory", &body)?;
        for p in answer
            .get("Parameters")
            .and_then(|p| p.as_array())
            .into_iter()
            .flatten()
        {
            if p.get("Version").and_then(|v| v.as_i64()) == Some(version) {
                if let Some(v) = p.get("Value").and_then(|v| v.as_str()) {
                    return Ok(v.to_string());
                }
            }
        }
        match answer.get("NextToken").and_then(|t| t.as_str()) {
            Some(t) if !t.is_empty() => next = Some(t.to_string()),
            _ => {
                return Err(FetchError(
                    "datasource.ssm.Get() out.Parameter.Value is nil".into(),
                ))
            }
        }
    }
}

/// SSM `GetParametersByPath` (decrypted, every page): names and values.
pub fn ssm_parameters_by_path(
    env: Env,
    at: &AwsTarget,
    path: &str,
    recursive: bool,
) -> Result<Vec<(String, String)>, FetchError> {
    let mut out = Vec::new();
    let mut next: Option<String> = None;
    loop {
        let mut body =
            serde_json::json!({"Path": path, "WithDecryption": true, "Recursive": recursive});
        if let Some(t) = &next {
            body["NextToken"] = serde_json::Value::from(t.as_str());
        }
        let answer = json_call(env, at, "ssm", "AmazonSSM.GetParametersByPath", &body)
            .map_err(|e| FetchError(format!("ssm: get parameters by path: {}", e.0)))?;
        for p in answer
            .get("Parameters")
            .and_then(|p| p.as_array())
            .into_iter()
            .flatten()
        {
            if let (Some(n), Some(v)) = (
                p.get("Name").and_then(|n| n.as_str()),
                p.get("Value").and_then(|v| v.as_str()),
            ) {
                out.push((n.to_string(), v.to_string()));
            }
        }
        match answer.get("NextToken").and_then(|t| t.as_str()) {
            Some(t) if !t.is_empty() => next = Some(t.to_string()),
            _ => return Ok(out),
        }
    }
}

/// Secrets Manager `GetSecretValue`: the secret's string (a binary secret's bytes as
/// text), optionally of a version stage or id.
pub fn secrets_manager_secret(
    env: Env,
    at: &AwsTarget,
    id: &str,
    version_stage: Option<&str>,
    version_id: Option<&str>,
) -> Result<String, FetchError> {
    let mut body = serde_json::json!({"SecretId": id});
    if let Some(s) = version_stage {
        body["VersionStage"] = serde_json::Value::from(s);
    }
    if let Some(v) = version_id {
        body["VersionId"] = serde_json::Value::from(v);
    }
    // vals words a Secrets Manager failure as it does an SSM one.
    let answer = json_call(
        env,
        at,
        "secretsmanager",
        "secretsmanager.GetSecretValue",
        &body,
    )
    .map_err(|e| FetchError(format!("get parameter: {}", e.0)))?;
    if let Some(s) = answer.get("SecretString").and_then(|s| s.as_str()) {
        return Ok(s.to_string());
    }
    if let Some(b) = answer.get("SecretBinary").and_then(|s| s.as_str()) {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| FetchError(format!("secret {id:?}: SecretBinary: {e}")))?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    Err(FetchError(format!("secret {id:?} has no value")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_covers_the_body_target_and_session_token() {
        let creds = Creds {
            key: "AKID".into(),
            secret: "SECRET".into(),
            token: Some("TOKEN".into()),
        };
        let req = |body: &'static [u8]| Request {
            method: "POST",
            endpoint: "http://127.0.0.1:5000",
            path: "/",
            query: "",
            headers: vec![("x-amz-target".into(), "AmazonSSM.GetParameter".into())],
            body,
            region: "eu-west-1",
            service: "ssm",
        };
        let a = signed_headers(&req(b"{}"), &creds);
        let b = signed_headers(&req(b"{\"Name\":\"x\"}"), &creds);
        let auth = |h: &[(String, String)]| {
            h.iter()
                .find(|(k, _)| k == "authorization")
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        assert!(auth(&a).starts_with("AWS4-HMAC-SHA256 Credential=AKID/"));
        assert!(auth(&a).contains("/eu-west-1/ssm/aws4_request"));
        assert!(auth(&a).contains(
            "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token;x-amz-target"
        ));
        assert!(!auth(&a).contains("SECRET"));
        assert_ne!(auth(&a), auth(&b));
        assert!(a.iter().all(|(k, _)| k != "host"));
    }
}
