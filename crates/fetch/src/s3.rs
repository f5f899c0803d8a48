//! S3 GetObject with AWS Signature Version 4: credentials from `AWS_ACCESS_KEY_ID` /
//! `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` or the shared credentials file
//! (`AWS_PROFILE`, default `default`), region from `AWS_REGION` / `AWS_DEFAULT_REGION`
//! or the bucket's location, endpoint from `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`
//! (path-style) or AWS's virtual-hosted style.

use crate::{FetchError, Source};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use std::path::Path;

type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

struct Creds {
    key: String,
    secret: String,
    token: Option<String>,
}

fn credentials(env: Env) -> Result<Creds, FetchError> {
    if let (Some(key), Some(secret)) = (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        return Ok(Creds {
            key,
            secret,
            token: env("AWS_SESSION_TOKEN"),
        });
    }
    let file = env("AWS_SHARED_CREDENTIALS_FILE")
        .or_else(|| env("HOME").map(|h| format!("{h}/.aws/credentials")))
        .ok_or_else(|| {
            FetchError("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY".into())
        })?;
    let profile = env("AWS_PROFILE").unwrap_or_else(|| "default".into());
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

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
    m.update(data.as_bytes());
    m.finalize().into_bytes().to_vec()
}

fn uri_encode(s: &str, slash: bool) -> String {
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

/// A signed GET of `path` (already encoded) on `endpoint` (`scheme://host`).
fn signed_get(
    env: Env,
    endpoint: &str,
    path: &str,
    query: &str,
    region: &str,
) -> Result<Vec<u8>, FetchError> {
    let creds = credentials(env)?;
    let host = endpoint
        .split_once("://")
        .map(|(_, h)| h)
        .unwrap_or(endpoint)
        .trim_end_matches('/');
    let date = amz_date();
    let day = &date[..8];
    let payload = hex(&Sha256::digest(b""));
    let mut headers = vec![
        ("host".to_string(), host.to_string()),
        ("x-amz-content-sha256".to_string(), payload.clone()),
        ("x-amz-date".to_string(), date.clone()),
    ];
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
        "GET\n{path}\n{query}\n{canonical_headers}\n{}\n{payload}",
        signed.join(";")
    );
    let scope = format!("{day}/{region}/s3/aws4_request");
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{date}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let k = hmac(format!("AWS4{}", creds.secret).as_bytes(), day);
    let k = hmac(&k, region);
    let k = hmac(&k, "s3");
    let k = hmac(&k, "aws4_request");
    let signature = hex(&hmac(&k, &to_sign));
    let auth = format!(
        "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={}, Signature={signature}",
        creds.key,
        signed.join(";")
    );
    let url = if query.is_empty() {
        format!("{}{path}", endpoint.trim_end_matches('/'))
    } else {
        format!("{}{path}?{query}", endpoint.trim_end_matches('/'))
    };
    let mut headers = vec![
        ("Authorization", auth.as_str()),
        ("x-amz-content-sha256", payload.as_str()),
        ("x-amz-date", date.as_str()),
    ];
    if let Some(t) = &creds.token {
        headers.push(("x-amz-security-token", t.as_str()));
    }
    let resp = crate::call(&url, &headers).map_err(|e| match e {
        crate::CallError::Status(code, r) => {
            let body = r.into_string().unwrap_or_default();
            let msg = body
                .split("<Message>")
                .nth(1)
                .and_then(|m| m.split("</Message>").next())
                .unwrap_or("")
                .to_string();
            FetchError(format!("S3 GET {url}: status {code} {msg}"))
        }
        other => FetchError(format!("S3 GET {url}: {other}")),
    })?;
    crate::body(resp, &format!("S3 {url}"))
}

fn endpoint_override(env: Env) -> Option<String> {
    env("AWS_ENDPOINT_URL_S3")
        .or_else(|| env("AWS_ENDPOINT_URL"))
        .filter(|e| !e.is_empty())
}

