//! The scalar parts of Go's `encoding/json` output and Go's `strconv.Quote`:
//! how strings and floats are written, byte for byte.

use crate::strconv::format_float;

/// Appends `s` as a JSON string the way `encoding/json` does (`escape_html`: `<`, `>`, `&`
/// become `\u003c` …, as `json.Marshal` does by default). Invalid UTF-8 has already been
/// replaced by U+FFFD when it reaches Rust `&str`; use [`go_quote_bytes`] for raw bytes.
pub fn quote_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' if escape_html => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A float the way `encoding/json` writes it: `'f'` layout, or `'e'` below 1e-6 and from
/// 1e21 on, with `e-07` shortened to `e-7`. The caller rejects NaN and infinities.
pub fn format_json_float(f: f64, bits: u32) -> String {
    let abs = f.abs();
    let mut fmt = 'f';
    if abs != 0.0 {
        let small_or_big = if bits == 32 {
            let a = abs as f32;
            !(1e-6..1e21).contains(&a)
        } else {
            !(1e-6..1e21).contains(&abs)
        };
        if small_or_big {
            fmt = 'e';
        }
    }
    let mut s = format_float(f, fmt, -1, bits);
    if fmt == 'e' {
        let b = s.as_bytes();
        let n = b.len();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            let last = b[n - 1] as char;
            s.truncate(n - 2);
            s.push(last);
        }
    }
    s
}

/// Go's `strconv.Quote`: a double-quoted Go string literal with Go escapes.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_go_escaped(&mut out, c, '"');
    }
    out.push('"');
    out
}

/// Go's `strconv.Quote` for raw bytes (invalid UTF-8 bytes become `\xNN`).
pub fn go_quote_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    for chunk in b.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_go_escaped(&mut out, c, '"');
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{:02x}", byte));
        }
    }
    out.push('"');
    out
}

/// One rune as `strconv.Quote` writes it inside `quote` delimiters.
pub fn push_go_escaped(out: &mut String, c: char, quote: char) {
    match c {
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        '\\' => out.push_str("\\\\"),
        c if c == quote => {
            out.push('\\');
            out.push(c);
        }
        c if is_go_printable(c) => out.push(c),
        c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

/// An approximation of Go's `strconv.IsPrint`: letters, marks, numbers, punctuation,
/// symbols and the ASCII space. Control, format, private-use and unassigned-looking runes
/// are not printable.
pub fn is_go_printable(c: char) -> bool {
    let u = c as u32;
    if u < 0x20 || (0x7f..0xa0).contains(&u) {
        return false;
    }
    if u == 0xad || (0x2000..=0x200f).contains(&u) && u != 0x2000 && !(0x2001..=0x200a).contains(&u)
    {
        return false;
    }
    if u == 0xa0
        || u == 0x1680
        || (0x2000..=0x200a).contains(&u)
        || u == 0x2028
        || u == 0x2029
        || u == 0x202f
        || u == 0x205f
        || u == 0x3000
    {
        // Unicode spaces other than U+0020 are not printable for Go.
        return false;
    }
    if (0x202a..=0x202e).contains(&u) || (0x2060..=0x206f).contains(&u) || u == 0xfeff {
        return false;
    }
    if (0xd800..=0xdfff).contains(&u) || (0xe000..=0xf8ff).contains(&u) || u >= 0xf0000 {
        return false;
    }
    if u == 0xfffe || u == 0xffff || (0xfff9..=0xfffb).contains(&u) {
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings() {
        let mut s = String::new();
        quote_string(&mut s, "a<b>&\"\\\n\u{1}\u{2028}é", true);
        assert_eq!(s, r#""a\u003cb\u003e\u0026\"\\\n\u0001\u2028é""#);
    }

    #[test]
    fn json_floats() {
        assert_eq!(format_json_float(1e6, 64), "1000000");
        assert_eq!(format_json_float(1e21, 64), "1e+21");
        assert_eq!(format_json_float(1e-7, 64), "1e-7");
        assert_eq!(format_json_float(0.5, 64), "0.5");
        assert_eq!(format_json_float(2.5e10, 64), "25000000000");
    }

    #[test]
    fn go_quoting() {
        assert_eq!(go_quote("a\"b\n"), r#""a\"b\n""#);
        assert_eq!(go_quote("\u{7f}"), r#""\x7f""#);
        assert_eq!(go_quote_bytes(b"\xff"), r#""\xff""#);
    }
}
