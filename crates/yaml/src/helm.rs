//! Helm's reading of values: yaml.v2 decoding, then `sigs.k8s.io/yaml`'s round trip
//! through JSON (string keys only, every number a float64), and `loader.LoadValues`'
//! splitting on `---` lines with `MergeMaps` between the documents.

use crate::compose::{compose_first, with_stack_for, Document, Generation, NodeKind};
use crate::error::YamlError;
use crate::resolve::{resolve, Scalar, BINARY};
use crate::walk::{decode_base64, is_merge_key, is_quoted, want_map, Walker};
use capstan_gocompat::strconv::format_float;
use capstan_value::json::json_kind;
use capstan_value::{go_syntax, merge_maps, AnyMapBuilder, Str, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

const GEN: Generation = Generation::V2;

/// yaml.v2's decoding of one node into `interface {}`: maps are
/// `map[interface {}]interface {}`, timestamps stay strings.
fn v2_node(w: &mut Walker, i: usize) -> Result<Value, YamlError> {
    w.count()?;
    let node = w.doc.node(i);
    match &node.kind {
        NodeKind::Scalar { .. } => v2_scalar(node),
        NodeKind::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for &it in items {
                out.push(v2_node(w, it)?);
            }
            Ok(Value::list_from(out))
        }
        NodeKind::Map(_) => {
            let mut out = AnyMapBuilder::default();
            v2_mapping_into(w, i, &mut out)?;
            Ok(Value::AnyMap(Arc::new(out.into_map())))
        }
        NodeKind::Alias(..) => {
            let t = w.enter_alias(i)?;
            let r = v2_node(w, t);
            w.leave_alias(i);
            r
        }
    }
}

/// yaml.v2's decoding of scalar `node` into `interface {}`.
fn v2_scalar(node: &crate::nodes::Node) -> Result<Value, YamlError> {
    let NodeKind::Scalar {
        value,
        style,
        plain_implicit,
    } = &node.kind
    else {
        return Ok(Value::Nil);
    };
    let tag = node.tag.as_deref().unwrap_or("");
    if tag.is_empty() && !*plain_implicit && is_quoted(*style) {
        return Ok(Value::from(value.as_str()));
    }
    let (rtag, resolved) = resolve(GEN, tag, value).map_err(|e| e.at(Some(node.start)))?;
    Ok(match resolved {
        Scalar::Null => Value::Nil,
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(n) => Value::Int(n),
        Scalar::Uint(u) => Value::Uint64(u),
        Scalar::Float(f) => Value::Float64(f),
        Scalar::Timestamp(_) => Value::from(value.as_str()),
        Scalar::Str(s) if rtag == BINARY => {
            let data = decode_base64(&s).ok_or_else(|| {
                YamlError::new("yaml: !!binary value contains invalid base64 data")
                    .at(Some(node.start))
            })?;
            Value::from(String::from_utf8_lossy(&data).into_owned())
        }
        Scalar::Str(s) => Value::from(s),
        Scalar::Bytes(b) => Value::from(String::from_utf8_lossy(&b).into_owned()),
    })
}

/// [`v2_node`] then [`jsonable`] in one walk, for the documents values files nearly
/// always are: no alias, no merge key, no tag, string keys only, numbers JSON can hold.
/// `None` for anything else, which takes the two walks (and their errors, in yaml.v2's
/// order). Without aliases go-yaml's decode budget never runs out, so nothing is counted.
fn json_direct(doc: &Document, i: usize) -> Option<Value> {
    let node = doc.node(i);
    if node.tag.is_some() {
        return None;
    }
    match &node.kind {
        NodeKind::Scalar { .. } => match v2_scalar(node).ok()? {
            Value::Float64(f) if !f.is_finite() => None,
            other => Some(json_number(other)),
        },
        NodeKind::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for &it in items {
                out.push(json_direct(doc, it)?);
            }
            Some(Value::appended_list(out))
        }
        NodeKind::Map(_) => Some(Value::map_from(json_direct_map(doc, i)?)),
        NodeKind::Alias(..) => None,
    }
}

