//! helmfile's `--args` and `--template-args` (extra `helm template` flags), read as helm
//! reads them: the flags that change what `helm template` prints are applied to capstan's
//! own rendering, the flags that change nothing in its output (cluster, repository and
//! install settings) are accepted, and anything else is refused with a message: no flag
//! is dropped silently.

use crate::chart::Failure;
use capstan_state::release_values::HelmFlags;

/// How a flag takes its value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// A boolean: `--flag` or `--flag=false`.
    Nothing,
    /// `--flag VALUE` or `--flag=VALUE`.
    Value,
    /// Only `--flag=VALUE` (pflag's `NoOptDefVal`).
    OptionalValue,
}

/// `helm template`'s flags (Helm v4) that do not change what it prints.
const NO_EFFECT: &[(&str, Takes)] = &[
    ("--ca-file", Takes::Value),
    ("--cert-file", Takes::Value),
    ("--create-namespace", Takes::Nothing),
    ("--dependency-update", Takes::Nothing),
    ("--description", Takes::Value),
    ("--disable-openapi-validation", Takes::Nothing),
    ("--force-conflicts", Takes::Nothing),
    ("--force-replace", Takes::Nothing),
    ("--hide-notes", Takes::Nothing),
    ("--insecure-skip-tls-verify", Takes::Nothing),
    ("--key-file", Takes::Value),
    ("--keyring", Takes::Value),
    ("--labels", Takes::Value),
    ("-l", Takes::Value),
    ("--pass-credentials", Takes::Nothing),
    ("--password", Takes::Value),
    ("--plain-http", Takes::Nothing),
    ("--render-subchart-notes", Takes::Nothing),
    ("--replace", Takes::Nothing),
    ("--rollback-on-failure", Takes::Nothing),
    ("--server-side", Takes::Nothing),
    ("--skip-crds", Takes::Nothing),
    ("--take-ownership", Takes::Nothing),
    ("--timeout", Takes::Value),
    ("--username", Takes::Value),
    ("--verify", Takes::Nothing),
    ("--wait", Takes::OptionalValue),
    ("--wait-for-jobs", Takes::Nothing),
    ("--debug", Takes::Nothing),
    // helm's global flags about the cluster and its own files.
    ("--burst-limit", Takes::Value),
    ("--color", Takes::Value),
    ("--colour", Takes::Value),
    ("--content-cache", Takes::Value),
    ("--kube-apiserver", Takes::Value),
    ("--kube-as-group", Takes::Value),
    ("--kube-as-user", Takes::Value),
    ("--kube-ca-file", Takes::Value),
    ("--kube-context", Takes::Value),
    ("--kube-insecure-skip-tls-verify", Takes::Nothing),
    ("--kube-tls-server-name", Takes::Value),
    ("--kube-token", Takes::Value),
    ("--kubeconfig", Takes::Value),
    ("--qps", Takes::Value),
    ("--registry-config", Takes::Value),
    ("--repository-cache", Takes::Value),
    ("--repository-config", Takes::Value),
];

/// Flags of `helm template` that would change its output in ways helmfile sets through
/// its own fields, or that need a cluster: refused with what to use instead.
const REFUSED: &[(&str, &str)] = &[
    (
        "--namespace",
        "set the release's `namespace:` or capstan's -n",
    ),
    ("-n", "set the release's `namespace:` or capstan's -n"),
    ("--version", "set the release's `version:`"),
    ("--devel", "set the release's `devel: true`"),
    ("--repo", "list the repository under `repositories:`"),
    ("--output-dir", "use capstan template --output-dir"),
    (
        "--release-name",
        "use capstan template --output-dir-template",
    ),
    ("--name-template", "set the release's `name:`"),
    ("--generate-name", "set the release's `name:`"),
    ("-g", "set the release's `name:`"),
    (
        "--enable-dns",
        "capstan renders charts without DNS lookups (`getHostByName` returns \"\")",
    ),
];

fn takes(name: &str) -> Option<Takes> {
    Some(match name {
        "-a"
        | "--api-versions"
        | "--kube-version"
        | "-s"
        | "--show-only"
        | "--set"
        | "--set-string"
        | "--set-json"
        | "--set-file"
        | "--set-literal"
        | "-f"
        | "--values"
        | "--post-renderer"
        | "--post-renderer-args" => Takes::Value,
        "--include-crds"
        | "--skip-tests"
        | "--no-hooks"
        | "--skip-schema-validation"
        | "--is-upgrade" => Takes::Nothing,
        "--dry-run" => Takes::OptionalValue,
        other => NO_EFFECT.iter().find(|(n, _)| *n == other)?.1,
    })
}

/// pflag's reading of a boolean flag's value, its error naming the flag.
fn go_bool(flag: &str, v: &str) -> Result<bool, Failure> {
    crate::global::go_bool(v).map_err(|_| {
        format!(
            "invalid argument {v:?} for {flag:?} flag: strconv.ParseBool: parsing {v:?}: invalid syntax"
        )
        .into()
    })
}

