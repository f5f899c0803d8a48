//! `template --validate`: rendered manifests checked against the cluster a kube context
//! names, as `helm template --validate` checks them — every object's kind must be one
//! the server serves (helm's "resource mapping not found" otherwise), and the server
//! must accept the object in a server-side dry run (`dryRun=All`,
//! `fieldValidation=Strict`), which writes nothing. Also the cluster's `.Capabilities`,
//! which helm renders with when it validates.

use crate::kube::KubeClient;
use capstan_chart::capabilities::ClusterCapabilities;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// One kind a group/version serves: its resource (plural) name and whether its objects
/// live in a namespace.
#[derive(Clone, Debug)]
struct Resource {
    kind: String,
    name: String,
    namespaced: bool,
}

/// A connection to the API server for validating, with the group/versions it serves
/// (read on first use, each once).
pub struct Validator {
    client: KubeClient,
    served: Mutex<BTreeMap<String, Option<Vec<Resource>>>>,
}

impl Validator {
    /// The validator for `context` (empty: the current one) of the kubeconfig at `path`.
    pub fn connect(kubeconfig: &std::path::Path, context: &str) -> Result<Validator, String> {
        let client = KubeClient::from_kubeconfig(kubeconfig, context)
            .map_err(|e| format!("validating against the cluster: {e}"))?;
        Ok(Validator {
            client,
            served: Mutex::new(BTreeMap::new()),
        })
    }

    /// The server's version and API versions (helm renders with them when validating).
    pub fn capabilities(&self) -> Result<ClusterCapabilities, String> {
        self.client.capabilities().map_err(|e| e.to_string())
    }

    /// Checks every object of `manifest` (documents separated by `---` lines); objects
    /// without a namespace are tried in `namespace`. The error is helm's: `unable to
    /// build kubernetes objects from release manifest: …`, all failures listed.
    pub fn validate(&self, manifest: &str, namespace: &str) -> Result<(), String> {
        let mut errors = Vec::new();
        for doc in split_documents(manifest) {
            let value = match capstan_yaml::decode_helm(doc) {
                Ok(v) => v,
                Err(e) => {
                    errors.push(format!("error parsing a rendered document: {e}"));
                    continue;
                }
            };
            let object = object_json(&value);
            if !object.is_object() {
                continue;
            }
            if let Err(e) = self.check(object, namespace) {
                errors.push(e);
            }
        }
        match errors.len() {
            0 => Ok(()),
            1 => Err(format!(
                "unable to build kubernetes objects from release manifest: {}",
                errors[0]
            )),
            _ => Err(format!(
                "unable to build kubernetes objects from release manifest: [{}]",
                errors.join(", ")
            )),
        }
    }

