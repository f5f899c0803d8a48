//! helmfile's reading of values: yaml.v3 `Unmarshal` of the first document into
//! `map[string]any` (ints stay `int`, timestamps become `time.Time`, nested maps with
//! non-string keys stay `map[interface {}]interface {}`), v3's duplicate-key and type
//! errors, and `maputil.CastKeysToStrings` as a separate step.

use crate::compose::{compose_first, with_stack_for, Document, Generation, NodeKind};
use crate::error::{CastError, YamlError};
use crate::resolve::{resolve, short_tag, untagged_tag, Scalar, BINARY, MAP, MERGE, SEQ, STR};
use crate::walk::{decode_base64, is_merge_key, is_quoted, want_map, Walker};
use capstan_gocompat::quote::go_quote;
use capstan_value::{go_syntax, AnyMapBuilder, Map, Str, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

const GEN: Generation = Generation::V3;

/// How many "already defined" errors one document reports at most (yaml.v3 has no limit).
const MAX_DUPLICATE_ERRORS: usize = 10_000;

enum Target {
    Strings(BTreeMap<Str, Value>),
    Any(AnyMapBuilder),
}

struct V3<'d> {
    w: Walker<'d>,
    terrors: Vec<String>,
    merged_fields: Option<AnyMapBuilder>,
}

impl<'d> V3<'d> {
    /// The tag a v3 parser gives a scalar node before decoding, or `None` when the
    /// scalar counts as an indicated string.
    fn scalar_tag(&self, i: usize) -> Option<String> {
        let n = self.w.doc.node(i);
        let NodeKind::Scalar { value, style, .. } = &n.kind else {
            return None;
        };
        match n.tag.as_deref() {
            Some(t) if t != "!" => {
                if t == STR {
                    None
                } else {
                    Some(t.to_string())
                }
            }
            _ if is_quoted(*style) => None,
            _ if value == "<<" => Some(MERGE.to_string()),
            _ => Some(String::new()),
        }
    }

    /// v3's `Node.ShortTag()`.
    fn short_tag_of(&self, i: usize) -> String {
        let n = self.w.doc.node(i);
        match &n.kind {
            NodeKind::Scalar { value, .. } => match self.scalar_tag(i) {
                None => "!!str".into(),
                Some(t) if t.is_empty() => short_tag(untagged_tag(GEN, value)),
                Some(t) => short_tag(&t),
            },
            NodeKind::Seq(_) => short_tag(n.tag.as_deref().filter(|t| *t != "!").unwrap_or(SEQ)),
            NodeKind::Map(_) => short_tag(n.tag.as_deref().filter(|t| *t != "!").unwrap_or(MAP)),
            NodeKind::Alias(t, _) => self.short_tag_of(*t),
        }
    }

    /// Whether a key's short tag is `!!str` or `!!merge` ([`Self::short_tag_of`], without
    /// spelling the tag: this runs for every key).
    fn key_is_text(&self, i: usize) -> bool {
        let n = self.w.doc.node(i);
        match &n.kind {
            NodeKind::Scalar { value, .. } => match self.scalar_tag(i) {
                None => true,
                Some(t) if t.is_empty() => untagged_tag(GEN, value) == STR,
                Some(t) => matches!(short_tag(&t).as_str(), "!!str" | "!!merge"),
            },
            NodeKind::Seq(_) | NodeKind::Map(_) => {
                matches!(self.short_tag_of(i).as_str(), "!!str" | "!!merge")
            }
            NodeKind::Alias(t, _) => self.key_is_text(*t),
        }
    }

    /// Resolves a scalar node: `Ok(None)` for null.
    fn scalar(&self, i: usize) -> Result<Scalar, YamlError> {
        let n = self.w.doc.node(i);
        let NodeKind::Scalar { value, .. } = &n.kind else {
            return Ok(Scalar::Null);
        };
        let Some(tag) = self.scalar_tag(i) else {
            return Ok(Scalar::Str(value.clone()));
        };
        let (rtag, resolved) = resolve(GEN, &tag, value).map_err(|e| e.at(Some(n.start)))?;
        if rtag == BINARY {
            let data = decode_base64(value).ok_or_else(|| {
                YamlError::new("yaml: !!binary value contains invalid base64 data")
                    .at(Some(n.start))
            })?;
            return Ok(match String::from_utf8(data) {
                Ok(s) => Scalar::Str(s),
                Err(e) => Scalar::Bytes(e.into_bytes()),
            });
        }
        Ok(resolved)
    }

