//! `.Files` in Helm templates: a chart's non-template files with `Get`, `GetBytes`,
//! `Glob`, `Lines`, `AsConfig` and `AsSecrets`. Ranging over it visits path and bytes.

use crate::model::FileData;
use capstan_gocompat::glob::glob_match;
use capstan_value::{GoError, HostObject, Str, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A set of chart files by path (read on first use when the loader left them for later).
#[derive(Debug, Clone, Default)]
pub struct Files(pub BTreeMap<String, FileData>);

impl Files {
    /// The bytes of `name` (none for a file the set does not have), or the error of
    /// reading a file left for later.
    fn bytes(&self, name: &str) -> Result<Option<&Arc<[u8]>>, GoError> {
        self.0
            .get(name)
            .map(FileData::get)
            .transpose()
            .map_err(GoError)
    }

    fn get(&self, name: &str) -> Result<String, GoError> {
        Ok(self
            .bytes(name)?
            .map(|d| String::from_utf8_lossy(d).into_owned())
            .unwrap_or_default())
    }

    fn base_map(&self, f: impl Fn(&[u8]) -> String) -> Result<Value, GoError> {
        let mut m = BTreeMap::new();
        for (k, v) in &self.0 {
            let base = k.rsplit('/').next().unwrap_or(k);
            m.insert(Str::from(base), Value::from(f(v.get().map_err(GoError)?)));
        }
        Ok(Value::map_from(m))
    }
}

fn arg(args: &[Value]) -> Result<String, GoError> {
    match args {
        [Value::String(s)] => Ok(s.to_string()),
        [other] => Err(GoError(format!(
            "wrong type for value; expected string; got {}",
            other.type_name()
        ))),
        _ => Err(GoError(format!(
            "wrong number of args: got {} want 1",
            args.len()
        ))),
    }
}

fn yaml_text(v: &Value) -> String {
    let s = capstan_yaml::encode_helm(v).unwrap_or_default();
    s.strip_suffix('\n').map(String::from).unwrap_or(s)
}

impl HostObject for Files {
    fn type_name(&self) -> &str {
        "engine.files"
    }
    fn kind(&self) -> &'static str {
        "map"
    }
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, GoError>> {
        Some(match name {
            // Go's `string(bytes)`: a file that is not UTF-8 keeps its bytes.
            "Get" => arg(args).and_then(|p| {
                Ok(match self.bytes(&p)? {
                    None => Value::from(""),
                    Some(d) => match std::str::from_utf8(d) {
                        Ok(text) => Value::from(text),
                        Err(_) => Value::RawString(d.clone()),
                    },
                })
            }),
            "GetBytes" => arg(args).and_then(|p| {
                Ok(Value::Bytes(
                    self.bytes(&p)?
                        .cloned()
                        .unwrap_or_else(|| Arc::from(Vec::new())),
                ))
            }),
            "Lines" => arg(args).and_then(|p| {
                let s = self.get(&p)?;
                if s.is_empty() {
                    return Ok(Value::list_from(Vec::new()));
                }
                let s = s.strip_suffix('\n').unwrap_or(&s);
                Ok(Value::list_from(s.split('\n').map(Value::from).collect()))
            }),
            "Glob" => arg(args).map(|pattern| {
                let picked = self
                    .0
                    .iter()
                    .filter(|(k, _)| glob_match(&pattern, k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                Value::Host(Arc::new(Files(picked)))
            }),
            "AsConfig" => self
                .base_map(|d| String::from_utf8_lossy(d).into_owned())
                .map(|m| Value::from(yaml_text(&m))),
            "AsSecrets" => self
                .base_map(capstan_value::json::base64_encode)
                .map(|m| Value::from(yaml_text(&m))),
            _ => return None,
        })
    }
    /// Ranging over the files reads them all; one that cannot be read (left for later,
    /// then gone) makes the set one that cannot be ranged over.
    fn entries(&self) -> Option<Vec<(Value, Value)>> {
        self.0
            .iter()
            .map(|(k, v)| Some((Value::from(k.as_str()), Value::Bytes(v.get().ok()?.clone()))))
            .collect()
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