/// [`json_direct`] of mapping node `i`, as a map.
fn json_direct_map(doc: &Document, i: usize) -> Option<BTreeMap<Str, Value>> {
    let NodeKind::Map(pairs) = &doc.node(i).kind else {
        return None;
    };
    let mut out = BTreeMap::new();
    for &(k, v) in pairs {
        let key = doc.node(k);
        if key.tag.is_some() || is_merge_key(doc, k) {
            return None;
        }
        let Value::String(key) = v2_scalar(key).ok()? else {
            return None;
        };
        // A key written twice: the later value wins, as in yaml.v2's map.
        out.insert(key, json_direct(doc, v)?);
    }
    Some(out)
}

fn v2_mapping_into(w: &mut Walker, i: usize, out: &mut AnyMapBuilder) -> Result<(), YamlError> {
    let NodeKind::Map(pairs) = &w.doc.node(i).kind else {
        return Ok(());
    };
    for &(k, v) in pairs {
        if is_merge_key(w.doc, k) {
            v2_merge(w, v, out)?;
            continue;
        }
        let key = v2_node(w, k)?;
        if matches!(key, Value::List(_) | Value::Map(_) | Value::AnyMap(_)) {
            return Err(
                YamlError::new(format!("yaml: invalid map key: {}", go_syntax(&key)))
                    .at(Some(w.doc.node(k).start)),
            );
        }
        let val = v2_node(w, v)?;
        out.set(key, val);
    }
    Ok(())
}

/// yaml.v2's merge: keys from the merged maps override what is already there; in a
/// sequence, earlier maps take precedence (they are applied last).
fn v2_merge(w: &mut Walker, v: usize, out: &mut AnyMapBuilder) -> Result<(), YamlError> {
    match &w.doc.node(v).kind {
        NodeKind::Map(_) => {
            w.count()?;
            v2_mapping_into(w, v, out)
        }
        NodeKind::Alias(..) => {
            if !matches!(w.doc.node(w.deref(v)).kind, NodeKind::Map(_)) {
                return Err(want_map());
            }
            w.count()?;
            let t = w.enter_alias(v)?;
            let r = w.count().and_then(|_| v2_mapping_into(w, t, out));
            w.leave_alias(v);
            r
        }
        NodeKind::Seq(items) => {
            for &it in items.iter().rev() {
                let target = w.deref(it);
                if !matches!(w.doc.node(target).kind, NodeKind::Map(_)) {
                    return Err(want_map());
                }
                w.count()?;
                if matches!(w.doc.node(it).kind, NodeKind::Alias(..)) {
                    let t = w.enter_alias(it)?;
                    let r = w.count().and_then(|_| v2_mapping_into(w, t, out));
                    w.leave_alias(it);
                    r?;
                } else {
                    v2_mapping_into(w, it, out)?;
                }
            }
            Ok(())
        }
        NodeKind::Scalar { .. } => Err(want_map()),
    }
}

/// `sigs.k8s.io/yaml`'s `convertToJSONableObject` followed by the JSON round trip:
/// keys become strings (or fail), numbers become float64, strings lose invalid UTF-8.
fn jsonable(v: Value) -> Result<Value, YamlError> {
    let conv = |e: String| YamlError::new(format!("error converting YAML to JSON: {e}"));
    match v {
        Value::AnyMap(m) => {
            let mut out: BTreeMap<Str, Value> = BTreeMap::new();
            let m = Arc::try_unwrap(m).unwrap_or_else(|a| (*a).clone());
            for (k, val) in m.entries {
                let key: String = match &k {
                    Value::String(s) => s.to_string(),
                    Value::Int(n) | Value::Int64(n) => n.to_string(),
                    Value::Float64(f) => match format_float(*f, 'g', -1, 32).as_str() {
                        "+Inf" => ".inf".into(),
                        "-Inf" => "-.inf".into(),
                        "NaN" => ".nan".into(),
                        s => s.to_string(),
                    },
                    Value::Bool(b) => b.to_string(),
                    other => {
                        let ty = match other {
                            Value::Nil => "%!s(<nil>)".to_string(),
                            _ => other.type_name(),
                        };
                        return Err(conv(format!(
                            "unsupported map key of type: {}, key: {}, value: {}",
                            ty,
                            go_syntax(other),
                            go_syntax(&val)
                        )));
                    }
                };
                out.insert(Str::from(key), jsonable(val)?);
            }
            Ok(Value::map_from(out))
        }
        Value::List(l) => {
            let l = Arc::try_unwrap(l).unwrap_or_else(|a| (*a).clone());
            let items = l
                .items
                .into_iter()
                .map(jsonable)
                .collect::<Result<Vec<_>, _>>()?;
            // sigs.k8s.io/yaml ends in encoding/json, which appends: Go's spare capacity.
            Ok(Value::appended_list(items))
        }
        Value::Float64(f) if !f.is_finite() => Err(conv(format!(
            "json: unsupported value: {}",
            format_float(f, 'g', -1, 64)
        ))),
        other => Ok(json_number(other)),
    }
}

