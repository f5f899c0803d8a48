//! RSA signatures for the certificates sprig makes: PKCS #1 v1.5 with SHA-256, as Go's
//! `rsa.SignPKCS1v15` writes them (the scheme is deterministic: the same key and data
//! give the same bytes), computed by the Chinese remainder theorem with the two modular
//! exponentiations in [`crate::montgomery`]. Keys this fast path does not fit (primes
//! whose size is not 1024 or 2048 bits, more than two primes) are signed by the `rsa`
//! crate instead.

use crate::montgomery::Modulus;
use rsa::traits::{PrivateKeyParts, PublicKeyParts};
use rsa::BigUint;
use sha2::Digest;

/// DER of SHA-256's `DigestInfo` up to the digest itself (RFC 8017, section 9.2).
const SHA256_DIGEST_INFO: [u8; 19] = [
    0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05,
    0x00, 0x04, 0x20,
];

/// The signature of `data` by `key`, `key.size()` bytes.
pub(crate) fn sign_sha256(key: &rsa::RsaPrivateKey, data: &[u8]) -> Result<Vec<u8>, String> {
    let digest = sha2::Sha256::digest(data);
    let size = key.size();
    let fast = encoded_message(size, &digest).and_then(|em| {
        let m = BigUint::from_bytes_be(&em);
        let s = crt::<16>(key, &m).or_else(|| crt::<32>(key, &m))?;
        // A fault in the arithmetic must not leak the key (as Go checks): verify.
        if s.modpow(key.e(), key.n()) != m {
            return None;
        }
        let bytes = s.to_bytes_be();
        let mut out = vec![0u8; size.checked_sub(bytes.len())?];
        out.extend(bytes);
        Some(out)
    });
    match fast {
        Some(signature) => Ok(signature),
        None => {
            use rsa::signature::{SignatureEncoding, Signer};
            let signer = rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(key.clone());
            let sig = signer.try_sign(data).map_err(|e| e.to_string())?;
            Ok(sig.to_vec())
        }
    }
}

/// `00 01 FF…FF 00 DigestInfo digest`, `size` bytes; `None` when the key is too short.
fn encoded_message(size: usize, digest: &[u8]) -> Option<Vec<u8>> {
    let t_len = SHA256_DIGEST_INFO.len() + digest.len();
    let padding = size.checked_sub(t_len + 3).filter(|p| *p >= 8)?;
    let mut em = Vec::with_capacity(size);
    em.extend([0x00, 0x01]);
    em.extend(std::iter::repeat_n(0xff, padding));
    em.push(0x00);
    em.extend(SHA256_DIGEST_INFO);
    em.extend(digest);
    Some(em)
}

/// `m^d mod n` by the CRT over two primes of `64·L` bits each with their top bit set;
/// `None` when the key is not of that shape.
fn crt<const L: usize>(key: &rsa::RsaPrivateKey, m: &BigUint) -> Option<BigUint> {
    let [p, q] = key.primes() else {
        return None;
    };
    let (dp, dq) = (key.dp()?, key.dq()?);
    let qinv = key.crt_coefficient()?;
    let mod_p = Modulus::new(&words::<L>(p)?)?;
    let mod_q = Modulus::new(&words::<L>(q)?)?;
    let s1 = mod_p.pow(&words::<L>(&(m % p))?, &limbs(dp));
    let s2 = mod_q.pow(&words::<L>(&(m % q))?, &limbs(dq));
    let (s1, s2) = (from_words(&s1), from_words(&s2));
    // h = qinv·(s1 − s2) mod p; s = s2 + h·q.
    let diff = (s1 + p - (&s2 % p)) % p;
    let h = (qinv * diff) % p;
    Some(s2 + h * q)
}

/// `n` as little-endian 64-bit words.
fn limbs(n: &BigUint) -> Vec<u64> {
    n.to_bytes_le()
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

/// `n` as exactly `L` words; `None` when it needs more.
fn words<const L: usize>(n: &BigUint) -> Option<[u64; L]> {
    let v = limbs(n);
    if v.len() > L {
        return None;
    }
    let mut out = [0u64; L];
    out[..v.len()].copy_from_slice(&v);
    Some(out)
}

fn from_words(w: &[u64]) -> BigUint {
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsa::signature::{SignatureEncoding, Signer};

    fn crate_signature(key: &rsa::RsaPrivateKey, data: &[u8]) -> Vec<u8> {
        rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(key.clone())
            .try_sign(data)
            .unwrap()
            .to_vec()
    }

    #[test]
    fn signatures_are_the_rsa_crates_byte_for_byte() {
        // A key of the shape sprig makes (the fast path) and one of 1536 bits (the
        // fallback: its primes are 768 bits).
        let mut rng = p256::elliptic_curve::rand_core::OsRng;
        let made = match crate::certs::rsa_key_for_tests(2048) {
            Some(k) => k,
            None => panic!("a 2048-bit key"),
        };
        let odd = rsa::RsaPrivateKey::new(&mut rng, 1536).unwrap();
        for key in [&made, &odd] {
            for data in [&b""[..], b"tbs certificate", &[7u8; 1000]] {
                assert_eq!(
                    sign_sha256(key, data).unwrap(),
                    crate_signature(key, data),
                    "{} bits",
                    key.size() * 8
                );
            }
        }
        assert!(crt::<16>(&made, &BigUint::from(5u32)).is_some());
        assert!(crt::<16>(&odd, &BigUint::from(5u32)).is_none());
    }

    #[test]
    fn pow_agrees_with_num_bigint_on_random_operands() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || crate::montgomery::xorshift(&mut seed);
        fn check<const L: usize>(next: &mut dyn FnMut() -> u64) {
            let mut n = [0u64; L];
            n.iter_mut().for_each(|w| *w = next());
            n[0] |= 1;
            n[L - 1] |= 1 << 63;
            let big_n = from_words(&n);
            let a = from_words(&(0..L).map(|_| next()).collect::<Vec<_>>()) % &big_n;
            let e = from_words(&(0..L / 2 + 1).map(|_| next()).collect::<Vec<_>>());
            let ours = Modulus::new(&n)
                .unwrap()
                .pow(&words::<L>(&a).unwrap(), &limbs(&e));
            assert_eq!(from_words(&ours), a.modpow(&e, &big_n));
        }
        for _ in 0..20 {
            check::<16>(&mut next);
            check::<32>(&mut next);
            check::<2>(&mut next);
            check::<3>(&mut next);
            check::<5>(&mut next);
        }
    }
}
