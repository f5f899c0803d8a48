//! Source positions of the nodes of a YAML document, shaped like the decoded value, so
//! that errors and provenance can point at `file:line:col` for any path.

use crate::compose::{compose_first, Document, Generation, NodeKind};
use crate::error::YamlError;
use crate::walk::is_merge_key;
use capstan_source::Span;
use capstan_value::{Path, Segment};
use std::collections::BTreeMap;

/// Spans of a document's nodes. Map entries keep the key's span beside the value's.
/// Aliases are leaves (their own span), so alias bombs cannot blow the tree up.
#[derive(Clone, Debug, PartialEq)]
pub enum SpanTree {
    /// A scalar or alias: its span.
    Leaf(Span),
    /// A mapping: its span and, by key, the key's span and the value's tree.
    Map {
        /// The mapping's span.
        span: Span,
        /// By key: the key's span and the value's tree.
        entries: BTreeMap<String, (Span, SpanTree)>,
    },
    /// A sequence: its span and its items' trees.
    List {
        /// The sequence's span.
        span: Span,
        /// The items' trees.
        items: Vec<SpanTree>,
    },
}

impl SpanTree {
    /// The span of this node.
    pub fn span(&self) -> Span {
        match self {
            SpanTree::Leaf(s) | SpanTree::Map { span: s, .. } | SpanTree::List { span: s, .. } => {
                *s
            }
        }
    }

    /// The subtree at a path, if the document has a node there.
    pub fn at(&self, path: &Path) -> Option<&SpanTree> {
        let mut cur = self;
        for seg in &path.0 {
            cur = match (seg, cur) {
                (Segment::Key(k), SpanTree::Map { entries, .. }) => &entries.get(&**k)?.1,
                (Segment::Index(i), SpanTree::List { items, .. }) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    /// The span of the key that introduced the entry at `path` (its value's span for list
    /// items and the root).
    pub fn key_span(&self, path: &Path) -> Option<Span> {
        let (last, parent) = path.0.split_last()?;
        let parent = self.at(&Path(parent.to_vec()))?;
        match (last, parent) {
            (Segment::Key(k), SpanTree::Map { entries, .. }) => entries.get(&**k).map(|e| e.0),
            (Segment::Index(i), SpanTree::List { items, .. }) => items.get(*i).map(SpanTree::span),
            _ => None,
        }
    }
}

pub(crate) fn build(doc: &Document, i: usize) -> SpanTree {
    let n = doc.node(i);
    let span = Span::new(n.start, n.end);
    match &n.kind {
        NodeKind::Scalar { .. } | NodeKind::Alias(..) => SpanTree::Leaf(span),
        NodeKind::Seq(items) => SpanTree::List {
            span,
            items: items.iter().map(|&it| build(doc, it)).collect(),
        },
        NodeKind::Map(pairs) => {
            let mut entries = BTreeMap::new();
            for &(k, v) in pairs {
                if is_merge_key(doc, k) {
                    continue;
                }
                if let NodeKind::Scalar { value, .. } = &doc.node(k).kind {
                    let kn = doc.node(k);
                    entries.insert(value.clone(), (Span::new(kn.start, kn.end), build(doc, v)));
                }
            }
            SpanTree::Map { span, entries }
        }
    }
}

/// The spans of the first document of `text` (`None` for an empty stream).
pub fn spans(text: &str, generation: Generation) -> Result<Option<SpanTree>, YamlError> {
    let Some(doc) = compose_first(text, generation)? else {
        return Ok(None);
    };
    Ok(doc
        .root
        .map(|r| crate::compose::with_stack_for(doc.depth, || build(&doc, r))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_follow_paths() {
        let text = "a:\n  b: 1\n  l:\n    - x\n    - y\n";
        let t = spans(text, Generation::V3).unwrap().unwrap();
        let s = t.at(&Path::parse("a.l[1]").unwrap()).unwrap().span();
        assert_eq!((s.start.line, s.start.column), (5, 7));
        let k = t.key_span(&Path::parse("a.b").unwrap()).unwrap();
        assert_eq!((k.start.line, k.start.column, k.start.offset), (2, 3, 5));
    }
}
