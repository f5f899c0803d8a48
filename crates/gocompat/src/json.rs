//! The scalar parts of Go's `encoding/json` output: how strings and floats are
//! written, byte for byte.

use crate::strconv::format_float;

/// Appends `s` as a JSON string the way `encoding/json` does (`escape_html`: `<`, `>`, `&`
/// become `\u003c` …, as `json.Marshal` does by default). Invalid UTF-8 has already been
/// replaced by U+FFFD when it reaches Rust `&str`; use [`crate::quote::go_quote_bytes`] for raw bytes.
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
}
