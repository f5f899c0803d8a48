//! Encoding and hashing functions: `b64enc`, `b64dec`, `b32enc`, `b32dec`, `sha1sum`,
//! `sha256sum`, `sha512sum`, `adler32sum`.

use crate::convert::s;
use crate::reg;
use capstan_gotmpl::{FuncMap, Ty};
use capstan_value::json::base64_encode;
use capstan_value::Value;
use sha1::Digest;

fn hex(b: &[u8]) -> String {
    capstan_gocompat::hex::encode(b)
}

pub(crate) fn base64_decode(s: &str) -> Result<Vec<u8>, capstan_gotmpl::FuncError> {
    Ok(capstan_gocompat::base64::decode(s)?)
}

const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

fn base32_encode(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in b.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = buf.iter().fold(0u64, |acc, x| acc << 8 | *x as u64);
        let chars = (chunk.len() * 8).div_ceil(5);
        for k in 0..8 {
            if k < chars {
                out.push(B32[(n >> (35 - 5 * k) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base32_decode(s: &str) -> Result<Vec<u8>, capstan_gotmpl::FuncError> {
    let b: Vec<u8> = s.bytes().filter(|c| *c != b'\n' && *c != b'\r').collect();
    if !b.len().is_multiple_of(8) {
        return Err(format!("illegal base32 data at input byte {}", b.len() / 8 * 8).into());
    }
    let mut out = Vec::new();
    for (ci, chunk) in b.chunks(8).enumerate() {
        let mut n = 0u64;
        let mut got = 0;
        for (k, &c) in chunk.iter().enumerate() {
            if c == b'=' {
                break;
            }
            let v = B32
                .iter()
                .position(|&t| t == c)
                .ok_or_else(|| format!("illegal base32 data at input byte {}", ci * 8 + k))?;
            n |= (v as u64) << (35 - 5 * k);
            got += 1;
        }
        let bytes = got * 5 / 8;
        for k in 0..bytes {
            out.push((n >> (32 - 8 * k)) as u8);
        }
    }
    Ok(out)
}

fn adler32(b: &[u8]) -> u32 {
    let (mut a, mut s2) = (1u32, 0u32);
    for &x in b {
        a = (a + x as u32) % 65521;
        s2 = (s2 + a) % 65521;
    }
    s2 << 16 | a
}

/// A Go string's bytes: a string argument may hold bytes that are not UTF-8 (a binary
/// chart file from `.Files.Get`), which Go encodes and hashes as they are.
fn bytes(v: &Value) -> &[u8] {
    match v {
        Value::String(x) => x.as_bytes(),
        Value::RawString(b) | Value::Bytes(b) => b,
        _ => &[],
    }
}

fn text(b: Vec<u8>) -> Value {
    match String::from_utf8(b) {
        Ok(s) => Value::from(s),
        Err(e) => Value::RawString(e.into_bytes().into()),
    }
}

pub fn register(m: &mut FuncMap) {
    reg(m, "b64enc", &[Ty::String], |a| {
        Ok(Value::from(base64_encode(bytes(&a[0]))))
    });
    reg(m, "b64dec", &[Ty::String], |a| {
        Ok(base64_decode(&s(&a[0]))
            .map(text)
            .unwrap_or_else(|e| Value::from(e.to_string())))
    });
    reg(m, "b32enc", &[Ty::String], |a| {
        Ok(Value::from(base32_encode(bytes(&a[0]))))
    });
    reg(m, "b32dec", &[Ty::String], |a| {
        Ok(base32_decode(&s(&a[0]))
            .map(text)
            .unwrap_or_else(|e| Value::from(e.to_string())))
    });
    reg(m, "sha1sum", &[Ty::String], |a| {
        Ok(Value::from(hex(&sha1::Sha1::digest(bytes(&a[0])))))
    });
    reg(m, "sha256sum", &[Ty::String], |a| {
        Ok(Value::from(hex(&sha2::Sha256::digest(bytes(&a[0])))))
    });
    reg(m, "sha512sum", &[Ty::String], |a| {
        Ok(Value::from(hex(&sha2::Sha512::digest(bytes(&a[0])))))
    });
    reg(m, "adler32sum", &[Ty::String], |a| {
        Ok(Value::from(adler32(bytes(&a[0])).to_string()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codecs() {
        assert_eq!(base32_encode(b"hello"), "NBSWY3DP");
        assert_eq!(base32_decode("NBSWY3DP").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(adler32(b"hello"), 103547413);
    }
}
