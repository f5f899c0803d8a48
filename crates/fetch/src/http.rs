//! HTTP(S) GETs as helmfile's client makes them: one shared agent with a deadline,
//! redirects followed by hand (at most 10, credentials dropped across origins), errors
//! without credentials.

use crate::error::FetchError;
use crate::redact::redact;

/// The longest one download may take, from connecting to the last byte.
pub const DEFAULT_DEADLINE_SECS: u64 = 600;

/// The most any download may bring (a chart archive is at most 100 MiB decompressed
/// for helm; values files are far smaller).
pub const MAX_DOWNLOAD: u64 = 256 * 1024 * 1024;

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
                .resolver(|netloc: &str| crate::guard::resolve(netloc))
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

/// One request that is never redirected (a signed or token-bearing call to a secret
/// store: its credentials go to that server only), within the download deadline: the
/// status and body of any answer, an error only when there is none.
pub(crate) fn send(
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Result<(u16, Vec<u8>), String> {
    let (agent, deadline) = agent();
    let mut req = agent.request(method, url).timeout(*deadline);
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let resp = if body.is_empty() && method == "GET" {
        req.call()
    } else {
        req.send_bytes(body)
    };
    let resp = match resp {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        // Go's wording: `Get "URL": reason`.
        Err(e) => {
            let text = e.to_string();
            let reason = text.strip_prefix(&format!("{url}: ")).unwrap_or(&text);
            let mut verb = method.to_ascii_lowercase();
            if let Some(first) = verb.get_mut(0..1) {
                first.make_ascii_uppercase();
            }
            return Err(format!(
                "{verb} \"{}\": {}",
                crate::shown(url),
                crate::redact(reason)
            ));
        }
    };
    let status = resp.status();
    let bytes = capstan_source::read_capped(resp.into_reader(), MAX_DOWNLOAD)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("larger than {} MiB", MAX_DOWNLOAD >> 20))?;
    Ok((status, bytes))
}

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
