//! Where each final value came from. A release's values are built from layers (chart
//! defaults, a parent's section for a subchart, `-f` files, each `--set`-family
//! expression); given the layers in Helm's priority order and the final values,
//! [`explain`] names, per leaf, the layer that won and the ones it overrode, and
//! [`traps`] finds the classic mistakes: a list silently replaced, a `null` deleting a
//! default. Off the hot path: coalescing itself records nothing.

use capstan_source::Span;
use capstan_value::{Path, Segment, Str, Value};
use capstan_yaml::SpanTree;
use std::collections::BTreeMap;
use std::sync::Arc;

type Map = BTreeMap<Str, Value>;

/// One source of values.
#[derive(Clone, Debug)]
pub struct Layer {
    /// How the layer is named in reports: a file path, or `--set a=1`.
    pub label: String,
    /// What kind of layer this is (`chart defaults`, `-f`, `--set`…).
    pub kind: String,
    /// Where the layer's map sits in the top chart's values (a subchart's defaults sit
    /// under its name).
    pub prefix: Vec<Str>,
    /// The values it sets.
    pub values: Map,
    /// Node positions, for YAML layers.
    pub spans: Option<Arc<SpanTree>>,
    /// Where a top-level key is set when `spans` cannot say (an HCL attribute:
    /// `file:line:col`, and what it references); a deeper path (`net.cidr`, as `Path`
    /// prints it) when it has its own place (a key of an HCL object).
    pub origins: BTreeMap<Str, String>,
}

/// A layer's contribution at one path.
#[derive(Clone, Debug, PartialEq)]
pub struct Contribution {
    /// `file:line:col` or the flag expression.
    pub origin: String,
    /// The layer's kind (`chart defaults`, `-f`, `--set`).
    pub kind: String,
    /// The value it sets there.
    pub value: Value,
}

/// The story of one leaf of the final values.
#[derive(Clone, Debug)]
pub struct Explained {
    /// Where the leaf is.
    pub path: Path,
    /// Its final value.
    pub value: Value,
    /// `None` when no layer sets it directly (import-values, for example).
    pub winner: Option<Contribution>,
    /// Lower layers that set it too, highest first.
    pub overridden: Vec<Contribution>,
    /// When a template wrote the winning value: the steps back from the template line to
    /// where it read the value (`values.yaml.gotmpl:1 (.Values.domain)`, then the
    /// environment layer), or `computed in FILE:LINE`. Filled by the caller that has the
    /// templates; empty otherwise.
    pub through: Vec<String>,
}

/// A trap found in the layers.
#[derive(Clone, Debug, PartialEq)]
pub struct Trap {
    /// Where the trap is.
    pub path: Path,
    /// What goes wrong, in one sentence.
    pub message: String,
}

fn position(span: Span) -> String {
    format!("{}:{}", span.start.line, span.start.column)
}