/// A scalar after the JSON round trip: every integer a float64 (a non-finite float,
/// which JSON cannot hold, is the caller's to refuse).
fn json_number(v: Value) -> Value {
    match v {
        Value::Int(n) | Value::Int64(n) => Value::Float64(n as f64),
        Value::Uint64(u) => Value::Float64(u as f64),
        other => other,
    }
}

/// `sigs.k8s.io/yaml.Unmarshal` into `interface {}` (Helm's `fromYamlArray` reads into
/// a slice this way): any top-level shape, numbers as float64.
pub fn decode_helm_value(text: &str) -> Result<Value, YamlError> {
    let doc = compose_first(text, GEN).map_err(|e| e.wrap("error converting YAML to JSON: "))?;
    let Some(doc) = doc else {
        return Ok(Value::Nil);
    };
    let Some(root) = doc.root else {
        return Ok(Value::Nil);
    };
    with_stack_for(doc.depth, || {
        let mut w = Walker::new(&doc);
        v2_node(&mut w, root)
            .map_err(|e| e.wrap("error converting YAML to JSON: "))
            .and_then(jsonable)
    })
}

/// Orders JSON-conversion errors before yaml.v2's own, as the Go code reaches them.
fn to_json_map(doc: Option<&Document>) -> Result<BTreeMap<Str, Value>, YamlError> {
    let Some(doc) = doc else {
        return Ok(BTreeMap::new());
    };
    let Some(root) = doc.root else {
        return Ok(BTreeMap::new());
    };
    if let Some(m) = with_stack_for(doc.depth, || json_direct_map(doc, root)) {
        return Ok(m);
    }
    let value = with_stack_for(doc.depth, || {
        let mut w = Walker::new(doc);
        v2_node(&mut w, root)
            .map_err(|e| e.wrap("error converting YAML to JSON: "))
            .and_then(jsonable)
    })?;
    match value {
        map @ Value::Map(_) => Ok(map.into_map_entries().unwrap_or_default()),
        Value::Nil => Ok(BTreeMap::new()),
        other => Err(YamlError::new(format!(
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_kind(&other)
        ))),
    }
}

fn unmarshal_one(text: &str) -> Result<BTreeMap<Str, Value>, YamlError> {
    let doc = compose_first(text, GEN).map_err(|e| e.wrap("error converting YAML to JSON: "))?;
    to_json_map(doc.as_ref())
}

/// Helm's `common.ReadValues` (and `fromYaml`): one `sigs.k8s.io/yaml.Unmarshal` of the
/// whole text into `map[string]interface {}`.
pub fn decode_helm_direct(text: &str) -> Result<Value, YamlError> {
    Ok(Value::map_from(unmarshal_one(text)?))
}

