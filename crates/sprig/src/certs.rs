//! sprig's private keys and X.509 certificates: `genPrivateKey` (rsa 4096, dsa
//! L2048N256, ecdsa P-256, ed25519), `genCA`, `genCAWithKey`, `genSelfSignedCert`,
//! `genSelfSignedCertWithKey`, `genSignedCert`, `genSignedCertWithKey` and
//! `buildCustomCert`, as Go's `crypto/x509` builds them: version 3, a random 128-bit
//! serial, the common name as the only subject attribute, key usage, server and client
//! auth, basic constraints, subject and authority key ids, alternative names; keys in
//! the PEM blocks sprig writes (`RSA PRIVATE KEY`, `EC PRIVATE KEY`, `DSA PRIVATE KEY`,
//! PKCS#8 `PRIVATE KEY` for ed25519). Certificates are returned as `sprig.certificate`
//! values with the fields `Cert` and `Key`.

use crate::der::{self, Element};
use crate::reg;
use capstan_gotmpl::{FuncError, FuncMap, FuncResult, Ty};
use capstan_value::{GoField, HostObject, Value};
use p256::elliptic_curve::rand_core::OsRng;
use sha2::Digest;
use std::sync::Arc;

/// A private key sprig can make or read.
enum PrivateKey {
    Rsa(Box<rsa::RsaPrivateKey>),
    Ecdsa(p256::SecretKey),
    Ed25519(Box<ed25519_dalek::SigningKey>),
    Dsa(Box<dsa::SigningKey>),
}

const OID_RSA: &[u64] = &[1, 2, 840, 113549, 1, 1, 1];
const OID_SHA256_WITH_RSA: &[u64] = &[1, 2, 840, 113549, 1, 1, 11];
const OID_EC_PUBLIC_KEY: &[u64] = &[1, 2, 840, 10045, 2, 1];
const OID_P256: &[u64] = &[1, 2, 840, 10045, 3, 1, 7];
const OID_ECDSA_SHA256: &[u64] = &[1, 2, 840, 10045, 4, 3, 2];
const OID_ED25519: &[u64] = &[1, 3, 101, 112];
const OID_COMMON_NAME: &[u64] = &[2, 5, 4, 3];
const OID_KEY_USAGE: &[u64] = &[2, 5, 29, 15];
const OID_EXT_KEY_USAGE: &[u64] = &[2, 5, 29, 37];
const OID_BASIC_CONSTRAINTS: &[u64] = &[2, 5, 29, 19];
const OID_SUBJECT_KEY_ID: &[u64] = &[2, 5, 29, 14];
const OID_AUTHORITY_KEY_ID: &[u64] = &[2, 5, 29, 35];
const OID_SUBJECT_ALT_NAME: &[u64] = &[2, 5, 29, 17];
const OID_SERVER_AUTH: &[u64] = &[1, 3, 6, 1, 5, 5, 7, 3, 1];
const OID_CLIENT_AUTH: &[u64] = &[1, 3, 6, 1, 5, 5, 7, 3, 2];

/// x509's KeyUsage bits.
const DIGITAL_SIGNATURE: u16 = 1;
const KEY_ENCIPHERMENT: u16 = 1 << 2;
const CERT_SIGN: u16 = 1 << 5;

/// sprig's `certificate`: a PEM certificate and its PEM private key.
#[derive(Debug, Clone)]
pub struct Certificate {
    pub cert: String,
    pub key: String,
}

