//! Go's `strconv`: float formatting (`FormatFloat` with `'e' 'E' 'f' 'g' 'G'`, shortest or
//! fixed precision, 32 or 64 bits) and parsing (`ParseFloat`, `ParseInt`, `ParseUint` with
//! Go's prefixes, underscores and error texts).

use std::fmt;

/// Decimal digits of a finite, non-negative float: `0.d1d2d3… × 10^dp`.
/// `digits` has no trailing zeros; zero has no digits and `dp == 0`.
struct Decimal {
    digits: Vec<u8>,
    dp: i32,
}

impl Decimal {
    /// Parses Rust's `{:e}` rendering (`d.ddde±x`) of a finite non-negative number.
    fn from_sci(s: &str) -> Decimal {
        let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let mut digits: Vec<u8> = mant.bytes().filter(|b| b.is_ascii_digit()).collect();
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        if digits.is_empty() {
            return Decimal { digits, dp: 0 };
        }
        Decimal {
            digits,
            dp: exp + 1,
        }
    }

    /// The shortest digits that read back as the same float of `bits` size.
    fn shortest(x: f64, bits: u32) -> Decimal {
        if bits == 32 {
            Decimal::from_sci(&format!("{:e}", x as f32))
        } else {
            Decimal::from_sci(&format!("{:e}", x))
        }
    }

    /// `n` significant digits, correctly rounded (half to even on exact ties). A float64
    /// has at most 767 significant decimal digits, so asking for more only adds zeros
    /// (which `digit` supplies); the request is capped there, below `format!`'s limit.
    fn rounded(x: f64, n: usize) -> Decimal {
        Decimal::from_sci(&format!("{:.*e}", n.clamp(1, 800) - 1, x))
    }

    fn nd(&self) -> i32 {
        self.digits.len() as i32
    }

    fn digit(&self, i: i32) -> u8 {
        if i >= 0 && i < self.nd() {
            self.digits[i as usize]
        } else {
            b'0'
        }
    }
}

fn fmt_e(out: &mut String, d: &Decimal, prec: i32, e: char) {
    out.push(d.digit(0) as char);
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            out.push(d.digit(i) as char);
        }
    }
    out.push(e);
    let exp = if d.nd() == 0 { 0 } else { d.dp - 1 };
    out.push(if exp < 0 { '-' } else { '+' });
    let a = exp.unsigned_abs();
    if a < 10 {
        out.push('0');
    }
    out.push_str(&a.to_string());
}

fn fmt_f(out: &mut String, d: &Decimal, prec: i32) {
    if d.dp > 0 {
        for i in 0..d.dp {
            out.push(d.digit(i) as char);
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            out.push(d.digit(d.dp + i - 1) as char);
        }
    }
}

/// Go's `strconv.FormatFloat(x, fmt, prec, bits)`. `prec < 0` asks for the shortest
/// representation that round-trips. Supported formats: `e E f g G`.
pub fn format_float(x: f64, fmt: char, prec: i32, bits: u32) -> String {
    let x = if bits == 32 { x as f32 as f64 } else { x };
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    let a = x.abs();
    let shortest = prec < 0;
    match fmt {
        'e' | 'E' => {
            let d = if shortest {
                Decimal::shortest(a, bits)
            } else {
                Decimal::rounded(a, prec as usize + 1)
            };
            let p = if shortest { (d.nd() - 1).max(0) } else { prec };
            fmt_e(&mut out, &d, p, fmt);
        }
        'f' => {
            if shortest {
                let d = Decimal::shortest(a, bits);
                fmt_f(&mut out, &d, (d.nd() - d.dp).max(0));
            } else {
                // A float64 has at most 1074 fractional decimal digits; more are zeros
                // (and beyond `format!`'s precision limit).
                let p = prec as usize;
                let exact = p.min(1100);
                out.push_str(&format!("{:.*}", exact, a));
                out.extend(std::iter::repeat_n('0', p - exact));
            }
        }
        'g' | 'G' => {
            let e = if fmt == 'g' { 'e' } else { 'E' };
            let (d, mut p) = if shortest {
                let d = Decimal::shortest(a, bits);
                let n = d.nd();
                (d, n)
            } else {
                let p = prec.max(1);
                (Decimal::rounded(a, p as usize), p)
            };
            let mut eprec = p;
            if eprec > d.nd() && d.nd() >= d.dp {
                eprec = d.nd();
            }
            if shortest {
                eprec = 6;
            }
            let exp = d.dp - 1;
            if d.nd() != 0 && (exp < -4 || exp >= eprec) {
                if p > d.nd() {
                    p = d.nd();
                }
                fmt_e(&mut out, &d, p - 1, e);
            } else {
                if p > d.dp {
                    p = d.nd();
                }
                fmt_f(&mut out, &d, (p - d.dp).max(0));
            }
        }
        other => {
            out.push('%');
            out.push(other);
        }
    }
    out
}

