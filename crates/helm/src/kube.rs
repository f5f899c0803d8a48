//! Helm's release records read straight from the Kubernetes API: one request lists the
//! releases of a namespace (helm's default storage, Secrets labelled `owner=helm`) and
//! keeps each release's latest revision, whatever its status, as `helm get manifest`,
//! `helm get hooks` and `helm get values` read it, instead of one helm process per
//! release and question.
//! capstan's own diff uses it for `apply` and `diff`; anything it cannot handle (another
//! `HELM_DRIVER`, an exec credential plugin, an error from the server) makes the caller
//! fall back to `helm get manifest`.
//!
//! The connection comes from the kubeconfig helm would use (`--kubeconfig`, else
//! `$KUBECONFIG`'s first file, else `~/.kube/config`) and its current (or the given)
//! context: server, CA, bearer token or client certificate. Credentials go only to that
//! server.

use capstan_chart::capabilities::ClusterCapabilities;
use capstan_value::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Arc;

capstan_source::message_error!(
    /// Why talking to the Kubernetes API failed (the text helmfile and kubectl show).
    KubeError
);

impl From<KubeError> for capstan_state::StateError {
    fn from(e: KubeError) -> Self {
        capstan_state::StateError::new(e.0)
    }
}

/// A connection to the API server of one kube context.
pub struct KubeClient {
    server: String,
    token: Option<String>,
    agent: ureq::Agent,
}

