//! Go's `regexp` package over the `regex` crate: RE2's ASCII-only Perl classes
//! (`\d \w \s`), `regexp/syntax`'s error texts, `MustCompile`'s panic text and
//! `Regexp.Split`.

use regex::Regex;
use std::fmt;

/// Compiled patterns, shared by all renders (Go compiles on each call; compiling is the
/// expensive part here, so patterns are cached, up to a bound).
static CACHE: std::sync::OnceLock<
    std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<Regex>>>,
> = std::sync::OnceLock::new();
const CACHE_LIMIT: usize = 512;

/// Compiles a Go (RE2) pattern, from the cache when it was seen before.
pub fn compile(pat: &str) -> Result<std::sync::Arc<Regex>, RegexpError> {
    let cache = CACHE.get_or_init(Default::default);
    if let Some(re) = cache.lock().ok().and_then(|c| c.get(pat).cloned()) {
        return Ok(re);
    }
    let re = std::sync::Arc::new(compile_uncached(pat)?);
    if let Ok(mut c) = cache.lock() {
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(pat.to_string(), re.clone());
    }
    Ok(re)
}

/// Compiles a Go (RE2) pattern: the Perl classes are ASCII-only in Go.
fn compile_uncached(pat: &str) -> Result<Regex, RegexpError> {
    let translated = pat
        .replace("\\d", "[0-9]")
        .replace("\\D", "[^0-9]")
        .replace("\\w", "[0-9A-Za-z_]")
        .replace("\\W", "[^0-9A-Za-z_]")
        .replace("\\s", "[\\t\\n\\f\\r ]")
        .replace("\\S", "[^\\t\\n\\f\\r ]");
    Regex::new(&translated).map_err(|e| {
        go_syntax_error(pat).unwrap_or_else(|| RegexpError {
            code: e
                .to_string()
                .lines()
                .last()
                .unwrap_or("invalid")
                .to_string(),
            expr: None,
        })
    })
}

/// A pattern Go's `regexp` refuses: `regexp/syntax`'s error code and the offending part
/// of the pattern; `Display` is Go's `error parsing regexp: CODE: `EXPR``.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexpError {
    /// The RE2 error code as Go names it (`missing closing )`).
    pub code: String,
    /// The offending text (`None` when only the code is known).
    pub expr: Option<String>,
}

impl fmt::Display for RegexpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error parsing regexp: {}", self.code)?;
        if let Some(expr) = &self.expr {
            write!(f, ": `{expr}`")?;
        }
        Ok(())
    }
}

impl std::error::Error for RegexpError {}

impl RegexpError {
    /// The panic text of Go's `regexp.MustCompile(pattern)` failing with this error.
    pub fn must_compile_text(&self, pattern: &str) -> String {
        let can_backquote =
            !pattern.contains('`') && pattern.chars().all(|c| c == '\t' || !c.is_control());
        let q = if can_backquote {
            format!("`{pattern}`")
        } else {
            crate::quote::go_quote(pattern)
        };
        format!("regexp: Compile({q}): {self}")
    }
}

/// Go's `regexp/syntax` error text for a pattern that does not parse:
/// `error parsing regexp: CODE: `EXPR``.
fn go_syntax_error(pat: &str) -> Option<RegexpError> {
    use regex_syntax::ast::ErrorKind as K;
    let err = regex_syntax::ast::parse::Parser::new().parse(pat).err()?;
    let span = err.span();
    let at = |a: usize, b: usize| pat.get(a..b).unwrap_or("").to_string();
    let (code, expr) = match err.kind() {
        K::ClassUnclosed => ("missing closing ]", at(span.start.offset, pat.len())),
        K::GroupUnclosed => ("missing closing )", pat.to_string()),
        K::GroupUnopened => ("unexpected )", pat.to_string()),
        K::RepetitionCountInvalid | K::RepetitionCountDecimalEmpty | K::RepetitionCountUnclosed => {
            (
                "invalid repeat count",
                at(span.start.offset, span.end.offset),
            )
        }
        K::RepetitionMissing => (
            "missing argument to repetition operator",
            at(span.start.offset, (span.start.offset + 1).min(pat.len())),
        ),
        K::EscapeUnexpectedEof => ("trailing backslash at end of expression", String::new()),
        K::EscapeUnrecognized => (
            "invalid escape sequence",
            at(span.start.offset, span.end.offset),
        ),
        K::ClassRangeInvalid => (
            "invalid character class range",
            at(span.start.offset, span.end.offset),
        ),
        K::GroupNameUnexpectedEof
        | K::UnsupportedLookAround
        | K::FlagUnrecognized
        | K::GroupNameInvalid => {
            let from = pat[..span.start.offset.min(pat.len())]
                .rfind("(?")
                .unwrap_or(0);
            (
                "invalid or unsupported Perl syntax",
                at(from, (span.start.offset + 1).min(pat.len())),
            )
        }
        _ => return None,
    };
    Some(RegexpError {
        code: code.to_string(),
        expr: Some(expr),
    })
}

/// Go's `Regexp.Split`.
pub fn split(re: &Regex, s: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if re.as_str().is_empty() && !s.is_empty() {
        let chars: Vec<String> = s.chars().map(String::from).collect();
        if n > 0 && chars.len() as i64 > n {
            let mut head = chars[..n as usize - 1].to_vec();
            head.push(chars[n as usize - 1..].concat());
            return head;
        }
        return chars;
    }
    let mut out = Vec::new();
    let (mut beg, mut end) = (0, 0);
    for m in re.find_iter(s) {
        if n > 0 && out.len() as i64 == n - 1 {
            break;
        }
        end = m.start();
        if m.end() != 0 {
            out.push(s[beg..end].to_string());
        }
        beg = m.end();
    }
    if end != s.len() {
        out.push(s[beg..].to_string());
    }
    out
}
