//! `.Capabilities`: `KubeVersion` (Helm's `common.KubeVersion`, parsed as Kubernetes'
//! `ParseGeneric` reads `--kube-version`), `HelmVersion` (`version.BuildInfo`) and
//! `APIVersions`, the API group/versions `helm template` assumes a cluster serves
//! (client-go's built-in scheme plus apiextensions), with `Has`.

use capstan_value::{GoField, HostObject, Value};

/// Helm's `common.KubeVersion`: the version as given (with a `v`), the version
/// normalized to its numeric components (what `String()` and constraint checks use),
/// major and minor.
#[derive(Debug, Clone, PartialEq)]
pub struct KubeVersion {
    /// As given (`v1.37.0`, `1.20`).
    pub version: String,
    /// With its `v` and three parts (`v1.20.0`).
    pub normalized: String,
    /// The major number, as text.
    pub major: String,
    /// The minor number, as text.
    pub minor: String,
}

capstan_source::message_error!(
    /// A `--kube-version` that Kubernetes' `version.ParseGeneric` refuses (its text).
    KubeVersionError
);

impl KubeVersion {
    /// Helm's `ParseKubeVersion` over Kubernetes' `version.ParseGeneric`: two or more
    /// dot-separated numbers (the first without a leading zero), then anything.
    pub fn parse(text: &str) -> Result<KubeVersion, KubeVersionError> {
        let t = text.trim_start_matches([' ', '\t', '\n', '\r']);
        let t = t.strip_prefix('v').unwrap_or(t);
        let numbers_len = t
            .char_indices()
            .take_while(|(i, c)| {
                c.is_ascii_digit()
                    || (*c == '.' && *i > 0 && t[i + 1..].starts_with(|n: char| n.is_ascii_digit()))
            })
            .count();
        if numbers_len == 0 {
            return Err(format!("could not parse {text:?} as version").into());
        }
        let components: Vec<&str> = t[..numbers_len].split('.').collect();
        if components.len() < 2 {
            return Err(format!("illegal version string {text:?}").into());
        }
        if components[0].len() > 1 && components[0].starts_with('0') {
            return Err(format!(
                "illegal zero-prefixed version component {:?} in {text:?}",
                components[0]
            )
            .into());
        }
        let numbers = components
            .iter()
            .map(|c| c.parse::<u64>())
            .collect::<Result<Vec<u64>, _>>()
            .map_err(|_| format!("illegal version string {text:?}"))?;
        let version = if text.starts_with('v') {
            text.to_string()
        } else {
            format!("v{text}")
        };
        Ok(KubeVersion {
            version,
            normalized: format!(
                "v{}",
                numbers
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(".")
            ),
            major: numbers[0].to_string(),
            minor: numbers[1].to_string(),
        })
    }
}

