//! Editing YAML documents while keeping their shape, as kyaml (`kio.ParseAll` /
//! `kio.StringAll`) does for Helm's post-renderer bookkeeping: a stream is read into
//! ordered nodes that remember each scalar's quoting style, a mapping entry can be set
//! or taken out, and the documents are written back in kyaml's layout (two-space
//! indent, compact sequences, `---` between documents). Comments are not kept and
//! aliases are expanded (kyaml keeps both); COMPATIBILITY.md says so.

use crate::compose::{compose_first, Document, Generation, NodeKind};
use crate::emit::{ENode, Emitter, Style};
use crate::error::YamlError;
use libyaml_safer::ScalarStyle;

const MAX_NESTING: usize = 512;

/// Reads every non-empty document of a YAML stream.
pub fn parse_stream(text: &str) -> Result<Vec<ENode>, YamlError> {
    let mut out = Vec::new();
    for doc in crate::helm::split_documents(text)? {
        if let Some(d) = compose_first(&doc, Generation::V3)? {
            if let Some(root) = d.root {
                if !matches!(&d.nodes[root].kind, NodeKind::Scalar { value, style: ScalarStyle::Plain, .. } if value.is_empty() || value == "null" || value == "~")
                {
                    out.push(convert(&d, root, 0)?);
                }
            }
        }
    }
    Ok(out)
}

/// Writes documents as kyaml does: each in block style, separated by `---`.
pub fn emit_stream(docs: &[ENode]) -> String {
    docs.iter()
        .map(|d| Emitter::new(Generation::V3).compact_sequences().document(d))
        .collect::<Vec<_>>()
        .join("---\n")
}

/// Writes documents as yaml.v3's encoder with `SetIndent(2)` does (sequences under a
/// key indented), each ended by a newline, `---` between them.
pub fn emit_stream_v3(docs: &[ENode]) -> String {
    docs.iter()
        .map(|d| Emitter::new(Generation::V3).document(d))
        .collect::<Vec<_>>()
        .join("---\n")
}

fn convert(d: &Document, i: usize, depth: usize) -> Result<ENode, YamlError> {
    // Far below go-yaml's limit: these are Kubernetes resources, and the conversion
    // and the emitter recurse on the caller's (possibly small) thread stack.
    if depth > MAX_NESTING {
        return Err(YamlError::new(format!(
            "yaml: document nested deeper than {MAX_NESTING} levels"
        )));
    }
    let n = &d.nodes[i];
    Ok(match &n.kind {
        NodeKind::Scalar { value, style, .. } => ENode::Scalar {
            value: value.clone(),
            style: match style {
                ScalarStyle::SingleQuoted => Style::SingleQuoted,
                ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                ScalarStyle::Literal | ScalarStyle::Folded => Style::Literal,
                _ => Style::Plain,
            },
            tag: n.tag.as_deref().and_then(short_tag),
        },
        NodeKind::Seq(items) => ENode::Seq(
            items
                .iter()
                .map(|&c| convert(d, c, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        NodeKind::Map(pairs) => ENode::Map(
            pairs
                .iter()
                .map(|&(k, v)| Ok((convert(d, k, depth + 1)?, convert(d, v, depth + 1)?)))
                .collect::<Result<_, YamlError>>()?,
        ),
        NodeKind::Alias(target, _) => convert(d, *target, depth + 1)?,
    })
}

/// Explicit standard tags kept on scalars (others are dropped).
fn short_tag(tag: &str) -> Option<&'static str> {
    Some(
        match tag.strip_prefix("tag:yaml.org,2002:").unwrap_or(tag) {
            "str" | "!!str" => "!!str",
            "int" | "!!int" => "!!int",
            "float" | "!!float" => "!!float",
            "bool" | "!!bool" => "!!bool",
            "null" | "!!null" => "!!null",
            "binary" | "!!binary" => "!!binary",
            "timestamp" | "!!timestamp" => "!!timestamp",
            _ => return None,
        },
    )
}

/// A value as a node (helmfile's yaml.v3 encoding: keys sorted, strings quoted when
/// they would read as something else).
pub fn from_value(v: &capstan_value::Value) -> Result<ENode, YamlError> {
    crate::encode::helmfile_node(v)
}

/// Whether a node is YAML's null (`null`, `~` or nothing, unquoted).
pub fn is_null(n: &ENode) -> bool {
    matches!(n, ENode::Scalar { value, style: Style::Plain, tag } if (tag.is_none() || *tag == Some("!!null")) && matches!(value.as_str(), "" | "null" | "Null" | "NULL" | "~"))
}

/// The text of a scalar node.
pub fn scalar(n: &ENode) -> Option<&str> {
    match n {
        ENode::Scalar { value, .. } => Some(value),
        _ => None,
    }
}

/// The value under `key` in a mapping node.
pub fn get<'a>(n: &'a ENode, key: &str) -> Option<&'a ENode> {
    match n {
        ENode::Map(pairs) => pairs.iter().find(|(k, _)| key_is(k, key)).map(|(_, v)| v),
        _ => None,
    }
}

/// Every string written quoted or as a block rewritten the way Go's encoders write a
/// string (plain when it reads back as the same string, else double-quoted; multi-line
/// as a literal block), as kustomize's output does; plain scalars are left alone.
pub fn normalize_strings(n: &mut ENode) {
    match n {
        ENode::Scalar {
            value,
            style,
            tag: None,
        } if *style != Style::Plain => {
            *n = crate::encode::string_node(value, Generation::V2);
        }
        ENode::Scalar { .. } => {}
        ENode::Seq(items) => items.iter_mut().for_each(normalize_strings),
        ENode::Map(pairs) => pairs.iter_mut().for_each(|(k, v)| {
            normalize_strings(k);
            normalize_strings(v);
        }),
    }
}

