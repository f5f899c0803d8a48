//! vals' secret stores behind `ref+vault://`, `ref+awsssm://` and `ref+awssecrets://`
//! (in `fetchSecretValue`, `expandSecretRefs` and release `set:` values): the
//! reference's query (`?address=…&region=…`) configures the store, its fragment
//! (`#/a/b`) picks a string out of the document the store returns, and without a
//! fragment the store returns one string. Each document and string is fetched once per
//! run. Errors are vals' texts, without any credential.

use crate::error::StateError;
use crate::host::Host;
use capstan_fetch::{AwsTarget, VaultTarget};
use capstan_value::{Str, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

/// What this run has fetched: documents and strings by the reference that named them
/// (fragment left out).
fn fetched() -> &'static Mutex<HashMap<String, Fetched>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Fetched>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

#[derive(Clone)]
enum Fetched {
    Text(String),
    Document(Value),
}

/// `?a=b&c=d`, percent-decoded; the first value of a repeated name wins.
fn query(q: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for pair in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let decode = |s: &str| {
            String::from_utf8_lossy(&capstan_fetch::percent_decode(&s.replace('+', " ")))
                .into_owned()
        };
        out.entry(decode(k)).or_insert_with(|| decode(v));
    }
    out
}

/// A document's text (JSON or YAML) as a value.
fn document(text: &str) -> Result<Value, String> {
    capstan_yaml::decode_helmfile_value(text).map_err(|e| e.to_string())
}

/// vals' walk down a fragment: maps are entered, a string at the end is the answer.
fn pick(doc: &Value, fragment: &str) -> Result<String, String> {
    let frag = fragment.trim_start_matches('#').trim_start_matches('/');
    let keys: Vec<&str> = frag.split('/').collect();
    let mut cur = doc.clone();
    for (i, k) in keys.iter().enumerate() {
        let next = match &cur {
            Value::Map(m) => m.get(k),
            _ => None,
        };
        cur = match next {
            Some(Value::String(s)) => {
                if i + 1 != keys.len() {
                    return Err(format!(
                        "unexpected type of value for key at {i}={k} in [{}]: expected map[string]interface{{}}, got {s}(string)",
                        keys.join(" ")
                    ));
                }
                return Ok(s.to_string());
            }
            Some(m @ Value::Map(_)) => m,
            _ => Value::map_from(BTreeMap::new()),
        };
    }
    Err(format!("no value found for key {frag}"))
}

/// A JSON value as vals prints it with `%v` (strings bare).
fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn vault_target(q: &HashMap<String, String>) -> VaultTarget {
    let get = |k: &str| q.get(k).cloned().filter(|v| !v.is_empty());
    VaultTarget {
        address: get("address"),
        proto: get("proto"),
        host: get("host"),
        namespace: get("namespace"),
        auth_method: get("auth_method"),
        role_id: get("role_id"),
        secret_id: get("secret_id"),
        token_env: get("token_env"),
        token_file: get("token_file"),
        version: get("version"),
    }
}

fn aws_target(q: &HashMap<String, String>) -> AwsTarget {
    let get = |k: &str| q.get(k).cloned().filter(|v| !v.is_empty());
    AwsTarget {
        region: get("region"),
        profile: get("profile"),
    }
}

/// `/name` for SSM (vals adds the leading slash).
fn ssm_name(path: &str) -> String {
    if path.starts_with('/') || path.is_empty() {
        path.to_string()
    } else {
        format!("/{path}")
    }
}

/// The SSM parameters under `prefix` as a map: names relative to the prefix, split at
/// `/` into nested maps (a name that is also a prefix of others becomes the map).
fn ssm_tree(params: Vec<(String, String)>, prefix: &str) -> Value {
    enum Node {
        Leaf(String),
        Dir(BTreeMap<String, Node>),
    }
    fn insert(dir: &mut BTreeMap<String, Node>, parts: &[&str], v: &str) {
        match parts {
            [] => {}
            [last] => {
                dir.entry((*last).to_string())
                    .or_insert_with(|| Node::Leaf(v.to_string()));
            }
            [first, rest @ ..] => {
                let entry = dir
                    .entry((*first).to_string())
                    .or_insert_with(|| Node::Dir(BTreeMap::new()));
                if let Node::Leaf(_) = entry {
                    *entry = Node::Dir(BTreeMap::new());
                }
                if let Node::Dir(inner) = entry {
                    insert(inner, rest, v);
                }
            }
        }
    }
    fn value(dir: BTreeMap<String, Node>) -> Value {
        Value::map_from(
            dir.into_iter()
                .map(|(k, n)| {
                    let v = match n {
                        Node::Leaf(s) => Value::from(s),
                        Node::Dir(d) => value(d),
                    };
                    (Str::from(k), v)
                })
                .collect(),
        )
    }
    let mut root = BTreeMap::new();
    let prefix = prefix.trim_end_matches('/');
    for (name, v) in params {
        let rel = name.strip_prefix(prefix).unwrap_or(&name);
        let parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
        insert(&mut root, &parts, &v);
    }
    value(root)
}