fn text(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// The `cluster`/`user`/`context` of the entry called `name` in the kubeconfig's list
/// `key`.
fn named(doc: &Value, key: &str, name: &str) -> Option<Value> {
    match doc.get(key)? {
        Value::List(l) => {
            l.items
                .iter()
                .find(|e| text(e, "name") == name)
                .and_then(|e| match key {
                    "clusters" => e.get("cluster"),
                    "users" => e.get("user"),
                    _ => e.get("context"),
                })
        }
        _ => None,
    }
}

/// Bytes of a `*-data` field (base64) or of the file a field names (relative paths are
/// relative to the kubeconfig's directory).
fn pem(v: &Value, field: &str, dir: &std::path::Path) -> Result<Option<Vec<u8>>, KubeError> {
    let data = text(v, &format!("{field}-data"));
    if !data.is_empty() {
        use base64::Engine as _;
        return Ok(base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map(Some)
            .map_err(|e| format!("kubeconfig {field}-data: {e}"))?);
    }
    let file = text(v, field);
    if file.is_empty() {
        return Ok(None);
    }
    Ok(std::fs::read(dir.join(&file))
        .map(Some)
        .map_err(|e| format!("kubeconfig {field} {file}: {e}"))?)
}

impl KubeClient {
    /// The client for `context` (empty: the current context) of the kubeconfig at `path`.
    pub(crate) fn from_kubeconfig(
        path: &std::path::Path,
        context: &str,
    ) -> Result<KubeClient, KubeError> {
        let raw = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let doc =
            capstan_yaml::decode_helm(&raw).map_err(|e| format!("{}: {e}", path.display()))?;
        let context = if context.is_empty() {
            text(&doc, "current-context")
        } else {
            context.to_string()
        };
        let ctx = named(&doc, "contexts", &context)
            .ok_or_else(|| format!("kube context {context:?} not found"))?;
        let cluster = named(&doc, "clusters", &text(&ctx, "cluster"))
            .ok_or("kubeconfig: no cluster for the context")?;
        let user = named(&doc, "users", &text(&ctx, "user")).unwrap_or(Value::Nil);
        if user.get("exec").is_some() || user.get("auth-provider").is_some() {
            return Err("kubeconfig: credential plugins are left to helm".into());
        }
        let dir = path.parent().unwrap_or(std::path::Path::new("."));
        let server = text(&cluster, "server").trim_end_matches('/').to_string();
        if !server.starts_with("https://") {
            return Err(format!("kubeconfig: server {server:?} is not https").into());
        }
        let mut roots = rustls::RootCertStore::empty();
        match pem(&cluster, "certificate-authority", dir)? {
            Some(ca) => {
                use rustls::pki_types::pem::PemObject as _;
                for c in rustls::pki_types::CertificateDer::pem_slice_iter(&ca) {
                    let c = c.map_err(|e| format!("kubeconfig certificate-authority: {e}"))?;
                    roots
                        .add(c)
                        .map_err(|e| format!("kubeconfig certificate-authority: {e}"))?;
                }
            }
            None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        }
        if text(&cluster, "insecure-skip-tls-verify") == "true" {
            return Err("kubeconfig: insecure-skip-tls-verify is left to helm".into());
        }
        let builder = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots);
        let config = match (
            pem(&user, "client-certificate", dir)?,
            pem(&user, "client-key", dir)?,
        ) {
            (Some(cert), Some(key)) => {
                use rustls::pki_types::pem::PemObject as _;
                let certs = rustls::pki_types::CertificateDer::pem_slice_iter(&cert)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("kubeconfig client-certificate: {e}"))?;
                let key = rustls::pki_types::PrivateKeyDer::from_pem_slice(&key)
                    .map_err(|e| format!("kubeconfig client-key: {e}"))?;
                builder
                    .with_client_auth_cert(certs, key)
                    .map_err(|e| format!("kubeconfig client certificate: {e}"))?
            }
            _ => builder.with_no_client_auth(),
        };
        let mut token = text(&user, "token");
        if token.is_empty() {
            let file = text(&user, "tokenFile");
            if !file.is_empty() {
                token = std::fs::read_to_string(dir.join(file))
                    .map_err(|e| format!("kubeconfig tokenFile: {e}"))?
                    .trim()
                    .to_string();
            }
        }
        let agent = ureq::AgentBuilder::new()
            .tls_config(Arc::new(config))
            .timeout(std::time::Duration::from_secs(60))
            .redirects(0)
            .build();
        Ok(KubeClient {
            server,
            token: (!token.is_empty()).then_some(token),
            agent,
        })
    }

    /// The releases of a namespace, by release name: the latest revision of each (deployed,
    /// failed or pending, as helm's `get` commands read it), with its manifest, hooks and
    /// user-supplied values.
    pub(crate) fn deployed_releases(
        &self,
        namespace: &str,
    ) -> Result<BTreeMap<String, Deployed>, KubeError> {
        let list = self
            .get_json(
                &format!("/api/v1/namespaces/{namespace}/secrets?labelSelector=owner%3Dhelm"),
                "application/json",
            )
            .map_err(|e| format!("listing helm releases in {namespace}: {e}"))?;
        let mut newest: BTreeMap<String, (i64, Deployed)> = BTreeMap::new();
        for item in list["items"].as_array().into_iter().flatten() {
            let Some(data) = item["data"]["release"].as_str() else {
                continue;
            };
            let rel = decode_release(data)?;
            let name = rel["name"].as_str().unwrap_or("").to_string();
            let version = rel["version"].as_i64().unwrap_or(0);
            let deployed = Deployed {
                manifest: rel["manifest"].as_str().unwrap_or("").to_string(),
                hooks: hooks_text(&rel["hooks"]),
                values: match &rel["config"] {
                    serde_json::Value::Null => serde_json::Value::Object(Default::default()),
                    v => v.clone(),
                },
            };
            if newest.get(&name).is_none_or(|(v, _)| version > *v) {
                newest.insert(name, (version, deployed));
            }
        }
        Ok(newest.into_iter().map(|(k, (_, d))| (k, d)).collect())
    }

    /// The chart version of the latest revision of release `name` in `namespace`
    /// (`None`: no such release).
    pub(crate) fn chart_version(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Option<String>, KubeError> {
        // helm accepts only DNS-1123 release names; anything else was never installed
        // (and must not reach the URL unescaped).
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        {
            return Ok(None);
        }
        let list = self
            .get_json(
                &format!(
                    "/api/v1/namespaces/{namespace}/secrets?labelSelector=owner%3Dhelm%2Cname%3D{name}"
                ),
                "application/json",
            )
            .map_err(|e| format!("listing helm releases in {namespace}: {e}"))?;
        let mut newest: Option<(i64, String)> = None;
        for item in list["items"].as_array().into_iter().flatten() {
            let Some(data) = item["data"]["release"].as_str() else {
                continue;
            };
            let rel = decode_release(data)?;
            if rel["name"].as_str() != Some(name) {
                continue;
            }
            let revision = rel["version"].as_i64().unwrap_or(0);
            if newest.as_ref().is_none_or(|(v, _)| revision > *v) {
                let chart = rel["chart"]["metadata"]["version"].as_str().unwrap_or("");
                newest = Some((revision, chart.to_string()));
            }
        }
        Ok(newest.map(|(_, v)| v))
    }

    /// POST `body` (JSON) to `path`: the HTTP status and the JSON answer (a
    /// `metav1.Status` when the server refused).
    pub(crate) fn post_json(
        &self,
        path: &str,
        body: &str,
    ) -> Result<(u16, serde_json::Value), KubeError> {
        let mut req = self
            .agent
            .post(&format!("{}{path}", self.server))
            .set("Accept", "application/json")
            .set("Content-Type", "application/json");
        if let Some(t) = &self.token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        let resp = match req.send_string(body) {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => return Err(e.to_string().into()),
        };
        let status = resp.status();
        let mut text = String::new();
        resp.into_reader()
            .take(1 << 24)
            .read_to_string(&mut text)
            .map_err(|e| e.to_string())?;
        Ok((status, serde_json::from_str(&text).unwrap_or_default()))
    }

    /// GET `path` on the server, as JSON (`accept` names the representations wanted).
    pub(crate) fn get_json(
        &self,
        path: &str,
        accept: &str,
    ) -> Result<serde_json::Value, KubeError> {
        let mut req = self
            .agent
            .get(&format!("{}{path}", self.server))
            .set("Accept", accept);
        if let Some(t) = &self.token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        let resp = req.call().map_err(|e| e.to_string())?;
        let mut body = String::new();
        resp.into_reader()
            .take(1 << 30)
            .read_to_string(&mut body)
            .map_err(|e| e.to_string())?;
        Ok(serde_json::from_str(&body).map_err(|e| e.to_string())?)
    }

    /// The server's version and API versions, as `helm upgrade` reads them for
    /// `.Capabilities` (client-go's discovery: aggregated when the server offers it,
    /// else one request per group/version).
    pub(crate) fn capabilities(&self) -> Result<ClusterCapabilities, KubeError> {
        let version = self
            .get_json("/version", "application/json")
            .map_err(|e| format!("reading the server version: {e}"))?;
        let field = |k: &str| version[k].as_str().unwrap_or("").to_string();
        let mut api = std::collections::BTreeSet::new();
        for root in ["/api", "/apis"] {
            let doc = self
                .get_json(root, AGGREGATED_DISCOVERY)
                .map_err(|e| format!("discovering the server's APIs ({root}): {e}"))?;
            if doc["kind"] == "APIGroupDiscoveryList" {
                aggregated_versions(&doc, &mut api);
                continue;
            }
            // Not aggregated: the group list (or the core versions), then each
            // group/version's resources.
            let mut group_versions = Vec::new();
            if root == "/api" {
                for v in doc["versions"].as_array().into_iter().flatten() {
                    group_versions.extend(v.as_str().map(str::to_string));
                }
            } else {
                for g in doc["groups"].as_array().into_iter().flatten() {
                    for v in g["versions"].as_array().into_iter().flatten() {
                        group_versions.extend(v["groupVersion"].as_str().map(str::to_string));
                    }
                }
            }
            for gv in group_versions {
                let list = self
                    .get_json(&format!("{root}/{gv}"), "application/json")
                    .map_err(|e| format!("discovering the server's APIs ({root}/{gv}): {e}"))?;
                for r in list["resources"].as_array().into_iter().flatten() {
                    api.insert(join_kind(&gv, r["kind"].as_str().unwrap_or("")));
                }
                api.insert(gv);
            }
        }
        Ok(ClusterCapabilities {
            git_version: field("gitVersion"),
            major: field("major"),
            minor: field("minor"),
            api_versions: api.into_iter().collect(),
        })
    }
}

