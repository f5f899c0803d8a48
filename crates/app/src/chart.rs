//! `capstan chart template` and `capstan chart values`: one chart rendered in-process as
//! `helm template` renders it, without a state file, and its final `.Values` (with their
//! layers); the value traps found are logged as warnings, errors under `strict`.

use crate::Failure;
use capstan_chart::TemplateOptions;
use capstan_values::provenance::{self, Explained, Trap};
use std::path::{Path, PathBuf};

type Values = std::collections::BTreeMap<capstan_value::Str, capstan_value::Value>;

/// What `chart template` and `chart values` are asked for.
pub struct ChartRequest {
    /// The chart directory or archive.
    pub chart: PathBuf,
    /// Helm's render options (release name, namespace, value flags…).
    pub options: TemplateOptions,
    /// Value traps are errors.
    pub strict: bool,
}

/// Renders the chart: the manifests as `helm template` prints them, only those of the
/// `show_only` templates when given; with `debug`, a manifest that is not YAML fails
/// with every rendered file on standard output first.
pub fn template(
    request: &ChartRequest,
    cwd: &Path,
    show_only: &[String],
    debug: bool,
    log: &mut String,
) -> Result<String, Failure> {
    let (r, layers) = capstan_chart::template::template_with_layers(
        &capstan_chart::fs::OsFs,
        &request.chart,
        cwd,
        &request.options,
    )
    .map_err(|e| Failure {
        stdout: if debug {
            e.rendered.clone().unwrap_or_default()
        } else {
            String::new()
        },
        ..Failure::from(e)
    })?;
    warn(&traps(&layers), request.strict, log)?;
    if show_only.is_empty() {
        Ok(r.manifest)
    } else {
        Ok(capstan_chart::manifests::show_only(&r.manifest, show_only)?)
    }
}

/// The chart's final values, their leaves with the layers that set them, and the traps.
pub struct ChartValues {
    /// What the templates see as `.Values`.
    pub values: Values,
    /// Every leaf with its layers.
    pub leaves: Vec<Explained>,
    /// The value traps found.
    pub traps: Vec<Trap>,
}

/// The chart's final values (a post-renderer changes only the output: it is not run).
pub fn values(request: ChartRequest, cwd: &Path, log: &mut String) -> Result<ChartValues, Failure> {
    let mut options = request.options;
    options.post_renderer = None;
    let (r, layers) = capstan_chart::template::template_with_layers(
        &capstan_chart::fs::OsFs,
        &request.chart,
        cwd,
        &options,
    )?;
    let traps = traps(&layers);
    warn(&traps, request.strict, log)?;
    Ok(ChartValues {
        leaves: provenance::explain(&r.values, &layers.layers),
        values: r.values,
        traps,
    })
}

/// The value traps of a render: those found reading the charts' and the user's layers,
/// then those the user's layers set.
fn traps(layers: &capstan_chart::explain::Layers) -> Vec<Trap> {
    let mut traps = layers.chart_warnings.clone();
    traps.extend(layers.warnings.iter().cloned());
    traps.extend(provenance::traps(&layers.layers, layers.user_from));
    traps
}

/// Logs the traps as warnings; with `strict`, any warning is an error.
fn warn(traps: &[Trap], strict: bool, log: &mut String) -> Result<(), Failure> {
    for t in traps {
        logln!(log, "warning: {}: {}", t.path, t.message);
    }
    if strict && !traps.is_empty() {
        return Err(format!("{} warning(s) and --strict is set", traps.len()).into());
    }
    Ok(())
}