/// `ref+BACKEND://TARGET[?QUERY][#FRAGMENT]` for the stores of this module; `rest` is
/// what follows `://` up to the fragment.
pub(crate) fn resolve(
    host: &dyn Host,
    backend: &str,
    rest: &str,
    fragment: Option<&str>,
    r: &str,
) -> Result<String, StateError> {
    let (path, q) = match rest.split_once('?') {
        Some((p, q)) => (p, query(q)),
        None => (rest, HashMap::new()),
    };
    let env = |k: &str| host.process_env(k);
    let shown = capstan_fetch::shown(r.strip_prefix("ref+").unwrap_or(r));
    let fail = |e: String| -> StateError { format!("expand {shown}: {e}").into() };
    if let Some(t) = host.tenant() {
        let mut keys: Vec<&str> = q.keys().map(String::as_str).collect();
        keys.sort_unstable();
        t.check_secret_reference(backend, path, &keys)
            .map_err(|e| fail(e.to_string()))?;
    }
    let fragment = fragment.filter(|f| !f.trim_start_matches('/').is_empty());
    let key = format!("{backend}://{rest}|{}", fragment.is_some());
    let cached = fetched()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .cloned();
    let got = match cached {
        Some(f) => f,
        None => {
            let f = fetch(&env, backend, path, &q, fragment.is_some()).map_err(fail)?;
            fetched()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key, f.clone());
            f
        }
    };
    match (got, fragment) {
        (Fetched::Text(t), _) => Ok(t),
        (Fetched::Document(doc), Some(f)) => pick(&doc, f).map_err(fail),
        (Fetched::Document(doc), None) => {
            Ok(capstan_yaml::encode_helmfile(&doc).map_err(|e| fail(e.to_string()))?)
        }
    }
}

/// One store call: a document when a fragment will pick from it, else a string.
fn fetch(
    env: &dyn Fn(&str) -> Option<String>,
    backend: &str,
    path: &str,
    q: &HashMap<String, String>,
    for_fragment: bool,
) -> Result<Fetched, String> {
    let e = |x: capstan_fetch::FetchError| x.to_string();
    match backend {
        "vault" => {
            let t = vault_target(q);
            if for_fragment {
                let data = capstan_fetch::vault_read(env, &t, path).map_err(e)?;
                let text = serde_json::Value::Object(data).to_string();
                Ok(Fetched::Document(document(&text)?))
            } else {
                // vals: the last segment is the key, the rest the secret's path.
                let (parent, key) = path.rsplit_once('/').unwrap_or(("", path));
                let data = capstan_fetch::vault_read(env, &t, parent).map_err(e)?;
                data.get(key)
                    .map(|v| Fetched::Text(plain(v)))
                    .ok_or_else(|| {
                        format!("vault: get string: key {key:?} does not exist in {parent:?}")
                    })
            }
        }
        "awsssm" => {
            let t = aws_target(q);
            let name = ssm_name(path);
            let single = |name: &str| -> Result<String, String> {
                match q.get("version").filter(|v| !v.is_empty()) {
                    Some(v) => {
                        let v: i64 = v
                            .parse()
                            .map_err(|_| "version can't be converted to Int".to_string())?;
                        capstan_fetch::ssm_parameter_version(env, &t, name, v).map_err(e)
                    }
                    None => capstan_fetch::ssm_parameter(env, &t, name).map_err(e),
                }
            };
            if !for_fragment {
                return Ok(Fetched::Text(single(&name)?));
            }
            if q.get("mode").map(String::as_str) == Some("singleparam") {
                return Ok(Fetched::Document(document(&single(&name)?)?));
            }
            let recursive = q.get("recursive").map(String::as_str) == Some("true");
            let params =
                capstan_fetch::ssm_parameters_by_path(env, &t, &name, recursive).map_err(e)?;
            if params.is_empty() {
                return Err("ssm: out.Parameters is empty".into());
            }
            Ok(Fetched::Document(ssm_tree(params, &name)))
        }
        "awssecrets" => {
            let t = aws_target(q);
            let stage = q.get("version_stage").filter(|v| !v.is_empty());
            let id = q.get("version_id").filter(|v| !v.is_empty());
            let text = capstan_fetch::secrets_manager_secret(
                env,
                &t,
                path,
                stage.map(String::as_str),
                id.map(String::as_str),
            )
            .map_err(e)?;
            if for_fragment {
                Ok(Fetched::Document(document(&text)?))
            } else {
                Ok(Fetched::Text(text))
            }
        }
        other => Err(format!("no provider registered for scheme {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_pick_strings_as_vals_does() {
        let doc = document("a:\n  b: x\n  n: 3\nc: y\n").unwrap();
        assert_eq!(pick(&doc, "/a/b").unwrap(), "x");
        assert_eq!(pick(&doc, "c").unwrap(), "y");
        assert_eq!(
            pick(&doc, "/a/n").unwrap_err(),
            "no value found for key a/n"
        );
        assert_eq!(pick(&doc, "/zz").unwrap_err(), "no value found for key zz");
        assert!(pick(&doc, "/c/d")
            .unwrap_err()
            .starts_with("unexpected type of value for key at 0=c"));
    }

    #[test]
    fn ssm_parameters_nest_under_their_prefix() {
        let tree = ssm_tree(
            vec![
                ("/foo/bar".into(), "{\"BAR\":\"VALUE\"}".into()),
                ("/foo/baz/a".into(), "A".into()),
            ],
            "/foo",
        );
        assert_eq!(pick(&tree, "/bar").unwrap(), "{\"BAR\":\"VALUE\"}");
        assert_eq!(pick(&tree, "/baz/a").unwrap(), "A");
    }

    #[test]
    fn queries_decode_and_the_first_value_wins() {
        let q = query("address=http%3A%2F%2F127.0.0.1%3A8200&region=eu-west-1&region=x");
        assert_eq!(q["address"], "http://127.0.0.1:8200");
        assert_eq!(q["region"], "eu-west-1");
    }
}