    fn terror(&mut self, i: usize, tag: &str, into: &str) {
        let n = self.w.doc.node(i);
        let tag = match &n.kind {
            NodeKind::Seq(_) | NodeKind::Map(_) => self.short_tag_of(i),
            _ => tag.to_string(),
        };
        let value = match &n.kind {
            NodeKind::Scalar { value, .. } if tag != "!!seq" && tag != "!!map" => {
                if value.len() > 10 {
                    let cut = (0..=7)
                        .rev()
                        .find(|&k| value.is_char_boundary(k))
                        .unwrap_or(0);
                    format!(" `{}...`", &value[..cut])
                } else {
                    format!(" `{value}`")
                }
            }
            _ => String::new(),
        };
        self.terrors.push(format!(
            "line {}: cannot unmarshal {}{} into {}",
            n.line(),
            tag,
            value,
            into
        ));
    }

    /// Decodes into `interface {}`.
    fn value(&mut self, i: usize) -> Result<Value, YamlError> {
        self.w.count()?;
        // The document outlives this walker: its nodes are read while the walker changes.
        let doc: &'d Document = self.w.doc;
        match &doc.node(i).kind {
            NodeKind::Scalar { .. } => Ok(match self.scalar(i)? {
                Scalar::Null => Value::Nil,
                Scalar::Bool(b) => Value::Bool(b),
                Scalar::Int(n) => Value::Int(n),
                Scalar::Uint(u) => Value::Uint64(u),
                Scalar::Float(f) => Value::Float64(f),
                Scalar::Str(s) => Value::from(s),
                Scalar::Bytes(b) => Value::RawString(b.into()),
                Scalar::Timestamp(t) => Value::Time(Arc::new(t)),
            }),
            NodeKind::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                for &it in items.iter() {
                    out.push(self.value(it)?);
                }
                Ok(Value::list_from(out))
            }
            NodeKind::Map(pairs) => {
                let string_keys = pairs.iter().all(|&(k, _)| self.key_is_text(k));
                let mut target = if string_keys {
                    Target::Strings(BTreeMap::new())
                } else {
                    Target::Any(AnyMapBuilder::default())
                };
                self.map_into(i, &mut target)?;
                Ok(match target {
                    Target::Strings(entries) => Value::map_from(entries),
                    Target::Any(m) => Value::AnyMap(Arc::new(m.into_map())),
                })
            }
            NodeKind::Alias(..) => {
                let t = self.w.enter_alias(i)?;
                let r = self.value(t);
                self.w.leave_alias(i);
                r
            }
        }
    }

    /// Decodes a key into a Go `string` (keys of `map[string]…`): `None` when v3 skips it.
    fn key_string(&mut self, i: usize) -> Result<Option<String>, YamlError> {
        self.w.count()?;
        match &self.w.doc.node(i).kind {
            NodeKind::Alias(t, _) => {
                let t = *t;
                if !matches!(self.w.doc.node(t).kind, NodeKind::Scalar { .. }) {
                    self.terror(t, "", "string");
                    return Ok(None);
                }
                self.key_string(t)
            }
            NodeKind::Seq(_) | NodeKind::Map(_) => {
                self.terror(i, "", "string");
                Ok(None)
            }
            NodeKind::Scalar { value, .. } => match self.scalar(i)? {
                Scalar::Null => Ok(None),
                // A text key resolves to its own text (a `!!binary` one to what it
                // decodes to).
                Scalar::Str(s) => Ok(Some(s)),
                Scalar::Bytes(b) => Ok(Some(String::from_utf8_lossy(&b).into_owned())),
                _ => Ok(Some(value.clone())),
            },
        }
    }

    fn check_duplicates(&mut self, pairs: &[(usize, usize)]) {
        let doc = self.w.doc;
        let ident = |i: usize| -> (u8, &str) {
            match &doc.node(i).kind {
                NodeKind::Scalar { value, .. } => (0, value.as_str()),
                NodeKind::Seq(_) => (1, ""),
                NodeKind::Map(_) => (2, ""),
                NodeKind::Alias(_, name) => (3, name.as_str()),
            }
        };
        // yaml.v3 compares every key with every later one; only keys seen twice can
        // match, so the pairwise walk runs over those alone (in the same order).
        // Most mappings are small and have no key twice: compared in place, without
        // hashing every key.
        if pairs.len() <= 16
            && pairs
                .iter()
                .enumerate()
                .all(|(a, &(ka, _))| pairs[a + 1..].iter().all(|&(kb, _)| ident(ka) != ident(kb)))
        {
            return;
        }
        let mut seen: std::collections::HashMap<(u8, &str), usize> = Default::default();
        for &(k, _) in pairs {
            *seen.entry(ident(k)).or_default() += 1;
        }
        let repeated: Vec<(usize, usize)> = pairs
            .iter()
            .copied()
            .filter(|&(k, _)| seen.get(&ident(k)).is_some_and(|&n| n > 1))
            .collect();
        let pairs = &repeated[..];
        for a in 0..pairs.len() {
            // A file repeating one key tens of thousands of times would make billions of
            // lines; the first MAX_DUPLICATE_ERRORS say enough.
            if self.terrors.len() >= MAX_DUPLICATE_ERRORS {
                break;
            }
            for b in a + 1..pairs.len() {
                let (ka, kb) = (pairs[a].0, pairs[b].0);
                if ident(ka) == ident(kb) && self.terrors.len() < MAX_DUPLICATE_ERRORS {
                    self.terrors.push(format!(
                        "line {}: mapping key {} already defined at line {}",
                        doc.node(kb).line(),
                        go_quote(ident(kb).1),
                        doc.node(ka).line()
                    ));
                }
            }
        }
    }

    fn map_into(&mut self, i: usize, target: &mut Target) -> Result<(), YamlError> {
        let doc: &'d Document = self.w.doc;
        let NodeKind::Map(pairs) = &doc.node(i).kind else {
            return Ok(());
        };
        self.check_duplicates(pairs);
        let mut merged_fields = self.merged_fields.take();
        let mut merge_node = None;
        for &(k, v) in pairs {
            if is_merge_key(doc, k) {
                merge_node = Some(v);
                continue;
            }
            let key = match target {
                Target::Strings(_) => match self.key_string(k)? {
                    Some(s) => Value::from(s),
                    None => continue,
                },
                Target::Any(_) => self.value(k)?,
            };
            if let Some(mf) = merged_fields.as_mut() {
                if mf.contains(&key) {
                    continue;
                }
                mf.set(key.clone(), Value::Nil);
            }
            if matches!(key, Value::List(_) | Value::Map(_) | Value::AnyMap(_)) {
                return Err(
                    YamlError::new(format!("yaml: invalid map key: {}", go_syntax(&key)))
                        .at(Some(self.w.doc.node(k).start)),
                );
            }
            let val = self.value(v)?;
            match target {
                Target::Strings(m) => {
                    if let Value::String(s) = key {
                        m.insert(s, val);
                    }
                }
                Target::Any(m) => m.set(key, val),
            }
        }
        self.merged_fields = merged_fields;
        if let Some(m) = merge_node {
            self.merge(pairs, m, target)?;
        }
        Ok(())
    }

    /// v3's merge: keys already in the map (or merged earlier) win.
    fn merge(
        &mut self,
        parent: &[(usize, usize)],
        m: usize,
        target: &mut Target,
    ) -> Result<(), YamlError> {
        let saved = self.merged_fields.clone();
        if self.merged_fields.is_none() {
            let mut mf = AnyMapBuilder::default();
            for &(k, _) in parent {
                mf.set(self.value(k)?, Value::Nil);
            }
            self.merged_fields = Some(mf);
        }
        let doc = self.w.doc;
        let merge_one =
            |this: &mut Self, item: usize, target: &mut Target| -> Result<(), YamlError> {
                this.w.count()?;
                match &doc.node(item).kind {
                    NodeKind::Map(_) => this.map_into(item, target),
                    NodeKind::Alias(t, _) => {
                        if !matches!(doc.node(this.w.deref(*t)).kind, NodeKind::Map(_)) {
                            return Err(want_map());
                        }
                        this.w.count()?;
                        let inner = this.w.enter_alias(item)?;
                        let r = this.map_into(this.w.deref(inner), target);
                        this.w.leave_alias(item);
                        r
                    }
                    _ => Err(want_map()),
                }
            };
        match &doc.node(m).kind {
            NodeKind::Map(_) | NodeKind::Alias(..) => merge_one(self, m, target)?,
            NodeKind::Seq(items) => {
                for &it in items.iter() {
                    merge_one(self, it, target)?;
                }
            }
            NodeKind::Scalar { .. } => return Err(want_map()),
        }
        self.merged_fields = saved;
        Ok(())
    }
}