impl HostObject for Certificate {
    fn type_name(&self) -> &str {
        "sprig.certificate"
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Cert" => Some(Value::from(self.cert.clone())),
            "Key" => Some(Value::from(self.key.clone())),
            _ => None,
        }
    }
    fn fields(&self) -> Option<Vec<GoField>> {
        Some(vec![
            GoField::exported("Cert", Value::from(self.cert.clone())),
            GoField::exported("Key", Value::from(self.key.clone())),
        ])
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn certificate_value(cert: Certificate) -> Value {
    Value::Host(Arc::new(cert))
}

/// An RSA key of 2048 or 4096 bits with e = 65537 (the two sizes sprig makes). The
/// primes come from [`crate::rsa_primes`] (the `rsa` crate's own search is several
/// times slower than Go's).
fn generate_rsa(bits: usize) -> FuncResult<PrivateKey> {
    loop {
        use crate::rsa_primes::{prime_pair, rsa_prime};
        let (p, q) = match bits {
            2048 => prime_pair(rsa_prime::<16>),
            4096 => prime_pair(rsa_prime::<32>),
            other => return Err(format!("crypto/rsa: unsupported key size {other}").into()),
        };
        // from_p_q refuses p == q and an e that is not invertible: draw again.
        if let Ok(mut key) = rsa::RsaPrivateKey::from_p_q(p, q, rsa::BigUint::from(65537u32)) {
            key.precompute().map_err(|e| e.to_string())?;
            return Ok(PrivateKey::Rsa(Box::new(key)));
        }
    }
}

/// A key as `genPrivateKey "rsa"` makes them, for other modules' tests.
#[cfg(test)]
pub(crate) fn rsa_key_for_tests(bits: usize) -> Option<rsa::RsaPrivateKey> {
    match generate_rsa(bits) {
        Ok(PrivateKey::Rsa(k)) => Some(*k),
        _ => None,
    }
}

fn be_bytes(n: &rsa::BigUint) -> Vec<u8> {
    n.to_bytes_be()
}

/// sprig's `pemBlockForKey`.
fn key_pem(key: &PrivateKey) -> FuncResult<String> {
    use rsa::pkcs1::EncodeRsaPrivateKey;
    Ok(match key {
        PrivateKey::Rsa(k) => {
            let der = k.to_pkcs1_der().map_err(|e| e.to_string())?;
            der::pem_encode("RSA PRIVATE KEY", der.as_bytes())
        }
        PrivateKey::Ecdsa(k) => {
            // Go's MarshalECPrivateKey: the curve and the public key are both written
            // (p256's SEC 1 encoder leaves the curve out, and OpenSSL needs it).
            use p256::elliptic_curve::sec1::ToEncodedPoint;
            let point = k.public_key().to_encoded_point(false);
            let body = der::seq(
                der::SEQUENCE,
                &[
                    der::int(1),
                    der::tlv(der::OCTET_STRING, &k.to_bytes()),
                    der::tlv(0xa0, &der::oid(OID_P256)),
                    der::tlv(0xa1, &der::bit_string(point.as_bytes())),
                ],
            );
            der::pem_encode("EC PRIVATE KEY", &body)
        }
        PrivateKey::Ed25519(k) => {
            let inner = der::tlv(der::OCTET_STRING, k.as_bytes());
            let info = der::seq(
                der::SEQUENCE,
                &[
                    der::int(0),
                    der::seq(der::SEQUENCE, &[der::oid(OID_ED25519)]),
                    der::tlv(der::OCTET_STRING, &inner),
                ],
            );
            der::pem_encode("PRIVATE KEY", &info)
        }
        PrivateKey::Dsa(k) => {
            let v = k.verifying_key();
            let c = v.components();
            let big = |n: &dsa::BigUint| der::uint(&n.to_bytes_be());
            let body = der::seq(
                der::SEQUENCE,
                &[
                    der::int(0),
                    big(c.p()),
                    big(c.q()),
                    big(c.g()),
                    big(v.y()),
                    big(k.x()),
                ],
            );
            der::pem_encode("DSA PRIVATE KEY", &body)
        }
    })
}

/// sprig's `parsePrivateKeyPEM`, with Go's messages.
fn parse_private_key_pem(text: &str) -> FuncResult<PrivateKey> {
    let block = der::pem_decode(text).ok_or("no PEM data in input")?;
    if block.kind == "PRIVATE KEY" {
        return Ok(parse_pkcs8(&block.bytes).map_err(|e| format!("decoding PEM as PKCS#8: {e}"))?);
    }
    let Some(kind) = block.kind.strip_suffix(" PRIVATE KEY") else {
        return Err(format!("no private key data in PEM block of type {}", block.kind).into());
    };
    match kind {
        "RSA" => Ok(parse_pkcs1(&block.bytes)
            .map_err(|e| format!("parsing RSA private key from PEM: {e}"))?),
        "EC" => Ok(p256::SecretKey::from_sec1_der(&block.bytes)
            .map(PrivateKey::Ecdsa)
            .map_err(|_| {
                "parsing EC private key from PEM: x509: failed to parse EC private key".to_string()
            })?),
        "DSA" => Ok(parse_dsa(&block.bytes)
            .map_err(|e| format!("parsing DSA private key from PEM: {e}"))?),
        _ => Err(format!("invalid private key type {}", block.kind).into()),
    }
}

fn parse_pkcs1(bytes: &[u8]) -> FuncResult<PrivateKey> {
    use rsa::pkcs1::DecodeRsaPrivateKey;
    if p256::SecretKey::from_sec1_der(bytes).is_ok() {
        return Err(
            "x509: failed to parse private key (use ParseECPrivateKey instead for this key format)"
                .into(),
        );
    }
    if parse_pkcs8(bytes).is_ok() {
        return Err("x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)".into());
    }
    Ok(rsa::RsaPrivateKey::from_pkcs1_der(bytes)
        .map(|k| PrivateKey::Rsa(Box::new(k)))
        .map_err(|e| format!("x509: invalid RSA private key: {e}"))?)
}

fn parse_pkcs8(bytes: &[u8]) -> FuncResult<PrivateKey> {
    use rsa::pkcs8::DecodePrivateKey;
    let info = der::read_all(bytes)?;
    let parts = info.children()?;
    let alg = parts
        .get(1)
        .map(|a| a.children())
        .transpose()?
        .and_then(|a| a.first().map(|o| der::oid_arcs(o.content)))
        .ok_or("x509: malformed PKCS#8 private key")?;
    if alg == OID_RSA {
        Ok(rsa::RsaPrivateKey::from_pkcs8_der(bytes)
            .map(|k| PrivateKey::Rsa(Box::new(k)))
            .map_err(|e| {
                format!("x509: failed to parse RSA private key embedded in PKCS#8: {e}")
            })?)
    } else if alg == OID_EC_PUBLIC_KEY {
        Ok(p256::SecretKey::from_pkcs8_der(bytes)
            .map(PrivateKey::Ecdsa)
            .map_err(|_| "x509: failed to parse EC private key embedded in PKCS#8".to_string())?)
    } else if alg == OID_ED25519 {
        let outer = parts.get(2).ok_or("x509: malformed PKCS#8 private key")?;
        let seed = der::read_all(outer.content)?;
        let seed: [u8; 32] = seed
            .content
            .try_into()
            .map_err(|_| "x509: invalid Ed25519 private key length".to_string())?;
        Ok(PrivateKey::Ed25519(Box::new(
            ed25519_dalek::SigningKey::from_bytes(&seed),
        )))
    } else {
        Err(format!(
            "x509: PKCS#8 wrapping contained private key with unknown algorithm: {}",
            alg.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
        )
        .into())
    }
}

fn parse_dsa(bytes: &[u8]) -> FuncResult<PrivateKey> {
    let e = der::read_all(bytes)?;
    let ints: Vec<dsa::BigUint> = e
        .children()?
        .iter()
        .map(|i| dsa::BigUint::from_bytes_be(i.content))
        .collect();
    let [_, p, q, g, y, x] = <[dsa::BigUint; 6]>::try_from(ints)
        .map_err(|_| "asn1: structure error: too few fields".to_string())?;
    let components = dsa::Components::from_components(p, q, g).map_err(|e| e.to_string())?;
    let public = dsa::VerifyingKey::from_components(components, y).map_err(|e| e.to_string())?;
    Ok(dsa::SigningKey::from_components(public, x)
        .map(|k| PrivateKey::Dsa(Box::new(k)))
        .map_err(|e| e.to_string())?)
}

/// The SubjectPublicKeyInfo of a key's public half.
fn public_key_info(key: &PrivateKey) -> Result<Vec<u8>, capstan_gotmpl::FuncError> {
    Ok(match key {
        PrivateKey::Rsa(k) => {
            use rsa::traits::PublicKeyParts;
            let public = der::seq(
                der::SEQUENCE,
                &[der::uint(&be_bytes(k.n())), der::uint(&be_bytes(k.e()))],
            );
            der::seq(
                der::SEQUENCE,
                &[
                    der::seq(
                        der::SEQUENCE,
                        &[der::oid(OID_RSA), der::tlv(der::NULL, &[])],
                    ),
                    der::bit_string(&public),
                ],
            )
        }
        PrivateKey::Ecdsa(k) => {
            use p256::elliptic_curve::sec1::ToEncodedPoint;
            let point = k.public_key().to_encoded_point(false);
            der::seq(
                der::SEQUENCE,
                &[
                    der::seq(
                        der::SEQUENCE,
                        &[der::oid(OID_EC_PUBLIC_KEY), der::oid(OID_P256)],
                    ),
                    der::bit_string(point.as_bytes()),
                ],
            )
        }
        PrivateKey::Ed25519(k) => der::seq(
            der::SEQUENCE,
            &[
                der::seq(der::SEQUENCE, &[der::oid(OID_ED25519)]),
                der::bit_string(k.verifying_key().as_bytes()),
            ],
        ),
        PrivateKey::Dsa(_) => {
            return Err("x509: certificate private key does not implement crypto.Signer".into())
        }
    })
}

/// The signature algorithm Go's x509 names for a signing key.
fn signature_algorithm(key: &PrivateKey) -> Result<Vec<u8>, capstan_gotmpl::FuncError> {
    Ok(match key {
        PrivateKey::Rsa(_) => der::seq(
            der::SEQUENCE,
            &[der::oid(OID_SHA256_WITH_RSA), der::tlv(der::NULL, &[])],
        ),
        PrivateKey::Ecdsa(_) => der::seq(der::SEQUENCE, &[der::oid(OID_ECDSA_SHA256)]),
        PrivateKey::Ed25519(_) => der::seq(der::SEQUENCE, &[der::oid(OID_ED25519)]),
        PrivateKey::Dsa(_) => {
            return Err("x509: certificate private key does not implement crypto.Signer".into())
        }
    })
}

/// The signature of `data` by `key`, in the algorithm [`signature_algorithm`] names.
fn sign(key: &PrivateKey, data: &[u8]) -> Result<Vec<u8>, capstan_gotmpl::FuncError> {
    use rsa::signature::Signer;
    Ok(match key {
        PrivateKey::Rsa(k) => crate::rsa_sign::sign_sha256(k, data)?,
        PrivateKey::Ecdsa(k) => {
            let signer = p256::ecdsa::SigningKey::from(k);
            let sig: p256::ecdsa::Signature = signer.try_sign(data).map_err(|e| e.to_string())?;
            sig.to_der().as_bytes().to_vec()
        }
        PrivateKey::Ed25519(k) => k.sign(data).to_bytes().to_vec(),
        PrivateKey::Dsa(_) => {
            return Err("x509: certificate private key does not implement crypto.Signer".into())
        }
    })
}

/// What sprig's `getBaseCertTemplate` fills in, plus the CA switches.
struct Template {
    common_name: String,
    ips: Vec<Vec<u8>>,
    dns_names: Vec<String>,
    days_valid: i64,
    is_ca: bool,
}

/// The parts of a parsed issuer certificate that signing needs.
struct Issuer {
    raw_subject: Vec<u8>,
    subject_key_id: Vec<u8>,
    public_key_info: Vec<u8>,
}

fn random_bytes(n: usize) -> Result<Vec<u8>, capstan_gotmpl::FuncError> {
    let mut b = vec![0u8; n];
    getrandom::getrandom(&mut b).map_err(|e| e.to_string())?;
    Ok(b)
}

fn subject_name(common_name: &str) -> Vec<u8> {
    if common_name.is_empty() {
        return der::seq(der::SEQUENCE, &[]);
    }
    let attribute = der::seq(
        der::SEQUENCE,
        &[der::oid(OID_COMMON_NAME), der::go_string(common_name)],
    );
    der::seq(der::SEQUENCE, &[der::seq(der::SET, &[attribute])])
}

fn extension(id: &[u64], critical: bool, value: Vec<u8>) -> Vec<u8> {
    let mut parts = vec![der::oid(id)];
    if critical {
        parts.push(der::tlv(der::BOOLEAN, &[0xff]));
    }
    parts.push(der::tlv(der::OCTET_STRING, &value));
    der::seq(der::SEQUENCE, &parts)
}

fn key_usage_bits(usage: u16) -> Vec<u8> {
    let mut a = [0u8; 2];
    for i in 0..9 {
        if usage >> i & 1 == 1 {
            a[i / 8] |= 0x80 >> (i % 8);
        }
    }
    let len = if a[1] == 0 { 1 } else { 2 };
    der::bit_string_trimmed(&a[..len])
}

/// Go's `x509.CreateCertificate` for sprig's templates: signed by `signer` (the issuer's
/// key), for `signee`'s public key; self-signed when `issuer` is `None`.
fn create_certificate(
    template: &Template,
    signee: &PrivateKey,
    issuer: Option<&Issuer>,
    signer: &PrivateKey,
) -> Result<Vec<u8>, capstan_gotmpl::FuncError> {
    if matches!(signer, PrivateKey::Dsa(_)) {
        return Err("x509: certificate private key does not implement crypto.Signer".into());
    }
    let spki = public_key_info(signee)?;
    let subject = subject_name(&template.common_name);
    let issuer_name = issuer.map_or_else(|| subject.clone(), |i| i.raw_subject.clone());
    if let Some(i) = issuer {
        if public_key_info(signer)? != i.public_key_info {
            return Err("x509: provided PrivateKey doesn't match parent's PublicKey".into());
        }
    }
    let mut authority_key_id = Vec::new();
    if let Some(i) = issuer {
        if i.raw_subject != subject && !i.subject_key_id.is_empty() {
            authority_key_id = i.subject_key_id.clone();
        }
    }
    let subject_key_id = if template.is_ca {
        // RFC 5280 method 1 over the key bits, truncated SHA-256 as Go 1.25 computes it.
        let key_bits = der::read_all(&spki)?
            .children()?
            .get(1)
            .map(|b| b.content.get(1..).unwrap_or_default().to_vec())
            .unwrap_or_default();
        sha2::Sha256::digest(&key_bits)[..20].to_vec()
    } else {
        Vec::new()
    };

    let mut usage = KEY_ENCIPHERMENT | DIGITAL_SIGNATURE;
    if template.is_ca {
        usage |= CERT_SIGN;
    }
    let mut extensions = vec![
        extension(OID_KEY_USAGE, true, key_usage_bits(usage)),
        extension(
            OID_EXT_KEY_USAGE,
            false,
            der::seq(
                der::SEQUENCE,
                &[der::oid(OID_SERVER_AUTH), der::oid(OID_CLIENT_AUTH)],
            ),
        ),
        extension(
            OID_BASIC_CONSTRAINTS,
            true,
            if template.is_ca {
                der::seq(der::SEQUENCE, &[der::tlv(der::BOOLEAN, &[0xff])])
            } else {
                der::seq(der::SEQUENCE, &[])
            },
        ),
    ];
    if !subject_key_id.is_empty() {
        extensions.push(extension(
            OID_SUBJECT_KEY_ID,
            false,
            der::tlv(der::OCTET_STRING, &subject_key_id),
        ));
    }
    if !authority_key_id.is_empty() {
        extensions.push(extension(
            OID_AUTHORITY_KEY_ID,
            false,
            der::seq(der::SEQUENCE, &[der::tlv(0x80, &authority_key_id)]),
        ));
    }
    if !template.dns_names.is_empty() || !template.ips.is_empty() {
        let mut names = Vec::new();
        for name in &template.dns_names {
            if !name.is_ascii() {
                return Err(format!("x509: {name:?} cannot be encoded as an IA5String").into());
            }
            names.push(der::tlv(0x82, name.as_bytes()));
        }
        for ip in &template.ips {
            names.push(der::tlv(0x87, ip));
        }
        extensions.push(extension(
            OID_SUBJECT_ALT_NAME,
            template.common_name.is_empty(),
            der::seq(der::SEQUENCE, &names),
        ));
    }

    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| e.to_string())?;
    let now_ns = now.as_nanos() as i64;
    // time.Hour * 24 * time.Duration(daysValid) wraps as Go's int64 does.
    let valid_ns = 86_400_000_000_000i64.wrapping_mul(template.days_valid);
    let not_before = now_ns.div_euclid(1_000_000_000);
    let not_after = (now_ns as i128 + valid_ns as i128).div_euclid(1_000_000_000) as i64;

    let signature_algorithm = signature_algorithm(signer)?;
    let tbs = der::seq(
        der::SEQUENCE,
        &[
            der::tlv(0xa0, &der::int(2)),
            der::uint(&random_bytes(16)?),
            signature_algorithm.clone(),
            issuer_name,
            der::seq(
                der::SEQUENCE,
                &[der::time(not_before), der::time(not_after)],
            ),
            subject,
            spki,
            der::tlv(0xa3, &der::seq(der::SEQUENCE, &extensions)),
        ],
    );
    let signature = sign(signer, &tbs)?;
    Ok(der::seq(
        der::SEQUENCE,
        &[tbs, signature_algorithm, der::bit_string(&signature)],
    ))
}