/// Go's `strconv.ErrSyntax`: a quoted literal that is not valid Go syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntaxError;

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid syntax")
    }
}

impl std::error::Error for SyntaxError {}

/// Go's `strconv.UnquoteChar`: one (possibly escaped) character and the rest.
pub fn unquote_char(s: &str, quote: char) -> Result<(char, &str), SyntaxError> {
    let syntax = || SyntaxError;
    let mut chars = s.chars();
    let c = chars.next().ok_or_else(syntax)?;
    if c == quote && (quote == '\'' || quote == '"') {
        return Err(syntax());
    }
    if c != '\\' {
        return Ok((c, chars.as_str()));
    }
    let e = chars.next().ok_or_else(syntax)?;
    let rest = chars.as_str();
    let simple = match e {
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{b}'),
        '\\' => Some('\\'),
        '\'' | '"' if e == quote => Some(e),
        _ => None,
    };
    if let Some(c) = simple {
        return Ok((c, rest));
    }
    let hex = |n: usize| -> Result<(u32, &str), SyntaxError> {
        if rest.len() < n || !rest.is_char_boundary(n) {
            return Err(syntax());
        }
        let v = u32::from_str_radix(&rest[..n], 16).map_err(|_| syntax())?;
        Ok((v, &rest[n..]))
    };
    match e {
        'x' => {
            let (v, r) = hex(2)?;
            char::from_u32(v).map(|c| (c, r)).ok_or_else(syntax)
        }
        'u' => {
            let (v, r) = hex(4)?;
            char::from_u32(v).map(|c| (c, r)).ok_or_else(syntax)
        }
        'U' => {
            let (v, r) = hex(8)?;
            char::from_u32(v).map(|c| (c, r)).ok_or_else(syntax)
        }
        '0'..='7' => {
            // Exactly two more octal digits (ASCII, so slicing at 2 is a char boundary).
            if rest.len() < 2
                || !rest.as_bytes()[..2]
                    .iter()
                    .all(|b| (b'0'..=b'7').contains(b))
            {
                return Err(syntax());
            }
            let digits = format!("{e}{}", &rest[..2]);
            let v = u32::from_str_radix(&digits, 8).map_err(|_| syntax())?;
            if v > 255 {
                return Err(syntax());
            }
            char::from_u32(v)
                .map(|c| (c, &rest[2..]))
                .ok_or_else(syntax)
        }
        _ => Err(syntax()),
    }
}

/// Go's `strconv.Unquote` for `"…"` and `` `…` `` literals.
pub fn unquote(s: &str) -> Result<String, SyntaxError> {
    if s.len() >= 2 && s.starts_with('`') && s.ends_with('`') {
        return Ok(s[1..s.len() - 1].replace('\r', ""));
    }
    if s.len() < 2 || !s.starts_with('"') || !s.ends_with('"') {
        return Err(SyntaxError);
    }
    let mut body = &s[1..s.len() - 1];
    let mut out = String::with_capacity(body.len());
    while !body.is_empty() {
        let (c, rest) = unquote_char(body, '"')?;
        out.push(c);
        body = rest;
    }
    Ok(out)
}

