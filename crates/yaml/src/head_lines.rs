//! The manifest head read line by line, for the block-style YAML templates render nearly
//! always: a strict subset of YAML whose structure shows in its indentation (block
//! mappings and sequences, plain scalars that start with a letter, digit or `/`, quoted
//! scalars (escapes `\n`, `\t`, `\"`, `\\`, `\/` and a final `\` only), `|`/`>` block
//! scalars, `[]` and `{}`, comments). Scalars other than `kind` and the hook may go on over
//! deeper lines, as controller-gen writes CRD descriptions: a quoted one to its closing
//! quote, a plain one until a line would end it (`: `, a final `:`, ` #`: left to the
//! parser) or a deeper comment line does (a deeper line after that is an error).
//! Anything outside that subset, and anything the subset cannot prove valid (a tab, a
//! byte outside ASCII, a key seen twice, an indentation that does not line up, a key
//! longer than libyaml's 1024), is
//! `None` and goes to the event reader in [`crate::head`], which settles it. This reader
//! never builds a scalar it does not need: it is several times faster than the parser.

use crate::head::{plain_is_string, special_float, ManifestHead};
use crate::utf8::SkipSpaces;
use std::collections::HashSet;

/// Where a node sits, as far as the head is concerned.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Root,
    Metadata,
    Annotations,
    /// The value of `kind` or of the hook annotation: it must be a string.
    Wanted,
    Elsewhere,
}

/// An open block collection: its indentation and, for a mapping, its keys so far.
enum Frame<'a> {
    Map {
        indent: usize,
        place: Place,
        keys: Keys<'a>,
    },
    Seq {
        indent: usize,
    },
}

/// A mapping's keys so far, to find one written twice: a short array searched in place
/// (most mappings have a few keys; hashing each, or allocating a list for them, would
/// cost more than the rest of the line), a set once it grows long.
struct Keys<'a> {
    few: [&'a str; FEW_KEYS],
    len: usize,
    many: Option<HashSet<&'a str>>,
}

impl Default for Keys<'_> {
    fn default() -> Self {
        Keys {
            few: [""; FEW_KEYS],
            len: 0,
            many: None,
        }
    }
}

/// Keys kept in the array before they move to a set.
const FEW_KEYS: usize = 8;

impl<'a> Keys<'a> {
    /// Adds `key`; `false` when the mapping has it already.
    fn insert(&mut self, key: &'a str) -> bool {
        if let Some(set) = &mut self.many {
            return set.insert(key);
        }
        let few = &self.few[..self.len];
        if few.iter().any(|k| k.len() == key.len() && *k == key) {
            return false;
        }
        if self.len < FEW_KEYS {
            self.few[self.len] = key;
            self.len += 1;
            return true;
        }
        let mut set: HashSet<&str> = few.iter().copied().collect();
        set.insert(key);
        self.many = Some(set);
        true
    }
}

/// A node's value as written after `key:` or `- `.
enum Written<'a> {
    /// Nothing on the line: a nested collection follows, or the value is null.
    Nothing,
    /// A scalar on the line (plain or quoted), as the decoder reads it when it can be
    /// taken as written (`None`: a quoted scalar with `''` in it, never a wanted value);
    /// whether it is plain; whether it is plain without a comment after it (the lines
    /// below may continue it).
    Scalar(Option<&'a str>, bool, bool),
    /// `|` or `>`: the lines below that are indented deeper are its text.
    Block,
    /// `[]`, `{}`, or a one-line flow sequence of plain or quoted scalars.
    Flow,
    /// A quoted scalar (this quote) that does not close on its line: the lines below,
    /// indented deeper, hold the rest (escapes as [`quote_closes`] takes them).
    OpenQuote(u8),
}

/// Longest implicit key libyaml accepts.
const MAX_KEY: usize = 1024;
/// Deeper documents are left to the parser.
const MAX_DEPTH: usize = 500;

