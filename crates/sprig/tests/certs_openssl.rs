//! The keys and certificates sprig's functions make are real: the `openssl` binary reads
//! them (`x509 -noout -text`, `verify -CAfile`, `pkey`), as it reads Go's.

use capstan_gotmpl::Templates;
use capstan_value::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn render(text: &str) -> String {
    let mut t = Templates::new(capstan_sprig::funcs());
    t.parse("t", text).expect("parses");
    t.execute("t", &Value::Nil).expect("runs")
}

struct Dir(PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn dir(name: &str) -> Dir {
    let d = std::env::temp_dir().join(format!("capstan-certs-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    Dir(d)
}

fn openssl(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the openssl binary (Debian's openssl package) runs");
    assert!(
        out.status.success(),
        "openssl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Splits `%%%%`-separated rendered parts into files in `dir`.
fn write_parts(dir: &Path, text: &str, names: &[&str]) {
    let parts: Vec<&str> = text.split("%%%%\n").collect();
    assert_eq!(parts.len(), names.len(), "{text}");
    for (p, n) in parts.iter().zip(names) {
        std::fs::write(dir.join(n), p).expect("write");
    }
}

#[test]
fn a_ca_and_the_certificates_it_signs_verify() {
    let d = dir("ca");
    let out = render(
        r#"{{- $ca := genCA "capstan-ca" 365 -}}
{{- $cert := genSignedCert "web.example" (list "10.0.0.1" "::1") (list "web.example" "*.web.example") 30 $ca -}}
{{- $self := genSelfSignedCert "" nil (list "only-san.example") 10 -}}
{{ $ca.Cert }}%%%%
{{ $ca.Key }}%%%%
{{ $cert.Cert }}%%%%
{{ $cert.Key }}%%%%
{{ $self.Cert }}"#,
    );
    write_parts(
        &d.0,
        &out,
        &["ca.crt", "ca.key", "tls.crt", "tls.key", "self.crt"],
    );
    let ca = openssl(&d.0, &["x509", "-noout", "-text", "-in", "ca.crt"]);
    assert!(ca.contains("Subject: CN = capstan-ca"), "{ca}");
    assert!(
        ca.contains("CA:TRUE") && ca.contains("Certificate Sign"),
        "{ca}"
    );
    assert!(ca.contains("Public-Key: (2048 bit)"), "{ca}");
    let leaf = openssl(&d.0, &["x509", "-noout", "-text", "-in", "tls.crt"]);
    for want in [
        "Issuer: CN = capstan-ca",
        "Subject: CN = web.example",
        "DNS:web.example, DNS:*.web.example, IP Address:10.0.0.1, IP Address:0:0:0:0:0:0:0:1",
        "TLS Web Server Authentication, TLS Web Client Authentication",
        "X509v3 Authority Key Identifier",
        "sha256WithRSAEncryption",
    ] {
        assert!(leaf.contains(want), "{want} not in {leaf}");
    }
    let verified = openssl(&d.0, &["verify", "-CAfile", "ca.crt", "tls.crt"]);
    assert_eq!(verified.trim(), "tls.crt: OK");
    openssl(&d.0, &["pkey", "-in", "ca.key", "-noout"]);
    openssl(&d.0, &["pkey", "-in", "tls.key", "-noout"]);
    // The key belongs to the certificate.
    let from_cert = openssl(&d.0, &["x509", "-noout", "-pubkey", "-in", "tls.crt"]);
    let from_key = openssl(&d.0, &["pkey", "-pubout", "-in", "tls.key"]);
    assert_eq!(from_cert, from_key);
    let own = openssl(&d.0, &["x509", "-noout", "-text", "-in", "self.crt"]);
    assert!(
        own.contains("critical") && own.contains("DNS:only-san.example"),
        "{own}"
    );
}

#[test]
fn private_keys_of_every_kind_and_certificates_with_them() {
    let d = dir("keys");
    let out = render(
        r#"{{- $ec := genPrivateKey "ecdsa" -}}
{{- $ed := genPrivateKey "ed25519" -}}
{{- $ca := genCAWithKey "ec-ca" 3650 $ec -}}
{{- $leaf := genSignedCertWithKey "leaf" nil nil 1 $ca $ed -}}
{{ $ec }}%%%%
{{ $ed }}%%%%
{{ $ca.Cert }}%%%%
{{ $leaf.Cert }}%%%%
{{ genPrivateKey "rsa" }}"#,
    );
    write_parts(
        &d.0,
        &out,
        &["ec.key", "ed.key", "ca.crt", "leaf.crt", "rsa.key"],
    );
    assert!(out.contains("-----BEGIN EC PRIVATE KEY-----"));
    assert!(out.contains("-----BEGIN PRIVATE KEY-----"));
    assert!(out.contains("-----BEGIN RSA PRIVATE KEY-----"));
    for key in ["ec.key", "ed.key", "rsa.key"] {
        openssl(&d.0, &["pkey", "-in", key, "-noout"]);
    }
    let rsa = openssl(&d.0, &["pkey", "-in", "rsa.key", "-noout", "-text"]);
    assert!(rsa.contains("4096 bit"), "{rsa}");
    let ca = openssl(&d.0, &["x509", "-noout", "-text", "-in", "ca.crt"]);
    assert!(
        ca.contains("ecdsa-with-SHA256") && ca.contains("Not After"),
        "{ca}"
    );
    assert_eq!(
        openssl(&d.0, &["verify", "-CAfile", "ca.crt", "leaf.crt"]).trim(),
        "leaf.crt: OK"
    );
}

#[test]
fn a_dsa_key_is_made_but_cannot_sign_and_custom_certificates_are_read_back() {
    let d = dir("dsa");
    let dsa = render(r#"{{ genPrivateKey "dsa" }}"#);
    assert!(dsa.starts_with("-----BEGIN DSA PRIVATE KEY-----"));
    std::fs::write(d.0.join("dsa.key"), &dsa).expect("write");
    let text = openssl(&d.0, &["dsa", "-in", "dsa.key", "-noout", "-text"]);
    assert!(text.contains("2048 bit"), "{text}");

    let mut t = Templates::new(capstan_sprig::funcs());
    t.parse("t", r#"{{ (genCAWithKey "x" 1 .).Cert }}"#)
        .expect("parses");
    let err = t
        .execute("t", &Value::from(dsa))
        .expect_err("DSA cannot sign");
    assert!(
        err.to_string()
            .ends_with("error creating certificate: x509: certificate private key does not implement crypto.Signer"),
        "{err}"
    );

    let out = render(
        r#"{{- $ca := genCA "custom" 1 -}}
{{- $again := buildCustomCert ($ca.Cert | b64enc) ($ca.Key | b64enc) -}}
{{- $leaf := genSignedCert "x" nil nil 1 $again -}}
{{ eq $again.Cert $ca.Cert }} {{ typeOf $again }} {{ kindOf $again }}%%%%
{{ $ca.Cert }}%%%%
{{ $leaf.Cert }}"#,
    );
    write_parts(&d.0, &out, &["summary", "ca.crt", "leaf.crt"]);
    assert_eq!(
        std::fs::read_to_string(d.0.join("summary")).expect("read"),
        "true sprig.certificate struct"
    );
    assert_eq!(
        openssl(&d.0, &["verify", "-CAfile", "ca.crt", "leaf.crt"]).trim(),
        "leaf.crt: OK"
    );
}
