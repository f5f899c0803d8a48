//! The little ASN.1 DER the certificate functions need: writing the structures of an
//! X.509 certificate and of private keys as Go's `encoding/asn1` writes them, PEM blocks
//! as Go's `encoding/pem` encodes and decodes them, and reading DER back into a tree.

use capstan_value::json::base64_encode;

pub const SEQUENCE: u8 = 0x30;
pub const SET: u8 = 0x31;
pub const INTEGER: u8 = 0x02;
pub const BIT_STRING: u8 = 0x03;
pub const OCTET_STRING: u8 = 0x04;
pub const NULL: u8 = 0x05;
pub const OID: u8 = 0x06;
pub const BOOLEAN: u8 = 0x01;
pub const UTF8_STRING: u8 = 0x0c;
pub const PRINTABLE_STRING: u8 = 0x13;
pub const UTC_TIME: u8 = 0x17;
pub const GENERALIZED_TIME: u8 = 0x18;

/// One TLV: tag, length, contents.
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes: Vec<u8> = n
            .to_be_bytes()
            .iter()
            .copied()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

/// A constructed value of `parts` one after the other.
pub fn seq(tag: u8, parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(tag, &parts.concat())
}

/// A non-negative INTEGER from its big-endian magnitude.
pub fn uint(magnitude: &[u8]) -> Vec<u8> {
    let trimmed: Vec<u8> = magnitude.iter().copied().skip_while(|b| *b == 0).collect();
    let mut content = Vec::with_capacity(trimmed.len() + 1);
    if trimmed.first().is_none_or(|b| b & 0x80 != 0) {
        content.push(0);
    }
    content.extend(trimmed);
    tlv(INTEGER, &content)
}

/// A small INTEGER (two's complement, minimal).
pub fn int(v: i64) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut start = 0;
    while start < 7
        && ((bytes[start] == 0 && bytes[start + 1] & 0x80 == 0)
            || (bytes[start] == 0xff && bytes[start + 1] & 0x80 != 0))
    {
        start += 1;
    }
    tlv(INTEGER, &bytes[start..])
}

/// An OBJECT IDENTIFIER from its arcs.
pub(crate) fn oid(arcs: &[u64]) -> Vec<u8> {
    let mut content = Vec::new();
    let mut push = |mut v: u64| {
        let mut tmp = vec![(v & 0x7f) as u8];
        v >>= 7;
        while v > 0 {
            tmp.push(0x80 | (v & 0x7f) as u8);
            v >>= 7;
        }
        tmp.reverse();
        content.extend(tmp);
    };
    if arcs.len() >= 2 {
        push(arcs[0] * 40 + arcs[1]);
        for a in &arcs[2..] {
            push(*a);
        }
    }
    tlv(OID, &content)
}

/// A BIT STRING of whole bytes.
pub(crate) fn bit_string(bytes: &[u8]) -> Vec<u8> {
    let mut content = vec![0];
    content.extend_from_slice(bytes);
    tlv(BIT_STRING, &content)
}

/// A BIT STRING as Go marshals an `asn1.BitString` of `bytes`: its length ends at the
/// last set bit.
pub(crate) fn bit_string_trimmed(bytes: &[u8]) -> Vec<u8> {
    let Some(last) = bytes.iter().rposition(|b| *b != 0) else {
        return tlv(BIT_STRING, &[0]);
    };
    let unused = bytes[last].trailing_zeros() as u8;
    let mut content = vec![unused];
    content.extend_from_slice(&bytes[..=last]);
    tlv(BIT_STRING, &content)
}

/// A string as Go's `encoding/asn1` marshals a Go string without a type: a
/// PrintableString when every character allows it, else a UTF8String.
pub(crate) fn go_string(s: &str) -> Vec<u8> {
    let printable = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b" '()+,-./:=?".contains(&b));
    tlv(
        if printable {
            PRINTABLE_STRING
        } else {
            UTF8_STRING
        },
        s.as_bytes(),
    )
}

/// A time as Go marshals it in a certificate: UTCTime for the years 1950-2049,
/// GeneralizedTime otherwise, in UTC to the second.
pub fn time(unix_seconds: i64) -> Vec<u8> {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (secs / 3600, secs / 60 % 60, secs % 60);
    if (1950..2050).contains(&y) {
        let text = format!("{:02}{m:02}{d:02}{hh:02}{mm:02}{ss:02}Z", y % 100);
        tlv(UTC_TIME, text.as_bytes())
    } else {
        let text = format!("{y:04}{m:02}{d:02}{hh:02}{mm:02}{ss:02}Z");
        tlv(GENERALIZED_TIME, text.as_bytes())
    }
}

/// Days since 1970-01-01 to a proleptic Gregorian date.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A decoded DER element: its tag, its contents and the whole encoding.
#[derive(Debug, Clone, Copy)]
pub struct Element<'a> {
    pub tag: u8,
    pub content: &'a [u8],
    pub raw: &'a [u8],
}

impl<'a> Element<'a> {
    /// The elements inside a constructed element.
    pub fn children(&self) -> Result<Vec<Element<'a>>, capstan_gotmpl::FuncError> {
        let mut out = Vec::new();
        let mut rest = self.content;
        while !rest.is_empty() {
            let (e, tail) = read(rest)?;
            out.push(e);
            rest = tail;
        }
        Ok(out)
    }
}