/// Splits text into documents like apimachinery's `YAMLReader`: a line starting with
/// `---` ends a document; only spaces or a comment may follow the dashes. A separator
/// before any content stays in the document it starts (the reader only drops a separator
/// that ends a document), so `---\n...\n` is one empty document while `...\n` alone is
/// yaml.v2's error. Each document ends with a line break and has none of the text's
/// carriage returns before one; a document that needs neither change is a slice of the
/// text, not a copy (a values file is nearly always one such document).
pub fn split_documents(text: &str) -> Result<Vec<Cow<'_, str>>, YamlError> {
    // Most values files: no separator and no carriage return, one document as written.
    if memchr::memmem::find(text.as_bytes(), b"---").is_none()
        && memchr::memchr(b'\r', text.as_bytes()).is_none()
    {
        return Ok(if text.is_empty() {
            Vec::new()
        } else {
            vec![document(text)]
        });
    }
    let mut docs = Vec::new();
    // The current document's first byte, and the next line's.
    let mut start = 0;
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let line_end = memchr::memchr(b'\n', rest.as_bytes()).map_or(text.len(), |i| at + i + 1);
        let line = &text[at..line_end];
        let content = line.strip_suffix('\n').unwrap_or(line);
        let content = content.strip_suffix('\r').unwrap_or(content);
        if let Some(after) = content.strip_prefix("---") {
            let trimmed = after.trim_matches(|c: char| c.is_whitespace());
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                return Err(YamlError::new(format!(
                    "error reading yaml document: invalid Yaml document separator: {trimmed}"
                )));
            }
            if at > start {
                docs.push(document(&text[start..at]));
                start = line_end;
            }
        }
        at = line_end;
    }
    if text.len() > start {
        docs.push(document(&text[start..]));
    }
    Ok(docs)
}

/// One document of [`split_documents`]: its lines each ending with a line break, carriage
/// returns before line breaks dropped.
fn document(lines: &str) -> Cow<'_, str> {
    if lines.ends_with('\n') && memchr::memchr(b'\r', lines.as_bytes()).is_none() {
        return Cow::Borrowed(lines);
    }
    let mut out = String::with_capacity(lines.len() + 1);
    for line in lines.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        out.push_str(content.strip_suffix('\r').unwrap_or(content));
        out.push('\n');
    }
    Cow::Owned(out)
}

/// Helm's `loader.LoadValues`: how `-f` files and a chart's `values.yaml` are read.
pub fn decode_helm(text: &str) -> Result<Value, YamlError> {
    let mut values: BTreeMap<Str, Value> = BTreeMap::new();
    for doc in split_documents(text)? {
        let current =
            unmarshal_one(&doc).map_err(|e| e.wrap("cannot unmarshal yaml document: "))?;
        values = merge_maps(&values, &current);
    }
    Ok(Value::map_from(values))
}

/// [`decode_helm`], the spans of the first document and its number traps
/// ([`crate::spans_and_number_traps`]): a values file read once for explaining it.
pub fn decode_helm_explained(
    text: &str,
) -> Result<(Value, Option<crate::SpanTree>, Vec<crate::NumberTrap>), YamlError> {
    let docs = split_documents(text)?;
    if docs.len() != 1 {
        let values = decode_helm(text)?;
        let (spans, traps) = crate::spans_and_number_traps(text).unwrap_or_default();
        return Ok((values, spans, traps));
    }
    let wrap = |e: YamlError| e.wrap("cannot unmarshal yaml document: ");
    let doc = compose_first(&docs[0], GEN)
        .map_err(|e| wrap(e.wrap("error converting YAML to JSON: ")))?;
    let values = to_json_map(doc.as_ref()).map_err(wrap)?;
    let (spans, traps) = match &doc {
        Some(d) => crate::traps::spans_and_traps_of(d),
        None => (None, Vec::new()),
    };
    Ok((Value::map_from(values), spans, traps))
}

#[cfg(test)]
mod position_tests {
    #[test]
    fn values_file_errors_keep_their_position() {
        let e = super::decode_helm("a: 1\nlist: [1, 2\n").unwrap_err();
        assert!(e.pos.is_some(), "{e:?}");
    }
}

#[cfg(test)]
mod json_direct_tests {
    use super::*;

    /// The one-walk reading and the two walks of yaml.v2 then the JSON round trip.
    fn both(text: &str) -> Option<(String, String)> {
        let doc = compose_first(text, GEN).ok()??;
        let root = doc.root?;
        let fast = json_direct_map(&doc, root)?;
        let mut w = Walker::new(&doc);
        let slow = v2_node(&mut w, root).and_then(jsonable);
        Some((format!("{:?}", Value::map_from(fast)), format!("{slow:?}")))
    }

