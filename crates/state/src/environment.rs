//! An environment as helmfile keeps it (`environment.Environment`): its name and kube
//! context, and its values in three layers — `defaults` (root `values:`), `values`
//! (environment values, secrets and `--state-values-file`) and `cli`
//! (`--state-values-set`) — merged only when read ([`Environment::merged_values`]).

use crate::merge::{merge_maps, ArrayMerge, Tree};
use capstan_value::Value;
use std::collections::BTreeMap;

/// The environment helmfile uses when none is given.
pub const DEFAULT_ENV: &str = "default";

/// An environment of a state file: its name, kube context and values layers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Environment {
    /// The environment's name (`-e`).
    pub name: String,
    /// `kubeContext:` of the environment.
    pub kube_context: String,
    /// The merged `values:` of the environment (and its secrets).
    pub values: Tree,
    /// The state's `values:` (helmfile's defaults layer, below the environment's).
    pub defaults: Tree,
    /// `--state-values-set`/`--state-values-file`, over everything.
    pub cli: Tree,
}

impl Environment {
    /// An environment named `name` with no values.
    pub fn new(name: &str) -> Environment {
        Environment {
            name: name.to_string(),
            ..Default::default()
        }
    }

    /// How helmfile's `--debug` log prints it (Go's `%v` of `&Environment{}`): name,
    /// kube context, values, defaults.
    pub fn go_text(&self) -> String {
        format!(
            "&{{{} {} {} {}}}",
            self.name,
            self.kube_context,
            Value::map_from(self.values.clone()),
            Value::map_from(self.defaults.clone())
        )
    }

    /// `Environment.Merge`: `other` over `self`.
    pub fn merge(&self, other: Option<&Environment>) -> Environment {
        let mut out = self.clone();
        if let Some(o) = other {
            if !o.name.is_empty() {
                out.name = o.name.clone();
            }
            if !o.kube_context.is_empty() {
                out.kube_context = o.kube_context.clone();
            }
            out.values = merge_maps(&out.values, &o.values, ArrayMerge::Sparse);
            out.defaults = merge_maps(&out.defaults, &o.defaults, ArrayMerge::Sparse);
            out.cli = merge_maps(&out.cli, &o.cli, ArrayMerge::ByIndex);
        }
        out
    }

    /// `GetMergedValues`: defaults < values < CLI values (`.Values` in templates).
    pub fn merged_values(&self) -> Tree {
        let v = merge_maps(&Tree::new(), &self.defaults, ArrayMerge::Sparse);
        let v = merge_maps(&v, &self.values, ArrayMerge::Sparse);
        merge_maps(&v, &self.cli, ArrayMerge::ByIndex)
    }

    /// The value templates see as `.Environment`.
    pub(crate) fn template_value(&self) -> Value {
        use capstan_value::static_str;
        Value::map_from(BTreeMap::from([
            (
                static_str!("KubeContext"),
                Value::from(self.kube_context.as_str()),
            ),
            (static_str!("Name"), Value::from(self.name.as_str())),
            (static_str!("Values"), Value::map_from(self.values.clone())),
        ]))
    }

    /// helmfile's `EnvironmentTemplateData`: `.Environment`, `.Namespace`, `.Values` and
    /// `.StateValues`.
    pub(crate) fn template_data(&self, namespace: &str, values: &Tree) -> Value {
        use capstan_value::static_str;
        let v = Value::map_from(values.clone());
        Value::map_from(BTreeMap::from([
            (static_str!("Environment"), self.template_value()),
            (static_str!("Namespace"), Value::from(namespace)),
            (static_str!("StateValues"), v.clone()),
            (static_str!("Values"), v),
        ]))
    }
}
