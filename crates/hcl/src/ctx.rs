//! The variables an HCL expression sees (`hv`, `local`, and a `for` expression's own).

use crate::value::Value;
use std::collections::BTreeMap;

/// Variables in scope.
#[derive(Clone, Default)]
pub struct Ctx {
    pub vars: BTreeMap<String, Value>,
}

impl Ctx {
    pub(crate) fn with(&self, bindings: &[(&str, Value)]) -> Ctx {
        let mut c = self.clone();
        for (k, v) in bindings {
            c.vars.insert(k.to_string(), v.clone());
        }
        c
    }
}
