//! Go's `strconv.Quote` family: a string as a double-quoted Go literal, with Go's escapes
//! and its idea of a printable rune.

/// Go's `strconv.Quote`: a double-quoted Go string literal with Go escapes.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_go_quoted(&mut out, s);
    out
}

/// [`go_quote`] appended to `out`.
pub fn push_go_quoted(out: &mut String, s: &str) {
    out.push('"');
    // Printable ASCII without a quote or backslash (nearly every value) is its own
    // quoted form.
    if s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        out.push_str(s);
    } else {
        for c in s.chars() {
            push_go_escaped(out, c, '"');
        }
    }
    out.push('"');
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
    fn go_quoting() {
        assert_eq!(go_quote("a\"b\n"), r#""a\"b\n""#);
        assert_eq!(go_quote("\u{7f}"), r#""\x7f""#);
        assert_eq!(go_quote_bytes(b"\xff"), r#""\xff""#);
    }
}
