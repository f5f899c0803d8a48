//! What Helm's `SortManifests` reads of a rendered manifest — its `kind` and its
//! `metadata.annotations["helm.sh/hook"]` — without building the document
//! ([`crate::manifest_head`]), and the words both readers share. Only for documents
//! where that cannot differ from a full decode: one mapping, no anchors, aliases or tags,
//! scalar keys that are plainly strings and unique in their mapping, no special floats,
//! and `kind`/hook values that are strings. Anything else (including a document that
//! does not parse) is `None`, and the caller decodes it in full, which also gives Helm's
//! error where there is one. Two readers: line by line ([`crate::head_lines`], the
//! common subset) and from the parser's events ([`crate::head_events`]).

/// The two fields; `kind` is empty when the manifest has none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManifestHead {
    /// The manifest's `kind`.
    pub kind: String,
    /// The `helm.sh/hook` annotation, when it is there (a string).
    pub hook: Option<String>,
}

/// YAML 1.1 words go-yaml v2 reads as booleans or null.
fn is_special_word(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
            | "null"
            | "Null"
            | "NULL"
    )
}

/// A plain scalar that go-yaml v2 certainly reads as a string: it starts with a letter
/// (so it is no number, timestamp or `.inf`) and is no boolean or null word.
pub(crate) fn plain_is_string(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !is_special_word(s)
}

/// A plain scalar value that could decode to something a JSON conversion refuses (the
/// special floats `.inf`, `-.inf`, `.nan` in their spellings).
pub(crate) fn special_float(s: &str) -> bool {
    let t = s.trim_start_matches(['+', '-']);
    t.starts_with('.') && t.len() > 1 && matches!(t.as_bytes()[1], b'i' | b'I' | b'n' | b'N')
}

#[cfg(test)]
pub(crate) mod tests {
    use super::ManifestHead;

    /// The head with this kind and hook.
    pub(crate) fn head(kind: &str, hook: Option<&str>) -> Option<ManifestHead> {
        Some(ManifestHead {
            kind: kind.into(),
            hook: hook.map(String::from),
        })
    }
}
