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

/// A step of the path to the node being walked (made into a [`Path`] only for a trap).
#[derive(Clone, Copy)]
enum Step<'d> {
    Key(&'d str),
    Index(usize),
}

fn walk<'d>(
    doc: &'d Document,
    i: usize,
    path: &mut Vec<Step<'d>>,
    out: &mut Vec<NumberTrap>,
    depth: usize,
) {
    if depth > 200 {
        return;
    }
    let n = doc.node(i);
    match &n.kind {
        NodeKind::Scalar { value, style, .. } => {
            if n.tag.is_some() || crate::walk::is_quoted(*style) || !may_print_otherwise(value) {
                return;
            }
            if let Some(printed) = printed_number(Generation::V2, value) {
                let segments = path
                    .iter()
                    .map(|s| match *s {
                        Step::Key(k) => Segment::Key(Str::from(k)),
                        Step::Index(k) => Segment::Index(k),
                    })
                    .collect();
                out.push(NumberTrap {
                    path: Path(segments),
                    span: Span::new(n.start, n.end),
                    written: value.clone(),
                    printed,
                });
            }
        }
        NodeKind::Seq(items) => {
            for (k, &it) in items.iter().enumerate() {
                path.push(Step::Index(k));
                walk(doc, it, path, out, depth + 1);
                path.pop();
            }
        }
        NodeKind::Map(pairs) => {
            for &(k, v) in pairs {
                if let NodeKind::Scalar { value, .. } = &doc.node(k).kind {
                    path.push(Step::Key(value));
                    walk(doc, v, path, out, depth + 1);
                    path.pop();
                }
            }
        }
        NodeKind::Alias(..) => {}
    }
}

/// Whether the plain scalar `written` can be a number Helm prints otherwise: not when
/// it cannot be a number (a YAML number starts with a digit, a sign or a dot), nor when
/// it is a decimal integer of at most six digits without a leading zero (a float64
/// prints those as written).
fn may_print_otherwise(written: &str) -> bool {
    let b = written.as_bytes();
    match b.first() {
        Some(c) if c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.') => {}
        _ => return false,
    }
    let small_decimal =
        b.len() <= 6 && b.iter().all(u8::is_ascii_digit) && (b[0] != b'0' || b.len() == 1);
    !small_decimal
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
    fn the_shortcut_skips_only_what_prints_as_written() {
        for w in [
            "0",
            "7",
            "10",
            "8001",
            "999999",
            "1000000",
            "010",
            "1_0",
            "+1",
            "-1",
            "1.10",
            ".5",
            ".inf",
            "1e3",
            "0x10",
            "1:20",
            "12345678901234567890",
            "abc",
            "true",
            "~",
            "",
        ] {
            if !may_print_otherwise(w) {
                assert_eq!(printed_number(Generation::V2, w), None, "{w}");
            }
        }
    }

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