/// The region of a bucket (`AWS_REGION`, else its location constraint).
fn region(env: Env, endpoint: &str, bucket: &str, path_style: bool) -> String {
    if let Some(r) = env("AWS_REGION").or_else(|| env("AWS_DEFAULT_REGION")) {
        return r;
    }
    let path = if path_style {
        format!("/{}", uri_encode(bucket, true))
    } else {
        "/".into()
    };
    match signed_get(env, endpoint, &path, "location=", "us-east-1") {
        Ok(body) => {
            let text = String::from_utf8_lossy(&body);
            let loc = text
                .split("<LocationConstraint")
                .nth(1)
                .and_then(|r| r.split_once('>'))
                .and_then(|(_, r)| r.split("</LocationConstraint>").next())
                .unwrap_or("")
                .trim()
                .to_string();
            if loc.is_empty() {
                "us-east-1".into()
            } else {
                loc
            }
        }
        Err(_) => "us-east-1".into(),
    }
}

/// `s3://bucket/key`.
pub(crate) fn get_s3_url(env: Env, bucket: &str, key: &str, file: &Path) -> Result<(), FetchError> {
    let body = get_object(env, bucket, key)?;
    crate::write_private(file, &body)
}

/// The object `key` of `bucket` (`s3://bucket/key`).
pub(crate) fn get_object(env: Env, bucket: &str, key: &str) -> Result<Vec<u8>, FetchError> {
    let (endpoint, path_style) = match endpoint_override(env) {
        Some(e) => (e, true),
        None => (format!("https://{bucket}.s3.amazonaws.com"), false),
    };
    let region = region(env, &endpoint, bucket, path_style);
    let endpoint = if path_style || region == "us-east-1" {
        endpoint
    } else {
        format!("https://{bucket}.s3.{region}.amazonaws.com")
    };
    let path = if path_style {
        format!("/{}/{}", uri_encode(bucket, true), uri_encode(key, false))
    } else {
        format!("/{}", uri_encode(key, false))
    };
    signed_get(env, &endpoint, &path, "", &region)
}

/// Where a go-getter S3 URL (`s3::https://…`) points.
#[derive(Debug, PartialEq, Eq)]
struct GetterLocation {
    /// `scheme://host` the request goes to.
    endpoint: String,
    /// Whether the bucket is the path's first segment (else it is in the host).
    path_style: bool,
    bucket: String,
    key: String,
    /// `None`: ask the bucket.
    region: Option<String>,
    version: Option<String>,
}

fn query_param(query: &str, name: &str) -> Option<String> {
    query
        .split('&')
        .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
        .map(|v| String::from_utf8_lossy(&crate::percent_decode(v)).into_owned())
        .filter(|v| !v.is_empty())
}

/// go-getter's reading of an S3 URL: on `amazonaws.com`, the path-style hosts
/// `s3.amazonaws.com`/`s3-REGION.amazonaws.com` (bucket first in the path) and the
/// virtual-hosted `BUCKET.s3-REGION.amazonaws.com` and `BUCKET.s3.REGION.amazonaws.com`;
/// elsewhere (an S3-compatible server), path-style with `?region=` (default us-east-1).
fn getter_location(
    scheme: &str,
    host: &str,
    path: &str,
    query: &str,
) -> Result<GetterLocation, FetchError> {
    let invalid = || FetchError(format!("s3::{scheme}://{host}{path} is not a valid S3 URL"));
    let path = path.trim_start_matches('/');
    let version = query_param(query, "version");
    let path_style = |region: Option<String>| -> Result<GetterLocation, FetchError> {
        let (bucket, key) = path.split_once('/').ok_or_else(invalid)?;
        if bucket.is_empty() || key.is_empty() {
            return Err(invalid());
        }
        Ok(GetterLocation {
            endpoint: format!("{scheme}://{host}"),
            path_style: true,
            bucket: bucket.to_string(),
            key: key.to_string(),
            region,
            version: version.clone(),
        })
    };
    if !host.contains("amazonaws.com") {
        return path_style(Some(
            query_param(query, "region").unwrap_or_else(|| "us-east-1".into()),
        ));
    }
    let parts: Vec<&str> = host.split('.').collect();
    let strip_s3 = |p: &str| -> String {
        let p = p.strip_prefix("s3-").unwrap_or(p);
        p.strip_prefix("s3").unwrap_or(p).to_string()
    };
    let (bucket, region) = match parts.len() {
        3 => {
            let region = strip_s3(parts[0]);
            let region = if region.is_empty() {
                "us-east-1".to_string()
            } else {
                region
            };
            return path_style(Some(region));
        }
        4 => {
            let region = strip_s3(parts[1]);
            if region.is_empty() {
                return Err(invalid());
            }
            (parts[0], region)
        }
        5 => (parts[0], parts[2].to_string()),
        _ => return Err(invalid()),
    };
    if bucket.is_empty() || path.is_empty() {
        return Err(invalid());
    }
    Ok(GetterLocation {
        endpoint: format!("{scheme}://{host}"),
        path_style: false,
        bucket: bucket.to_string(),
        key: path.to_string(),
        region: Some(region),
        version,
    })
}