/// Applies `args` (whitespace-separated, as helmfile splits them) to `flags`; `what` names
/// the option in errors (`--args`).
pub fn apply(what: &str, args: &str, flags: &mut HelmFlags) -> Result<(), Failure> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        i += 1;
        if !word.starts_with('-') {
            return Err(format!(
                "{what}: {word:?} is not a flag (helm template's chart and release come from the helmfile)"
            ).into());
        }
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (word, None),
        };
        if let Some((_, instead)) = REFUSED.iter().find(|(n, _)| *n == name) {
            return Err(format!("{what}: {name} is not supported here: {instead}").into());
        }
        let Some(kind) = takes(name) else {
            return Err(format!("{what}: unknown flag {name} for helm template").into());
        };
        let value: Option<String> = match (kind, inline) {
            (_, Some(v)) => Some(v.to_string()),
            (Takes::Value, None) => {
                let v = words
                    .get(i)
                    .ok_or_else(|| format!("{what}: flag needs an argument: {name}"))?;
                i += 1;
                Some(v.to_string())
            }
            _ => None,
        };
        let on = |v: &Option<String>| -> Result<bool, Failure> {
            v.as_deref().map_or(Ok(true), |v| go_bool(name, v))
        };
        let text = || value.clone().unwrap_or_default();
        match name {
            "-a" | "--api-versions" => flags
                .api_versions
                .extend(text().split(',').filter(|s| !s.is_empty()).map(String::from)),
            "--kube-version" => flags.kube_version = text(),
            "-s" | "--show-only" => flags.show_only.extend(text().split(',').map(String::from)),
            "--set" => flags.set.push(text()),
            "--set-string" => flags.set_string.push(text()),
            "--set-json" => flags.set_json.push(text()),
            "--set-file" => flags.set_file.push(text()),
            "--set-literal" => flags.set_literal.push(text()),
            "-f" | "--values" => flags
                .values
                .extend(text().split(',').filter(|s| !s.is_empty()).map(String::from)),
            "--post-renderer" => flags.post_renderer = text(),
            "--post-renderer-args" => flags.post_renderer_args.push(text()),
            "--include-crds" => flags.include_crds = on(&value)?,
            "--skip-tests" => flags.skip_tests = on(&value)?,
            "--no-hooks" => flags.no_hooks = on(&value)?,
            "--skip-schema-validation" => flags.skip_schema_validation = on(&value)?,
            "--is-upgrade" => flags.is_upgrade = on(&value)?,
            "--dry-run" => match value.as_deref() {
                None | Some("client") | Some("unset") | Some("true") | Some("false") => {}
                Some("server") => {
                    return Err(format!(
                        "{what}: --dry-run=server validates against a cluster's API server; capstan renders without one"
                    ).into())
                }
                Some(other) => {
                    return Err(format!(
                        "{what}: invalid dry-run value ({other}). Must be \"none\", \"server\", or \"client\""
                    ).into())
                }
            },
            _ => {
                if kind == Takes::Nothing {
                    on(&value)?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(args: &str) -> Result<HelmFlags, Failure> {
        let mut f = HelmFlags::default();
        apply("--args", args, &mut f).map(|_| f)
    }

    #[test]
    fn output_flags_apply() {
        let f = applied("--kube-version=1.30.0 -a x/v1,y/v2 --include-crds --skip-tests=false --no-hooks --set a=1 --set-string b=2 --set-json c=[1] --set-literal d=x,y --set-file e=f.txt -f v1.yaml --values=v2.yaml -s templates/a.yaml --is-upgrade --dry-run=client").unwrap();
        assert_eq!(f.kube_version, "1.30.0");
        assert_eq!(f.api_versions, ["x/v1", "y/v2"]);
        assert!(f.include_crds && !f.skip_tests && f.no_hooks && f.is_upgrade);
        assert_eq!(f.set, ["a=1"]);
        assert_eq!(f.set_string, ["b=2"]);
        assert_eq!(f.set_json, ["c=[1]"]);
        assert_eq!(f.set_literal, ["d=x,y"]);
        assert_eq!(f.set_file, ["e=f.txt"]);
        assert_eq!(f.values, ["v1.yaml", "v2.yaml"]);
        assert_eq!(f.show_only, ["templates/a.yaml"]);
    }

    #[test]
    fn cluster_flags_are_accepted_and_others_refused() {
        assert!(
            applied("--wait --timeout 5m --create-namespace --kube-context x --atomic").is_err()
        );
        assert!(
            applied("--wait --timeout 5m --create-namespace --kube-context x --wait=watcher")
                .is_ok()
        );
        let e = applied("--bogus").unwrap_err().message;
        assert_eq!(e, "--args: unknown flag --bogus for helm template");
        let e = applied("--dry-run=server").unwrap_err().message;
        assert!(e.contains("API server"), "{e}");
        let e = applied("--version 1.2.3").unwrap_err().message;
        assert!(e.contains("`version:`"), "{e}");
        let e = applied("--set").unwrap_err().message;
        assert_eq!(e, "--args: flag needs an argument: --set");
        let e = applied("--skip-tests=maybe").unwrap_err().message;
        assert!(e.contains("ParseBool"), "{e}");
        assert!(applied("chart").is_err());
    }
}
