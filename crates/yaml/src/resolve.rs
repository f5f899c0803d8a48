//! Scalar resolution: what type a YAML scalar becomes, with the rules of yaml.v2
//! (YAML 1.1 booleans `yes/no/on/off/y/n`) or yaml.v3 (only `true/false`), and their
//! handling of explicit tags (`!!int`, `!!float`…) and its error texts.

use crate::compose::Generation;
use crate::error::YamlError;
use capstan_gocompat::strconv::{parse_float, parse_int, parse_uint};
use capstan_gocompat::time::{parse_yaml_timestamp, GoTime};

pub const STR: &str = "tag:yaml.org,2002:str";
pub const INT: &str = "tag:yaml.org,2002:int";
pub const FLOAT: &str = "tag:yaml.org,2002:float";
pub const BOOL: &str = "tag:yaml.org,2002:bool";
pub const NULL: &str = "tag:yaml.org,2002:null";
pub const TIMESTAMP: &str = "tag:yaml.org,2002:timestamp";
pub const BINARY: &str = "tag:yaml.org,2002:binary";
pub const MERGE: &str = "tag:yaml.org,2002:merge";
pub const SEQ: &str = "tag:yaml.org,2002:seq";
pub const MAP: &str = "tag:yaml.org,2002:map";

/// `!!int` for `tag:yaml.org,2002:int`, other tags unchanged.
pub(crate) fn short_tag(tag: &str) -> String {
    match tag.strip_prefix("tag:yaml.org,2002:") {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    }
}

/// A resolved scalar.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    /// `null`, `~` or empty.
    Null,
    /// `true`/`false` (YAML 1.1 spellings as go-yaml reads them).
    Bool(bool),
    /// Fits Go `int`.
    Int(i64),
    /// Only `uint64` can hold it.
    Uint(u64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// Decoded `!!binary` data that is not UTF-8 (a Go string of raw bytes).
    Bytes(Vec<u8>),
    /// A `!!timestamp`.
    Timestamp(GoTime),
}

impl Scalar {
    /// The long tag this value resolves to.
    pub fn tag(&self) -> &'static str {
        match self {
            Scalar::Null => NULL,
            Scalar::Bool(_) => BOOL,
            Scalar::Int(_) | Scalar::Uint(_) => INT,
            Scalar::Float(_) => FLOAT,
            Scalar::Str(_) | Scalar::Bytes(_) => STR,
            Scalar::Timestamp(_) => TIMESTAMP,
        }
    }
}

fn lookup(gen: Generation, s: &str) -> Option<Scalar> {
    let v = match s {
        "true" | "True" | "TRUE" => Scalar::Bool(true),
        "false" | "False" | "FALSE" => Scalar::Bool(false),
        "" | "~" | "null" | "Null" | "NULL" => Scalar::Null,
        ".nan" | ".NaN" | ".NAN" => Scalar::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Scalar::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Scalar::Float(f64::NEG_INFINITY),
        _ if gen == Generation::V2 => match s {
            "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Scalar::Bool(true),
            "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Scalar::Bool(false),
            _ => return None,
        },
        _ => return None,
    };
    Some(v)
}

/// yaml's float syntax: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let st = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - st
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

fn int_result(v: i64) -> Scalar {
    Scalar::Int(v)
}

/// Resolves a plain scalar with no tag (the `D`/`S` hints: digits and signs).
fn resolve_number(gen: Generation, s: &str, try_timestamp: bool) -> Option<Scalar> {
    if try_timestamp {
        if let Some(t) = parse_yaml_timestamp(s) {
            return Some(Scalar::Timestamp(t));
        }
    }
    let plain = s.replace('_', "");
    if let Ok(v) = parse_int(&plain, 0, 64) {
        return Some(int_result(v));
    }
    if let Ok(v) = parse_uint(&plain, 0, 64) {
        return Some(Scalar::Uint(v));
    }
    if is_yaml_float(&plain) {
        if let Ok(v) = parse_float(&plain, 64) {
            return Some(Scalar::Float(v));
        }
    }
    if let Some(rest) = plain.strip_prefix("0b") {
        if let Ok(v) = parse_int(rest, 2, 64) {
            return Some(int_result(v));
        }
        if let Ok(v) = parse_uint(rest, 2, 64) {
            return Some(Scalar::Uint(v));
        }
    } else if let Some(rest) = plain.strip_prefix("-0b") {
        if let Ok(v) = parse_int(&format!("-{rest}"), 2, 64) {
            return Some(int_result(v));
        }
    }
    if gen == Generation::V3 {
        if let Some(rest) = plain.strip_prefix("0o") {
            if let Ok(v) = parse_int(rest, 8, 64) {
                return Some(int_result(v));
            }
            if let Ok(v) = parse_uint(rest, 8, 64) {
                return Some(Scalar::Uint(v));
            }
        } else if let Some(rest) = plain.strip_prefix("-0o") {
            if let Ok(v) = parse_int(&format!("-{rest}"), 8, 64) {
                return Some(int_result(v));
            }
        }
    }
    None
}

fn resolvable(tag: &str) -> bool {
    matches!(tag, "" | STR | BOOL | NULL | INT | FLOAT | TIMESTAMP)
}

