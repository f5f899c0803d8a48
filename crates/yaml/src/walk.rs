//! What the yaml.v2 and yaml.v3 decoders share while walking a node tree: alias
//! expansion with go-yaml's self-reference check and its "excessive aliasing" budget, and
//! the merge-key test.

use crate::compose::{Document, NodeKind};
use crate::error::YamlError;
use crate::resolve::MERGE;
use libyaml_safer::ScalarStyle;
use std::collections::HashSet;

const ALIAS_RATIO_RANGE_LOW: f64 = 400_000.0;
const ALIAS_RATIO_RANGE_HIGH: f64 = 4_000_000.0;

fn allowed_alias_ratio(decode_count: usize) -> f64 {
    let c = decode_count as f64;
    if c <= ALIAS_RATIO_RANGE_LOW {
        0.99
    } else if c >= ALIAS_RATIO_RANGE_HIGH {
        0.10
    } else {
        0.99 - 0.89
            * ((c - ALIAS_RATIO_RANGE_LOW) / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW))
    }
}

/// Walk state: counts decodes like go-yaml to stop alias bombs.
pub struct Walker<'d> {
    pub doc: &'d Document,
    decode_count: usize,
    alias_count: usize,
    alias_depth: usize,
    active_aliases: HashSet<usize>,
}

impl<'d> Walker<'d> {
    pub fn new(doc: &'d Document) -> Self {
        Walker {
            doc,
            decode_count: 0,
            alias_count: 0,
            alias_depth: 0,
            active_aliases: HashSet::new(),
        }
    }

    /// Called once per node decode (go-yaml's `unmarshal`).
    pub fn count(&mut self) -> Result<(), YamlError> {
        self.decode_count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
        }
        if self.alias_count > 100
            && self.decode_count > 1000
            && self.alias_count as f64 / self.decode_count as f64
                > allowed_alias_ratio(self.decode_count)
        {
            return Err(YamlError::new("yaml: document contains excessive aliasing"));
        }
        Ok(())
    }

    /// Enters alias node `alias`, refusing self-containing anchors; returns the node it
    /// names. Pair with [`Walker::leave_alias`].
    pub fn enter_alias(&mut self, alias: usize) -> Result<usize, YamlError> {
        let NodeKind::Alias(target, name) = &self.doc.node(alias).kind else {
            return Ok(alias);
        };
        if !self.active_aliases.insert(alias) {
            return Err(
                YamlError::new(format!("yaml: anchor '{name}' value contains itself"))
                    .at(Some(self.doc.node(alias).start)),
            );
        }
        self.alias_depth += 1;
        Ok(*target)
    }

    pub fn leave_alias(&mut self, alias: usize) {
        self.alias_depth -= 1;
        self.active_aliases.remove(&alias);
    }

    /// Follows aliases to the node they name (for kind checks, not decoding).
    pub fn deref(&self, mut i: usize) -> usize {
        while let NodeKind::Alias(t, _) = &self.doc.node(i).kind {
            i = *t;
        }
        i
    }
}

/// Whether a scalar node was written quoted or as a block scalar.
pub fn is_quoted(style: ScalarStyle) -> bool {
    !matches!(style, ScalarStyle::Plain | ScalarStyle::Any)
}

/// go-yaml's `isMerge`: a plain `<<` key, or one tagged `!!merge`.
pub fn is_merge_key(doc: &Document, i: usize) -> bool {
    match &doc.node(i).kind {
        NodeKind::Scalar { value, style, .. } if value == "<<" => {
            match doc.node(i).tag.as_deref() {
                None | Some("!") => !is_quoted(*style),
                Some(t) => t == MERGE,
            }
        }
        _ => false,
    }
}

/// go-yaml's `failWantMap`.
pub fn want_map() -> YamlError {
    YamlError::new("yaml: map merge requires map or sequence of maps as the value")
}

/// Decodes standard base64 as Go's `base64.StdEncoding.DecodeString` after go-yaml
/// dropped line breaks and spaces.
pub fn decode_base64(s: &str) -> Option<Vec<u8>> {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let clean: Vec<u8> = s.bytes().filter(|b| *b != b'\n' && *b != b'\r').collect();
    if !clean.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        let mut pad = 0;
        for (k, &c) in chunk.iter().enumerate() {
            let v = if c == b'=' {
                if k < 2 {
                    return None;
                }
                pad += 1;
                0
            } else {
                if pad > 0 {
                    return None;
                }
                TABLE.iter().position(|&t| t == c)? as u32
            };
            n = n << 6 | v;
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}