/// helmfile's reading of an environment or values YAML file: yaml.v3 `Unmarshal` of the
/// first document into `map[string]any`. Only the first document is parsed.
pub fn decode_helmfile(text: &str) -> Result<Value, YamlError> {
    let Some(doc) = compose_first(text, GEN)? else {
        return Ok(Value::empty_map());
    };
    let Some(root) = doc.root else {
        return Ok(Value::empty_map());
    };
    with_stack_for(doc.depth, || {
        let mut d = V3 {
            w: Walker::new(&doc),
            terrors: Vec::new(),
            merged_fields: None,
        };
        d.w.count()?;
        let into = "map[string]interface {}";
        let result = match &doc.node(root).kind {
            NodeKind::Map(_) => {
                let mut target = Target::Strings(BTreeMap::new());
                d.map_into(root, &mut target)?;
                match target {
                    Target::Strings(entries) => Value::map_from(entries),
                    Target::Any(_) => Value::empty_map(),
                }
            }
            NodeKind::Scalar { .. } => {
                let s = d.scalar(root)?;
                if s == Scalar::Null {
                    Value::Map(Arc::new(Map::new(
                        Default::default(),
                        true,
                        BTreeMap::new(),
                    )))
                } else {
                    let tag = match d.scalar_tag(root) {
                        None => "!!str".to_string(),
                        Some(_) => short_tag(s.tag()),
                    };
                    d.terror(root, &tag, into);
                    Value::empty_map()
                }
            }
            _ => {
                d.terror(root, "", into);
                Value::empty_map()
            }
        };
        if d.terrors.is_empty() {
            Ok(result)
        } else {
            Err(YamlError::new(format!(
                "yaml: unmarshal errors:\n  {}",
                d.terrors.join("\n  ")
            )))
        }
    })
}