/// go-yaml's `resolve(tag, in)`: `tag` is the long tag or "" for none. Returns the tag the
/// value ends up with and the value (a string for tags it does not resolve, such as
/// `!!binary` or local tags). Fails like go-yaml when the value contradicts the tag.
pub fn resolve<'t>(gen: Generation, tag: &'t str, s: &str) -> Result<(&'t str, Scalar), YamlError> {
    if !resolvable(tag) {
        return Ok((tag, Scalar::Str(s.to_string())));
    }
    let resolved = resolve_untagged(gen, tag, s);
    let rtag = resolved.tag();
    if tag.is_empty() || tag == rtag || tag == STR || tag == BINARY {
        return Ok((rtag, resolved));
    }
    if tag == FLOAT && rtag == INT {
        if let Scalar::Int(i) = resolved {
            return Ok((FLOAT, Scalar::Float(i as f64)));
        }
    }
    Err(YamlError::new(format!(
        "yaml: cannot decode {} `{}` as a {}",
        short_tag(rtag),
        s,
        short_tag(tag)
    )))
}

/// The tag a plain scalar without a tag resolves to (`resolve(gen, "", s)`'s), without
/// building the value: most scalars are text, told by their first byte.
pub fn untagged_tag(gen: Generation, s: &str) -> &'static str {
    if hint(s) == 0 {
        return STR;
    }
    resolve_untagged(gen, "", s).tag()
}

/// go-yaml's resolve hint: what the first byte says a plain scalar may be (0: text).
fn hint(s: &str) -> u8 {
    match s.bytes().next() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        _ => 0,
    }
}

fn resolve_untagged(gen: Generation, tag: &str, s: &str) -> Scalar {
    let hint = hint(s);
    if hint != 0 && tag != STR && tag != BINARY {
        if let Some(v) = lookup(gen, s) {
            return v;
        }
        match hint {
            b'.' => {
                if let Ok(f) = parse_float(s, 64) {
                    return Scalar::Float(f);
                }
            }
            b'D' | b'S' => {
                if let Some(v) = resolve_number(gen, s, tag.is_empty() || tag == TIMESTAMP) {
                    return v;
                }
            }
            _ => {}
        }
    }
    Scalar::Str(s.to_string())
}

/// yaml.v2's and yaml.v3's `isBase60Float`: `1:20`-style numbers that YAML 1.1 readers
/// would take as sexagesimal, so encoders quote them.
pub(crate) fn is_base60_float(s: &str) -> bool {
    // ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
    let b = s.as_bytes();
    if b.is_empty() {
        return false;
    }
    let c = b[0];
    if !(c == b'+' || c == b'-' || c.is_ascii_digit()) || !s.contains(':') {
        return false;
    }
    let mut i = 0;
    if b[i] == b'-' || b[i] == b'+' {
        i += 1;
    }
    if i >= b.len() || !b[i].is_ascii_digit() {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while i < b.len() && b[i] == b':' {
        i += 1;
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() && i - st < 2 {
            i += 1;
        }
        let n = i - st;
        if n == 0 || (n == 2 && b[st] > b'5') {
            return false;
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// yaml.v3's `isOldBool`: YAML 1.1 booleans that v3 quotes when encoding.
pub(crate) fn is_old_bool(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "on"
            | "On"
            | "ON"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "off"
            | "Off"
            | "OFF"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use Generation::*;

    fn r(g: Generation, s: &str) -> Scalar {
        resolve(g, "", s).unwrap().1
    }

    #[test]
    fn yaml11_vs_yaml12_booleans() {
        assert_eq!(r(V2, "yes"), Scalar::Bool(true));
        assert_eq!(r(V3, "yes"), Scalar::Str("yes".into()));
        assert_eq!(r(V3, "True"), Scalar::Bool(true));
    }

    #[test]
    fn numbers() {
        assert_eq!(r(V3, "0x10"), Scalar::Int(16));
        assert_eq!(r(V3, "017"), Scalar::Int(15));
        assert_eq!(r(V3, "08"), Scalar::Float(8.0));
        assert_eq!(r(V3, "1_000"), Scalar::Int(1000));
        assert_eq!(r(V3, "1e3"), Scalar::Float(1000.0));
        assert_eq!(
            r(V3, "9223372036854775808"),
            Scalar::Uint(9223372036854775808)
        );
        assert_eq!(r(V3, "1.10"), Scalar::Float(1.1));
        assert_eq!(r(V3, "1.0.0"), Scalar::Str("1.0.0".into()));
        assert_eq!(r(V3, "+.inf"), Scalar::Float(f64::INFINITY));
    }

    #[test]
    fn tags() {
        assert_eq!(resolve(V3, FLOAT, "1").unwrap().1, Scalar::Float(1.0));
        assert_eq!(
            resolve(V3, INT, "1.5").unwrap_err().message,
            "yaml: cannot decode !!float `1.5` as a !!int"
        );
        assert_eq!(resolve(V3, STR, "1").unwrap().1, Scalar::Str("1".into()));
    }

    #[test]
    fn base60() {
        assert!(is_base60_float("1:20"));
        assert!(is_base60_float("12:30:45"));
        assert!(!is_base60_float("1:2a"));
        assert!(!is_base60_float("a:1"));
    }
}
