//! The values a user gives Helm on the command line, merged as Helm's `MergeValues`
//! does: `-f` files in order (deep-merged), then `--set-json`, `--set`, `--set-string`,
//! `--set-file` and `--set-literal`. The flag kind decides the order, not the position on
//! the command line. Error texts are Helm's.

use crate::strvals::{parse_into, FileReader, Flag};
use capstan_value::{merge_maps, Str, Value};
use std::collections::BTreeMap;

type Map = BTreeMap<Str, Value>;

/// The value flags of one `helm template/install/upgrade` command.
#[derive(Clone, Debug, Default)]
pub struct UserValues {
    /// `-f/--values`, in order.
    pub files: Vec<String>,
    /// `--set-json` expressions, in order.
    pub set_json: Vec<String>,
    /// `--set` expressions, in order.
    pub set: Vec<String>,
    /// `--set-string` expressions, in order.
    pub set_string: Vec<String>,
    /// `--set-file` expressions, in order.
    pub set_file: Vec<String>,
    /// `--set-literal` expressions, in order.
    pub set_literal: Vec<String>,
}

/// Why merging the user's values failed: Helm's text, and the `-f` file and position
/// when a values file is malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ValuesError {
    /// Helm's message.
    pub message: String,
    /// The file it is about, when there is one.
    pub file: Option<String>,
    /// Where in that file.
    pub pos: Option<capstan_source::Pos>,
}

impl From<String> for ValuesError {
    fn from(message: String) -> Self {
        ValuesError {
            message,
            file: None,
            pos: None,
        }
    }
}

impl From<crate::strvals::ReadError> for ValuesError {
    fn from(e: crate::strvals::ReadError) -> Self {
        ValuesError::from(e.0)
    }
}

impl UserValues {
    /// Merges everything into one map. `read` loads a `-f` or `--set-file` path and fails
    /// with Go's `open PATH: ...` text.
    pub fn merge(&self, read: FileReader) -> Result<Map, ValuesError> {
        self.merge_with(read, None)
    }

    /// [`UserValues::merge`] with the `-f` files already decoded (`decoded`, one map per
    /// file, in order), as a caller that read them for their positions has them.
    pub fn merge_with(
        &self,
        read: FileReader,
        decoded: Option<&[Map]>,
    ) -> Result<Map, ValuesError> {
        let mut base = Map::new();
        for m in decoded.unwrap_or_default() {
            base = merge_maps(&base, m);
        }
        for path in self.files.iter().filter(|_| decoded.is_none()) {
            let bytes = read(path)?;
            // go-yaml's reader refuses invalid UTF-8 before parsing anything.
            let text = capstan_yaml::yaml_documents_text(&bytes).map_err(|e| ValuesError {
                message: format!(
                    "failed to parse {path}: cannot unmarshal yaml document: error converting YAML to JSON: {e}"
                ),
                file: Some(path.clone()),
                pos: e.pos,
            })?;
            let doc = capstan_yaml::decode_helm(text).map_err(|e| ValuesError {
                message: format!("failed to parse {path}: {e}"),
                file: Some(path.clone()),
                pos: e.pos,
            })?;
            base = merge_maps(
                &base,
                &doc.as_map().map(|m| m.snapshot()).unwrap_or_default(),
            );
        }
        for expr in &self.set_json {
            merge_set_json(expr, &mut base)?;
        }
        let flags = [
            (Flag::Set, &self.set, "--set"),
            (Flag::SetString, &self.set_string, "--set-string"),
            (Flag::SetFile, &self.set_file, "--set-file"),
            (Flag::SetLiteral, &self.set_literal, "--set-literal"),
        ];
        for (flag, exprs, name) in flags {
            for expr in exprs {
                parse_into(expr, flag, &mut base, Some(read))
                    .map_err(|e| format!("failed parsing {name} data: {e}"))?;
            }
        }
        Ok(base)
    }
}

/// One `--set-json` argument: a whole JSON object (deep-merged) or `path=json`.
/// Helm drops the inner error text for the latter.
pub fn merge_set_json(expr: &str, base: &mut Map) -> Result<(), ValuesError> {
    let trimmed = expr.trim();
    if trimmed.starts_with('{') {
        let v = capstan_value::json::from_json(trimmed).map_err(|_| {
            ValuesError::from(format!("failed parsing --set-json data JSON: {expr}"))
        })?;
        let m = v.as_map().map(|m| m.snapshot()).unwrap_or_default();
        *base = merge_maps(base, &m);
        return Ok(());
    }
    parse_into(expr, Flag::SetJson, base, None)
        .map_err(|_| format!("failed parsing --set-json data {expr}").into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_kind_order_beats_position() {
        let u = UserValues {
            files: vec!["f.yaml".into()],
            set_literal: vec!["a=lit".into()],
            set: vec!["a=set,b=2".into()],
            set_json: vec![r#"{"c":{"d":1}}"#.into()],
            ..Default::default()
        };
        let read = |p: &str| {
            if p == "f.yaml" {
                Ok(b"a: file\nc: {e: 2}\n".to_vec())
            } else {
                Err(crate::strvals::ReadError(format!(
                    "open {p}: no such file or directory"
                )))
            }
        };
        let m = u.merge(&read).unwrap();
        assert_eq!(
            Value::map_from(m).to_string(),
            "map[a:lit b:2 c:map[d:1 e:2]]"
        );
    }

    #[test]
    fn errors_name_the_flag() {
        let u = UserValues {
            set_json: vec!["a={bad".into()],
            ..Default::default()
        };
        let read = |p: &str| {
            Err(crate::strvals::ReadError(format!(
                "open {p}: no such file or directory"
            )))
        };
        assert_eq!(
            u.merge(&read).unwrap_err().message,
            "failed parsing --set-json data a={bad"
        );
        let u = UserValues {
            files: vec!["nope.yaml".into()],
            ..Default::default()
        };
        assert_eq!(
            u.merge(&read).unwrap_err().message,
            "open nope.yaml: no such file or directory"
        );
    }
}
