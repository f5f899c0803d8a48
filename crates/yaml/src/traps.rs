//! The number trap of Helm values files: every number becomes a float64 on the way
//! through `sigs.k8s.io/yaml`, so `tag: 1.10` prints as `1.1`, `1000000` as `1e+06`,
//! `010` as `8`. `number_traps` finds the plain scalars of a values file whose printed
//! form will differ from what was written, with their positions.

use crate::compose::{compose_first, Document, Generation, NodeKind};
use crate::error::YamlError;
use crate::resolve::{resolve, Scalar};
use crate::spans::SpanTree;
use capstan_gocompat::strconv::format_float;
use capstan_source::Span;
use capstan_value::{Path, Segment, Str};

/// A number that Helm will print differently than it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct NumberTrap {
    /// Where the number is.
    pub path: Path,
    /// Its span in the file.
    pub span: Span,
    /// How it is written.
    pub written: String,
    /// How `{{ .Values.x }}` prints it.
    pub printed: String,
}

fn walk(
    doc: &Document,
    i: usize,
    path: &mut Vec<Segment>,
    out: &mut Vec<NumberTrap>,
    depth: usize,
) {
    if depth > 200 {
        return;
    }
    let n = doc.node(i);
    match &n.kind {
        NodeKind::Scalar { value, style, .. } => {
            if n.tag.is_some() || crate::walk::is_quoted(*style) {
                return;
            }
            if let Some(printed) = printed_number(Generation::V2, value) {
                out.push(NumberTrap {
                    path: Path(path.clone()),
                    span: Span::new(n.start, n.end),
                    written: value.clone(),
                    printed,
                });
            }
        }
        NodeKind::Seq(items) => {
            for (k, &it) in items.iter().enumerate() {
                path.push(Segment::Index(k));
                walk(doc, it, path, out, depth + 1);
                path.pop();
            }
        }
        NodeKind::Map(pairs) => {
            for &(k, v) in pairs {
                if let NodeKind::Scalar { value, .. } = &doc.node(k).kind {
                    path.push(Segment::Key(Str::from(value.as_str())));
                    walk(doc, v, path, out, depth + 1);
                    path.pop();
                }
            }
        }
        NodeKind::Alias(..) => {}
    }
}

/// How Helm prints the plain scalar `written` (a float64 formatted by `%v`) when that
/// differs from how it is written: `Some("1.1")` for `1.10`, `None` for `1.5` or text.
/// `gen` is the YAML reader that decides what a number is (helmfile reads with yaml.v3,
/// where `010` is octal 8).
pub fn printed_number(gen: Generation, written: &str) -> Option<String> {
    let number = match resolve(gen, "", written) {
        Ok((_, Scalar::Int(i))) => i as f64,
        Ok((_, Scalar::Uint(u))) => u as f64,
        Ok((_, Scalar::Float(f))) if f.is_finite() => f,
        _ => return None,
    };
    let printed = format_float(number, 'g', -1, 64);
    (printed != written).then_some(printed)
}

/// The number traps in the first document of a Helm values file.
pub fn number_traps(text: &str) -> Result<Vec<NumberTrap>, YamlError> {
    Ok(spans_and_number_traps(text)?.1)
}

/// The spans of the first document of a Helm values file ([`crate::spans`]) and its
/// number traps, from one reading of the text.
pub fn spans_and_number_traps(
    text: &str,
) -> Result<(Option<SpanTree>, Vec<NumberTrap>), YamlError> {
    Ok(match compose_first(text, Generation::V2)? {
        Some(doc) => spans_and_traps_of(&doc),
        None => (None, Vec::new()),
    })
}

/// [`spans_and_number_traps`] of a composed document.
pub(crate) fn spans_and_traps_of(doc: &Document) -> (Option<SpanTree>, Vec<NumberTrap>) {
    let mut out = Vec::new();
    let Some(root) = doc.root else {
        return (None, out);
    };
    let spans = crate::compose::with_stack_for(doc.depth, || {
        walk(doc, root, &mut Vec::new(), &mut out, 0);
        crate::spans::build(doc, root)
    });
    (Some(spans), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_versions_and_big_numbers() {
        let t = number_traps(
            "image:\n  tag: 1.10\nreplicas: 3\nbig: 1000000\nmode: 010\nok: \"1.10\"\nf: 1.5\n",
        )
        .unwrap();
        let got: Vec<(String, String, String, u32)> = t
            .iter()
            .map(|x| {
                (
                    x.path.to_string(),
                    x.written.clone(),
                    x.printed.clone(),
                    x.span.start.line,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("image.tag".into(), "1.10".into(), "1.1".into(), 2),
                ("big".into(), "1000000".into(), "1e+06".into(), 4),
                ("mode".into(), "010".into(), "8".into(), 5),
            ]
        );
    }
}
