//! Secrets files for environments, releases and `ref+sops://`: decrypted natively
//! (`capstan-secrets`, age keys from `SOPS_AGE_KEY`, `SOPS_AGE_KEY_FILE` or the default
//! keys file), or by the `sops` binary for the key types capstan does not handle
//! natively. The plaintext stays in memory; a failure is an error, never empty values.

use crate::host::{go_io_reason, Host};
use crate::StateError;
use capstan_secrets::{decrypt, identities_from_env, SopsError};
use std::path::Path;

/// Decrypts the sops file at `path` (relative to the host's working directory); its
/// values are remembered as secrets ([`capstan_secrets::known`]) so printed text can
/// hide them.
pub fn decrypt_file(host: &dyn Host, path: &str) -> Result<String, StateError> {
    let text = decrypt_file_text(host, path)?;
    remember_plaintext(&text);
    Ok(text)
}

/// Remembers a decrypted document's values: YAML or JSON, else dotenv lines.
fn remember_plaintext(text: &str) {
    match capstan_yaml::decode_helmfile_value(text) {
        Ok(v) if !matches!(v, capstan_value::Value::String(_)) => {
            capstan_secrets::known::remember(&v)
        }
        _ => {
            for line in text.lines() {
                let value = line.split_once('=').map_or(line, |(_, v)| v);
                capstan_secrets::known::remember_text(value.trim());
            }
        }
    }
}

fn decrypt_file_text(host: &dyn Host, path: &str) -> Result<String, StateError> {
    let data = host
        .read_file(Path::new(path))
        .map_err(|e| format!("open {path}: {}", go_io_reason(&e)))?;
    let tenant = host.tenant();
    if tenant.is_some_and(|t| !t.sops) {
        return Err(crate::tenant::Refused(format!(
            "{path}: sops files are not decrypted (the administrator allows it with {})",
            crate::tenant::config::SOPS
        ))
        .into());
    }
    let env = |k: &str| host.process_env(k);
    // The keys are the process's own: in untrusted mode they are read from outside the
    // application's folder, which the repository itself cannot name.
    let read = |f: &str| {
        let bytes = if tenant.is_some() {
            std::fs::read(f).ok()
        } else {
            host.read_file(Path::new(f)).ok()
        };
        bytes.map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    match decrypt(path, &data, &identities_from_env(&env, &read)) {
        Ok(d) => Ok(d.text()),
        Err(SopsError::NoKey(msg)) => {
            let args = vec!["--decrypt".to_string(), path.to_string()];
            match host.exec("sops", &args, &[], None, Path::new(".")) {
                Ok(out) => Ok(out),
                Err(crate::host::ExecError::NotStarted { .. }) => Err(format!(
                    "{msg}; the sops binary, which capstan uses for key types it does not decrypt natively, is not installed"
                ).into()),
                Err(e) => Err(format!("{msg}; sops --decrypt failed too: {e}").into()),
            }
        }
        Err(e) => Err(e.to_string().into()),
    }
}