/// Every mapping's entries sorted by key text (as Go writes a map).
pub fn sort_keys(n: &mut ENode) {
    match n {
        ENode::Map(pairs) => {
            pairs.sort_by(|(a, _), (b, _)| scalar(a).unwrap_or("").cmp(scalar(b).unwrap_or("")));
            pairs.iter_mut().for_each(|(_, v)| sort_keys(v));
        }
        ENode::Seq(items) => items.iter_mut().for_each(sort_keys),
        ENode::Scalar { .. } => {}
    }
}

fn key_is(k: &ENode, name: &str) -> bool {
    matches!(k, ENode::Scalar { value, .. } if value == name)
}

/// A scalar written plain when it can be (quoted otherwise, by the emitter).
pub fn plain_scalar(value: &str) -> ENode {
    ENode::Scalar {
        value: value.to_string(),
        style: Style::Plain,
        tag: None,
    }
}

fn plain(value: &str) -> ENode {
    plain_scalar(value)
}

capstan_source::message_error!(
    /// A node of the wrong kind where kyaml expects a mapping (kyaml's text).
    NodeKindError
);

/// The mapping under `key` in `map`, created (at the end) when missing.
fn child_map<'a>(
    map: &'a mut Vec<(ENode, ENode)>,
    key: &str,
) -> Result<&'a mut Vec<(ENode, ENode)>, NodeKindError> {
    let i = match map.iter().position(|(k, _)| key_is(k, key)) {
        Some(i) => {
            if matches!(&map[i].1, ENode::Scalar { value, .. } if value.is_empty() || value == "null" || value == "~")
            {
                map[i].1 = ENode::Map(Vec::new());
            }
            i
        }
        None => {
            map.push((plain(key), ENode::Map(Vec::new())));
            map.len() - 1
        }
    };
    match &mut map[i].1 {
        ENode::Map(m) => Ok(m),
        _ => Err(format!("wrong node kind: expected MappingNode for {key}").into()),
    }
}

/// Sets `metadata.annotations[name]` of a resource document (kyaml's `SetAnnotation`).
pub fn set_annotation(doc: &mut ENode, name: &str, value: &str) -> Result<(), NodeKindError> {
    let ENode::Map(root) = doc else {
        return Err("wrong node kind: expected MappingNode".into());
    };
    let annotations = child_map(child_map(root, "metadata")?, "annotations")?;
    let entry = ENode::Scalar {
        value: value.to_string(),
        style: Style::Plain,
        tag: None,
    };
    match annotations.iter_mut().find(|(k, _)| key_is(k, name)) {
        Some((_, v)) => *v = entry,
        None => annotations.push((plain(name), entry)),
    }
    Ok(())
}

/// Takes `metadata.annotations[name]` out of a document, dropping `annotations` when it
/// becomes empty (kyaml's `ClearAnnotation`); the value, if it was there.
pub fn take_annotation(doc: &mut ENode, name: &str) -> Option<String> {
    let ENode::Map(root) = doc else { return None };
    let (_, ENode::Map(meta)) = root.iter_mut().find(|(k, _)| key_is(k, "metadata"))? else {
        return None;
    };
    let at = meta.iter().position(|(k, _)| key_is(k, "annotations"))?;
    let ENode::Map(annotations) = &mut meta[at].1 else {
        return None;
    };
    let i = annotations.iter().position(|(k, _)| key_is(k, name))?;
    let (_, v) = annotations.remove(i);
    if annotations.is_empty() {
        meta.remove(at);
    }
    match v {
        ENode::Scalar { value, .. } => Some(value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_round_trip_keeping_order_and_quotes() {
        let text = "kind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: '1'\n  y: \"two\"\n  list:\n  - p\n";
        let mut docs = parse_stream(&format!(
            "{text}---\n---\nkind: Secret\nmetadata:\n  annotations:\n    keep: k\n"
        ))
        .unwrap();
        assert_eq!(docs.len(), 2);
        for d in &mut docs {
            set_annotation(d, "f", "templates/a.yaml").unwrap();
        }
        let merged = emit_stream(&docs);
        assert!(
            merged.contains("metadata:\n  name: a\n  annotations:\n    f: templates/a.yaml\ndata:"),
            "{merged}"
        );
        let mut back = parse_stream(&merged).unwrap();
        assert_eq!(
            take_annotation(&mut back[0], "f").as_deref(),
            Some("templates/a.yaml")
        );
        assert_eq!(
            take_annotation(&mut back[1], "f").as_deref(),
            Some("templates/a.yaml")
        );
        assert_eq!(emit_stream(&back[..1]), text);
        assert_eq!(
            emit_stream(&back[1..]),
            "kind: Secret\nmetadata:\n  annotations:\n    keep: k\n"
        );
        assert!(set_annotation(&mut parse_stream("- a\n").unwrap()[0], "f", "x").is_err());
    }
}

#[cfg(test)]
mod tagged_empty_tests {
    use super::*;

    #[test]
    fn tagged_empty_scalars_in_flow_read_back() {
        let docs = parse_stream(":[!@\tbbbE?z(Y,Y?z(bbb#:").expect("parse");
        let text = emit_stream(&docs);
        parse_stream(&text).expect("our own output reads back");
    }
}