/// The representations client-go asks discovery for: the aggregated list first.
const AGGREGATED_DISCOVERY: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/// `group/version` and `group/version/Kind` of every fresh version and resource (and
/// subresource) of an aggregated discovery document (`APIGroupDiscoveryList`).
fn aggregated_versions(doc: &serde_json::Value, api: &mut std::collections::BTreeSet<String>) {
    for group in doc["items"].as_array().into_iter().flatten() {
        let name = group["metadata"]["name"].as_str().unwrap_or("");
        for v in group["versions"].as_array().into_iter().flatten() {
            if v["freshness"] == "Stale" {
                continue;
            }
            let version = v["version"].as_str().unwrap_or("");
            let gv = if name.is_empty() {
                version.to_string()
            } else {
                format!("{name}/{version}")
            };
            for r in v["resources"].as_array().into_iter().flatten() {
                api.insert(join_kind(
                    &gv,
                    r["responseKind"]["kind"].as_str().unwrap_or(""),
                ));
                for sub in r["subresources"].as_array().into_iter().flatten() {
                    api.insert(join_kind(
                        &gv,
                        sub["responseKind"]["kind"].as_str().unwrap_or(""),
                    ));
                }
            }
            api.insert(gv);
        }
    }
}

/// Go's `path.Join(groupVersion, kind)` for the names discovery gives.
fn join_kind(gv: &str, kind: &str) -> String {
    if kind.is_empty() {
        gv.to_string()
    } else {
        format!("{gv}/{kind}")
    }
}