impl HostObject for KubeVersion {
    fn type_name(&self) -> &str {
        "common.KubeVersion"
    }
    fn field(&self, name: &str) -> Option<Value> {
        Some(Value::from(match name {
            "Version" | "GitVersion" => self.version.as_str(),
            "Major" => self.major.as_str(),
            "Minor" => self.minor.as_str(),
            _ => return None,
        }))
    }
    /// `String()` (on the pointer, which a template reaches through `.Capabilities`).
    fn display(&self) -> Option<String> {
        Some(self.normalized.clone())
    }
    fn fields(&self) -> Option<Vec<GoField>> {
        Some(vec![
            GoField::exported("Version", Value::from(self.version.as_str())),
            GoField::unexported("normalizedVersion", Value::from(self.normalized.as_str())),
            GoField::exported("Major", Value::from(self.major.as_str())),
            GoField::exported("Minor", Value::from(self.minor.as_str())),
        ])
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// What a cluster serves, as `helm upgrade` (and `helm template --validate`) reads it:
/// the server's version (`/version`: `gitVersion`, `major`, `minor`) and its API
/// versions (every group/version and every `group/version/Kind`, subresources included,
/// as Helm's `GetVersionSet`). It replaces the defaults and `--kube-version`/
/// `--api-versions` entirely, as in Helm when it can reach the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterCapabilities {
    /// The server's `gitVersion` (`v1.20.2`).
    pub git_version: String,
    /// The server's own `major`.
    pub major: String,
    /// The server's own `minor` (may carry a `+`).
    pub minor: String,
    /// `group/version` and `group/version/Kind` of everything the server serves.
    pub api_versions: Vec<String>,
}

/// Helm's `version.BuildInfo`, as `.Capabilities.HelmVersion`.
#[derive(Debug, Clone)]
pub struct HelmVersion {
    /// `v4.3.1`.
    pub version: &'static str,
    /// The commit Helm was built from.
    pub git_commit: &'static str,
    /// `clean`.
    pub git_tree_state: &'static str,
    /// The Go version Helm was built with.
    pub go_version: &'static str,
    /// The client-go version Helm links (`v1.37`).
    pub kube_client_version: &'static str,
}

impl HelmVersion {
    fn all(&self) -> Vec<GoField> {
        let tagged = |name, json, value: &str| GoField {
            name,
            json: Some(json),
            omit_empty: true,
            value: Value::from(value),
        };
        vec![
            tagged("Version", "version", self.version),
            tagged("GitCommit", "git_commit", self.git_commit),
            tagged("GitTreeState", "git_tree_state", self.git_tree_state),
            tagged("GoVersion", "go_version", self.go_version),
            tagged(
                "KubeClientVersion",
                "kube_client_version",
                self.kube_client_version,
            ),
        ]
    }
}

impl HostObject for HelmVersion {
    fn type_name(&self) -> &str {
        "version.BuildInfo"
    }
    fn field(&self, name: &str) -> Option<Value> {
        self.all()
            .into_iter()
            .find(|f| f.name == name)
            .map(|f| f.value)
    }
    fn fields(&self) -> Option<Vec<GoField>> {
        Some(self.all())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The group/versions, in Helm's order, as `Has` and `range` see them.
#[derive(Debug, Clone)]
pub struct ApiVersions(pub Vec<String>);

/// Helm v4.3.1's default set, in its order: client-go v0.37's scheme groups plus
/// apiextensions (read from the real binary: `{{ .Capabilities.APIVersions | toJson }}`).
pub(crate) fn default_api_versions() -> Vec<String> {
    [
        "v1",
        "admissionregistration.k8s.io/v1",
        "admissionregistration.k8s.io/v1alpha1",
        "admissionregistration.k8s.io/v1beta1",
        "internal.apiserver.k8s.io/v1alpha1",
        "apps/v1",
        "apps/v1beta1",
        "apps/v1beta2",
        "authentication.k8s.io/v1",
        "authentication.k8s.io/v1alpha1",
        "authentication.k8s.io/v1beta1",
        "authorization.k8s.io/v1",
        "authorization.k8s.io/v1beta1",
        "autoscaling/v1",
        "autoscaling/v2",
        "batch/v1",
        "batch/v1beta1",
        "certificates.k8s.io/v1",
        "certificates.k8s.io/v1beta1",
        "certificates.k8s.io/v1alpha1",
        "coordination.k8s.io/v1alpha2",
        "coordination.k8s.io/v1beta1",
        "coordination.k8s.io/v1",
        "discovery.k8s.io/v1",
        "discovery.k8s.io/v1beta1",
        "events.k8s.io/v1",
        "events.k8s.io/v1beta1",
        "extensions/v1beta1",
        "flowcontrol.apiserver.k8s.io/v1",
        "flowcontrol.apiserver.k8s.io/v1beta1",
        "flowcontrol.apiserver.k8s.io/v1beta2",
        "flowcontrol.apiserver.k8s.io/v1beta3",
        "lifecycle.k8s.io/v1alpha1",
        "networking.k8s.io/v1",
        "networking.k8s.io/v1beta1",
        "node.k8s.io/v1",
        "node.k8s.io/v1alpha1",
        "node.k8s.io/v1beta1",
        "policy/v1",
        "policy/v1beta1",
        "rbac.authorization.k8s.io/v1",
        "rbac.authorization.k8s.io/v1beta1",
        "rbac.authorization.k8s.io/v1alpha1",
        "resource.k8s.io/v1",
        "resource.k8s.io/v1beta2",
        "resource.k8s.io/v1beta1",
        "resource.k8s.io/v1alpha3",
        "scheduling.k8s.io/v1alpha3",
        "scheduling.k8s.io/v1beta1",
        "scheduling.k8s.io/v1",
        "storage.k8s.io/v1beta1",
        "storage.k8s.io/v1",
        "storage.k8s.io/v1alpha1",
        "storagemigration.k8s.io/v1",
        "storagemigration.k8s.io/v1beta1",
        "apiextensions.k8s.io/v1beta1",
        "apiextensions.k8s.io/v1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

impl HostObject for ApiVersions {
    fn type_name(&self) -> &str {
        "common.VersionSet"
    }
    fn kind(&self) -> &'static str {
        "slice"
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, capstan_value::GoError>> {
        match (name, args) {
            ("Has", [Value::String(s)]) => Some(Ok(Value::Bool(self.0.iter().any(|v| **v == **s)))),
            ("Has", _) => Some(Err(capstan_value::GoError("Has takes one string".into()))),
            _ => None,
        }
    }
    fn entries(&self) -> Option<Vec<(Value, Value)>> {
        Some(
            self.0
                .iter()
                .enumerate()
                .map(|(i, v)| (Value::Int(i as i64), Value::from(v.as_str())))
                .collect(),
        )
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_versions_parse_as_kubernetes_generic_versions() {
        let v = KubeVersion::parse("v1.29.4-gke.100").expect("valid");
        assert_eq!(
            (
                v.version.as_str(),
                v.normalized.as_str(),
                v.major.as_str(),
                v.minor.as_str()
            ),
            ("v1.29.4-gke.100", "v1.29.4", "1", "29")
        );
        assert_eq!(
            KubeVersion::parse("1.29").expect("valid").normalized,
            "v1.29"
        );
        assert_eq!(
            KubeVersion::parse("1.02.3").expect("valid").normalized,
            "v1.2.3"
        );
        assert_eq!(
            KubeVersion::parse("1.29x").expect("valid").version,
            "v1.29x"
        );
        assert_eq!(
            KubeVersion::parse("1")
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("illegal version string \"1\"")
        );
        assert_eq!(
            KubeVersion::parse("abc")
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("could not parse \"abc\" as version")
        );
        assert_eq!(
            KubeVersion::parse("01.2.3")
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("illegal zero-prefixed version component \"01\" in \"01.2.3\"")
        );
    }

    #[test]
    fn printed_as_go_prints_them() {
        let v = Value::Host(std::sync::Arc::new(
            KubeVersion::parse("1.30.1+x").expect("valid"),
        ));
        assert_eq!(v.to_string(), "v1.30.1");
        assert_eq!(
            capstan_value::printf::sprintf("%v|%+v", &[v.clone(), v.clone()]),
            "{v1.30.1+x v1.30.1 1 30}|{Version:v1.30.1+x normalizedVersion:v1.30.1 Major:1 Minor:30}"
        );
        assert_eq!(
            capstan_value::go_syntax(&v),
            "common.KubeVersion{Version:\"v1.30.1+x\", normalizedVersion:\"v1.30.1\", Major:\"1\", Minor:\"30\"}"
        );
        assert_eq!(
            capstan_value::json::to_json(
                &v,
                capstan_value::json::JsonStyle {
                    escape_html: true,
                    indent: None
                }
            )
            .expect("marshals"),
            r#"{"Version":"v1.30.1+x","Major":"1","Minor":"30"}"#
        );
    }
}