/// Reads the parts of a DER certificate that signing with it needs.
fn parse_certificate(bytes: &[u8]) -> FuncResult<Issuer> {
    let malformed = || capstan_gotmpl::FuncError::from("x509: malformed certificate");
    let cert = der::read_all(bytes).map_err(|_| malformed())?;
    let parts = cert.children().map_err(|_| malformed())?;
    let tbs = parts.first().ok_or_else(malformed)?;
    if parts.len() != 3 || tbs.tag != der::SEQUENCE {
        return Err(malformed());
    }
    let mut fields: Vec<Element> = tbs.children().map_err(|_| malformed())?;
    if fields.first().is_some_and(|f| f.tag == 0xa0) {
        fields.remove(0);
    }
    // serial, signature, issuer, validity, subject, spki, [extensions]
    if fields.len() < 6 {
        return Err(malformed());
    }
    let mut subject_key_id = Vec::new();
    if let Some(ext) = fields.iter().find(|f| f.tag == 0xa3) {
        let list = der::read_all(ext.content).map_err(|_| malformed())?;
        for e in list.children().map_err(|_| malformed())? {
            let items = e.children().map_err(|_| malformed())?;
            let (Some(id), Some(value)) = (items.first(), items.last()) else {
                continue;
            };
            if der::oid_arcs(id.content) == OID_SUBJECT_KEY_ID {
                if let Ok(inner) = der::read_all(value.content) {
                    subject_key_id = inner.content.to_vec();
                }
            }
        }
    }
    Ok(Issuer {
        raw_subject: fields[4].raw.to_vec(),
        subject_key_id,
        public_key_info: fields[5].raw.to_vec(),
    })
}

