//! [`crate::manifest_head`] from the parser's events: any document the line reader
//! ([`crate::head_lines`]) leaves, one event at a time, without building it.

use crate::head::{plain_is_string, special_float, ManifestHead};
use libyaml_safer::{EventData, Parser, ScalarStyle};
use std::collections::HashSet;

/// Deeper documents are left to the full decode (which has the depth limit's error).
const MAX_DEPTH: usize = 500;

/// Where a mapping sits, as far as the head is concerned.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Root,
    Metadata,
    Annotations,
    Elsewhere,
}

enum Frame {
    Map {
        place: Place,
        keys: HashSet<String>,
        /// The key whose value comes next (`None`: a key comes next).
        key: Option<String>,
    },
    Seq,
}

/// [`manifest_head`] from the parser's events.
pub(crate) fn event_head(doc: &str) -> Option<ManifestHead> {
    let mut bytes = doc.as_bytes();
    let mut parser = Parser::new();
    parser.set_input_string(&mut bytes);
    let mut head = ManifestHead::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut documents = 0;
    let mut saw_root = false;
    loop {
        // libyaml-safer panics on a few inputs (see compose): the full decode reports them.
        let event = crate::compose::quiet_catch(|| parser.parse()).ok()?.ok()?;
        let (anchor, tag) = match &event.data {
            EventData::Scalar { anchor, tag, .. }
            | EventData::SequenceStart { anchor, tag, .. }
            | EventData::MappingStart { anchor, tag, .. } => (anchor.is_some(), tag.is_some()),
            _ => (false, false),
        };
        if anchor || tag {
            return None;
        }
        match event.data {
            EventData::StreamStart { .. } | EventData::DocumentEnd { .. } => {}
            EventData::StreamEnd => break,
            EventData::DocumentStart { .. } => {
                documents += 1;
                if documents > 1 {
                    return None;
                }
            }
            EventData::Alias { .. } => return None,
            EventData::Scalar { value, style, .. } => {
                let plain = style == ScalarStyle::Plain;
                match stack.last_mut() {
                    // A scalar document.
                    None => return None,
                    Some(Frame::Seq) => {
                        if plain && special_float(&value) {
                            return None;
                        }
                    }
                    Some(Frame::Map { place, keys, key }) => match key.take() {
                        None => {
                            if plain && !plain_is_string(&value) {
                                return None;
                            }
                            if !keys.insert(value.clone()) {
                                return None;
                            }
                            *key = Some(value);
                        }
                        Some(k) => {
                            if plain && special_float(&value) {
                                return None;
                            }
                            let wanted = matches!(
                                (*place, k.as_str()),
                                (Place::Root, "kind") | (Place::Annotations, "helm.sh/hook")
                            );
                            if wanted {
                                // Null, numbers and booleans go through the full decode.
                                if plain && !plain_is_string(&value) {
                                    return None;
                                }
                                if *place == Place::Root {
                                    head.kind = value;
                                } else {
                                    head.hook = Some(value);
                                }
                            }
                        }
                    },
                }
            }
            EventData::SequenceStart { .. } | EventData::MappingStart { .. } => {
                let is_map = matches!(event.data, EventData::MappingStart { .. });
                let place = match stack.last_mut() {
                    None => {
                        if !is_map || saw_root {
                            return None;
                        }
                        saw_root = true;
                        Place::Root
                    }
                    Some(Frame::Seq) => Place::Elsewhere,
                    Some(Frame::Map { place, key, .. }) => {
                        // A collection as a key: only the full decode knows.
                        let k = key.take()?;
                        match (*place, k.as_str()) {
                            // `kind` must be a string.
                            (Place::Root, "kind") => return None,
                            (Place::Root, "metadata") => Place::Metadata,
                            (Place::Metadata, "annotations") => Place::Annotations,
                            (Place::Annotations, "helm.sh/hook") => return None,
                            _ => Place::Elsewhere,
                        }
                    }
                };
                if stack.len() >= MAX_DEPTH {
                    return None;
                }
                stack.push(if is_map {
                    Frame::Map {
                        place,
                        keys: HashSet::new(),
                        key: None,
                    }
                } else {
                    Frame::Seq
                });
            }
            EventData::SequenceEnd | EventData::MappingEnd => {
                stack.pop();
            }
        }
    }
    saw_root.then_some(head)
}

#[cfg(test)]
mod tests {
    use crate::head::tests::head;
    use crate::manifest_head;

    #[test]
    fn reads_kind_and_hook_of_plain_manifests() {
        assert_eq!(
            manifest_head("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    \"helm.sh/hook\": pre-install,post-upgrade\n    other: \"1\"\ndata:\n  a: [1, 2.5, {b: c}]\n"),
            head("ConfigMap", Some("pre-install,post-upgrade"))
        );
        assert_eq!(manifest_head("kind: 'Job'\nspec: {}\n"), head("Job", None));
        assert_eq!(manifest_head("apiVersion: v1\n"), head("", None));
        // The hook under another mapping than metadata.annotations does not count.
        assert_eq!(
            manifest_head("kind: Pod\nspec:\n  annotations:\n    helm.sh/hook: test\n"),
            head("Pod", None)
        );
    }

    #[test]
    fn leaves_everything_unusual_to_the_full_decode() {
        for doc in [
            "kind: 5\n",
            "kind: yes\n",
            "kind:\n",
            "kind: [a]\n",
            "a: 1\na: 2\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "<<: {a: 1}\n",
            "? [a]\n: 1\n",
            "1: a\n",
            "a: .inf\n",
            "a: [-.NaN]\n",
            "- a\n",
            "just text\n",
            "",
            "a: b\n---\nc: d\n",
            "kind: A\nmetadata:\n  annotations:\n    helm.sh/hook: 3\n",
            "a: [b\n",
            "a: \"unterminated\n",
        ] {
            assert_eq!(manifest_head(doc), None, "{doc:?}");
        }
    }
}
