//! The node tree of one composed YAML document (an arena of nodes with their marks),
//! as both composers build it: [`crate::compose`] from libyaml's events and
//! [`crate::compose_lines`] line by line.

use capstan_source::Pos;
use libyaml_safer::ScalarStyle;

#[derive(Clone, Debug)]
/// What a node is.
pub enum NodeKind {
    /// A scalar: its text, how it was written, and whether a plain scalar may be resolved by its text.
    Scalar {
        /// The scalar's text.
        value: String,
        /// Plain, quoted, literal or folded.
        style: ScalarStyle,
        /// Whether the tag may be resolved from the text.
        plain_implicit: bool,
    },
    /// A sequence: its items' node indexes.
    Seq(Vec<usize>),
    /// A mapping: its entries' key and value node indexes.
    Map(Vec<(usize, usize)>),
    /// An alias: the anchored node and the anchor's name.
    Alias(usize, String),
}

#[derive(Clone, Debug)]
/// One node of a composed document.
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// The full tag as written (after handle expansion), if any.
    pub tag: Option<String>,
    /// Where it starts.
    pub start: Pos,
    /// Where it ends.
    pub end: Pos,
}

impl Node {
    /// The 1-based line it starts on.
    pub fn line(&self) -> u32 {
        self.start.line
    }
}

/// One composed document.
#[derive(Debug, Default)]
pub struct Document {
    /// Every node; indexes refer into this list.
    pub nodes: Vec<Node>,
    /// The root node, `None` for an empty document.
    pub root: Option<usize>,
    /// The deepest nesting seen (drives the choice of a larger stack for decoding).
    pub depth: usize,
}

impl Document {
    /// Node `i` (an index from this document).
    pub fn node(&self, i: usize) -> &Node {
        &self.nodes[i]
    }
}
