//! String functions: case changes, trimming, quoting, padding, splitting and joining,
//! with goutils' and xstrings' rules where sprig uses them.

use crate::convert::{s, string_list, strslice, strval};
use crate::{reg, regv};
use capstan_gotmpl::{FuncMap, FuncResult, Ty};
use capstan_value::{Elem, Map, Str, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

fn i(v: &Value) -> i64 {
    match v {
        Value::Int(n) | Value::Int64(n) => *n,
        _ => 0,
    }
}

/// goutils' `AbbreviateFull`.
fn abbreviate_full(s: &str, offset: i64, max: i64) -> FuncResult<String> {
    if s.is_empty() {
        return Ok(String::new());
    }
    if max < 4 {
        return Err("stringutils illegal argument: Minimum abbreviation width is 4".into());
    }
    let len = s.len() as i64;
    if len <= max {
        return Ok(s.to_string());
    }
    let mut offset = offset.min(len);
    if len - offset < max - 3 {
        offset = len - (max - 3);
    }
    let byte = |a: i64, b: i64| s.get(a as usize..b as usize).unwrap_or("").to_string();
    if offset <= 4 {
        return Ok(byte(0, max - 3) + "...");
    }
    if max < 7 {
        return Err(
            "stringutils illegal argument: Minimum abbreviation width with offset is 7".into(),
        );
    }
    if offset + max - 3 < len {
        let rest = byte(offset, len);
        return Ok(format!("...{}", abbreviate_full(&rest, 0, max - 3)?));
    }
    Ok(format!("...{}", byte(len - (max - 3), len)))
}

/// Go's `strings.Title`: upper-case the first letter of each word.
fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_sep = true;
    for c in s.chars() {
        if prev_sep {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_sep = !(c.is_alphanumeric() || c == '_');
    }
    out
}

/// goutils' `Uncapitalize` over whitespace-separated words.
fn untitle(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_space = true;
    for c in s.chars() {
        if prev_space {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
        prev_space = c.is_whitespace();
    }
    out
}

/// Go's `unicode.IsSpace` for a byte read as a Latin-1 rune.
fn latin1_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' | 0x85 | 0xa0)
}

/// goutils' `Initials`: byte by byte, each byte taken as a Latin-1 rune (as goutils does).
fn initials(s: &str) -> String {
    let mut out = String::new();
    let mut gap = true;
    for b in s.bytes() {
        if latin1_space(b) {
            gap = true;
        } else if gap {
            out.push(b as char);
            gap = false;
        }
    }
    out
}

/// goutils' `DeleteWhiteSpace`: bytes tested as Latin-1 runes, the others kept as they
/// are (so removing the second byte of U+00A0 leaves a stray byte, as in Go).
/// goutils' `DeleteWhiteSpace`: it walks the string's bytes, takes each byte as the rune
/// of the same number (Latin-1) and writes the runes that are not spaces back as UTF-8,
/// so a multi-byte character comes out as its bytes' Latin-1 letters (`\u00a0` → `Â`).
/// A string with no space byte comes back unchanged.
fn delete_white_space(s: &str) -> Value {
    if !s.bytes().any(latin1_space) {
        return Value::from(s);
    }
    let kept: String = s
        .bytes()
        .filter(|&b| !latin1_space(b))
        .map(char::from)
        .collect();
    Value::from(kept)
}

fn swapcase(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_uppercase() {
                c.to_lowercase().collect::<Vec<_>>()
            } else if c.is_lowercase() {
                c.to_uppercase().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// Splits into words the way xstrings' case converters do: separators are
/// non-alphanumerics, and a new word starts at a lower→upper change or before the last
/// capital of a run of capitals followed by a lower-case letter (`HTTPServer`).
fn words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut words = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(&prev) = cur.chars().last().as_ref() {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            // Digits after letters start a word when lower-case letters follow them
            // ("HTTP2xx" → "http-2xx"), else they stay ("Bld4Floor" → "bld4-floor").
            let digits_then_lower = prev.is_alphabetic() && c.is_ascii_digit() && {
                let k = chars[i..].iter().take_while(|d| d.is_ascii_digit()).count();
                chars.get(i + k).is_some_and(|n| n.is_lowercase())
            };
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next_lower)
                || (prev.is_ascii_digit() && c.is_alphabetic() && c.is_uppercase())
                || digits_then_lower;
            if boundary {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || c.is_whitespace()
}

/// xstrings' snake/kebab case: words joined by `sep`, lower-cased; runs of separators
/// at the start and the end are kept, one `sep` per character.
fn join_lower(s: &str, sep: &str) -> String {
    let lead = s.chars().take_while(|&c| is_connector(c)).count();
    let trail = if lead == s.chars().count() {
        0
    } else {
        s.chars().rev().take_while(|&c| is_connector(c)).count()
    };
    let body = words(s)
        .iter()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join(sep);
    format!("{}{body}{}", sep.repeat(lead), sep.repeat(trail))
}

/// xstrings v1.4 `ToCamelCase`: separators (`_`, `-`, spaces) are dropped and the next
/// letter upper-cased; a letter after an upper-case letter is lower-cased; separators at
/// the start, and runs of them at the end, are kept.
fn camelcase(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() && is_connector(chars[i]) {
        out.push(chars[i]);
        i += 1;
    }
    let trail = chars[i..]
        .iter()
        .rev()
        .take_while(|&&c| is_connector(c))
        .count();
    let end = chars.len() - trail;
    let mut upper_next = true;
    let mut prev: Option<char> = None;
    while i < end {
        let c = chars[i];
        i += 1;
        if is_connector(c) {
            upper_next = true;
            prev = Some(c);
            continue;
        }
        if upper_next {
            out.extend(c.to_uppercase());
            upper_next = false;
        } else if prev.is_some_and(char::is_uppercase) {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    out.extend(&chars[end..]);
    out
}

/// goutils' `WrapCustom` (byte-based, as in Go).
fn wrap(s: &str, width: i64, nl: &str, long_words: bool) -> String {
    if s.is_empty() {
        return String::new();
    }
    let nl = if nl.is_empty() { "\n" } else { nl };
    let w = if width < 1 { 1 } else { width as usize };
    let b = s.as_bytes();
    let n = b.len();
    let text = |a: usize, z: usize| String::from_utf8_lossy(&b[a.min(n)..z.min(n)]).into_owned();
    let mut out = String::new();
    let mut offset = 0usize;
    while n - offset > w {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (w + offset + 1).min(n);
        match b[offset..end].iter().rposition(|&c| c == b' ') {
            Some(sp) => {
                let at = offset + sp;
                out.push_str(&text(offset, at));
                out.push_str(nl);
                offset = at + 1;
            }
            None if long_words => {
                out.push_str(&text(offset, offset + w));
                out.push_str(nl);
                offset += w;
            }
            None => {
                let end = w + offset;
                match b[end..].iter().position(|&c| c == b' ') {
                    None => {
                        out.push_str(&text(offset, n));
                        offset = n;
                    }
                    Some(idx) => {
                        let at = idx + end;
                        out.push_str(&text(offset, at));
                        out.push_str(nl);
                        offset = at + 1;
                    }
                }
            }
        }
    }
    out.push_str(&text(offset, n));
    out
}

fn string_map(pairs: Vec<(String, String)>) -> Value {
    let entries: BTreeMap<Str, Value> = pairs
        .into_iter()
        .map(|(k, v)| (Str::from(k), Value::from(v)))
        .collect();
    Value::Map(Arc::new(Map::new(Elem::String, false, entries)))
}

fn indent(n: i64, v: &str) -> FuncResult<String> {
    if n < 0 {
        return Err("strings: negative Repeat count".into());
    }
    let pad = " ".repeat(n as usize);
    Ok(format!("{pad}{}", v.replace('\n', &format!("\n{pad}"))))
}

fn byte_slice(s: &str, a: usize, b: usize) -> FuncResult<Value> {
    if a > b || b > s.len() {
        return Err(format!("runtime error: slice bounds out of range [{a}:{b}]").into());
    }
    Ok(match s.get(a..b) {
        Some(x) => Value::from(x),
        None => Value::RawString(s.as_bytes()[a..b].into()),
    })
}

pub fn register(m: &mut FuncMap) {
    reg(m, "hello", &[], |_| Ok(Value::from("Hello!")));
    reg(m, "upper", &[Ty::String], |a| {
        Ok(Value::from(s(&a[0]).to_uppercase()))
    });
    reg(m, "lower", &[Ty::String], |a| {
        Ok(Value::from(s(&a[0]).to_lowercase()))
    });
    reg(m, "title", &[Ty::String], |a| {
        Ok(Value::from(title(&s(&a[0]))))
    });
    reg(m, "untitle", &[Ty::String], |a| {
        Ok(Value::from(untitle(&s(&a[0]))))
    });
    reg(m, "trim", &[Ty::String], |a| {
        Ok(Value::from(s(&a[0]).trim()))
    });
    reg(m, "trimAll", &[Ty::String, Ty::String], |a| {
        let cut: Vec<char> = s(&a[0]).chars().collect();
        Ok(Value::from(s(&a[1]).trim_matches(|c| cut.contains(&c))))
    });
    reg(m, "trimPrefix", &[Ty::String, Ty::String], |a| {
        let (p, v) = (s(&a[0]), s(&a[1]));
        Ok(Value::from(v.strip_prefix(&*p).unwrap_or(&v)))
    });
    reg(m, "trimSuffix", &[Ty::String, Ty::String], |a| {
        let (p, v) = (s(&a[0]), s(&a[1]));
        Ok(Value::from(v.strip_suffix(&*p).unwrap_or(&v)))
    });
    reg(m, "nospace", &[Ty::String], |a| {
        Ok(delete_white_space(&s(&a[0])))
    });
    reg(m, "initials", &[Ty::String], |a| {
        Ok(Value::from(initials(&s(&a[0]))))
    });
    reg(m, "swapcase", &[Ty::String], |a| {
        Ok(Value::from(swapcase(&s(&a[0]))))
    });
    reg(m, "snakecase", &[Ty::String], |a| {
        Ok(Value::from(join_lower(&s(&a[0]), "_")))
    });
    reg(m, "kebabcase", &[Ty::String], |a| {
        Ok(Value::from(join_lower(&s(&a[0]), "-")))
    });
    reg(m, "camelcase", &[Ty::String], |a| {
        Ok(Value::from(camelcase(&s(&a[0]))))
    });
    reg(m, "abbrev", &[Ty::Int, Ty::String], |a| {
        let (w, v) = (i(&a[0]), s(&a[1]));
        if w < 4 {
            return Ok(Value::from(v));
        }
        Ok(Value::from(abbreviate_full(&v, 0, w).unwrap_or_default()))
    });
    reg(m, "abbrevboth", &[Ty::Int, Ty::Int, Ty::String], |a| {
        let (l, r, v) = (i(&a[0]), i(&a[1]), s(&a[2]));
        if r < 4 || (l > 0 && r < 7) {
            return Ok(Value::from(v));
        }
        Ok(Value::from(abbreviate_full(&v, l, r).unwrap_or_default()))
    });
    reg(m, "trunc", &[Ty::Int, Ty::String], |a| {
        let (c, v) = (i(&a[0]), s(&a[1]));
        let n = v.len() as i64;
        if c < 0 && n + c > 0 {
            return byte_slice(&v, (n + c) as usize, n as usize);
        }
        if c >= 0 && n > c {
            return byte_slice(&v, 0, c as usize);
        }
        Ok(Value::from(v))
    });
    reg(m, "substr", &[Ty::Int, Ty::Int, Ty::String], |a| {
        let (st, en, v) = (i(&a[0]), i(&a[1]), s(&a[2]));
        let n = v.len() as i64;
        if st < 0 {
            if en < 0 {
                return Err(format!("runtime error: slice bounds out of range [:{en}]").into());
            }
            return byte_slice(&v, 0, en as usize);
        }
        if en < 0 || en > n {
            if st > n {
                return Err(format!("runtime error: slice bounds out of range [{st}:{n}]").into());
            }
            return byte_slice(&v, st as usize, n as usize);
        }
        byte_slice(&v, st as usize, en as usize)
    });
    reg(m, "repeat", &[Ty::Int, Ty::String], |a| {
        let c = i(&a[0]);
        if c < 0 {
            return Err("strings: negative Repeat count".into());
        }
        Ok(Value::from(s(&a[1]).repeat(c as usize)))
    });
    reg(m, "wrap", &[Ty::Int, Ty::String], |a| {
        Ok(Value::from(wrap(&s(&a[1]), i(&a[0]), "\n", false)))
    });
    reg(m, "wrapWith", &[Ty::Int, Ty::String, Ty::String], |a| {
        Ok(Value::from(wrap(&s(&a[2]), i(&a[0]), &s(&a[1]), true)))
    });
    reg(m, "contains", &[Ty::String, Ty::String], |a| {
        Ok(Value::Bool(s(&a[1]).contains(&*s(&a[0]))))
    });
    reg(m, "hasPrefix", &[Ty::String, Ty::String], |a| {
        Ok(Value::Bool(s(&a[1]).starts_with(&*s(&a[0]))))
    });
    reg(m, "hasSuffix", &[Ty::String, Ty::String], |a| {
        Ok(Value::Bool(s(&a[1]).ends_with(&*s(&a[0]))))
    });
    regv(m, "quote", &[], Ty::Any, |a| {
        let mut out = String::new();
        for x in a.iter().filter(|x| !matches!(x, Value::Nil)) {
            if !out.is_empty() {
                out.push(' ');
            }
            match x {
                Value::String(text) => capstan_gocompat::quote::push_go_quoted(&mut out, text),
                other => capstan_gocompat::quote::push_go_quoted(&mut out, &strval(other)),
            }
        }
        Ok(Value::from(out))
    });
    regv(m, "squote", &[], Ty::Any, |a| {
        let q: Vec<String> = a
            .iter()
            .filter(|x| !matches!(x, Value::Nil))
            .map(|x| format!("'{}'", strval(x)))
            .collect();
        Ok(Value::from(q.join(" ")))
    });
    regv(m, "cat", &[], Ty::Any, |a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|x| !matches!(x, Value::Nil))
            .map(|x| x.to_string())
            .collect();
        Ok(Value::from(parts.join(" ")))
    });
    reg(m, "indent", &[Ty::Int, Ty::String], |a| {
        Ok(Value::from(indent(i(&a[0]), &s(&a[1]))?))
    });
    reg(m, "nindent", &[Ty::Int, Ty::String], |a| {
        Ok(Value::from(format!("\n{}", indent(i(&a[0]), &s(&a[1]))?)))
    });
    reg(m, "replace", &[Ty::String, Ty::String, Ty::String], |a| {
        Ok(Value::from(s(&a[2]).replace(&*s(&a[0]), &s(&a[1]))))
    });
    reg(m, "plural", &[Ty::String, Ty::String, Ty::Int], |a| {
        Ok(if i(&a[2]) == 1 {
            a[0].clone()
        } else {
            a[1].clone()
        })
    });
    reg(m, "split", &[Ty::String, Ty::String], |a| {
        let parts: Vec<(String, String)> = go_split(&s(&a[1]), &s(&a[0]), -1)
            .into_iter()
            .enumerate()
            .map(|(k, p)| (format!("_{k}"), p))
            .collect();
        Ok(string_map(parts))
    });
    reg(m, "splitn", &[Ty::String, Ty::Int, Ty::String], |a| {
        let parts: Vec<(String, String)> = go_split(&s(&a[2]), &s(&a[0]), i(&a[1]))
            .into_iter()
            .enumerate()
            .map(|(k, p)| (format!("_{k}"), p))
            .collect();
        Ok(string_map(parts))
    });
    reg(m, "splitList", &[Ty::String, Ty::String], |a| {
        Ok(string_list(go_split(&s(&a[1]), &s(&a[0]), -1)))
    });
    reg(m, "join", &[Ty::String, Ty::Any], |a| {
        Ok(Value::from(strslice(&a[1]).join(&s(&a[0]))))
    });
    reg(m, "sortAlpha", &[Ty::Any], |a| {
        let mut v = match &a[0] {
            Value::List(_) => strslice(&a[0]),
            other => vec![strval(other)],
        };
        v.sort();
        Ok(string_list(v))
    });
}

/// Go's `strings.SplitN` (`n < 0`: all parts; an empty separator splits into runes).
pub(crate) fn go_split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let chars: Vec<String> = s.chars().map(String::from).collect();
        if n > 0 && chars.len() as i64 > n {
            let mut head: Vec<String> = chars[..n as usize - 1].to_vec();
            head.push(chars[n as usize - 1..].concat());
            return head;
        }
        return chars;
    }
    if n < 0 {
        s.split(sep).map(String::from).collect()
    } else {
        s.splitn(n as usize, sep).map(String::from).collect()
    }
}
