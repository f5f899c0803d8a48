//! S3 GetObject with AWS Signature Version 4: credentials from `AWS_ACCESS_KEY_ID` /
//! `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` or the shared credentials file
//! (`AWS_PROFILE`, default `default`), region from `AWS_REGION` / `AWS_DEFAULT_REGION`
//! or the bucket's location, endpoint from `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`
//! (path-style) or AWS's virtual-hosted style.

use crate::aws::{self, uri_encode, Env};
use crate::{FetchError, Source};
use std::path::Path;

/// A signed GET of `path` (already encoded) on `endpoint` (`scheme://host`).
fn signed_get(
    env: Env,
    endpoint: &str,
    path: &str,
    query: &str,
    region: &str,
) -> Result<Vec<u8>, FetchError> {
    let creds = aws::credentials(env, None)?;
    let req = aws::Request {
        method: "GET",
        endpoint,
        path,
        query,
        headers: Vec::new(),
        body: b"",
        region,
        service: "s3",
    };
    let headers = aws::signed_headers(&req, &creds);
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let url = if query.is_empty() {
        format!("{}{path}", endpoint.trim_end_matches('/'))
    } else {
        format!("{}{path}?{query}", endpoint.trim_end_matches('/'))
    };
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
