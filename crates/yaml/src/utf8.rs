//! go-yaml's reader: the bytes of a YAML file must be UTF-8 (a byte order mark aside), and
//! go-yaml names the first fault it meets. capstan reads files as bytes and checks them
//! here before treating them as text, so a file Go refuses is refused with Go's words.
//! Also what the line readers share: the quick test they start with (only printable
//! ASCII and line feeds) and skipping the spaces of an indentation.

use crate::YamlError;

/// The file's text, or go-yaml's reader error for its first invalid UTF-8 sequence.
pub fn yaml_text(bytes: &[u8]) -> Result<&str, YamlError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => {
            // The place of the first bad byte (go-yaml's message does not name it).
            let valid = &bytes[..e.valid_up_to()];
            let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&valid[line_start..])
                .chars()
                .count()
                + 1;
            let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
            Err(
                YamlError::new(format!("yaml: {}", fault(&bytes[e.valid_up_to()..]))).at(Some(
                    capstan_source::Pos {
                        offset: e.valid_up_to(),
                        line: u32::try_from(line).unwrap_or(u32::MAX),
                        column: u32::try_from(column).unwrap_or(u32::MAX),
                    },
                )),
            )
        }
    }
}

/// [`yaml_text`] as Helm's multi-document reader sees a file (`-f` files, a chart's
/// `values.yaml`): each document it hands to go-yaml ends with a line break, so a
/// sequence cut off by the end of the file meets that break.
pub fn yaml_documents_text(bytes: &[u8]) -> Result<&str, YamlError> {
    if bytes.last().is_some_and(|&b| b != b'\n') && std::str::from_utf8(bytes).is_err() {
        let mut terminated = bytes.to_vec();
        terminated.push(b'\n');
        yaml_text(&terminated)?;
    }
    yaml_text(bytes)
}

/// go-yaml's name for the invalid sequence at the start of `rest` (`yaml_parser_update_buffer`).
fn fault(rest: &[u8]) -> &'static str {
    let lead = rest[0];
    let width = match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return "invalid leading UTF-8 octet",
    };
    if rest.len() < width {
        return "incomplete UTF-8 octet sequence";
    }
    let mut value: u32 = u32::from(match width {
        2 => lead & 0x1f,
        3 => lead & 0x0f,
        _ => lead & 0x07,
    });
    for &b in &rest[1..width] {
        if b & 0xc0 != 0x80 {
            return "invalid trailing UTF-8 octet";
        }
        value = (value << 6) | u32::from(b & 0x3f);
    }
    let shortest = match width {
        2 => value >= 0x80,
        3 => value >= 0x800,
        _ => value >= 0x10000,
    };
    if !shortest {
        return "invalid length of a UTF-8 sequence";
    }
    // A surrogate or a value past U+10FFFF.
    "invalid Unicode character"
}

/// Whether every byte of `b` is printable ASCII (0x20 to 0x7e) or `\n`: eight bytes at a
/// time, each test exact per byte (no carry crosses a byte).
pub(crate) fn printable_ascii_lines(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(c);
        let x = u64::from_le_bytes(word);
        // High bit of each byte below 0x20 (bytes with the high bit set excluded).
        let control = !(((x & LOW7) + ONES * 0x60) | x) & HIGH;
        // High bit of each byte equal to `\n`.
        let t = x ^ (ONES * 0x0a);
        let newline = !(((t & LOW7) + LOW7) | t) & HIGH;
        // High bit of each byte of 0x7f or more.
        let high = (((x & LOW7) + ONES) | x) & HIGH;
        if (control & !newline) | high != 0 {
            return false;
        }
    }
    chunks
        .remainder()
        .iter()
        .all(|&c| c == b'\n' || (0x20..0x7f).contains(&c))
}

/// `str::trim_start_matches(' ')` inlined: the call costs more than the few spaces it
/// skips on each line.
pub(crate) trait SkipSpaces {
    fn skip_spaces(&self) -> &str;
}

impl SkipSpaces for str {
    #[inline(always)]
    fn skip_spaces(&self) -> &str {
        let n = self.bytes().take_while(|&b| b == b' ').count();
        &self[n..]
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_printable_test_takes_exactly_printable_ascii_and_newlines() {
        for c in 0..=255u8 {
            let expected = c == b'\n' || (0x20..0x7f).contains(&c);
            for at in 0..17 {
                let mut text = vec![b'a'; 17];
                text[at] = c;
                assert_eq!(
                    super::printable_ascii_lines(&text),
                    expected,
                    "{c:#x} at {at}"
                );
            }
        }
    }

    use super::*;

    #[test]
    fn go_yaml_names_each_fault() {
        let msg = |b: &[u8]| yaml_text(b).unwrap_err().to_string();
        assert_eq!(yaml_text(b"a: \xc3\xa9").ok(), Some("a: é"));
        assert!(msg(b"a: \xff").contains("yaml: invalid leading UTF-8 octet"));
        assert!(msg(b"a: \x80").contains("yaml: invalid leading UTF-8 octet"));
        assert!(msg(b"a: \xc3").contains("yaml: incomplete UTF-8 octet sequence"));
        assert!(msg(b"a: \xc3a").contains("yaml: invalid trailing UTF-8 octet"));
        assert!(msg(b"a: \xc0\x80").contains("yaml: invalid length of a UTF-8 sequence"));
        assert!(msg(b"a: \xed\xa0\x80").contains("yaml: invalid Unicode character"));
        let docs = |b: &[u8]| yaml_documents_text(b).unwrap_err().to_string();
        assert!(docs(b"a: \xc3").contains("yaml: invalid trailing UTF-8 octet"));
        assert!(docs(b"a: \xc3\n").contains("yaml: invalid trailing UTF-8 octet"));
        assert_eq!(yaml_documents_text(b"a: 1").ok(), Some("a: 1"));
    }
}
