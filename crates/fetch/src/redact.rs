//! Credentials kept out of text: URL passwords, tokens in query strings and terminal
//! control characters hidden from every message ([`redact`], [`neutralize_controls`]),
//! and whether two URLs share an origin ([`same_origin`]: credentials go only to their
//! own host).

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
    "ref",
    "depth",
    "archive",
    "checksum",
    "filename",
    "region",
    "version",
    "subdir",
    "format",
    // vals' settings of a secret store (not its credentials: `secret_id`, `role_id`).
    "mode",
    "recursive",
    "address",
    "host",
    "proto",
    "namespace",
    "auth_method",
    "profile",
    "token_env",
    "token_file",
    "version_stage",
    "version_id",
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
        // The authority ends where a URL parser ends it (a path, query or fragment),
        // so the host shown is the host a request would go to.
        let end = s[start..]
            .find([
                '/', '?', '#', '\\', ' ', '\t', '"', '\'', '`', '<', '>', '\n',
            ])
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
pub(crate) struct UrlParts {
    pub(crate) scheme: String,
    pub(crate) user: String,
    pub(crate) host: String,
    pub(crate) path: String,
    pub(crate) query: String,
}

pub(crate) fn split_url(u: &str) -> Option<UrlParts> {
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

/// The longest text of one reference or URL a message shows: a longer one is cut
/// (after [`redact`]) and says how long it was, so a hostile reference cannot make an
/// error megabytes long.
pub const SHOWN_REFERENCE_MAX: usize = 512;

/// `s` as a message shows it: [`redact`]ed, control characters neutralised, and cut to
/// [`SHOWN_REFERENCE_MAX`] bytes (on a character boundary) with its length.
pub fn shown(s: &str) -> String {
    let safe = neutralize_controls(&redact(s));
    if safe.len() <= SHOWN_REFERENCE_MAX {
        return safe;
    }
    let mut cut = SHOWN_REFERENCE_MAX;
    while !safe.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…({} bytes)", &safe[..cut], s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_shown_is_the_host_requested() {
        for (url, host) in [
            ("https://good.example#@evil.example/x", "good.example"),
            ("https://good.example?@evil.example/x", "good.example"),
            ("https://good.example\\@evil.example/x", "good.example"),
            ("https://u:pw@good.example#@evil.example", "good.example"),
        ] {
            let shown = redact(url);
            assert!(
                shown.starts_with(&format!(
                    "https://{}",
                    if url.contains("u:pw") {
                        "u:REDACTED@good.example"
                    } else {
                        host
                    }
                )),
                "{url} -> {shown}"
            );
            assert!(!shown.contains("pw@"), "{shown}");
        }
    }

    #[test]
    fn long_references_are_cut() {
        let long = format!("ref+vault://secret/{}?token=abc#/k", "a".repeat(300_000));
        let s = shown(&long);
        assert!(s.len() < SHOWN_REFERENCE_MAX + 40, "{}", s.len());
        assert!(s.ends_with("bytes)") && !s.contains("abc"));
        let multibyte = "é".repeat(1000);
        assert!(shown(&multibyte).len() < SHOWN_REFERENCE_MAX + 40);
        assert_eq!(shown("https://u:p@h/x"), "https://u:REDACTED@h/x");
    }
}