/// yaml.v3 `Unmarshal` of the first document into `interface {}` (any top-level shape).
pub fn decode_helmfile_value(text: &str) -> Result<Value, YamlError> {
    let Some(doc) = compose_first(text, GEN)? else {
        return Ok(Value::Nil);
    };
    let Some(root) = doc.root else {
        return Ok(Value::Nil);
    };
    with_stack_for(doc.depth, || {
        let mut d = V3 {
            w: Walker::new(&doc),
            terrors: Vec::new(),
            merged_fields: None,
        };
        let v = d.value(root)?;
        if d.terrors.is_empty() {
            Ok(v)
        } else {
            Err(YamlError::new(format!(
                "yaml: unmarshal errors:\n  {}",
                d.terrors.join("\n  ")
            )))
        }
    })
}

/// helmfile's `maputil.CastKeysToStrings` over a decoded value: every
/// `map[interface {}]interface {}` becomes a string map, or fails on a non-string key.
pub fn stringify_keys(v: &Value) -> Result<Value, CastError> {
    match v {
        Value::AnyMap(m) => {
            let mut out = BTreeMap::new();
            let mut entries: Vec<&(Value, Value)> = m.entries.iter().collect();
            entries.sort_by_key(|(k, _)| capstan_value::kind_order(k));
            for (k, val) in entries {
                let Value::String(s) = k else {
                    return Err(CastError(format!(
                        "unexpected type of key in map: expected string, got {}: value={}, map={}",
                        k.type_name(),
                        k,
                        v
                    )));
                };
                out.insert(s.clone(), stringify_keys(val)?);
            }
            Ok(Value::map_from(out))
        }
        Value::Map(m) => {
            let mut out = BTreeMap::new();
            for (k, val) in m.read().iter() {
                out.insert(k.clone(), stringify_keys(val)?);
            }
            Ok(Value::map_from(out))
        }
        Value::List(l) => Ok(Value::list_from(
            l.items
                .iter()
                .map(stringify_keys)
                .collect::<Result<_, _>>()?,
        )),
        other => Ok(other.clone()),
    }
}
