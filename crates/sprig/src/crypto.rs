//! Cryptographic functions: `encryptAES`/`decryptAES` (AES-256-CBC, PKCS#7, random IV
//! first, base64), `bcrypt`, `htpasswd`, `derivePassword` (the Master Password
//! algorithm: scrypt + HMAC-SHA256) `randBytes` and `uuidv4`
//! (keys and certificates are in `certs`).

use crate::convert::{s, to_i64};
use crate::reg;
use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use capstan_gotmpl::{FuncMap, FuncResult, Ty};
use capstan_value::json::base64_encode;
use capstan_value::Value;
use hmac::Mac;

type Enc = cbc::Encryptor<aes::Aes256>;
type Dec = cbc::Decryptor<aes::Aes256>;

fn key32(password: &str) -> [u8; 32] {
    let mut key = [0u8; 32];
    let b = password.as_bytes();
    let n = b.len().min(32);
    key[..n].copy_from_slice(&b[..n]);
    key
}

fn random_bytes<const N: usize>() -> FuncResult<[u8; N]> {
    let mut b = [0u8; N];
    getrandom::getrandom(&mut b).map_err(|e| e.to_string())?;
    Ok(b)
}

fn encrypt_aes(password: &str, plaintext: &str) -> FuncResult<String> {
    let iv: [u8; 16] = random_bytes()?;
    let n = plaintext.len();
    let mut buf = plaintext.as_bytes().to_vec();
    buf.resize(n + 16 - n % 16, 0);
    let ct = Enc::new(&key32(password).into(), &iv.into())
        .encrypt_padded_mut::<Pkcs7>(&mut buf, n)
        .map_err(|_| "crypto/cipher: padding failed".to_string())?;
    let mut all = iv.to_vec();
    all.extend_from_slice(ct);
    Ok(base64_encode(&all))
}

fn decrypt_aes(password: &str, crypt: &str) -> FuncResult<Value> {
    let data = crate::encoding::base64_decode(crypt)?;
    if data.len() < 16 {
        return Err("ciphertext too short".into());
    }
    let (iv, body) = data.split_at(16);
    let mut buf = body.to_vec();
    let dec = Dec::new(&key32(password).into(), iv.into());
    // Go unpads by the last byte without checking it; do the same on bad padding.
    let plain = match dec.decrypt_padded_mut::<aes::cipher::block_padding::NoPadding>(&mut buf) {
        Ok(p) => {
            let n = p.len();
            let pad = p.last().copied().unwrap_or(0) as usize;
            p[..n.saturating_sub(pad)].to_vec()
        }
        Err(_) => return Err("crypto/cipher: input not full blocks".into()),
    };
    Ok(match String::from_utf8(plain) {
        Ok(s) => Value::from(s),
        Err(e) => Value::RawString(e.into_bytes().into()),
    })
}

fn bcrypt_hash(input: &str) -> FuncResult<String> {
    Ok(bcrypt::hash_with_result(input, 10)
        .map(|h| h.format_for_version(bcrypt::Version::TwoA))
        .map_err(|e| e.to_string())?)
}

const SEED: &str = "com.lyndir.masterpassword";

fn templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_chars(c: u8) -> &'static str {
    match c {
        b'V' => "AEIOU",
        b'C' => "BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => "aeiou",
        b'c' => "bcdfghjklmnpqrstvwxyz",
        b'A' => "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => "0123456789",
        b'o' => "@&%?,=[]_:-+*$#!'^~;()/.",
        _ => "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

fn derive_password(counter: u32, kind: &str, password: &str, user: &str, site: &str) -> String {
    let Some(temps) = templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    let mut salt = SEED.as_bytes().to_vec();
    salt.extend((user.len() as u32).to_be_bytes());
    salt.extend(user.as_bytes());
    let mut key = [0u8; 64];
    let Ok(params) = scrypt::Params::new(15, 8, 2, 64) else {
        return "failed to derive password".into();
    };
    if let Err(e) = scrypt::scrypt(password.as_bytes(), &salt, &params, &mut key) {
        return format!("failed to derive password: {e}");
    }
    let mut msg = SEED.as_bytes().to_vec();
    msg.extend((site.len() as u32).to_be_bytes());
    msg.extend(site.as_bytes());
    msg.extend(counter.to_be_bytes());
    let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key) else {
        return "failed to derive password".into();
    };
    mac.update(&msg);
    let seed = mac.finalize().into_bytes();
    let temp = temps[seed[0] as usize % temps.len()];
    temp.bytes()
        .enumerate()
        .map(|(i, c)| {
            let chars = template_chars(c).as_bytes();
            chars[seed[i + 1] as usize % chars.len()] as char
        })
        .collect()
}

pub fn register(m: &mut FuncMap) {
    reg(m, "encryptAES", &[Ty::String, Ty::String], |a| {
        encrypt_aes(&s(&a[0]), &s(&a[1])).map(Value::from)
    });
    reg(m, "decryptAES", &[Ty::String, Ty::String], |a| {
        decrypt_aes(&s(&a[0]), &s(&a[1]))
    });
    reg(m, "bcrypt", &[Ty::String], |a| {
        Ok(Value::from(bcrypt_hash(&s(&a[0])).unwrap_or_default()))
    });
    reg(m, "htpasswd", &[Ty::String, Ty::String], |a| {
        let user = s(&a[0]);
        if user.contains(':') {
            return Ok(Value::from(format!("invalid username: {user}")));
        }
        Ok(Value::from(format!(
            "{user}:{}",
            bcrypt_hash(&s(&a[1])).unwrap_or_default()
        )))
    });
    reg(
        m,
        "derivePassword",
        &[Ty::Int, Ty::String, Ty::String, Ty::String, Ty::String],
        |a| {
            Ok(Value::from(derive_password(
                to_i64(&a[0]) as u32,
                &s(&a[1]),
                &s(&a[2]),
                &s(&a[3]),
                &s(&a[4]),
            )))
        },
    );
    reg(m, "randBytes", &[Ty::Int], |a| {
        let n = to_i64(&a[0]);
        let n = usize::try_from(n)
            .map_err(|_| "runtime error: makeslice: len out of range".to_string())?;
        let mut b = vec![0u8; n];
        getrandom::getrandom(&mut b).map_err(|e| e.to_string())?;
        Ok(Value::from(base64_encode(&b)))
    });
    reg(m, "uuidv4", &[], |_| {
        let mut b: [u8; 16] = random_bytes()?;
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let hex = capstan_gocompat::hex::encode(&b);
        Ok(Value::from(format!(
            "{}-{}-{}-{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        )))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aes_round_trip_and_master_password() {
        let c = encrypt_aes("secretkey", "hello there").unwrap();
        assert_eq!(
            decrypt_aes("secretkey", &c).unwrap(),
            Value::from("hello there")
        );
        assert_eq!(derive_password(1, "pin", "pw", "u", "x.com"), "0999");
    }
}