fn cert_and_key(
    template: &Template,
    signee: &PrivateKey,
    issuer: Option<&Issuer>,
    signer: &PrivateKey,
) -> FuncResult<Certificate> {
    let der = create_certificate(template, signee, issuer, signer)
        .map_err(|e| format!("error creating certificate: {e}"))?;
    Ok(Certificate {
        cert: der::pem_encode("CERTIFICATE", &der),
        key: key_pem(signee)?,
    })
}

/// sprig's `getNetIPs`: a list of IP strings.
fn net_ips(ips: &Value) -> Result<Vec<Vec<u8>>, capstan_gotmpl::FuncError> {
    let Value::List(list) = ips else {
        return Ok(Vec::new());
    };
    list.items
        .iter()
        .map(|ip| {
            let Value::String(s) = ip else {
                return Err(format!("error parsing ip: {ip} is not a string").into());
            };
            let parsed: std::net::IpAddr = s
                .parse()
                .map_err(|_| FuncError::from(format!("error parsing ip: {s}")))?;
            Ok(match parsed {
                std::net::IpAddr::V4(v4) => v4.octets().to_vec(),
                std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                    Some(v4) => v4.octets().to_vec(),
                    None => v6.octets().to_vec(),
                },
            })
        })
        .collect()
}

/// sprig's `getAlternateDNSStrs`.
fn dns_names(names: &Value) -> Result<Vec<String>, capstan_gotmpl::FuncError> {
    let Value::List(list) = names else {
        return Ok(Vec::new());
    };
    list.items
        .iter()
        .map(|n| match n {
            Value::String(s) => Ok(s.to_string()),
            other => {
                Err(format!("error processing alternate dns name: {other} is not a string").into())
            }
        })
        .collect()
}

