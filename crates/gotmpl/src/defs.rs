//! The named templates of a set: a part shared by every copy of the set (what the chart's
//! files define, parsed once) and the part a copy added itself (what `tpl` parses into
//! its copy), so that copying a set of hundreds of templates costs a reference count.

use crate::TemplateDef;
use std::collections::HashMap;
use std::sync::Arc;

type Named = HashMap<String, Arc<TemplateDef>>;

#[derive(Clone, Default)]
pub(crate) struct Defs {
    /// Shared by the copies; changed only while no copy holds it.
    shared: Arc<Named>,
    /// Added to this copy since it was made (or since [`Defs::settle`]).
    own: Named,
}

impl Defs {
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<TemplateDef>> {
        self.own.get(name).or_else(|| self.shared.get(name))
    }

    pub(crate) fn insert(&mut self, name: String, def: Arc<TemplateDef>) {
        self.own.insert(name, def);
    }

    /// Every name once.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &String> {
        self.own
            .keys()
            .chain(self.shared.keys().filter(|k| !self.own.contains_key(*k)))
    }

    /// Moves this copy's own templates into the shared part when no other copy holds it
    /// (a set about to be copied for every render; a copy leaves the shared part alone).
    pub(crate) fn settle(&mut self) {
        if self.own.is_empty() {
            return;
        }
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.extend(self.own.drain());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def() -> Arc<TemplateDef> {
        Arc::new(TemplateDef {
            root: Vec::new(),
            text: crate::Source::Text(Arc::from("")),
            parse_name: String::new(),
        })
    }

    #[test]
    fn a_copy_adds_and_replaces_without_changing_the_original() {
        let mut set = Defs::default();
        set.insert("a".into(), def());
        set.insert("b".into(), def());
        set.settle();
        let mut copy = set.clone();
        let replaced = def();
        copy.insert("a".into(), replaced.clone());
        copy.insert("c".into(), def());
        copy.settle();
        assert!(Arc::ptr_eq(copy.get("a").unwrap(), &replaced));
        assert!(!Arc::ptr_eq(set.get("a").unwrap(), &replaced));
        assert!(set.get("c").is_none());
        let mut names: Vec<&String> = copy.keys().collect();
        names.sort();
        assert_eq!(names, ["a", "b", "c"]);
    }
}
