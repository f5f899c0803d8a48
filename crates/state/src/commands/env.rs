//! `print-env`: an environment's values per state file, and every value with its layers.

use crate::app::PreparedState;
use crate::commands::template::absolute;
use crate::load::Settings;
use crate::StateError;
use capstan_value::json::{to_json, JsonStyle};
use capstan_value::{Str, Value};
use std::collections::BTreeMap;

/// One state file's environment values, explained (`print-env --explain`).
pub struct ExplainedEnv {
    /// The state file.
    pub file: String,
    /// The environment's name.
    pub environment: String,
    /// Every leaf of its values, with the layer that set it and the ones it overrode.
    pub leaves: Vec<capstan_values::provenance::Explained>,
}

/// Explains the environment values of each state from the layers recorded while loading
/// (`s.env_journal` must have been set before the states were loaded).
pub fn explain_env(s: &Settings, states: &[PreparedState]) -> Vec<ExplainedEnv> {
    let journal = s
        .env_journal
        .as_ref()
        .and_then(|j| j.lock().ok().map(|j| j.clone()))
        .unwrap_or_default();
    states
        .iter()
        .map(|ps| {
            // A file is loaded again for each `---` part: its last recording holds what
            // was merged last.
            let mut kept: Vec<&crate::envvals::EnvLayer> = Vec::new();
            for l in journal
                .iter()
                .filter(|l| l.state_file.is_empty() || l.state_file == ps.state.file)
            {
                kept.retain(|k| (k.tier, &k.kind, &k.label) != (l.tier, &l.kind, &l.label));
                kept.push(l);
            }
            kept.sort_by_key(|l| l.tier);
            let layers: Vec<capstan_values::provenance::Layer> = kept
                .into_iter()
                .map(|l| capstan_values::provenance::Layer {
                    label: l.label.clone(),
                    kind: l.kind.clone(),
                    prefix: Vec::new(),
                    values: l.values.clone(),
                    spans: l.spans.clone(),
                    origins: l.origins.clone(),
                })
                .collect();
            let mut leaves = capstan_values::provenance::explain(&ps.state.values, &layers);
            // Inline values at their source lines first: the chains then name them so.
            crate::template_chain::Chains::new(s.host.as_ref(), &[]).locate_inline(&mut leaves);
            let lookup = leaves.clone();
            crate::template_chain::Chains::new(s.host.as_ref(), &lookup).follow(&mut leaves);
            ExplainedEnv {
                file: ps.state.file.clone(),
                environment: ps.state.env.name.clone(),
                leaves,
            }
        })
        .collect()
}

/// `print-env` documents.
pub fn print_env(s: &Settings, states: &[PreparedState], json: bool) -> Result<String, StateError> {
    let mut docs = Vec::new();
    for ps in states {
        let mut m = BTreeMap::new();
        let abs = absolute(&s.root, &ps.state.file);
        m.insert(
            Str::from("filePath"),
            Value::from(abs.to_string_lossy().into_owned()),
        );
        m.insert(Str::from("name"), Value::from(ps.state.env.name.as_str()));
        // helmfile v1.7 leaves an empty kubeContext out.
        if !ps.state.env.kube_context.is_empty() {
            m.insert(
                Str::from("kubeContext"),
                Value::from(ps.state.env.kube_context.as_str()),
            );
        }
        m.insert(
            Str::from("values"),
            Value::map_from(ps.state.values.clone()),
        );
        docs.push(Value::map_from(m));
    }
    if json {
        let mut out = String::from("[\n");
        for (i, d) in docs.iter().enumerate() {
            if i > 0 {
                out.push_str(",\n");
            }
            let text = to_json(
                d,
                JsonStyle {
                    escape_html: true,
                    indent: Some("  "),
                },
            )?;
            out.push_str("  ");
            out.push_str(&text.replace('\n', "\n  "));
        }
        out.push_str("\n]\n");
        return Ok(out);
    }
    let mut out = String::new();
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&capstan_yaml::encode_helmfile(d).map_err(|e| e.to_string())?);
    }
    Ok(out)
}
