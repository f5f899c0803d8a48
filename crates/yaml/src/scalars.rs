//! The scalars of a document as written, by path: what a Go program reading YAML into a
//! typed struct sees where a decode into `interface{}` sees a number. go-yaml stores a
//! scalar's own text in a `string` field (`version: 1.10` is the chart version "1.10"),
//! while the same scalar decoded into a map is the float 1.1. A reader that keeps the
//! untyped decode asks here for the text of the scalars at its string fields.

use crate::compose::{compose_first, Document, Generation, NodeKind};
use crate::error::YamlError;
use crate::walk::is_merge_key;
use capstan_source::Span;
use capstan_value::{Path, Segment, Str};

/// One scalar found under a wanted path.
#[derive(Clone, Debug, PartialEq)]
pub struct WrittenScalar {
    /// Where it is in the document (merge keys and aliases followed).
    pub path: Path,
    /// Its text as written (a quoted scalar's text unescaped).
    pub text: String,
    /// Whether it is plain (not quoted, no block style) and untagged: the only scalars
    /// whose type comes from their text.
    pub plain: bool,
    /// Where it is in the file.
    pub span: Span,
}

/// Nodes visited before the walk stops (a document with many aliases is not read out in
/// full: the decode before it already refused alias bombs, this bounds the rest).
const BUDGET: usize = 1_000_000;

struct Walk<'a> {
    doc: &'a Document,
    enter: &'a dyn Fn(&[Segment]) -> bool,
    out: Vec<WrittenScalar>,
    budget: usize,
}

impl Walk<'_> {
    fn node(&mut self, i: usize, path: &mut Vec<Segment>, depth: usize) {
        if depth > 200 || self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let n = self.doc.node(i);
        match &n.kind {
            NodeKind::Scalar { value, style, .. } => self.out.push(WrittenScalar {
                path: Path(path.clone()),
                text: value.clone(),
                plain: n.tag.is_none() && !crate::walk::is_quoted(*style),
                span: Span::new(n.start, n.end),
            }),
            NodeKind::Seq(items) => {
                for (k, &it) in items.iter().enumerate() {
                    path.push(Segment::Index(k));
                    if (self.enter)(path) {
                        self.node(it, path, depth + 1);
                    }
                    path.pop();
                }
            }
            NodeKind::Map(pairs) => self.map(pairs, path, depth),
            NodeKind::Alias(target, _) => self.node(*target, path, depth + 1),
        }
    }

    /// A map's entries; the maps a merge key (`<<`) names come first, so that the map's
    /// own keys, found later, win.
    fn map(&mut self, pairs: &[(usize, usize)], path: &mut Vec<Segment>, depth: usize) {
        for &(k, v) in pairs {
            if is_merge_key(self.doc, k) {
                self.merged(v, path, depth + 1);
            }
        }
        for &(k, v) in pairs {
            if is_merge_key(self.doc, k) {
                continue;
            }
            let NodeKind::Scalar { value, .. } = &self.doc.node(k).kind else {
                continue;
            };
            path.push(Segment::Key(Str::from(value.as_str())));
            if (self.enter)(path) {
                self.node(v, path, depth + 1);
            }
            path.pop();
        }
    }

    fn merged(&mut self, i: usize, path: &mut Vec<Segment>, depth: usize) {
        if depth > 200 {
            return;
        }
        match &self.doc.node(i).kind {
            NodeKind::Map(pairs) => self.map(pairs, path, depth),
            NodeKind::Alias(target, _) => self.merged(*target, path, depth + 1),
            NodeKind::Seq(items) => {
                // Earlier maps of a merge list win: walk them last.
                for &it in items.iter().rev() {
                    self.merged(it, path, depth + 1);
                }
            }
            NodeKind::Scalar { .. } => {}
        }
    }
}

/// The scalars of the first document of `text` under the paths `enter` accepts (it is
/// asked for every map key and list index on the way down, so it prunes the walk), in
/// document order; where a merge key and the map's own key give the same path, the own
/// key's scalar comes later.
pub fn written_scalars(
    text: &str,
    gen: Generation,
    enter: &dyn Fn(&[Segment]) -> bool,
) -> Result<Vec<WrittenScalar>, YamlError> {
    let Some(doc) = compose_first(text, gen)? else {
        return Ok(Vec::new());
    };
    let Some(root) = doc.root else {
        return Ok(Vec::new());
    };
    let mut w = Walk {
        doc: &doc,
        enter,
        out: Vec::new(),
        budget: BUDGET,
    };
    w.node(root, &mut Vec::new(), 0);
    Ok(w.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str, enter: &dyn Fn(&[Segment]) -> bool) -> Vec<(String, String, bool)> {
        written_scalars(text, Generation::V3, enter)
            .unwrap()
            .into_iter()
            .map(|s| (s.path.to_string(), s.text, s.plain))
            .collect()
    }

    #[test]
    fn prunes_and_keeps_the_text() {
        let text = "a:\n  version: 1.10\n  q: \"1.0\"\nb: [1, 2]\n";
        let got = found(
            text,
            &|p| matches!(p.first(), Some(Segment::Key(k)) if &**k == "a"),
        );
        assert_eq!(
            got,
            vec![
                ("a.version".into(), "1.10".into(), true),
                ("a.q".into(), "1.0".into(), false),
            ]
        );
    }

    #[test]
    fn merge_keys_come_before_own_keys() {
        let text = "t: &t\n  v: 1.0\n  w: 2.50\nr:\n  <<: *t\n  v: 3.10\n";
        let got = found(
            text,
            &|p| matches!(p.first(), Some(Segment::Key(k)) if &**k == "r"),
        );
        assert_eq!(
            got,
            vec![
                ("r.v".into(), "1.0".into(), true),
                ("r.w".into(), "2.50".into(), true),
                ("r.v".into(), "3.10".into(), true),
            ]
        );
    }
}
