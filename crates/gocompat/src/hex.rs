//! Go's `encoding/hex` lower-case encoding (`hex.EncodeToString`), as `sha256sum` and
//! the digests capstan names files and caches by print it.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// `hex.EncodeToString`: two lower-case digits per byte.
pub fn encode(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() * 2);
    for &x in b {
        out.push(DIGITS[(x >> 4) as usize] as char);
        out.push(DIGITS[(x & 15) as usize] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_byte_prints_as_two_lower_case_digits() {
        let all: Vec<u8> = (0..=255).collect();
        let expected: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(super::encode(&all), expected);
        assert_eq!(super::encode(&[]), "");
    }
}