fn base_template(cn: &Value, ips: &Value, dns: &Value, days: &Value) -> FuncResult<Template> {
    Ok(Template {
        common_name: crate::strval(cn),
        ips: net_ips(ips)?,
        dns_names: dns_names(dns)?,
        days_valid: crate::to_i64(days),
        is_ca: false,
    })
}

fn as_certificate(v: &Value) -> FuncResult<Certificate> {
    match v {
        Value::Host(h) => Ok(h
            .as_any()
            .downcast_ref::<Certificate>()
            .cloned()
            .ok_or_else(|| String::from("wrong type for value; expected sprig.certificate"))?),
        _ => Err("wrong type for value; expected sprig.certificate".into()),
    }
}

fn with_key(pem: &Value) -> FuncResult<PrivateKey> {
    Ok(parse_private_key_pem(&crate::strval(pem))
        .map_err(|e| format!("parsing private key: {e}"))?)
}

fn generate_ca(cn: &Value, days: &Value, key: PrivateKey) -> FuncResult<Value> {
    let mut template = base_template(cn, &Value::Nil, &Value::Nil, days)?;
    template.is_ca = true;
    cert_and_key(&template, &key, None, &key).map(certificate_value)
}

fn generate_self_signed(a: &[Value], key: PrivateKey) -> FuncResult<Value> {
    let template = base_template(&a[0], &a[1], &a[2], &a[3])?;
    cert_and_key(&template, &key, None, &key).map(certificate_value)
}

