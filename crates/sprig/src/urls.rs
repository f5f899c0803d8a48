//! `urlParse` and `urlJoin` over Go's `net/url` rules (the parts sprig exposes).

use crate::convert::s;
use crate::reg;
use capstan_gotmpl::{FuncMap, FuncResult, Ty};
use capstan_value::{Str, Value};
use std::collections::BTreeMap;

struct Url {
    scheme: String,
    opaque: String,
    userinfo: String,
    host: String,
    path: String,
    query: String,
    fragment: String,
}

/// Go's `url.Parse` for the common shapes; errors carry Go's text.
fn parse(raw: &str) -> FuncResult<Url> {
    let err = |msg: &str| -> capstan_gotmpl::FuncError {
        format!("parse {}: {msg}", capstan_gocompat::quote::go_quote(raw)).into()
    };
    let (rest, fragment) = match raw.split_once('#') {
        Some((r, f)) => (r, f.to_string()),
        None => (raw, String::new()),
    };
    // Scheme: letters first, then letters, digits, + - .; ended by ':'.
    let mut scheme = String::new();
    let mut body = rest;
    for (i, c) in rest.char_indices() {
        if c.is_ascii_alphabetic()
            || (i > 0 && (c.is_ascii_digit() || matches!(c, '+' | '-' | '.')))
        {
            continue;
        }
        if c == ':' {
            if i == 0 {
                return Err(err("missing protocol scheme"));
            }
            scheme = rest[..i].to_lowercase();
            body = &rest[i + 1..];
        }
        break;
    }
    let (body, query) = match body.split_once('?') {
        Some((b, q)) => (b, q.to_string()),
        None => (body, String::new()),
    };
    let mut u = Url {
        scheme,
        opaque: String::new(),
        userinfo: String::new(),
        host: String::new(),
        path: String::new(),
        query,
        fragment,
    };
    if !u.scheme.is_empty() && !body.starts_with('/') {
        u.opaque = body.to_string();
        return Ok(u);
    }
    if let Some(after) = body.strip_prefix("//") {
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        let (userinfo, host) = match authority.rfind('@') {
            Some(i) => (&authority[..i], &authority[i + 1..]),
            None => ("", authority),
        };
        u.userinfo = userinfo.to_string();
        u.host = host.to_string();
        u.path = path.to_string();
    } else {
        u.path = body.to_string();
    }
    Ok(u)
}

fn hostname(host: &str) -> String {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("").to_string();
    }
    host.rsplit_once(':')
        .map_or(host, |(h, port)| {
            if port.bytes().all(|c| c.is_ascii_digit()) {
                h
            } else {
                host
            }
        })
        .to_string()
}

/// Go's `url.PathEscape`-like escaping of a path for `URL.String()`.
fn escape_path(p: &str) -> String {
    let mut out = String::new();
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~/$&+,;=:@!*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn register(m: &mut FuncMap) {
    reg(m, "urlParse", &[Ty::String], |a| {
        let u = parse(&s(&a[0])).map_err(|e| format!("unable to parse url: {e}"))?;
        let mut d: BTreeMap<Str, Value> = BTreeMap::new();
        for (k, v) in [
            ("scheme", u.scheme.clone()),
            ("host", u.host.clone()),
            ("hostname", hostname(&u.host)),
            ("path", u.path.clone()),
            ("query", u.query.clone()),
            ("opaque", u.opaque.clone()),
            ("fragment", u.fragment.clone()),
            ("userinfo", u.userinfo.clone()),
        ] {
            d.insert(Str::from(k), Value::from(v));
        }
        Ok(Value::map_from(d))
    });
    reg(m, "urlJoin", &[Ty::Map], |a| {
        let get = |k: &str| {
            a[0].get(k)
                .map(|v| crate::convert::strval(&v))
                .unwrap_or_default()
        };
        let mut out = String::new();
        let scheme = get("scheme");
        if !scheme.is_empty() {
            out.push_str(&scheme);
            out.push(':');
        }
        let opaque = get("opaque");
        if !opaque.is_empty() {
            out.push_str(&opaque);
        } else {
            let host = get("host");
            let userinfo = get("userinfo");
            if !scheme.is_empty() || !host.is_empty() || !userinfo.is_empty() {
                if !host.is_empty() || !get("path").is_empty() || !userinfo.is_empty() {
                    out.push_str("//");
                }
                if !userinfo.is_empty() {
                    out.push_str(&userinfo);
                    out.push('@');
                }
                out.push_str(&host);
            }
            let path = get("path");
            if !path.is_empty() && !path.starts_with('/') && !host.is_empty() {
                out.push('/');
            }
            out.push_str(&escape_path(&path));
        }
        let query = get("query");
        if !query.is_empty() {
            out.push('?');
            out.push_str(&query);
        }
        let fragment = get("fragment");
        if !fragment.is_empty() {
            out.push('#');
            out.push_str(&fragment);
        }
        Ok(Value::from(out))
    });
}