    /// One object: its kind's resource, then a dry-run create.
    fn check(&self, mut object: serde_json::Value, namespace: &str) -> Result<(), String> {
        let api_version = object["apiVersion"].as_str().unwrap_or("").to_string();
        let kind = object["kind"].as_str().unwrap_or("").to_string();
        let name = object["metadata"]["name"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let own_namespace = object["metadata"]["namespace"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let Some(resource) = self.resource(&api_version, &kind)? else {
            let (group, version) = match api_version.split_once('/') {
                Some((g, v)) => (g, v),
                None => ("", api_version.as_str()),
            };
            let in_group = if group.is_empty() {
                format!("version {version:?}")
            } else {
                format!("version \"{group}/{version}\"")
            };
            return Err(format!(
                "resource mapping not found for name: {name:?} namespace: {own_namespace:?} from \"\": no matches for kind {kind:?} in {in_group}\nensure CRDs are installed first"
            ));
        };
        let prefix = if api_version.contains('/') {
            format!("/apis/{api_version}")
        } else {
            format!("/api/{api_version}")
        };
        let mut target = if own_namespace.is_empty() {
            namespace.to_string()
        } else {
            own_namespace
        };
        if target.is_empty() {
            target = "default".into();
        }
        for attempt in 0..2 {
            let path = if resource.namespaced {
                format!(
                    "{prefix}/namespaces/{}/{}?dryRun=All&fieldValidation=Strict",
                    path_segment(&target),
                    resource.name
                )
            } else {
                format!(
                    "{prefix}/{}?dryRun=All&fieldValidation=Strict",
                    resource.name
                )
            };
            let body = serde_json::to_string(&object).map_err(|e| e.to_string())?;
            let (status, answer) = self
                .client
                .post_json(&path, &body)
                .map_err(|e| format!("validating {kind} {name:?}: {e}"))?;
            match status {
                200..=299 => return Ok(()),
                // It exists: the dry run of an upgrade, not a create; the object itself
                // was decoded and accepted.
                409 if answer["reason"] == "AlreadyExists" => return Ok(()),
                // The namespace does not exist yet (an install would create it): the
                // object is checked in `default` instead.
                404 if attempt == 0
                    && resource.namespaced
                    && answer["details"]["kind"] == "namespaces"
                    && target != "default" =>
                {
                    target = "default".into();
                    if let Some(meta) = object["metadata"].as_object_mut() {
                        meta.insert("namespace".into(), "default".into());
                    }
                }
                _ => {
                    let message = answer["message"].as_str().unwrap_or("");
                    return Err(format!(
                        "error validating {kind} {name:?}: {}",
                        if message.is_empty() {
                            format!("the server answered {status}")
                        } else {
                            message.to_string()
                        }
                    ));
                }
            }
        }
        Ok(())
    }

    /// The resource serving `kind` in `api_version`, from that group/version's discovery
    /// document (read once); `None` when the server does not serve it.
    fn resource(&self, api_version: &str, kind: &str) -> Result<Option<Resource>, String> {
        if api_version.is_empty() || kind.is_empty() {
            return Ok(None);
        }
        let mut served = self.served.lock().unwrap_or_else(|e| e.into_inner());
        if !served.contains_key(api_version) {
            let path = if api_version.contains('/') {
                format!("/apis/{api_version}")
            } else {
                format!("/api/{api_version}")
            };
            // A group/version the server does not know is answered 404: nothing served.
            let list = self.client.get_json(&path, "application/json").ok();
            let resources = list.map(|doc| {
                doc["resources"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| {
                        let name = r["name"].as_str()?;
                        (!name.contains('/')).then(|| Resource {
                            kind: r["kind"].as_str().unwrap_or("").to_string(),
                            name: name.to_string(),
                            namespaced: r["namespaced"].as_bool().unwrap_or(false),
                        })
                    })
                    .collect()
            });
            served.insert(api_version.to_string(), resources);
        }
        Ok(served
            .get(api_version)
            .and_then(|r| r.as_ref())
            .and_then(|list| list.iter().find(|r| r.kind == kind).cloned()))
    }
}

/// A rendered object as the JSON kubectl would send: whole numbers as integers (YAML
/// read as helm reads values makes every number a float, which a server refuses for
/// integer fields).
fn object_json(v: &capstan_value::Value) -> serde_json::Value {
    use capstan_value::Value;
    use serde_json::Value as J;
    let float = |f: f64| {
        if f.fract() == 0.0 && f.abs() < 9.0e15 {
            J::from(f as i64)
        } else {
            serde_json::Number::from_f64(f)
                .map(J::Number)
                .unwrap_or(J::Null)
        }
    };
    match v {
        Value::Int(i) | Value::Int64(i) => J::from(*i),
        Value::Uint64(u) => J::from(*u),
        Value::Float64(f) => float(*f),
        Value::Float32(f) => float(f64::from(*f)),
        Value::List(l) => J::Array(l.items.iter().map(object_json).collect()),
        Value::Map(m) => J::Object(
            m.read()
                .iter()
                .map(|(k, x)| (k.to_string(), object_json(x)))
                .collect(),
        ),
        other => crate::values_diff::to_json(other),
    }
}

/// A namespace as one URL path segment (a name the server would refuse anyway must not
/// change the path).
fn path_segment(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The documents of a manifest: split at `---` lines, empty ones left out.
fn split_documents(manifest: &str) -> Vec<&str> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in manifest.split_inclusive('\n') {
        if line.trim_end() == "---" || line.starts_with("--- ") {
            docs.push(&manifest[start..offset]);
            start = offset + line.len();
        }
        offset += line.len();
    }
    docs.push(&manifest[start..]);
    docs.into_iter()
        .filter(|d| {
            d.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_split_at_separator_lines() {
        let docs =
            split_documents("---\n# Source: a\nkind: A\n---\n# only a comment\n---\nkind: B\n");
        assert_eq!(docs, ["# Source: a\nkind: A\n", "kind: B\n"]);
    }

    #[test]
    fn namespaces_stay_one_path_segment() {
        assert_eq!(path_segment("apps"), "apps");
        assert_eq!(path_segment("../x?y"), "%2E%2E%2Fx%3Fy");
    }
}