fn generate_signed(a: &[Value], key: PrivateKey) -> FuncResult<Value> {
    let ca = as_certificate(&a[4])?;
    let block = der::pem_decode(&ca.cert).ok_or("unable to decode certificate")?;
    let issuer = parse_certificate(&block.bytes)
        .map_err(|e| format!("error parsing certificate: decodedSignerCert.Bytes: {e}"))?;
    let signer =
        parse_private_key_pem(&ca.key).map_err(|e| format!("error parsing private key: {e}"))?;
    let template = base_template(&a[0], &a[1], &a[2], &a[3])?;
    cert_and_key(&template, &key, Some(&issuer), &signer).map(certificate_value)
}

/// sprig's `buildCustomCertificate`.
fn build_custom(b64cert: &str, b64key: &str) -> FuncResult<Value> {
    let cert = crate::encoding::base64_decode(b64cert)
        .map_err(|_| "unable to decode base64 certificate".to_string())?;
    let key = crate::encoding::base64_decode(b64key)
        .map_err(|_| "unable to decode base64 private key".to_string())?;
    let cert_text = String::from_utf8_lossy(&cert).into_owned();
    let key_text = String::from_utf8_lossy(&key).into_owned();
    let block = der::pem_decode(&cert_text).ok_or("unable to decode certificate")?;
    parse_certificate(&block.bytes)
        .map_err(|e| format!("error parsing certificate: decodedCert.Bytes: {e}"))?;
    let key_block = der::pem_decode(&key_text).ok_or("unable to decode key")?;
    parse_pkcs1(&key_block.bytes)
        .map_err(|e| format!("error parsing prive key: decodedKey.Bytes: {e}"))?;
    Ok(certificate_value(Certificate {
        cert: cert_text,
        key: key_text,
    }))
}