    fn check(text: &str, taken: &mut usize) {
        if let Some((fast, slow)) = both(text) {
            *taken += 1;
            assert_eq!(
                format!("Ok({fast})"),
                slow,
                "the readings differ on:\n{text}"
            );
        }
    }

    #[test]
    fn one_walk_reads_as_the_two_walks_do() {
        let mut taken = 0;
        for text in [
            "a: 1\nb: 1.5\nc: true\nd: null\ne: ~\nf: x\n",
            "a: 1\na: 2\n\"a\": 3\n",
            "n: 12345678901234567890\nm: -9223372036854775808\nh: 0x1F\no: 0o17\n",
            "f: 1e400\n",
            "t: 2001-12-14\nq: '1'\nl: [1, \"2\", x]\nnested: {a: {b: [ {c: 1} ]}}\n",
            "lit: |\n  text\nfold: >\n  more\n",
            "base: &b {x: 1}\nuse: *b\n",
            "<<: {a: 1}\nb: 2\n",
            "? [a]\n: 1\n",
            "1: one\ntrue: yes\n",
            "a: !!str 1\n",
            "a: !!binary aGk=\n",
            "a: .inf\n",
            "\"<<\": 1\n",
        ] {
            check(text, &mut taken);
        }
        assert!(taken >= 6, "{taken}");
        let shared = crate::test_files::shared();
        let vectors = std::fs::read_to_string(shared.join("conformance/yaml/yaml-decode.jsonl"))
            .expect("../shared/conformance/yaml/yaml-decode.jsonl");
        for line in vectors.lines() {
            let v = capstan_value::json::from_json(line).expect("a JSON line");
            if let Some(Value::String(text)) = v.get("yaml") {
                check(&text, &mut taken);
            }
        }
        for f in &crate::test_files::yaml_files(&shared.join("realworld/charts")) {
            if let Ok(text) = std::fs::read_to_string(f) {
                check(&text, &mut taken);
            }
        }
        assert!(taken > 500, "{taken} documents read in one walk");
    }
}

#[cfg(test)]
mod split_tests {
    /// The documents of `text` built line by line, as apimachinery's reader reads them:
    /// the oracle for [`super::split_documents`], which slices the text instead.
    fn by_line(text: &str) -> Result<Vec<String>, String> {
        let mut docs = Vec::new();
        let mut buf = String::new();
        for line in text.split_inclusive('\n') {
            let content = line.strip_suffix('\n').unwrap_or(line);
            let content = content.strip_suffix('\r').unwrap_or(content);
            if let Some(after) = content.strip_prefix("---") {
                let trimmed = after.trim_matches(|c: char| c.is_whitespace());
                if !trimmed.is_empty() && !trimmed.starts_with('#') {
                    return Err(format!(
                        "error reading yaml document: invalid Yaml document separator: {trimmed}"
                    ));
                }
                if !buf.is_empty() {
                    docs.push(std::mem::take(&mut buf));
                    continue;
                }
            }
            buf.push_str(content);
            buf.push('\n');
        }
        if !buf.is_empty() {
            docs.push(buf);
        }
        Ok(docs)
    }

    /// Every text of up to 7 characters over an alphabet of separators' parts: the
    /// documents sliced from the text equal those built line by line, and those of a text
    /// without carriage returns that ends with a line break are borrowed, not copied.
    #[test]
    fn slices_agree_with_the_line_reader() {
        let alphabet = ['a', ' ', '\n', '-', '.', '#', '\r'];
        let mut checked = 0;
        for len in 0..=7u32 {
            for mut n in 0..alphabet.len().pow(len) {
                let mut text = String::new();
                for _ in 0..len {
                    text.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                let sliced = super::split_documents(&text).map_err(|e| e.to_string());
                let owned = sliced
                    .as_ref()
                    .map(|d| d.iter().map(|x| x.to_string()).collect::<Vec<_>>())
                    .map_err(Clone::clone);
                assert_eq!(owned, by_line(&text), "{text:?}");
                if text.ends_with('\n') && !text.contains('\r') {
                    for doc in sliced.iter().flatten() {
                        assert!(matches!(doc, std::borrow::Cow::Borrowed(_)), "{text:?}");
                    }
                }
                checked += 1;
            }
        }
        assert!(checked > 900_000);
    }
}