/// Why a Go number parse failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumErrorKind {
    /// `ErrSyntax`: not a number in that base.
    Syntax,
    /// `ErrRange`: out of range for the bit size.
    Range,
    /// An invalid base argument.
    Base,
}

/// Go's `*strconv.NumError`; its `Display` is Go's `Error()` text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumError {
    /// The function that failed (`ParseInt`, `ParseFloat`, ...).
    pub func: &'static str,
    /// The text it was given.
    pub input: String,
    /// Why it failed.
    pub kind: NumErrorKind,
}

impl fmt::Display for NumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            NumErrorKind::Syntax => "invalid syntax",
            NumErrorKind::Range => "value out of range",
            NumErrorKind::Base => "invalid base",
        };
        write!(
            f,
            "strconv.{}: parsing {}: {}",
            self.func,
            crate::quote::go_quote(&self.input),
            what
        )
    }
}

impl std::error::Error for NumError {}

fn num_err(func: &'static str, s: &str, kind: NumErrorKind) -> NumError {
    NumError {
        func,
        input: s.to_string(),
        kind,
    }
}

/// Go's `underscoreOK`: underscores only between digits, or after a base prefix.
fn underscore_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    let mut s = b;
    if !s.is_empty() && (s[0] == b'-' || s[0] == b'+') {
        s = &s[1..];
    }
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(s[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = s[1].eq_ignore_ascii_case(&b'x');
    }
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_digit() || (hex && c.to_ascii_lowercase().is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// Go's `strconv.ParseUint(s, base, bits)`.
pub fn parse_uint(s: &str, base: u32, bits: u32) -> Result<u64, NumError> {
    parse_uint_named(s, base, bits, "ParseUint")
}

fn parse_uint_named(s0: &str, base: u32, bits: u32, func: &'static str) -> Result<u64, NumError> {
    if s0.is_empty() {
        return Err(num_err(func, s0, NumErrorKind::Syntax));
    }
    let base0 = base == 0;
    let mut s = s0;
    let mut base = base;
    if base == 0 {
        base = 10;
        let b = s.as_bytes();
        if b[0] == b'0' {
            if b.len() >= 3 && b[1].eq_ignore_ascii_case(&b'b') {
                base = 2;
                s = &s[2..];
            } else if b.len() >= 3 && b[1].eq_ignore_ascii_case(&b'o') {
                base = 8;
                s = &s[2..];
            } else if b.len() >= 3 && b[1].eq_ignore_ascii_case(&b'x') {
                base = 16;
                s = &s[2..];
            } else {
                base = 8;
                s = &s[1..];
            }
        }
    } else if !(2..=36).contains(&base) {
        return Err(num_err(func, s0, NumErrorKind::Base));
    }
    let bits = if bits == 0 { 64 } else { bits };
    let max: u64 = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut n: u64 = 0;
    let mut underscores = false;
    let mut range = false;
    for c in s.bytes() {
        if c == b'_' && base0 {
            underscores = true;
            continue;
        }
        let d = match c {
            b'0'..=b'9' => (c - b'0') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 10,
            b'A'..=b'Z' => (c - b'A') as u32 + 10,
            _ => return Err(num_err(func, s0, NumErrorKind::Syntax)),
        };
        if d >= base {
            return Err(num_err(func, s0, NumErrorKind::Syntax));
        }
        if range {
            continue;
        }
        match n
            .checked_mul(base as u64)
            .and_then(|v| v.checked_add(d as u64))
        {
            Some(v) if v <= max => n = v,
            _ => range = true,
        }
    }
    if underscores && !underscore_ok(s0) {
        return Err(num_err(func, s0, NumErrorKind::Syntax));
    }
    if range {
        return Err(num_err(func, s0, NumErrorKind::Range));
    }
    Ok(n)
}

/// Go's `strconv.ParseInt(s, base, bits)`.
pub fn parse_int(s: &str, base: u32, bits: u32) -> Result<i64, NumError> {
    const F: &str = "ParseInt";
    if s.is_empty() {
        return Err(num_err(F, s, NumErrorKind::Syntax));
    }
    let (neg, body) = match s.as_bytes()[0] {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let bits = if bits == 0 { 64 } else { bits };
    let un = match parse_uint_named(body, base, bits, F) {
        Ok(v) => v,
        Err(mut e) => {
            e.input = s.to_string();
            if e.kind == NumErrorKind::Range {
                // Go reports range errors only after the syntax was fully accepted.
            }
            return Err(e);
        }
    };
    let cutoff: u64 = 1u64 << (bits - 1);
    if !neg && un >= cutoff {
        return Err(num_err(F, s, NumErrorKind::Range));
    }
    if neg && un > cutoff {
        return Err(num_err(F, s, NumErrorKind::Range));
    }
    Ok(if neg {
        (un as i64).wrapping_neg()
    } else {
        un as i64
    })
}

/// Parses a hexadecimal float body (after `0x`), e.g. `1.8p3`.
fn parse_hex_float(body: &str) -> Option<f64> {
    let (mant, exp) = body.split_once(['p', 'P'])?;
    let exp: i32 = exp.replace('_', "").parse().ok()?;
    let mut value = 0f64;
    let mut frac_digits = 0i32;
    let mut seen_dot = false;
    let mut any = false;
    for c in mant.chars() {
        match c {
            '.' if !seen_dot => seen_dot = true,
            '_' => {}
            _ => {
                let d = c.to_digit(16)?;
                value = value * 16.0 + d as f64;
                any = true;
                if seen_dot {
                    frac_digits += 1;
                }
            }
        }
    }
    if !any {
        return None;
    }
    Some(value * 2f64.powi(exp - 4 * frac_digits))
}

/// Go's `strconv.ParseFloat(s, bits)`: decimal or hex (`0x1p-2`) syntax, `Inf`, `NaN`,
/// underscores between digits; an out-of-range value is a `Range` error.
pub fn parse_float(s: &str, bits: u32) -> Result<f64, NumError> {
    const F: &str = "ParseFloat";
    let syntax = || num_err(F, s, NumErrorKind::Syntax);
    if s.is_empty() {
        return Err(syntax());
    }
    let (neg, body) = match s.as_bytes()[0] {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let special = match lower.as_str() {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" if body.len() == s.len() => Some(f64::NAN),
        _ => None,
    };
    if let Some(v) = special {
        return Ok(if neg { -v } else { v });
    }
    let has_underscore = body.contains('_');
    if has_underscore && !underscore_ok(s) {
        return Err(syntax());
    }
    let v = if lower.starts_with("0x") {
        parse_hex_float(&body[2..]).ok_or_else(syntax)?
    } else {
        let clean: String = if has_underscore {
            body.replace('_', "")
        } else {
            body.to_string()
        };
        let ok = !clean.is_empty()
            && clean
                .bytes()
                .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
            && clean.bytes().any(|c| c.is_ascii_digit());
        if !ok {
            return Err(syntax());
        }
        if bits == 32 {
            clean.parse::<f32>().map_err(|_| syntax())? as f64
        } else {
            clean.parse::<f64>().map_err(|_| syntax())?
        }
    };
    let v = if neg { -v } else { v };
    if v.is_infinite() {
        return Err(NumError {
            func: F,
            input: s.to_string(),
            kind: NumErrorKind::Range,
        });
    }
    Ok(v)
}

#[cfg(test)]
mod huge_precision_tests {
    #[test]
    fn precision_beyond_rusts_formatter_pads_with_zeros() {
        let s = super::format_float(0.5, 'f', 70000, 64);
        assert_eq!(s.len(), 70002);
        assert!(s.starts_with("0.5000"));
        let e = super::format_float(1.0 / 3.0, 'e', 70000, 64);
        assert!(e.starts_with("3.333333333333333148296"), "{}", &e[..30]);
        assert!(e.ends_with("0e-01"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_g_matches_go() {
        assert_eq!(format_float(1e6, 'g', -1, 64), "1e+06");
        assert_eq!(format_float(123456.0, 'g', -1, 64), "123456");
        assert_eq!(format_float(0.0001, 'g', -1, 64), "0.0001");
        assert_eq!(format_float(0.00001, 'g', -1, 64), "1e-05");
        assert_eq!(format_float(1.5, 'g', -1, 64), "1.5");
        assert_eq!(format_float(0.0, 'g', -1, 64), "0");
        assert_eq!(format_float(-0.0, 'g', -1, 64), "-0");
        assert_eq!(format_float(12345678.9, 'g', -1, 64), "1.23456789e+07");
        assert_eq!(
            format_float(1.7976931348623157e308, 'g', -1, 64),
            "1.7976931348623157e+308"
        );
        assert_eq!(format_float(5e-324, 'g', -1, 64), "5e-324");
        assert_eq!(format_float(0.1, 'g', -1, 32), "0.1");
        assert_eq!(format_float(f64::INFINITY, 'g', -1, 64), "+Inf");
    }

    #[test]
    fn fixed_precision_matches_go() {
        assert_eq!(format_float(4.56789, 'f', 2, 64), "4.57");
        assert_eq!(format_float(2.5, 'f', 0, 64), "2");
        assert_eq!(format_float(1234.5678, 'e', 3, 64), "1.235e+03");
        assert_eq!(format_float(1234.5678, 'g', 3, 64), "1.23e+03");
        assert_eq!(format_float(100.0, 'g', 3, 64), "100");
        assert_eq!(format_float(1e6, 'f', -1, 64), "1000000");
        assert_eq!(format_float(0.000001, 'e', -1, 64), "1e-06");
        assert_eq!(format_float(0.0, 'e', -1, 64), "0e+00");
    }

    #[test]
    fn parse_int_go_rules() {
        assert_eq!(parse_int("0x1F", 0, 64), Ok(31));
        assert_eq!(parse_int("017", 0, 64), Ok(15));
        assert_eq!(parse_int("0o17", 0, 64), Ok(15));
        assert_eq!(parse_int("-0b101", 0, 64), Ok(-5));
        assert_eq!(parse_int("1_000", 0, 64), Ok(1000));
        assert!(parse_int("1_000", 10, 64).is_err());
        assert!(parse_int("08", 0, 64).is_err());
        assert_eq!(parse_int("+5", 0, 64), Ok(5));
        assert_eq!(parse_int("-9223372036854775808", 0, 64), Ok(i64::MIN));
        assert_eq!(
            parse_int("9223372036854775808", 0, 64).unwrap_err().kind,
            NumErrorKind::Range
        );
        assert_eq!(
            parse_int("x", 10, 64).unwrap_err().to_string(),
            "strconv.ParseInt: parsing \"x\": invalid syntax"
        );
        assert_eq!(parse_uint("18446744073709551615", 0, 64), Ok(u64::MAX));
    }

    #[test]
    fn parse_float_go_rules() {
        assert_eq!(parse_float("1e3", 64), Ok(1000.0));
        assert_eq!(parse_float(".5", 64), Ok(0.5));
        assert_eq!(parse_float("0x1p-2", 64), Ok(0.25));
        assert!(parse_float("1e400", 64).is_err());
        assert!(parse_float("abc", 64).is_err());
        assert!(parse_float("+Inf", 64).unwrap().is_infinite());
    }
}
