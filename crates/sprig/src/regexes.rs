//! Regular-expression functions (`regexMatch`, `regexFind`, `regexFindAll`,
//! `regexReplaceAll`, `regexReplaceAllLiteral`, `regexSplit`, `regexQuoteMeta` and the
//! `must` forms) over the `regex` crate, with Go's RE2 reading of `\d \w \s` as ASCII and
//! Go's `$1`/`${name}` expansion.

use crate::convert::{s, string_list, to_i64};
use crate::reg;
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::Value;
use regex::Regex;

/// Compiled patterns, shared by all renders (Go compiles on each call; compiling is the
/// expensive part here, so patterns are cached, up to a bound).
static CACHE: std::sync::OnceLock<
    std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<Regex>>>,
> = std::sync::OnceLock::new();
const CACHE_LIMIT: usize = 512;

/// Compiles a Go (RE2) pattern, from the cache when it was seen before.
pub fn compile(pat: &str) -> Result<std::sync::Arc<Regex>, String> {
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
fn compile_uncached(pat: &str) -> Result<Regex, String> {
    let translated = pat
        .replace("\\d", "[0-9]")
        .replace("\\D", "[^0-9]")
        .replace("\\w", "[0-9A-Za-z_]")
        .replace("\\W", "[^0-9A-Za-z_]")
        .replace("\\s", "[\\t\\n\\f\\r ]")
        .replace("\\S", "[^\\t\\n\\f\\r ]");
    Regex::new(&translated).map_err(|e| {
        go_syntax_error(pat).unwrap_or_else(|| {
            format!(
                "error parsing regexp: {}",
                e.to_string().lines().last().unwrap_or("invalid")
            )
        })
    })
}

/// The panic text of Go's `regexp.MustCompile`.
fn must_compile_error(pat: &str, err: &str) -> String {
    let can_backquote = !pat.contains('`') && pat.chars().all(|c| c == '\t' || !c.is_control());
    let q = if can_backquote {
        format!("`{pat}`")
    } else {
        capstan_gocompat::json::go_quote(pat)
    };
    format!("regexp: Compile({q}): {err}")
}

/// Go's `regexp/syntax` error text for a pattern that does not parse:
/// `error parsing regexp: CODE: `EXPR``.
fn go_syntax_error(pat: &str) -> Option<String> {
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
    Some(format!("error parsing regexp: {code}: `{expr}`"))
}

/// Go's `Regexp.Expand` template syntax turned into the crate's (`$1x` means group `1x`).
fn go_template(repl: &str) -> String {
    // Both use `$name` / `${name}`; Go takes the longest name, like the crate.
    repl.to_string()
}

/// Go's `Regexp.Split`.
fn go_split(re: &Regex, s: &str, n: i64) -> Vec<String> {
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

fn n_limit(v: &Value) -> Option<usize> {
    let n = to_i64(v);
    if n < 0 {
        None
    } else {
        Some(n as usize)
    }
}

pub fn register(m: &mut FuncMap) {
    for must in [false, true] {
        let name = |n: &str| {
            if must {
                format!("mustR{}", &n[1..])
            } else {
                n.to_string()
            }
        };
        reg(
            m,
            &name("regexMatch"),
            &[Ty::String, Ty::String],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => Ok(Value::Bool(re.is_match(&s(&a[1])))),
                Err(e) if must => Err(e),
                Err(_) => Ok(Value::Bool(false)),
            },
        );
        reg(
            m,
            &name("regexFind"),
            &[Ty::String, Ty::String],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => Ok(Value::from(
                    re.find(&s(&a[1]))
                        .map(|x| x.as_str().to_string())
                        .unwrap_or_default(),
                )),
                Err(e) if must => Err(e),
                Err(e) => Err(must_compile_error(&s(&a[0]), &e)),
            },
        );
        reg(
            m,
            &name("regexFindAll"),
            &[Ty::String, Ty::String, Ty::Int],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => {
                    let text = s(&a[1]);
                    let all = re.find_iter(&text).map(|x| x.as_str().to_string());
                    let v: Vec<String> = match n_limit(&a[2]) {
                        Some(n) => all.take(n).collect(),
                        None => all.collect(),
                    };
                    Ok(string_list(v))
                }
                Err(e) if must => Err(e),
                Err(e) => Err(must_compile_error(&s(&a[0]), &e)),
            },
        );
        reg(
            m,
            &name("regexReplaceAll"),
            &[Ty::String, Ty::String, Ty::String],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => Ok(Value::from(
                    re.replace_all(&s(&a[1]), go_template(&s(&a[2])).as_str())
                        .into_owned(),
                )),
                Err(e) if must => Err(e),
                Err(e) => Err(must_compile_error(&s(&a[0]), &e)),
            },
        );
        reg(
            m,
            &name("regexReplaceAllLiteral"),
            &[Ty::String, Ty::String, Ty::String],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => Ok(Value::from(
                    re.replace_all(&s(&a[1]), regex::NoExpand(&s(&a[2])))
                        .into_owned(),
                )),
                Err(e) if must => Err(e),
                Err(e) => Err(must_compile_error(&s(&a[0]), &e)),
            },
        );
        reg(
            m,
            &name("regexSplit"),
            &[Ty::String, Ty::String, Ty::Int],
            move |a| match compile(&s(&a[0])) {
                Ok(re) => {
                    let text = s(&a[1]);
                    let v = go_split(&re, &text, to_i64(&a[2]));
                    Ok(string_list(v))
                }
                Err(e) if must => Err(e),
                Err(e) => Err(must_compile_error(&s(&a[0]), &e)),
            },
        );
    }
    reg(m, "regexQuoteMeta", &[Ty::String], |a| {
        Ok(Value::from(regex::escape(&s(&a[0]))))
    });
}