/// The head of `doc` when it is in the subset, else `None` (the caller asks the parser).
pub(crate) fn line_head(doc: &str) -> Option<ManifestHead> {
    // Tabs, carriage returns, other controls and non-ASCII (YAML 1.1 line breaks among
    // them) are the parser's business.
    if !crate::utf8::printable_ascii_lines(doc.as_bytes()) {
        return None;
    }
    let mut head = ManifestHead::default();
    let mut stack: Vec<Frame> = Vec::new();
    // A `key:` or `-` with nothing after it, at this indentation, in this place: the
    // next line says whether a collection follows.
    let mut pending: Option<(usize, Place, bool)> = None;
    // Inside a block scalar whose parent is at this indentation: (parent indent, content
    // indent once known).
    let mut block: Option<(usize, Option<usize>)> = None;
    // After a scalar on a line, a deeper line would continue it (or be an error).
    let mut no_deeper_than: Option<usize> = None;
    // After a plain scalar that is neither `kind` nor the hook: deeper lines continue it.
    let mut continued_past: Option<usize> = None;
    // Inside a quoted scalar (this quote) opened under this indentation.
    let mut quoted: Option<(u8, usize)> = None;
    for line in ascii_lines(doc) {
        let indent = line.len() - line.skip_spaces().len();
        let rest = &line[indent..];
        if let Some((quote, limit)) = quoted {
            if rest.is_empty() {
                continue;
            }
            if indent <= limit {
                return None;
            }
            if let Some(after) = quote_closes(rest, quote)? {
                // Only spaces or a comment may follow; a deeper line after it is an error.
                let after_text = after.skip_spaces();
                if !(after_text.is_empty()
                    || (after_text.starts_with('#') && after.len() > after_text.len()))
                {
                    return None;
                }
                quoted = None;
                no_deeper_than = Some(limit);
            }
            continue;
        }
        if let Some(limit) = continued_past {
            if rest.is_empty() {
                continue;
            }
            if indent > limit {
                if rest.starts_with('#') {
                    // A comment ends the scalar: a deeper line after it is an error.
                    continued_past = None;
                    no_deeper_than = Some(limit);
                    continue;
                }
                let text = rest.trim_end_matches(' ');
                if text.contains(": ") || text.ends_with(':') || text.contains(" #") {
                    return None;
                }
                continue;
            }
            continued_past = None;
        }
        if let Some((parent, content)) = block {
            if rest.is_empty() {
                // A line of spaces before the text begins: how libyaml reads it depends
                // on the text's indentation.
                if content.is_none() && indent > 0 {
                    return None;
                }
                continue;
            }
            match content {
                None if indent > parent => {
                    block = Some((parent, Some(indent)));
                    continue;
                }
                Some(c) if indent >= c => continue,
                _ => block = None,
            }
        }
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        if let Some(limit) = no_deeper_than.take() {
            if indent > limit {
                return None;
            }
        }
        // A line after `key:` / `-` with nothing: a nested collection, or the value was
        // null.
        if let Some((at, place, is_key)) = pending.take() {
            // `kind` and the hook must be strings: a collection or a null is the
            // decoder's to judge.
            if place == Place::Wanted {
                return None;
            }
            let dash = is_dash(rest);
            // `key:` then a flow value below it (`{}` from `toYaml` of an empty map,
            // indented, or a one-line `[a, b]`).
            if indent > at && matches!(value_of(rest), Some(Written::Flow)) {
                no_deeper_than = Some(at);
                continue;
            }
            if indent > at || (is_key && indent == at && dash) {
                if stack.len() >= MAX_DEPTH {
                    return None;
                }
                stack.push(if dash {
                    Frame::Seq { indent }
                } else {
                    Frame::Map {
                        indent,
                        place,
                        keys: Keys::default(),
                    }
                });
            }
        }
        // Close what this line is outside of.
        while let Some(top) = stack.last() {
            let outside = match top {
                Frame::Seq { indent: i } => indent < *i || (indent == *i && !is_dash(rest)),
                Frame::Map { indent: i, .. } => indent < *i,
            };
            if !outside {
                break;
            }
            stack.pop();
        }
        // The document's top: one mapping at the left edge (it is never closed: no
        // line is to the left of it).
        if stack.is_empty() {
            if indent != 0 || is_dash(rest) {
                return None;
            }
            stack.push(Frame::Map {
                indent: 0,
                place: Place::Root,
                keys: Keys::default(),
            });
        }
        let (written, value_indent, place, is_key) = match stack.last_mut()? {
            Frame::Seq { indent: i } => {
                if indent != *i {
                    return None;
                }
                let item = rest.strip_prefix('-')?;
                let item_indent = indent + 1 + (item.len() - item.skip_spaces().len());
                let item = item.skip_spaces();
                if is_dash(item) {
                    // `- - a`: a sequence in a sequence on one line.
                    return None;
                }
                match key_of(item) {
                    Some((key, value)) => {
                        // `- key: value`: a mapping whose keys line up under `key`.
                        if stack.len() >= MAX_DEPTH {
                            return None;
                        }
                        let mut keys = Keys::default();
                        keys.insert(key);
                        stack.push(Frame::Map {
                            indent: item_indent,
                            place: Place::Elsewhere,
                            keys,
                        });
                        (value_of(value)?, item_indent, Place::Elsewhere, true)
                    }
                    None => (value_of(item)?, indent, Place::Elsewhere, false),
                }
            }
            Frame::Map {
                indent: i,
                place,
                keys,
            } => {
                if indent != *i {
                    return None;
                }
                let (key, value) = key_of(rest)?;
                if !keys.insert(key) {
                    return None;
                }
                let place = *place;
                let written = value_of(value)?;
                let wanted_key = matches!(
                    (place, key),
                    (Place::Root, "kind") | (Place::Annotations, "helm.sh/hook")
                );
                if wanted_key {
                    let Written::Scalar(Some(text), plain, _) = written else {
                        return None;
                    };
                    if plain && !plain_is_string(text) {
                        return None;
                    }
                    if place == Place::Root {
                        head.kind = text.to_string();
                    } else {
                        head.hook = Some(text.to_string());
                    }
                }
                let child = match (place, key) {
                    _ if wanted_key => Place::Wanted,
                    (Place::Root, "metadata") => Place::Metadata,
                    (Place::Metadata, "annotations") => Place::Annotations,
                    _ => Place::Elsewhere,
                };
                (written, indent, child, true)
            }
        };
        match written {
            Written::Nothing => pending = Some((value_indent, place, is_key)),
            Written::Block => block = Some((value_indent, None)),
            Written::Scalar(_, _, true) if place != Place::Wanted => {
                continued_past = Some(value_indent)
            }
            Written::Scalar(..) | Written::Flow => no_deeper_than = Some(value_indent),
            Written::OpenQuote(quote) => quoted = Some((quote, value_indent)),
        }
    }
    if quoted.is_some() {
        return None;
    }
    // `kind:` last, with nothing: a null.
    if pending.is_some_and(|(_, place, _)| place == Place::Wanted) || stack.is_empty() {
        return None;
    }
    Some(head)
}