/// sprig's `generatePrivateKey`: the PEM text, or the error as text.
fn generate_private_key(kind: &str) -> String {
    let key = match kind {
        "rsa" => generate_rsa(4096),
        "dsa" => {
            let components = dsa::Components::generate(&mut OsRng, dsa::KeySize::DSA_2048_256);
            Ok(PrivateKey::Dsa(Box::new(dsa::SigningKey::generate(
                &mut OsRng, components,
            ))))
        }
        "ecdsa" => Ok(PrivateKey::Ecdsa(p256::SecretKey::random(&mut OsRng))),
        "ed25519" => Ok(PrivateKey::Ed25519(Box::new(
            ed25519_dalek::SigningKey::generate(&mut OsRng),
        ))),
        other => return format!("Unknown type {other}"),
    };
    match key.and_then(|k| key_pem(&k)) {
        Ok(pem) => pem,
        Err(e) => format!("failed to generate private key: {e}"),
    }
}

pub fn register(m: &mut FuncMap) {
    reg(m, "genPrivateKey", &[Ty::String], |a| {
        Ok(Value::from(generate_private_key(&crate::strval(&a[0]))))
    });
    reg(m, "genCA", &[Ty::String, Ty::Int], |a| {
        let key = generate_rsa(2048).map_err(|e| format!("error generating rsa key: {e}"))?;
        generate_ca(&a[0], &a[1], key)
    });
    reg(m, "genCAWithKey", &[Ty::String, Ty::Int, Ty::String], |a| {
        generate_ca(&a[0], &a[1], with_key(&a[2])?)
    });
    let ips_dns_days = [Ty::String, Ty::List, Ty::List, Ty::Int];
    reg(m, "genSelfSignedCert", &ips_dns_days, |a| {
        let key = generate_rsa(2048).map_err(|e| format!("error generating rsa key: {e}"))?;
        generate_self_signed(&a, key)
    });
    let mut with_pem = ips_dns_days.to_vec();
    with_pem.push(Ty::String);
    reg(m, "genSelfSignedCertWithKey", &with_pem, |a| {
        let key = with_key(&a[4])?;
        generate_self_signed(&a, key)
    });
    let mut signed = ips_dns_days.to_vec();
    signed.push(Ty::Host("sprig.certificate"));
    reg(m, "genSignedCert", &signed, |a| {
        let key = generate_rsa(2048).map_err(|e| format!("error generating rsa key: {e}"))?;
        generate_signed(&a, key)
    });
    signed.push(Ty::String);
    reg(m, "genSignedCertWithKey", &signed, |a| {
        let key = with_key(&a[5])?;
        generate_signed(&a, key)
    });
    reg(m, "buildCustomCert", &[Ty::String, Ty::String], |a| {
        build_custom(&crate::strval(&a[0]), &crate::strval(&a[1]))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ecdsa() -> PrivateKey {
        PrivateKey::Ecdsa(p256::SecretKey::random(&mut OsRng))
    }

    #[test]
    fn keys_round_trip_through_their_pem_blocks() {
        for key in [
            ecdsa(),
            PrivateKey::Ed25519(Box::new(ed25519_dalek::SigningKey::generate(&mut OsRng))),
        ] {
            let pem = key_pem(&key).expect("encodes");
            let back = parse_private_key_pem(&pem).expect("parses");
            assert_eq!(public_key_info(&key), public_key_info(&back));
        }
        assert_eq!(
            parse_private_key_pem("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("no private key data in PEM block of type CERTIFICATE")
        );
        assert_eq!(
            parse_private_key_pem("nothing")
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("no PEM data in input")
        );
    }

    #[test]
    fn a_signed_certificate_names_its_issuer_and_its_key_id() {
        let ca_key = ecdsa();
        let mut ca_template = Template {
            common_name: "my-ca".into(),
            ips: vec![],
            dns_names: vec![],
            days_valid: 365,
            is_ca: true,
        };
        let ca = cert_and_key(&ca_template, &ca_key, None, &ca_key).expect("ca");
        let issuer =
            parse_certificate(&der::pem_decode(&ca.cert).expect("pem").bytes).expect("parses");
        assert_eq!(issuer.raw_subject, subject_name("my-ca"));
        assert_eq!(issuer.subject_key_id.len(), 20);
        ca_template.is_ca = false;
        ca_template.common_name = "leaf".into();
        ca_template.dns_names = vec!["a.example".into()];
        let leaf_key = ecdsa();
        let leaf =
            create_certificate(&ca_template, &leaf_key, Some(&issuer), &ca_key).expect("signed");
        let text = String::from_utf8_lossy(&leaf).into_owned();
        assert!(text.contains("a.example") && text.contains("leaf") && text.contains("my-ca"));
        let other = ecdsa();
        assert_eq!(
            create_certificate(&ca_template, &leaf_key, Some(&issuer), &other)
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("x509: provided PrivateKey doesn't match parent's PublicKey")
        );
    }

    #[test]
    fn addresses_and_names_must_be_strings() {
        let list = |v: Vec<Value>| Value::list_from(v);
        assert_eq!(
            net_ips(&list(vec![
                Value::from("10.0.0.1"),
                Value::from("::ffff:1.2.3.4")
            ])),
            Ok(vec![vec![10, 0, 0, 1], vec![1, 2, 3, 4]])
        );
        assert_eq!(
            net_ips(&list(vec![Value::Int(1)]))
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("error parsing ip: 1 is not a string")
        );
        assert_eq!(
            net_ips(&list(vec![Value::from("nope")]))
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("error parsing ip: nope")
        );
        assert_eq!(
            dns_names(&list(vec![Value::Bool(true)]))
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("error processing alternate dns name: true is not a string")
        );
        assert_eq!(generate_private_key("x"), "Unknown type x");
    }
}