impl Layer {
    /// This layer's value at a path of the top values, if it sets one.
    fn at(&self, path: &[Segment]) -> Option<Value> {
        if path.len() < self.prefix.len() {
            return None;
        }
        for (seg, p) in path.iter().zip(&self.prefix) {
            match seg {
                Segment::Key(k) if k == p => {}
                _ => return None,
            }
        }
        let rest = &path[self.prefix.len()..];
        let (first, tail) = rest.split_first()?;
        let Segment::Key(k) = first else { return None };
        let mut cur = self.values.get(k)?.clone();
        for seg in tail {
            cur = match (seg, &cur) {
                (Segment::Key(k), Value::Map(m)) => m.get(k)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    fn origin(&self, path: &[Segment]) -> String {
        let rel = Path(path[self.prefix.len().min(path.len())..].to_vec());
        if let Some(span) = self.spans.as_ref().and_then(|s| s.key_span(&rel)) {
            return format!("{}:{}", self.label, position(span));
        }
        // The deepest path named in `origins` (an HCL object's keys have their own line).
        (1..=rel.0.len())
            .rev()
            .find_map(|n| {
                let key = match n {
                    1 => match &rel.0[0] {
                        Segment::Key(k) => k.clone(),
                        Segment::Index(_) => return None,
                    },
                    _ => Str::from(Path(rel.0[..n].to_vec()).to_string().as_str()),
                };
                self.origins.get(&key).cloned()
            })
            .unwrap_or_else(|| self.label.clone())
    }

    fn contribution(&self, path: &[Segment]) -> Option<Contribution> {
        self.at(path).map(|value| Contribution {
            origin: self.origin(path),
            kind: self.kind.clone(),
            value,
        })
    }
}

fn leaves(v: &Map, path: &mut Vec<Segment>, out: &mut Vec<(Path, Value)>) {
    for (k, val) in v {
        path.push(Segment::Key(k.clone()));
        match val.as_map().map(|m| m.snapshot()) {
            Some(m) if !m.is_empty() => leaves(&m, path, out),
            _ => out.push((Path(path.clone()), val.clone())),
        }
        path.pop();
    }
}

/// Where every leaf of `final_values` came from. `layers` are lowest priority first.
pub fn explain(final_values: &Map, layers: &[Layer]) -> Vec<Explained> {
    let mut all = Vec::new();
    leaves(final_values, &mut Vec::new(), &mut all);
    all.into_iter()
        .map(|(path, value)| {
            let mut found: Vec<Contribution> = layers
                .iter()
                .rev()
                .filter_map(|l| l.contribution(&path.0))
                .collect();
            // A subchart's `global` comes from the parent's.
            if found.is_empty() {
                if let Some(pos) = path
                    .0
                    .iter()
                    .position(|s| matches!(s, Segment::Key(k) if &**k == "global"))
                {
                    let global = &path.0[pos..];
                    found = layers
                        .iter()
                        .rev()
                        .filter_map(|l| l.contribution(global))
                        .collect();
                }
            }
            // The highest layer wins, unless a lower one set exactly the final value and
            // the highest did not (helmfile's `mergeStrategy: fallback`, where an earlier
            // file keeps what it set).
            if found.first().is_some_and(|w| w.value != value) {
                if let Some(i) = found.iter().position(|c| c.value == value) {
                    let w = found.remove(i);
                    found.insert(0, w);
                }
            }
            let mut found = found.into_iter();
            let winner = found.next();
            Explained {
                path,
                value,
                winner,
                overridden: found.collect(),
                through: Vec::new(),
            }
        })
        .collect()
}

/// The traps the user's layers set: a list that replaces a lower layer's non-empty list
/// as a whole (the user's list being the final one), and a `null` that deletes a lower
/// layer's value. `layers` are lowest priority first; `user_from` is the index of the
/// first user layer. Only the user's layers are read (a chart's own defaults for its
/// subcharts are the chart author's choice), so the cost follows what the user wrote.
pub fn traps(layers: &[Layer], user_from: usize) -> Vec<Trap> {
    let mut out = Vec::new();
    for (i, layer) in layers.iter().enumerate().skip(user_from) {
        let mut set = Vec::new();
        leaves(&layer.values, &mut Vec::new(), &mut set);
        for (rel, v) in set {
            let is_list = matches!(v, Value::List(_));
            if !is_list && !matches!(v, Value::Nil) {
                continue;
            }
            let mut full: Vec<Segment> = layer.prefix.iter().cloned().map(Segment::Key).collect();
            full.extend(rel.0.iter().cloned());
            let lower = |keep: &dyn Fn(&Value) -> bool| {
                layers[..i]
                    .iter()
                    .rev()
                    .find_map(|l| l.contribution(&full).filter(|c| keep(&c.value)))
            };
            let message = if is_list {
                if layers[i + 1..].iter().any(|l| l.at(&full).is_some()) {
                    continue;
                }
                let text = v.to_string();
                let Some(replaced) = lower(&|lv| {
                    matches!(lv, Value::List(items) if !items.items.is_empty())
                        && lv.to_string() != text
                }) else {
                    continue;
                };
                format!(
                    "the list from {} ({}) replaces the list from {} ({}) as a whole; Helm never merges lists",
                    layer.origin(&full),
                    layer.kind,
                    replaced.origin,
                    replaced.kind
                )
            } else {
                let Some(deleted) = lower(&|lv| !matches!(lv, Value::Nil)) else {
                    continue;
                };
                format!(
                    "null from {} deletes the value from {} ({})",
                    layer.origin(&full),
                    deleted.origin,
                    deleted.kind
                )
            };
            out.push(Trap {
                path: Path(full),
                message,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(label: &str, kind: &str, prefix: &[&str], yaml: &str) -> Layer {
        let v = capstan_yaml::decode_helm(yaml).unwrap();
        Layer {
            label: label.into(),
            kind: kind.into(),
            prefix: prefix.iter().map(|p| Str::from(*p)).collect(),
            values: v.as_map().map(|m| m.snapshot()).unwrap_or_default(),
            spans: capstan_yaml::spans(yaml, capstan_yaml::Generation::V2)
                .unwrap()
                .map(Arc::new),
            origins: BTreeMap::new(),
        }
    }

    #[test]
    fn winners_overrides_and_traps() {
        let layers = vec![
            layer(
                "sub/values.yaml",
                "subchart defaults",
                &["sub"],
                "port: 1\nhosts: [a]\n",
            ),
            layer(
                "values.yaml",
                "chart defaults",
                &[],
                "replicas: 1\nsub:\n  hosts: [b, c]\nkeep: x\n",
            ),
            layer("prod.yaml", "-f", &[], "replicas: 3\nkeep: null\n"),
            layer("hosts.yaml", "-f", &[], "sub:\n  hosts: [d]\nempty: []\n"),
        ];
        let final_values =
            capstan_yaml::decode_helm("replicas: 3\nsub:\n  port: 1\n  hosts: [b, c]\n")
                .unwrap()
                .as_map()
                .unwrap()
                .snapshot();
        let e = explain(&final_values, &layers[..3]);
        let lines: Vec<String> = e
            .iter()
            .map(|x| {
                let w = x
                    .winner
                    .as_ref()
                    .map(|w| w.origin.clone())
                    .unwrap_or_default();
                let o: Vec<String> = x.overridden.iter().map(|c| c.origin.clone()).collect();
                format!("{} {} {:?}", x.path, w, o)
            })
            .collect();
        assert_eq!(
            lines,
            [
                "replicas prod.yaml:1:1 [\"values.yaml:1:1\"]",
                "sub.hosts values.yaml:3:3 [\"sub/values.yaml:2:1\"]",
                "sub.port sub/values.yaml:1:1 []",
            ]
        );
        let t: Vec<String> = traps(&layers, 2)
            .iter()
            .map(|t| format!("{}: {}", t.path, t.message))
            .collect();
        assert_eq!(
            t,
            [
                "keep: null from prod.yaml:2:1 deletes the value from values.yaml:4:1 (chart defaults)",
                "sub.hosts: the list from hosts.yaml:2:3 (-f) replaces the list from values.yaml:3:3 (chart defaults) as a whole; Helm never merges lists",
            ]
        );
    }
}