/// The hooks of a release record as `helm get hooks` prints them: per hook, `---`, its
/// `# Source:` line and its manifest.
fn hooks_text(hooks: &serde_json::Value) -> String {
    let mut out = String::new();
    for h in hooks.as_array().into_iter().flatten() {
        out.push_str("---\n# Source: ");
        out.push_str(h["path"].as_str().unwrap_or(""));
        out.push('\n');
        out.push_str(h["manifest"].as_str().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// A release's latest revision as helm recorded it.
#[derive(Clone, Debug)]
pub struct Deployed {
    /// Its manifest, as `helm get manifest` prints it.
    pub manifest: String,
    /// Its hooks, as `helm get hooks` prints them.
    pub hooks: String,
    /// The user-supplied values (`helm get values`).
    pub values: serde_json::Value,
}

/// A release record as helm stores it in a Secret: base64 (the API's) of base64 of gzip
/// of JSON.
pub fn decode_release(data: &str) -> Result<serde_json::Value, KubeError> {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let once = b64
        .decode(data.trim())
        .map_err(|e| format!("release record: {e}"))?;
    let twice = b64
        .decode(&once)
        .map_err(|e| format!("release record: {e}"))?;
    let json = if twice.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&twice[..])
            .take(1 << 30)
            .read_to_end(&mut out)
            .map_err(|e| format!("release record: {e}"))?;
        out
    } else {
        twice
    };
    serde_json::from_slice(&json).map_err(|e| KubeError(format!("release record: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_records_decode() {
        use base64::Engine as _;
        use std::io::Write as _;
        let json = br#"{"name":"web","version":3,"manifest":"---\nkind: ConfigMap\n"}"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(json).unwrap();
        let b64 = base64::engine::general_purpose::STANDARD;
        let data = b64.encode(b64.encode(gz.finish().unwrap()));
        let rel = decode_release(&data).unwrap();
        assert_eq!(rel["manifest"], "---\nkind: ConfigMap\n");
        assert!(decode_release("not base64!").is_err());
    }
}
