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
    pub(crate) fn enter_alias(&mut self, alias: usize) -> Result<usize, YamlError> {
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

    pub(crate) fn leave_alias(&mut self, alias: usize) {
        self.alias_depth -= 1;
        self.active_aliases.remove(&alias);
    }

    /// Follows aliases to the node they name (for kind checks, not decoding).
    pub(crate) fn deref(&self, mut i: usize) -> usize {
        while let NodeKind::Alias(t, _) = &self.doc.node(i).kind {
            i = *t;
        }
        i
    }
}

/// Whether a scalar node was written quoted or as a block scalar.
pub(crate) fn is_quoted(style: ScalarStyle) -> bool {
    !matches!(style, ScalarStyle::Plain | ScalarStyle::Any)
}

/// go-yaml's `isMerge`: a plain `<<` key, or one tagged `!!merge`.
pub(crate) fn is_merge_key(doc: &Document, i: usize) -> bool {
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
pub(crate) fn want_map() -> YamlError {
    YamlError::new("yaml: map merge requires map or sequence of maps as the value")
}

/// Decodes `!!binary` data (standard base64; line breaks are skipped).
pub(crate) fn decode_base64(s: &str) -> Option<Vec<u8>> {
    capstan_gocompat::base64::decode(s).ok()
}
