//! Path addressing into values: `a.b[0].c`, used by provenance, `--set`-style lookups
//! and helmfile's `get`/`setValueAtPath`.

use crate::{Str, Value};
use std::fmt;

/// One step of a path: a map key or a list index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Segment {
    /// A map key.
    Key(Str),
    /// A list index.
    Index(usize),
}

/// A parsed path such as `a.b[0].c`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Path(pub Vec<Segment>);

/// Why a path string could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathError {
    /// The path as written.
    pub path: String,
    /// Why it is not a valid path.
    pub reason: &'static str,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid path {:?}: {}", self.path, self.reason)
    }
}

impl std::error::Error for PathError {}

impl Path {
    /// Parses `a.b[0].c`; an empty string is the root.
    pub fn parse(s: &str) -> Result<Path, PathError> {
        let err = |reason| PathError {
            path: s.to_string(),
            reason,
        };
        let mut segs = Vec::new();
        let mut key = String::new();
        let mut chars = s.chars().peekable();
        let mut after_index = false;
        while let Some(c) = chars.next() {
            match c {
                '.' => {
                    if key.is_empty() && !after_index {
                        return Err(err("empty key"));
                    }
                    if !key.is_empty() {
                        segs.push(Segment::Key(Str::from(key.as_str())));
                        key.clear();
                    }
                    after_index = false;
                }
                '[' => {
                    if !key.is_empty() {
                        segs.push(Segment::Key(Str::from(key.as_str())));
                        key.clear();
                    }
                    let mut digits = String::new();
                    loop {
                        match chars.next() {
                            Some(']') => break,
                            Some(d) if d.is_ascii_digit() => digits.push(d),
                            _ => return Err(err("bad list index")),
                        }
                    }
                    let i = digits.parse().map_err(|_| err("bad list index"))?;
                    segs.push(Segment::Index(i));
                    after_index = true;
                }
                c => {
                    if after_index {
                        return Err(err("expected '.' or '[' after an index"));
                    }
                    key.push(c)
                }
            }
        }
        if !key.is_empty() {
            segs.push(Segment::Key(Str::from(key.as_str())));
        } else if s.ends_with('.') {
            return Err(err("empty key"));
        }
        Ok(Path(segs))
    }

    /// The value at this path, if every step exists.
    pub fn lookup(&self, root: &Value) -> Option<Value> {
        let mut cur = root.clone();
        for seg in &self.0 {
            cur = match (seg, &cur) {
                (Segment::Key(k), Value::Map(m)) => m.get(k)?,
                (Segment::Index(i), Value::List(l)) => l.items.get(*i)?.clone(),
                _ => return None,
            };
        }
        Some(cur)
    }

    /// Sets the value at this path, creating maps for missing keys and growing lists with
    /// nils; a non-container in the way is replaced.
    pub fn set(&self, root: &mut Value, value: Value) {
        let mut cur = root;
        for seg in &self.0 {
            cur = match seg {
                Segment::Key(k) => {
                    if !matches!(cur, Value::Map(_)) {
                        *cur = Value::empty_map();
                    }
                    let entries = cur.map_entries_mut().expect("just made a map");
                    entries.entry(k.clone()).or_insert(Value::Nil)
                }
                Segment::Index(i) => {
                    if !matches!(cur, Value::List(_)) {
                        *cur = Value::list_from(Vec::new());
                    }
                    let items = cur.list_items_mut().expect("just made a list");
                    if items.len() <= *i {
                        items.resize(*i + 1, Value::Nil);
                    }
                    &mut items[*i]
                }
            };
        }
        *cur = value;
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Segment::Key(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Segment::Index(n) => write!(f, "[{}]", n)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display() {
        let p = Path::parse("a.b[0].c").unwrap();
        assert_eq!(p.0.len(), 4);
        assert_eq!(p.to_string(), "a.b[0].c");
        assert!(Path::parse("a..b").is_err());
        assert!(Path::parse("a[x]").is_err());
        assert_eq!(Path::parse("").unwrap().0.len(), 0);
    }

    #[test]
    fn set_then_lookup() {
        let mut root = Value::empty_map();
        let p = Path::parse("a.list[2].name").unwrap();
        p.set(&mut root, "x".into());
        assert_eq!(p.lookup(&root), Some(Value::from("x")));
        assert_eq!(
            root.to_string(),
            "map[a:map[list:[<nil> <nil> map[name:x]]]]"
        );
        assert_eq!(Path::parse("a.missing").unwrap().lookup(&root), None);
    }
}