/// Reads one element from the front of `data`.
pub fn read(data: &[u8]) -> Result<(Element<'_>, &[u8]), capstan_gotmpl::FuncError> {
    let malformed = || "asn1: syntax error: data truncated".to_string();
    let tag = *data.first().ok_or_else(malformed)?;
    if tag & 0x1f == 0x1f {
        return Err("asn1: structure error: multi-byte tags are not supported".into());
    }
    let first = *data.get(1).ok_or_else(malformed)?;
    let (len, header) = if first < 0x80 {
        (first as usize, 2)
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 4 {
            return Err("asn1: structure error: length too large".into());
        }
        let bytes = data.get(2..2 + n).ok_or_else(malformed)?;
        (
            bytes.iter().fold(0usize, |acc, b| (acc << 8) | *b as usize),
            2 + n,
        )
    };
    let end = header.checked_add(len).ok_or_else(malformed)?;
    let raw = data.get(..end).ok_or_else(malformed)?;
    Ok((
        Element {
            tag,
            content: &raw[header..],
            raw,
        },
        &data[end..],
    ))
}

/// Reads exactly one element filling `data`.
pub(crate) fn read_all(data: &[u8]) -> Result<Element<'_>, capstan_gotmpl::FuncError> {
    let (e, rest) = read(data)?;
    if !rest.is_empty() {
        return Err("x509: trailing data".into());
    }
    Ok(e)
}

/// The arcs of an OBJECT IDENTIFIER's contents.
pub(crate) fn oid_arcs(content: &[u8]) -> Vec<u64> {
    let mut arcs = Vec::new();
    let mut v: u64 = 0;
    for b in content {
        v = (v << 7) | (b & 0x7f) as u64;
        if b & 0x80 == 0 {
            if arcs.is_empty() {
                let first = (v / 40).min(2);
                arcs.push(first);
                arcs.push(v - first * 40);
            } else {
                arcs.push(v);
            }
            v = 0;
        }
    }
    arcs
}

/// One PEM block.
pub struct Pem {
    pub kind: String,
    pub bytes: Vec<u8>,
}

/// Go's `pem.EncodeToMemory`: base64 in lines of 64 characters.
pub(crate) fn pem_encode(kind: &str, bytes: &[u8]) -> String {
    let b64 = base64_encode(bytes);
    let mut out = format!("-----BEGIN {kind}-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(chunk));
        out.push('\n');
    }
    out.push_str(&format!("-----END {kind}-----\n"));
    out
}

/// Go's `pem.Decode`: the first well-formed block in `text` (headers skipped).
pub(crate) fn pem_decode(text: &str) -> Option<Pem> {
    let mut rest = text;
    loop {
        let at = rest.find("-----BEGIN ")?;
        let after = &rest[at + 11..];
        rest = after;
        let Some(end_of_kind) = after.find("-----") else {
            continue;
        };
        let kind = &after[..end_of_kind];
        if kind.contains('\n') {
            continue;
        }
        let body_start = &after[end_of_kind + 5..];
        let Some(body_start) = body_start
            .strip_prefix("\r\n")
            .or_else(|| body_start.strip_prefix('\n'))
        else {
            continue;
        };
        let end_marker = format!("-----END {kind}-----");
        let Some(end) = body_start.find(&end_marker) else {
            continue;
        };
        let body = &body_start[..end];
        // Headers ("Key: value" lines) end at a blank line.
        let body = if body.lines().next().is_some_and(|l| l.contains(':')) {
            match body.find("\n\n") {
                Some(i) => &body[i + 2..],
                None => continue,
            }
        } else {
            body
        };
        let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
        if let Ok(bytes) = crate::encoding::base64_decode(&compact) {
            return Some(Pem {
                kind: kind.to_string(),
                bytes,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_oids_and_times_as_go_writes_them() {
        assert_eq!(int(0), [2, 1, 0]);
        assert_eq!(int(-1), [2, 1, 0xff]);
        assert_eq!(int(128), [2, 2, 0, 0x80]);
        assert_eq!(uint(&[0x80]), [2, 2, 0, 0x80]);
        assert_eq!(uint(&[0, 0, 5]), [2, 1, 5]);
        assert_eq!(oid(&[2, 5, 4, 3]), [6, 3, 0x55, 4, 3]);
        assert_eq!(
            oid_arcs(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d]),
            [1, 2, 840, 113549]
        );
        assert_eq!(time(0), tlv(UTC_TIME, b"700101000000Z"));
        assert_eq!(
            time(4_102_444_800),
            tlv(GENERALIZED_TIME, b"21000101000000Z")
        );
        assert_eq!(bit_string_trimmed(&[0xa0, 0]), [3, 2, 5, 0xa0]);
        assert_eq!(go_string("a.b")[0], PRINTABLE_STRING);
        assert_eq!(go_string("*.b")[0], UTF8_STRING);
    }

    #[test]
    fn pem_round_trip_and_long_lengths() {
        let data: Vec<u8> = (0..200u8).collect();
        let text = pem_encode("THING", &data);
        assert!(text.lines().all(|l| l.len() <= 64));
        let back = pem_decode(&format!("junk\n{text}")).expect("a block");
        assert_eq!((back.kind.as_str(), back.bytes), ("THING", data.clone()));
        let long = tlv(OCTET_STRING, &data);
        let (e, rest) = read(&long).expect("readable");
        assert_eq!((e.content, rest.len()), (&data[..], 0));
        assert!(pem_decode("no pem here").is_none());
    }
}