/// The object a go-getter S3 URL names (`s3::https://host/bucket/key`,
/// `s3::https://bucket.s3.region.amazonaws.com/key`; `?region=` and `?version=`
/// honoured).
pub(crate) fn get_getter_object(
    env: Env,
    scheme: &str,
    host: &str,
    path: &str,
    query: &str,
) -> Result<Vec<u8>, FetchError> {
    let loc = getter_location(scheme, host, path, query)?;
    let region = match &loc.region {
        Some(r) => r.clone(),
        None => region(env, &loc.endpoint, &loc.bucket, loc.path_style),
    };
    let path = if loc.path_style {
        format!(
            "/{}/{}",
            uri_encode(&loc.bucket, true),
            uri_encode(&loc.key, false)
        )
    } else {
        format!("/{}", uri_encode(&loc.key, false))
    };
    let query = match &loc.version {
        Some(v) => format!("versionId={}", uri_encode(v, true)),
        None => String::new(),
    };
    signed_get(env, &loc.endpoint, &path, &query, &region)
}

/// `s3::https://host/bucket/key`, written to `file`.
pub(crate) fn get_s3_getter_url(env: Env, src: &Source, file: &Path) -> Result<(), FetchError> {
    let path = format!("{}/{}", src.dir.trim_start_matches('/'), src.file);
    let body = get_getter_object(env, &src.scheme, &src.host, &path, &src.query)?;
    crate::write_private(file, &body)
}

#[cfg(test)]
mod location_tests {
    use super::*;

    fn loc(host: &str, path: &str, query: &str) -> (String, bool, String, String, Option<String>) {
        let l = getter_location("https", host, path, query).unwrap();
        (l.endpoint, l.path_style, l.bucket, l.key, l.region)
    }

    #[test]
    fn aws_hosts_as_go_getter_reads_them() {
        assert_eq!(
            loc("s3.amazonaws.com", "/b/dir/v.yaml", ""),
            (
                "https://s3.amazonaws.com".into(),
                true,
                "b".into(),
                "dir/v.yaml".into(),
                Some("us-east-1".into())
            )
        );
        assert_eq!(
            loc("s3-eu-west-1.amazonaws.com", "/b/v.yaml", "").4,
            Some("eu-west-1".into())
        );
        assert_eq!(
            loc("b.s3-eu-west-1.amazonaws.com", "/dir/v.yaml", ""),
            (
                "https://b.s3-eu-west-1.amazonaws.com".into(),
                false,
                "b".into(),
                "dir/v.yaml".into(),
                Some("eu-west-1".into())
            )
        );
        assert_eq!(
            loc("b.s3.eu-central-1.amazonaws.com", "/v.tgz", ""),
            (
                "https://b.s3.eu-central-1.amazonaws.com".into(),
                false,
                "b".into(),
                "v.tgz".into(),
                Some("eu-central-1".into())
            )
        );
        assert!(getter_location("https", "b.s3.amazonaws.com", "/v", "").is_err());
        assert!(getter_location("https", "a.b.c.d.e.amazonaws.com", "/v", "").is_err());
    }

    #[test]
    fn other_servers_are_path_style_with_a_region_parameter() {
        assert_eq!(
            loc(
                "127.0.0.1:9000",
                "/b/k/v.yaml",
                "region=eu-west-2&version=3"
            ),
            (
                "https://127.0.0.1:9000".into(),
                true,
                "b".into(),
                "k/v.yaml".into(),
                Some("eu-west-2".into())
            )
        );
        assert_eq!(loc("minio:9000", "/b/v", "").4, Some("us-east-1".into()));
        assert!(getter_location("https", "minio", "/only-bucket", "").is_err());
        let v = getter_location("https", "minio", "/b/v", "version=abc").unwrap();
        assert_eq!(v.version.as_deref(), Some("abc"));
    }
}
