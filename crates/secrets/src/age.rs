//! age decryption for X25519 identities (`AGE-SECRET-KEY-1…`): the v1 header (stanzas,
//! header MAC) and the STREAM payload, as sops stores its data key. Only what sops
//! needs: no scrypt or SSH recipients, no encryption.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use x25519_dalek::{PublicKey, StaticSecret};

/// An X25519 identity.
#[derive(Clone)]
pub struct Identity {
    secret: [u8; 32],
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Identity(…)")
    }
}

const CHARSET: &[u8; 32] = b"qpzry9x8gf2tvdw0s3jn54khce6mua7l";

fn polymod(values: &[u8]) -> u32 {
    const GEN: [u32; 5] = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
    let mut chk: u32 = 1;
    for v in values {
        let b = chk >> 25;
        chk = ((chk & 0x1ffffff) << 5) ^ *v as u32;
        for (i, g) in GEN.iter().enumerate() {
            if (b >> i) & 1 == 1 {
                chk ^= g;
            }
        }
    }
    chk
}

/// Decodes a Bech32 string into its human-readable part and 8-bit data.
fn bech32_decode(s: &str) -> Option<(String, Vec<u8>)> {
    let lower = s.to_ascii_lowercase();
    let sep = lower.rfind('1')?;
    let (hrp, data) = (&lower[..sep], &lower[sep + 1..]);
    if hrp.is_empty() || data.len() < 6 {
        return None;
    }
    let values: Vec<u8> = data
        .bytes()
        .map(|c| CHARSET.iter().position(|&x| x == c).map(|p| p as u8))
        .collect::<Option<_>>()?;
    let mut check: Vec<u8> = hrp.bytes().map(|c| c >> 5).collect();
    check.push(0);
    check.extend(hrp.bytes().map(|c| c & 31));
    check.extend(&values);
    if polymod(&check) != 1 {
        return None;
    }
    let five = &values[..values.len() - 6];
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for v in five {
        acc = (acc << 5) | *v as u32;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    if bits >= 5 || (acc & ((1u32 << bits) - 1)) != 0 {
        return None;
    }
    Some((hrp.to_string(), out))
}

impl Identity {
    /// Parses `AGE-SECRET-KEY-1…`.
    pub fn parse(s: &str) -> Option<Identity> {
        let (hrp, data) = bech32_decode(s.trim())?;
        if hrp != "age-secret-key-" || data.len() != 32 {
            return None;
        }
        let mut secret = [0u8; 32];
        secret.copy_from_slice(&data);
        Some(Identity { secret })
    }

    /// Every identity in a keys file (comments and blank lines skipped).
    pub fn parse_all(text: &str) -> Vec<Identity> {
        text.lines()
            .map(str::trim)
            .filter(|l| l.starts_with("AGE-SECRET-KEY-"))
            .filter_map(Identity::parse)
            .collect()
    }

    fn unwrap(&self, share: &[u8], body: &[u8]) -> Option<[u8; 16]> {
        let share: [u8; 32] = share.try_into().ok()?;
        let secret = StaticSecret::from(self.secret);
        let ours = PublicKey::from(&secret);
        let shared = secret.diffie_hellman(&PublicKey::from(share));
        if shared.as_bytes().iter().all(|b| *b == 0) {
            return None;
        }
        let mut salt = Vec::with_capacity(64);
        salt.extend_from_slice(&share);
        salt.extend_from_slice(ours.as_bytes());
        let wrap = hkdf(&salt, shared.as_bytes(), b"age-encryption.org/v1/X25519");
        let key = ChaCha20Poly1305::new(Key::from_slice(&wrap));
        let file_key = key.decrypt(Nonce::from_slice(&[0u8; 12]), body).ok()?;
        file_key.try_into().ok()
    }
}

fn hkdf(salt: &[u8], ikm: &[u8], info: &[u8]) -> [u8; 32] {
    let h = Hkdf::<Sha256>::new(Some(salt), ikm);
    let mut out = [0u8; 32];
    // A 32-byte output is always within HKDF-SHA256's limit.
    let _ = h.expand(info, &mut out);
    out
}

/// Why age decryption failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgeError {
    /// The age file or an identity is not well formed (what is wrong).
    Malformed(String),
    /// None of the identities opens any of the file's stanzas.
    NoMatchingIdentity,
    /// The file key opened, but the payload does not decrypt (what failed).
    Corrupt(String),
}

impl std::fmt::Display for AgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgeError::Malformed(m) => write!(f, "malformed age file: {m}"),
            AgeError::NoMatchingIdentity => {
                f.write_str("no identity matched any of the recipients")
            }
            AgeError::Corrupt(m) => write!(f, "age file is corrupt: {m}"),
        }
    }
}

