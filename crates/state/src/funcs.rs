//! helmfile's pure template functions on top of sprig (`toYaml`, `fromYaml`, `get`,
//! `getOrNil`, `setValueAtPath`, `required`, `requiredEnv`, `tpl`, `include`, `sprigGet`)
//! and `helmfile_templates`, the set configured as helmfile renders (`missingkey=error`,
//! template `stringTemplate`). The functions with I/O come with the state loader.

use capstan_gotmpl::register as reg;
use capstan_gotmpl::register_variadic as regv;
use capstan_gotmpl::{FuncError, FuncMap, MissingKey, Templates, Ty};
use capstan_sprig::strval;
use capstan_value::{Str, Value};
use capstan_yaml::{decode_helmfile_value, encode_helmfile, stringify_keys};
use std::sync::Arc;

/// The name helmfile gives every template it renders.
pub const TEMPLATE_NAME: &str = "stringTemplate";

/// helmfile's limit on nested `include`s (the same as Helm's).
const MAX_INCLUDE_DEPTH: usize = 1000;

/// Why `get` found nothing (helmfile's `noValueError`, which `getOrNil` swallows).
enum GetError {
    NoValue(String),
    Other(String),
}

fn get(path: &str, def: Option<&Value>, obj: &Value) -> Result<Value, GetError> {
    if path.is_empty() {
        return Ok(obj.clone());
    }
    let (key, rest) = path.split_once('.').unwrap_or((path, ""));
    let found = match obj {
        Value::Map(m) => m.get(key),
        Value::AnyMap(m) => m
            .entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v.clone()),
        other => {
            let ty = if matches!(other, Value::Nil) {
                "<nil>".to_string()
            } else {
                other.type_name()
            };
            return Err(GetError::NoValue(format!(
                "unexpected type({ty}) of value for key \"{key}\": it must be either map[string]any or any struct"
            )));
        }
    };
    match found {
        Some(v) => get(rest, def, &v),
        None => match def {
            Some(d) => Ok(d.clone()),
            None => Err(GetError::NoValue(format!(
                "no value exist for key \"{key}\" in {obj}"
            ))),
        },
    }
}

fn get_args(a: &[Value]) -> Result<(String, Option<Value>, Value), GetError> {
    let path = strval(&a[0]);
    match &a[1..] {
        [obj] => Ok((path, None, obj.clone())),
        [def, obj] => Ok((path, Some(def.clone()), obj.clone())),
        rest => Err(GetError::Other(format!(
            "unexpected number of args passed to the template function get(path, [def, ]obj): expected 1 or 2, got {}, args was {}",
            rest.len(),
            Value::list_from(rest.to_vec())
        ))),
    }
}

fn set_value_at_path(path: &str, value: Value, obj: &Value) -> Result<Value, FuncError> {
    let keys: Vec<&str> = path.split('.').collect();
    let not_a_map = |k: &str| {
        FuncError::from(format!(
            "failed to set value at path \"{path}\": value for key \"{k}\" was not a map"
        ))
    };
    let Value::Map(mut cur) = obj.clone() else {
        return Err(not_a_map(keys[0]));
    };
    for (i, k) in keys.iter().enumerate() {
        if i + 1 == keys.len() {
            // Go maps are references: the change is seen by every holder of the map.
            cur.insert(Str::from(*k), value);
            break;
        }
        match cur.get(k) {
            Some(Value::Map(next)) => cur = next,
            Some(_) => return Err(not_a_map(k)),
            None => {
                return Err(format!(
                    "failed to set value at path \"{path}\": value for key \"{k}\" does not exist"
                )
                .into())
            }
        }
    }
    Ok(obj.clone())
}

