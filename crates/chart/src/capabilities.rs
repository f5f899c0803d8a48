//! `.Capabilities.APIVersions`: the API group/versions `helm template` assumes a cluster
//! serves (client-go's built-in scheme plus apiextensions), and `Has`.

use capstan_value::{HostObject, Value};

/// The group/versions, in Helm's order, as `Has` and `range` see them.
#[derive(Debug, Clone)]
pub struct ApiVersions(pub Vec<String>);

/// client-go's scheme groups (v0.36) plus apiextensions, as Helm's default set.
pub fn default_api_versions() -> Vec<String> {
    [
        "v1",
        "admissionregistration.k8s.io/v1",
        "admissionregistration.k8s.io/v1beta1",
        "admissionregistration.k8s.io/v1alpha1",
        "internal.apiserver.k8s.io/v1alpha1",
        "apps/v1",
        "apps/v1beta2",
        "apps/v1beta1",
        "events.k8s.io/v1",
        "events.k8s.io/v1beta1",
        "authentication.k8s.io/v1",
        "authentication.k8s.io/v1beta1",
        "authentication.k8s.io/v1alpha1",
        "authorization.k8s.io/v1",
        "authorization.k8s.io/v1beta1",
        "autoscaling/v1",
        "autoscaling/v2",
        "autoscaling/v2beta1",
        "autoscaling/v2beta2",
        "batch/v1",
        "batch/v1beta1",
        "certificates.k8s.io/v1",
        "certificates.k8s.io/v1beta1",
        "certificates.k8s.io/v1alpha1",
        "networking.k8s.io/v1",
        "networking.k8s.io/v1beta1",
        "policy/v1",
        "policy/v1beta1",
        "rbac.authorization.k8s.io/v1",
        "rbac.authorization.k8s.io/v1beta1",
        "rbac.authorization.k8s.io/v1alpha1",
        "storage.k8s.io/v1",
        "storage.k8s.io/v1beta1",
        "storage.k8s.io/v1alpha1",
        "coordination.k8s.io/v1",
        "coordination.k8s.io/v1beta1",
        "coordination.k8s.io/v1alpha2",
        "node.k8s.io/v1",
        "node.k8s.io/v1beta1",
        "node.k8s.io/v1alpha1",
        "discovery.k8s.io/v1",
        "discovery.k8s.io/v1beta1",
        "resource.k8s.io/v1",
        "resource.k8s.io/v1beta2",
        "resource.k8s.io/v1beta1",
        "resource.k8s.io/v1alpha3",
        "scheduling.k8s.io/v1",
        "scheduling.k8s.io/v1beta1",
        "scheduling.k8s.io/v1alpha1",
        "flowcontrol.apiserver.k8s.io/v1",
        "flowcontrol.apiserver.k8s.io/v1beta3",
        "storagemigration.k8s.io/v1alpha1",
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
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        match (name, args) {
            ("Has", [Value::String(s)]) => Some(Ok(Value::Bool(self.0.iter().any(|v| **v == **s)))),
            ("Has", _) => Some(Err("Has takes one string".into())),
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