/// Removes the PEM-style armor (`-----BEGIN AGE ENCRYPTED FILE-----`).
fn dearmor(text: &str) -> Result<Vec<u8>, AgeError> {
    let body: String = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("-----"))
        .collect();
    STANDARD
        .decode(body.as_bytes())
        .map_err(|e| AgeError::Malformed(format!("armor: {e}")))
}

/// Decrypts an age file (armored or binary) with the first identity that opens it.
pub fn decrypt(data: &[u8], identities: &[Identity]) -> Result<Vec<u8>, AgeError> {
    let bytes = match std::str::from_utf8(data) {
        Ok(t)
            if t.trim_start()
                .starts_with("-----BEGIN AGE ENCRYPTED FILE-----") =>
        {
            dearmor(t)?
        }
        _ => data.to_vec(),
    };
    let intro = b"age-encryption.org/v1\n";
    if !bytes.starts_with(intro) {
        return Err(AgeError::Malformed("unknown version line".into()));
    }
    // Header lines up to and including `--- MAC`.
    let mut pos = intro.len();
    let mut stanzas: Vec<(Vec<String>, Vec<u8>)> = Vec::new();
    let line = |pos: &mut usize| -> Result<String, AgeError> {
        let rest = &bytes[*pos..];
        let end = rest
            .iter()
            .position(|b| *b == b'\n')
            .ok_or_else(|| AgeError::Malformed("header ends early".into()))?;
        *pos += end + 1;
        String::from_utf8(rest[..end].to_vec())
            .map_err(|_| AgeError::Malformed("header is not text".into()))
    };
    let mac_line;
    let mac_start;
    loop {
        let start = pos;
        let l = line(&mut pos)?;
        if let Some(mac) = l.strip_prefix("--- ") {
            mac_line = mac.to_string();
            mac_start = start;
            break;
        }
        let Some(args) = l.strip_prefix("-> ") else {
            return Err(AgeError::Malformed(format!("unexpected header line {l:?}")));
        };
        let args: Vec<String> = args.split(' ').map(String::from).collect();
        let mut body = String::new();
        loop {
            let b = line(&mut pos)?;
            let short = b.len() < 64;
            body.push_str(&b);
            if short {
                break;
            }
        }
        let body = STANDARD_NO_PAD
            .decode(body.as_bytes())
            .map_err(|e| AgeError::Malformed(format!("stanza body: {e}")))?;
        stanzas.push((args, body));
    }
    let mut file_key = None;
    'find: for (args, body) in &stanzas {
        if args.first().map(String::as_str) != Some("X25519") || args.len() != 2 {
            continue;
        }
        let Ok(share) = STANDARD_NO_PAD.decode(args[1].as_bytes()) else {
            continue;
        };
        for id in identities {
            if let Some(k) = id.unwrap(&share, body) {
                file_key = Some(k);
                break 'find;
            }
        }
    }
    let file_key = file_key.ok_or(AgeError::NoMatchingIdentity)?;
    let mac = STANDARD_NO_PAD
        .decode(mac_line.as_bytes())
        .map_err(|e| AgeError::Malformed(format!("header MAC: {e}")))?;
    let hmac_key = hkdf(&[], &file_key, b"header");
    let mut h = <Hmac<Sha256> as Mac>::new_from_slice(&hmac_key)
        .map_err(|_| AgeError::Corrupt("header MAC key".into()))?;
    h.update(&bytes[..mac_start + 3]);
    h.verify_slice(&mac)
        .map_err(|_| AgeError::Corrupt("header MAC mismatch".into()))?;
    let payload = &bytes[pos..];
    if payload.len() < 16 {
        return Err(AgeError::Corrupt("payload too short".into()));
    }
    let (nonce, chunks) = payload.split_at(16);
    let key = hkdf(nonce, &file_key, b"payload");
    let aead = ChaCha20Poly1305::new(Key::from_slice(&key));
    const CHUNK: usize = 64 * 1024 + 16;
    let mut out = Vec::new();
    let n = chunks.len().div_ceil(CHUNK).max(1);
    for (i, c) in chunks.chunks(CHUNK).enumerate() {
        let mut nonce = [0u8; 12];
        nonce[3..11].copy_from_slice(&(i as u64).to_be_bytes());
        if i + 1 == n {
            nonce[11] = 1;
        }
        let plain = aead
            .decrypt(Nonce::from_slice(&nonce), c)
            .map_err(|_| AgeError::Corrupt("payload authentication failed".into()))?;
        out.extend(plain);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bech32_follows_bip173() {
        assert_eq!(bech32_decode("A12UEL5L"), Some(("a".into(), vec![])));
        assert!(bech32_decode("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw").is_some());
        assert!(bech32_decode("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxx").is_none());
        assert!(Identity::parse("AGE-SECRET-KEY-1QQQ").is_none());
    }
}
