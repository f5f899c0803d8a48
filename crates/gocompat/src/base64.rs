//! Go's `encoding/base64` standard encoding (with padding): encoding, and decoding with
//! Go's error offsets (`illegal base64 data at input byte N`). Line breaks are skipped,
//! as Go's decoder does.

const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `base64.StdEncoding.EncodeToString`.
pub fn encode(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let n = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Go's `base64.CorruptInputError`: the input byte where decoding failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorruptInputError(pub usize);

impl std::fmt::Display for CorruptInputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "illegal base64 data at input byte {}", self.0)
    }
}

impl std::error::Error for CorruptInputError {}

/// `base64.StdEncoding.DecodeString`.
pub fn decode(s: &str) -> Result<Vec<u8>, CorruptInputError> {
    let b: Vec<u8> = s.bytes().filter(|c| *c != b'\n' && *c != b'\r').collect();
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    let mut i = 0;
    while i < b.len() {
        let chunk = &b[i..(i + 4).min(b.len())];
        let mut n = 0u32;
        let mut got = 0;
        for (k, &c) in chunk.iter().enumerate() {
            if c == b'=' {
                break;
            }
            let v = TABLE
                .iter()
                .position(|&t| t == c)
                .ok_or(CorruptInputError(i + k))?;
            n |= (v as u32) << (18 - 6 * k);
            got += 1;
        }
        if got < 2 || (chunk.len() < 4 && got == chunk.len()) {
            // Go reports an unfinished quantum at its start.
            return Err(CorruptInputError(i));
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..got - 1]);
        i += 4;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        assert_eq!(encode(b"hello"), "aGVsbG8=");
        assert_eq!(decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(
            decode("aGk").unwrap_err().to_string(),
            "illegal base64 data at input byte 0"
        );
        assert_eq!(encode(b"\xff\xee\xff"), "/+7/");
    }
}