/// Where a quoted scalar's text on a line ends: `Some(Some(rest after the closing
/// quote))`, `Some(None)` when it goes on to the next line, `None` for an escape other
/// than `\n`, `\t`, `\"`, `\\`, `\/` and a final `\` in double quotes (left to the parser).
fn quote_closes(text: &str, quote: u8) -> Option<Option<&str>> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => match bytes.get(i + 1) {
                None => return Some(None),
                Some(b'n' | b't' | b'"' | b'\\' | b'/') => i += 2,
                Some(_) => return None,
            },
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(Some(&text[i + 1..])),
            _ => i += 1,
        }
    }
    Some(None)
}

/// The bytes a plain key of the subset may hold (letters, digits, `_ . / -`).
static KEY_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        table[i] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/' | b'-');
        i += 1;
    }
    table
};

fn is_dash(rest: &str) -> bool {
    rest == "-" || rest.starts_with("- ")
}

/// The lines of `doc` (split at `\n`, the last one possibly empty), found with a plain
/// byte loop: the lines of a manifest are short, where `str::split`'s searcher costs more
/// than the search.
fn ascii_lines(doc: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(doc);
    std::iter::from_fn(move || {
        let text = rest?;
        match text.bytes().position(|b| b == b'\n') {
            Some(i) => {
                rest = Some(&text[i + 1..]);
                Some(&text[..i])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// `key: rest` or `key:` (a plain key starting with a letter, or a quoted key without
/// escapes): the key as the decoder reads it, and what follows the colon.
fn key_of(text: &str) -> Option<(&str, &str)> {
    let (key, after) = match text.as_bytes().first()? {
        q @ (b'"' | b'\'') => {
            let end = text[1..].find(*q as char)? + 1;
            let key = &text[1..end];
            if key.contains('\\') {
                return None;
            }
            (key, text[end + 1..].strip_prefix(':')?)
        }
        _ => {
            // Up to the first colon, every byte must be one a plain key may have.
            let end = text.bytes().position(|b| !KEY_BYTE[b as usize])?;
            if text.as_bytes()[end] != b':' {
                return None;
            }
            let key = &text[..end];
            if !plain_is_string(key) {
                return None;
            }
            (key, &text[end + 1..])
        }
    };
    if key.len() > MAX_KEY {
        return None;
    }
    // The colon must end the key: `a:b` is a scalar.
    if !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    Some((key, after.skip_spaces()))
}

/// What follows `key:` or `- ` (leading spaces removed), when it is in the subset.
fn value_of(text: &str) -> Option<Written<'_>> {
    if text.is_empty() || text.starts_with('#') {
        return Some(Written::Nothing);
    }
    let first = text.as_bytes()[0];
    let (written, rest) = match first {
        b'|' | b'>' => {
            let rest = text[1..].strip_prefix(['-', '+']).unwrap_or(&text[1..]);
            (Written::Block, rest)
        }
        b'{' => (Written::Flow, text[1..].strip_prefix('}')?),
        b'[' => (Written::Flow, flow_sequence(&text[1..])?),
        b'"' => match quote_closes(&text[1..], b'"')? {
            None => return Some(Written::OpenQuote(b'"')),
            Some(after) => {
                let inner = &text[1..text.len() - after.len() - 1];
                // With an escape the text is not taken as written.
                let taken = (!inner.contains('\\')).then_some(inner);
                (Written::Scalar(taken, false, false), after)
            }
        },
        b'\'' => {
            // `''` is a quote inside: the text is not taken as written.
            let mut i = 1;
            let bytes = text.as_bytes();
            let mut doubled = false;
            loop {
                let Some(b) = bytes.get(i) else {
                    return Some(Written::OpenQuote(b'\''));
                };
                match b {
                    b'\'' if bytes.get(i + 1) == Some(&b'\'') => {
                        doubled = true;
                        i += 2;
                    }
                    b'\'' => break,
                    _ => i += 1,
                }
            }
            let inner = (!doubled).then_some(&text[1..i]);
            (Written::Scalar(inner, false, false), &text[i + 1..])
        }
        _ if plain_start(text) => {
            // A plain scalar runs to a ` #` comment; `: ` or a final `:` would make it
            // a key (an error here).
            // One pass: where a ` #` comment starts, and whether a `: ` comes before.
            let bytes = text.as_bytes();
            let mut end = bytes.len();
            let mut colon_space = false;
            for (i, pair) in bytes.windows(2).enumerate() {
                match pair {
                    [b' ', b'#'] => {
                        end = i;
                        break;
                    }
                    [b':', b' '] => colon_space = true,
                    _ => {}
                }
            }
            let plain = text[..end].trim_end_matches(' ');
            if colon_space || plain.ends_with(':') || special_float(plain) {
                return None;
            }
            // A comment after it ends it there.
            let open = end == bytes.len();
            (Written::Scalar(Some(plain), true, open), &text[end..])
        }
        _ => return None,
    };
    // After the value: spaces and a comment only.
    let rest = rest.skip_spaces();
    if !(rest.is_empty() || (rest.starts_with('#') && rest.len() < text.len())) {
        return None;
    }
    // `"a"#b` is not a comment (it needs a space before it).
    if rest.starts_with('#') && !text[..text.len() - rest.len()].ends_with(' ') {
        return None;
    }
    Some(written)
}

/// Whether `text` starts a plain scalar in block context that the subset takes: a
/// letter, digit or one of `/ $ ^ ( _ .`, or `-` or `:` before a letter, digit, `-` or
/// `/` (`-c`, `--flag`, `:8080`; never `- x`, `-1`'s sign alone matters not: it is a
/// number only where a string is wanted, and those need a letter first).
fn plain_start(text: &str) -> bool {
    let b = text.as_bytes();
    match b.first() {
        Some(c)
            if c.is_ascii_alphanumeric()
                || matches!(c, b'/' | b'$' | b'^' | b'(' | b'_' | b'.') =>
        {
            true
        }
        Some(b'-' | b':') => b
            .get(1)
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'/')),
        _ => false,
    }
}

/// The rest of a one-line flow sequence after its `[`: items that are plain words
/// (`[A-Za-z0-9_./:-]`, a letter, digit or `/` first) or quoted scalars without escapes,
/// separated by commas; what follows the `]`.
fn flow_sequence(text: &str) -> Option<&str> {
    let mut rest = text.skip_spaces();
    if let Some(after) = rest.strip_prefix(']') {
        return Some(after);
    }
    loop {
        let item_end = match rest.as_bytes().first()? {
            q @ (b'"' | b'\'') => {
                let end = rest[1..].find(*q as char)? + 2;
                if rest[..end].contains('\\') || rest[end..].starts_with(*q as char) {
                    return None;
                }
                end
            }
            c if c.is_ascii_alphanumeric() || *c == b'/' => {
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || "_./:-".contains(c)))
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                if word.ends_with(':') || special_float(word) {
                    return None;
                }
                end
            }
            _ => return None,
        };
        rest = rest[item_end..].skip_spaces();
        match rest.as_bytes().first()? {
            b',' => rest = rest[1..].skip_spaces(),
            b']' => return Some(&rest[1..]),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::head::tests::head;

    #[test]
    fn reads_the_block_style_helm_renders() {
        let doc = "apiVersion: apps/v1\nkind: Deployment # the kind\nmetadata:\n  name: web\n  labels:\n    app.kubernetes.io/name: web\n  annotations:\n    \"helm.sh/hook\": pre-install,post-upgrade\n    checksum/config: 3f2a\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: web\n        image: \"nginx:1.25\"\n        args: []\n        command:\n          - /bin/sh\n          - -c\n        env:\n        - name: A\n          value: 'it'\n      volumes: {}\n---\n";
        // (`---` ends the document: the subset stops there.)
        assert_eq!(line_head(doc), None);
        let doc = doc.replace("---\n", "");
        assert_eq!(
            line_head(&doc),
            head("Deployment", Some("pre-install,post-upgrade"))
        );
        let doc = "kind: ConfigMap\ndata:\n  script: |\n    #!/bin/sh\n    echo: \"x\" - [\n\n    done\n  other: >-\n    folded\nmetadata:\n  name: x\n";
        assert_eq!(line_head(doc), head("ConfigMap", None));
        assert_eq!(line_head("a: 1\n"), head("", None));
        let compact = "kind: List\nitems:\n- a: 1\n  b:\n  - x\n  c: 2\n- d\nmetadata:\n  annotations:\n    helm.sh/hook: test\n";
        assert_eq!(line_head(compact), head("List", Some("test")));
    }

    #[test]
    fn a_key_written_twice_is_found_in_short_and_long_mappings() {
        for size in [3, FEW_KEYS, FEW_KEYS + 1, 3 * FEW_KEYS] {
            let keys: String = (0..size).map(|i| format!("  k{i}: v\n")).collect();
            let doc = format!("kind: A\ndata:\n{keys}");
            assert_eq!(line_head(&doc), head("A", None), "{size}");
            for again in [0, size / 2, size - 1] {
                let doc = format!("kind: A\ndata:\n{keys}  k{again}: w\n");
                assert_eq!(line_head(&doc), None, "{size} {again}");
            }
        }
    }

    #[test]
    fn leaves_the_rest_to_the_parser() {
        for doc in [
            "kind: 5\n",
            "kind: yes\n",
            "kind:\n",
            "kind:\nx: 1\n",
            "kind: [a]\n",
            "kind: []\n",
            "kind: [a, b]\n",
            "a: [b, ]\n",
            "a: [b,, c]\n",
            "a: [b c]\n",
            "a: [b: c]\n",
            "a: [\"x\\\"\"]\n",
            "a: [.inf]\n",
            "a: .nan\n",
            "a:\n  {}\n  b: 1\n",
            "kind:\n  {}\n",
            "kind:\n  a: 1\n",
            "kind:\n- a\n",
            "a: 1\na: 2\n",
            "a: 1\n\"a\": 2\n",
            "a: &x 1\n",
            "a: !!str 1\n",
            "<<: {a: 1}\n",
            "1: a\n",
            "a: .inf\n",
            "- a\n",
            "just text\n",
            "",
            "# only a comment\n",
            "a: b\n---\nc: d\n",
            "a: [b\n",
            "a: \"unterminated\n",
            "a: b: c\n",
            "kind: b\n  c\n",
            "a: b\n  c: d\n",
            "a: b\n  c:\n",
            "a: b\n  c #d\n",
            "a: b\n  # c\n  d\n",
            "a: b # c\n  d\n",
            "kind: 'a\n  b'\n",
            "a: 'b\nc'\n",
            "a: 'b\n  c' d\n",
            "a: 'b\n  c'\n  d\n",
            "a: \"b\n  c\\xd\"\n",
            "a: \"b\\q\"\n",
            "a: 'b\n",
            "- b # c\n  d\n",
            "metadata:\n  annotations:\n    helm.sh/hook: x\n      y\nkind: A\n",
            "a:\n  b: 1\n c: 2\n",
            "a:\n  - 1\n - 2\n",
            "a:\tb\n",
            "a: caf\u{e9}\n",
            "a: b\r\n",
            "a: |\n    x\n  y\n",
            "a: |\n  \n x\n",
            "a: \"x\"y\n",
            "a: \"x\"#y\n",
            "a: -.inf\n",
            "a: - x\n",
            "a: *x\n",
            "a:b\n",
            " a: 1\n",
            "a: 1\n b: 2\n",
            "a:\n  - - x\n",
            "metadata:\n  annotations:\n    helm.sh/hook: 3\nkind: A\n",
            "metadata:\n  annotations:\n    helm.sh/hook:\n      - x\nkind: A\n",
            "kind: A\na: 1\n  # indented comment is fine\n- b\n",
        ] {
            assert_eq!(line_head(doc), None, "{doc:?}");
        }
    }

    /// On every document of the real-world charts' YAML files and the conformance
    /// vectors: where the line reader gives a head, the parser gives the same one.
    #[test]
    fn agrees_with_the_parser_on_real_documents() {
        let mut docs: Vec<String> = Vec::new();
        for f in
            crate::test_files::yaml_files(&crate::test_files::shared().join("realworld/charts"))
        {
            if let Ok(text) = std::fs::read_to_string(&f) {
                docs.extend(text.split("\n---").map(str::to_string));
            }
        }
        let vectors = std::fs::read_to_string(
            crate::test_files::shared().join("conformance/yaml/yaml-decode.jsonl"),
        )
        .unwrap_or_default();
        for line in vectors.lines() {
            if let Ok(v) = capstan_value::json::from_json(line) {
                if let Some(capstan_value::Value::String(text)) = v.get("yaml") {
                    docs.push(text.to_string());
                }
            }
        }
        let mut read = 0;
        for doc in &docs {
            let doc = format!("{}\n", doc.trim_start_matches('\n'));
            if let Some(head) = line_head(&doc) {
                read += 1;
                assert_eq!(Some(head), crate::head_events::event_head(&doc), "{doc}");
            }
        }
        assert!(
            read > 500,
            "only {read} of {} documents read by lines",
            docs.len()
        );
    }

    /// Where the line reader gives a head, the parser gives the same one.
    #[test]
    fn agrees_with_the_parser() {
        for doc in [
            "kind: A\nmetadata:\n  annotations:\n    helm.sh/hook: post-install\n",
            "kind: 'B'\nspec:\n  x: |+\n    keep\n\n  z: 1\n",
            "a:\n- 1\nkind: C\n",
            "kind: D\nlist:\n  - a: 1\n    b: [] # none\n  -\n    c: d\n  - e\n",
            "kind: E\ntext: >\n  one\n\n  two\nafter: x\n",
            "kind: H\nnum: -1\nflag: -f\n",
            "kind: F\nk: v # c\n# c\n  # c\nz: null\n",
            "kind: G\nverbs: [\"get\", 'list', watch] # all\nempty: []\nr:\n  {}\np: .spec.x\nv: $(POD_IP)\nq: ^a.*$\ne: (1 - x)\nport: :8080\n",
            // Descriptions as controller-gen writes them: plain, over several lines.
            "kind: R\nd: \"status\n  of x.\\nKey \\\"names\\\" \\\\ a/b\\\n  more\"\ne: \"x\\ty\"\n",
            "kind: Q\nd: 'Container name: required for volumes,\n  optional for env vars'\nr: '[has(self.a)].filter(x,\n\n    x).size() <= 1 # not a comment' # a comment\ne: \"two\n  lines\"\n",
            "kind: CustomResourceDefinition\nspec:\n  description: Alertmanager describes\n    an Alertmanager cluster.\n\n    More (e.g. --flag) - [x] {y}\n  # done\n  type: object\n  items:\n  - a\n    b\n  - c\nmetadata:\n  name: x\n",
        ] {
            let lines = line_head(doc);
            assert!(lines.is_some(), "{doc:?}");
            assert_eq!(lines, crate::head_events::event_head(doc), "{doc:?}");
        }
    }
}