/// helmfile's function map: all of sprig plus helmfile's own.
pub fn helmfile_funcs() -> FuncMap {
    let mut m = capstan_sprig::funcs();
    if let Some(sprig_get) = m.get("get").cloned() {
        m.insert("sprigGet".into(), sprig_get);
    }
    reg(&mut m, "toYaml", &[Ty::Any], |_, a| {
        Ok(encode_helmfile(&a[0])
            .map(Value::from)
            .map_err(|e| e.to_string())?)
    });
    reg(&mut m, "fromYaml", &[Ty::String], |_, a| {
        let text = strval(&a[0]);
        let offending = |e: String| format!("{e}, offending yaml: {text}");
        let v = decode_helmfile_value(&text).map_err(|e| offending(e.to_string()))?;
        Ok(stringify_keys(&v).map_err(|e| offending(e.to_string()))?)
    });
    regv(&mut m, "get", &[Ty::String], |_, a| {
        let (path, def, obj) = get_args(&a).map_err(|e| match e {
            GetError::NoValue(s) | GetError::Other(s) => FuncError::Message(s),
        })?;
        Ok(get(&path, def.as_ref(), &obj).map_err(|e| match e {
            GetError::NoValue(s) | GetError::Other(s) => s,
        })?)
    });
    regv(&mut m, "getOrNil", &[Ty::String], |_, a| {
        let (path, def, obj) = get_args(&a).map_err(|e| match e {
            GetError::NoValue(s) | GetError::Other(s) => FuncError::Message(s),
        })?;
        match get(&path, def.as_ref(), &obj) {
            Ok(v) => Ok(v),
            Err(GetError::NoValue(_)) => Ok(Value::Nil),
            Err(GetError::Other(s)) => Err(s.into()),
        }
    });
    reg(
        &mut m,
        "setValueAtPath",
        &[Ty::String, Ty::Any, Ty::Any],
        |_, a| set_value_at_path(&strval(&a[0]), a[1].clone(), &a[2]),
    );
    reg(
        &mut m,
        "required",
        &[Ty::String, Ty::Any],
        |_, a| match &a[1] {
            Value::Nil => Err(strval(&a[0]).into()),
            Value::String(s) if s.is_empty() => Err(strval(&a[0]).into()),
            v => Ok(v.clone()),
        },
    );
    reg(&mut m, "requiredEnv", &[Ty::String], |_, a| {
        let name = strval(&a[0]);
        match std::env::var(&name) {
            Ok(v) if !v.is_empty() => Ok(Value::from(v)),
            _ => Err(format!("required env var `{name}` is not set").into()),
        }
    });
    reg(&mut m, "include", &[Ty::String, Ty::Any], |ctx, a| {
        capstan_gotmpl::include(ctx, &strval(&a[0]), &a[1], MAX_INCLUDE_DEPTH)
    });
    reg(&mut m, "tpl", &[Ty::String, Ty::Any], |ctx, a| {
        let mut set = helmfile_templates(ctx.templates.funcs().clone());
        set.parse(TEMPLATE_NAME, &strval(&a[0]))?;
        let mut out = String::new();
        set.execute_into(TEMPLATE_NAME, &a[1], &mut out, ctx.depth + 1)
            .map_err(|e| e.to_string())?;
        Ok(Value::from(out))
    });
    m
}

/// An empty template set configured as helmfile renders: `missingkey=error`, template
/// name `stringTemplate`.
pub fn helmfile_templates(funcs: Arc<FuncMap>) -> Templates {
    let mut t = Templates::with_funcs(funcs);
    t.missing_key = MissingKey::Error;
    t.root_name = TEMPLATE_NAME.into();
    t
}

#[cfg(test)]
mod function_list {
    /// helmfile v1.7's own functions (pkg/tmpl/context_funcs.go `createFuncMap`, plus
    /// `sprigGet` and `include` from context_tmpl.go) on top of all of sprig.
    const HELMFILE_EXTRAS: &[&str] = &[
        "envExec",
        "exec",
        "isFile",
        "isDir",
        "readFile",
        "readDir",
        "readDirEntries",
        "toYaml",
        "fromYaml",
        "setValueAtPath",
        "requiredEnv",
        "get",
        "getOrNil",
        "tpl",
        "required",
        "fetchSecretValue",
        "expandSecretRefs",
        "sprigGet",
        "include",
    ];

    #[test]
    fn every_helmfile_function_is_registered() {
        let renderer = crate::render::Renderer::new(
            std::sync::Arc::new(crate::host::MemHost::default()),
            std::path::PathBuf::from("/"),
        );
        let names: Vec<String> = renderer.function_names();
        let missing: Vec<&str> = capstan_sprig::TXT_FUNC_MAP_NAMES
            .iter()
            .chain(HELMFILE_EXTRAS)
            .copied()
            .filter(|n| !names.iter().any(|m| m == n))
            .collect();
        assert!(
            missing.is_empty(),
            "missing from helmfile's function map: {missing:?}"
        );
    }
}
