//! `values`: each release's final values with their layers, and a release's user values
//! with their origins (for `diff --show-values`).

use crate::app::PreparedState;
use crate::commands::env::explain_env;
use crate::commands::template::parallel_map;
use crate::load::Settings;
use crate::merge::Tree;
use crate::release::Release;
use crate::release_values::{chart_input, HelmFlags};
use crate::StateError;
use std::collections::BTreeMap;
use std::path::Path;

/// One release's final values and where each came from.
pub struct ExplainedRelease {
    /// The release's name.
    pub name: String,
    /// helmfile's ID of the release (`[KUBECONTEXT/][NAMESPACE/]NAME`): unique among the
    /// releases of a run where the name alone is not.
    pub id: String,
    /// The namespace it is rendered in.
    pub namespace: String,
    /// The chart as the release names it.
    pub chart: String,
    /// The coalesced `.Values` the chart's templates see.
    pub values: Tree,
    /// The layers (chart defaults, subchart defaults, the release's values files,
    /// inline values, secrets, `set`), lowest first.
    pub layers: capstan_chart::explain::Layers,
    /// Every leaf of `values` with its layers and, for a value a values template wrote,
    /// the chain back to the environment value it read (when the environment layers were
    /// recorded: [`Settings::env_journal`]).
    pub leaves: Vec<capstan_values::provenance::Explained>,
    /// The traps in these values: the layers' warnings, lists replaced whole, `null`s
    /// that delete a default.
    pub traps: Vec<capstan_values::provenance::Trap>,
}

/// `values`: the final values of every active release with their layers, for charts
/// capstan renders itself (a chart only helm can render is an error naming it). Each
/// release is handed to `keep` on the thread that explained it (to format what the caller
/// prints of it, say), and only what `keep` returns stays in memory; the results are in
/// the states' order. `explained(finished, total)` follows the progress.
pub fn explain_values<R: Send>(
    s: &Settings,
    states: &[PreparedState],
    flags: &HelmFlags,
    keep: &(dyn Fn(ExplainedRelease) -> Result<R, StateError> + Sync),
    explained: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<R>, StateError> {
    let mut jobs: Vec<(&PreparedState, &Release)> = Vec::new();
    for ps in states {
        for r in ps.active()? {
            jobs.push((ps, r));
        }
    }
    let envs = explain_env(s, states);
    let chains: Vec<(&str, crate::template_chain::Chains)> = envs
        .iter()
        .map(|e| {
            (
                e.file.as_str(),
                crate::template_chain::Chains::new(s.host.as_ref(), &e.leaves),
            )
        })
        .collect();
    let no_env = crate::template_chain::Chains::new(s.host.as_ref(), &[]);
    let explain = |(ps, r): &(&PreparedState, &Release)| -> Result<R, StateError> {
        let fail = |e: StateError| e.context(format_args!("release \"{}\"", r.name));
        let mut input = chart_input(s, ps, r, flags).map_err(fail)?;
        if !input.local {
            return Err(fail(StateError::new(format!(
                "chart {:?} is not a local chart: its values need helm",
                r.chart
            ))));
        }
        input.options.post_renderer = None;
        let fs = crate::host::HostFs(s.host.as_ref());
        let chart = Path::new(&input.chart);
        let (values, layers) =
            capstan_chart::template::values_and_layers(&fs, chart, Path::new(""), &input.options)
                .map_err(|e| fail(e.into()))?;
        let mut leaves = capstan_values::provenance::explain(&values, &layers.layers);
        let chain = chains
            .iter()
            .find(|(file, _)| *file == ps.state.file)
            .map_or(&no_env, |(_, c)| c);
        chain.follow(&mut leaves);
        chain.locate_inline(&mut leaves);
        chain.locate_set(&ps.state.file, &ps.state.base, r, &mut leaves);
        let traps = crate::commands::template::release_traps(s, ps, r, &layers, Some(chain));
        keep(ExplainedRelease {
            name: r.name.clone(),
            id: r.id(),
            namespace: input.options.namespace.clone(),
            chart: r.chart.clone(),
            values,
            layers,
            leaves,
            traps,
        })
        .map_err(fail)
    };
    // Releases in parallel (their values templates and charts are independent), results in
    // the state's order; the first failing release (in that order) is the error.
    parallel_map(&jobs, 0, explain, explained)
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("a values thread stopped".into())))
        .collect()
}

/// For each leaf path of a release's values (`a.b[0]`), where it came from.
pub type ValueOrigins = BTreeMap<String, String>;

/// A release's user-supplied values (what helm records as the release's values: the
/// release's values files, inline values, secrets and `set:` merged, chart defaults
/// left out) and, for each leaf (`a.b[0]`), where it came from (`file:line:col` or the
/// flag).
pub fn user_values_explained(
    s: &Settings,
    ps: &PreparedState,
    r: &Release,
) -> Result<(Tree, ValueOrigins), StateError> {
    let input = chart_input(s, ps, r, &HelmFlags::default())
        .map_err(|e| e.context(format_args!("release \"{}\"", r.name)))?;
    let fs = crate::host::HostFs(s.host.as_ref());
    let read = |p: &str| match input.options.overlay.get(p) {
        Some(bytes) => Ok(bytes.clone()),
        None => s
            .host
            .read_file(Path::new(p))
            .map_err(|e| capstan_values::ReadError(format!("open {p}: {e}"))),
    };
    let user = input.options.values.merge(&read).map_err(|e| e.message)?;
    let origins = if input.local {
        let layers = capstan_chart::explain::layers_in(
            &fs,
            Path::new(&input.chart),
            Path::new(""),
            &input.options,
        )?;
        let mut leaves =
            capstan_values::provenance::explain(&user, &layers.layers[layers.user_from..]);
        // A value a template wrote from the environment (`{{ .Values.x }}`) comes from
        // the layer that set the environment value (`--state-values-set`, a values
        // file…): follow the chain, and name inline values by their source lines.
        let env = explain_env(s, std::slice::from_ref(ps));
        let env_leaves = env.first().map_or(&[][..], |e| &e.leaves[..]);
        let chains = crate::template_chain::Chains::new(s.host.as_ref(), env_leaves);
        chains.follow(&mut leaves);
        chains.locate_inline(&mut leaves);
        leaves
            .into_iter()
            .filter_map(|e| {
                let w = e.winner?;
                let here = format!("{} ({})", w.origin, w.kind);
                let origin = match e.through.last() {
                    Some(root) if !root.starts_with("computed in ") && e.through.len() > 1 => {
                        format!("{root}, through {here}")
                    }
                    _ => here,
                };
                Some((e.path.to_string(), origin))
            })
            .collect()
    } else {
        BTreeMap::new()
    };
    Ok((user, origins))
}
