//! The value layers of one chart render, for `capstan chart values --explain` and the
//! trap warnings: every chart's `values.yaml` at its place in the tree (deepest lowest),
//! then the user's `-f` files and flag expressions in Helm's order. Also the warnings
//! that need the chart: numbers that will print differently than written, and values
//! for a subchart that never reach it.

use crate::dependencies::process_dependencies;
use crate::fs::ChartFs;
use crate::model::{Chart, DefaultsError, DefaultsLayer};
use crate::options::{TemplateError, TemplateOptions};
use capstan_value::Str;
use capstan_values::provenance::{Layer, Trap};
use capstan_values::{merge_set_json, parse_into, Flag};
use std::collections::BTreeMap;
use std::path::Path;

/// The layers, lowest priority first, and the index of the first user layer.
pub struct Layers {
    /// Every layer: the charts' defaults, then the user's.
    pub layers: Vec<Layer>,
    /// The index of the first user layer in `layers`.
    pub user_from: usize,
    /// Warnings found while reading the user's layers (values files, flags).
    pub warnings: Vec<Trap>,
    /// Warnings found in the charts' own `values.yaml` files: the chart author's to fix,
    /// shown by the commands that render one chart (`capstan chart`).
    pub chart_warnings: Vec<Trap>,
}

impl DefaultsLayer {
    /// Adds this file's number traps, under `prefix`, to `warnings`.
    fn warn_traps(&self, label: &str, prefix: &[Str], warnings: &mut Vec<Trap>) {
        for t in &self.traps {
            let mut full: Vec<capstan_value::Segment> = prefix
                .iter()
                .cloned()
                .map(capstan_value::Segment::Key)
                .collect();
            full.extend(t.path.0.iter().cloned());
            warnings.push(Trap {
                path: capstan_value::Path(full),
                message: format!(
                    "{label}:{}:{}: {} is read as a number and prints as {}; quote it to keep it as written",
                    t.span.start.line, t.span.start.column, t.written, t.printed
                ),
            });
        }
    }

    /// The layer named `label` under `prefix` (the values move into it), its traps added
    /// to `warnings`.
    fn into_layer(
        self,
        label: String,
        kind: String,
        prefix: Vec<Str>,
        warnings: &mut Vec<Trap>,
    ) -> Layer {
        self.warn_traps(&label, &prefix, warnings);
        Layer {
            label,
            kind,
            prefix,
            values: self.values,
            spans: self.spans,
            origins: BTreeMap::new(),
        }
    }
}

/// A chart's `values.yaml` that could not be read, as `helm template` reports it.
fn values_error(e: DefaultsError) -> TemplateError {
    let err = TemplateError::values(e.message);
    match e.pos {
        Some((line, column)) => err.at(e.file.into(), line, column),
        None => err,
    }
}

fn yaml_layer(
    label: String,
    kind: String,
    prefix: Vec<Str>,
    text: &str,
    warnings: &mut Vec<Trap>,
) -> Result<Layer, TemplateError> {
    Ok(DefaultsLayer::read(&label, text)
        .map_err(values_error)?
        .into_layer(label, kind, prefix, warnings))
}

fn chart_layers(
    c: &Chart,
    dir: &str,
    prefix: Vec<Str>,
    depth: usize,
    out: &mut Vec<(usize, Layer)>,
    warnings: &mut Vec<Trap>,
) -> Result<(), TemplateError> {
    let kind = if prefix.is_empty() {
        "chart defaults".to_string()
    } else {
        format!("subchart {} defaults", c.name())
    };
    let label = format!("{dir}/values.yaml");
    // The chart's copies share what reading its `values.yaml` found (it is the same file).
    let read = match c.defaults_layer.get() {
        Some(read) => read,
        None => {
            let read = DefaultsLayer::read(&label, &c.values_text).map_err(values_error)?;
            c.defaults_layer.get_or_init(|| read)
        }
    };
    // The chart's read is shared by its copies: each layer takes a copy of it.
    out.push((
        depth,
        read.clone()
            .into_layer(label, kind, prefix.clone(), warnings),
    ));
    for d in &c.dependencies {
        let mut p = prefix.clone();
        p.push(Str::from(d.name()));
        chart_layers(
            d,
            &format!("{dir}/charts/{}", d.dir),
            p,
            depth + 1,
            out,
            warnings,
        )?;
    }
    Ok(())
}

/// The layers of rendering `chart_dir` with `o`'s value flags, reading through `fs`, with
/// `o`'s in-memory values files (`overlay`) and extra dependencies (helmfile's release
/// `dependencies:`).
pub fn layers_in(
    fs: &dyn ChartFs,
    chart_dir: &Path,
    cwd: &Path,
    o: &TemplateOptions,
) -> Result<Layers, TemplateError> {
    let read = |p: &str| o.values_file(fs, cwd, p);
    let user = o.values.merge(&read).map_err(TemplateError::values)?;
    let mut raw =
        crate::cache::load_for(fs, chart_dir, o.patches.manifests, o.chart_cache.as_ref())
            .map_err(TemplateError::load)?;
    if let Some(b) = &o.dependency_builder {
        crate::dependencies::build_missing(&mut raw, chart_dir, b)
            .map_err(TemplateError::dependencies)?;
    }
    for (dep, sub) in &o.extra_dependencies {
        raw.metadata.dependencies.push(dep.clone());
        raw.dependencies.push(sub.clone());
    }
    let mut chart = raw.clone();
    process_dependencies(&mut chart, &user).map_err(TemplateError::dependencies)?;
    layers_of(&raw, &chart, chart_dir, cwd, fs, o, None)
}

/// The layers of the user's `-f` files (each read once: its values, positions and number
/// traps) and the traps found in them.
pub(crate) type FileLayers = (Vec<Layer>, Vec<Trap>);

/// [`FileLayers`] of `o`'s values files.
pub(crate) fn file_layers(
    fs: &dyn ChartFs,
    cwd: &Path,
    o: &TemplateOptions,
) -> Result<FileLayers, TemplateError> {
    let mut warnings = Vec::new();
    let mut layers = Vec::new();
    for f in &o.values.files {
        let bytes = o.values_file(fs, cwd, f).map_err(TemplateError::values)?;
        // Helm refuses a file that is not UTF-8 (the merge says so in its words).
        let text = capstan_yaml::yaml_documents_text(&bytes)
            .map_err(|e| TemplateError::values(format!("{f}: {e}")))?;
        layers.push(yaml_layer(
            f.clone(),
            "-f".into(),
            Vec::new(),
            text,
            &mut warnings,
        )?);
    }
    Ok((layers, warnings))
}

/// The layers of a chart already loaded (`raw`, its dependencies built) and processed for
/// the user's values (`chart`: conditions, tags, aliases, import-values applied); `files`
/// when the `-f` files were read already.
pub(crate) fn layers_of(
    raw: &crate::load::Chart,
    chart: &crate::load::Chart,
    chart_dir: &Path,
    cwd: &Path,
    fs: &dyn ChartFs,
    o: &TemplateOptions,
    files: Option<FileLayers>,
) -> Result<Layers, TemplateError> {
    let read = |p: &str| o.values_file(fs, cwd, p);
    let (files, mut warnings) = match files {
        Some(f) => f,
        None => file_layers(fs, cwd, o).map_err(TemplateError::values)?,
    };
    let mut chart_warnings = Vec::new();
    let mut tree = Vec::new();
    chart_layers(
        chart,
        &chart_dir.display().to_string(),
        Vec::new(),
        0,
        &mut tree,
        &mut chart_warnings,
    )?;
    tree.sort_by_key(|t| std::cmp::Reverse(t.0));
    // What `import-values` copies up sits below every chart's own values (a parent's
    // values win over what it imports).
    let mut layers: Vec<Layer> = import_layers(chart, &chart_dir.display().to_string());
    layers.extend(tree.into_iter().map(|(_, l)| l));
    let user_from = layers.len();
    layers.extend(files);
    let mut flag_layer = |flag: Option<Flag>,
                          name: &str,
                          expr: &str|
     -> Result<(), TemplateError> {
        let mut m = BTreeMap::new();
        match flag {
            None => merge_set_json(expr, &mut m).map_err(TemplateError::values)?,
            Some(f) => parse_into(expr, f, &mut m, Some(&read)).map_err(TemplateError::values)?,
        }
        layers.push(Layer {
            label: format!("{name} {expr}"),
            kind: name.to_string(),
            prefix: Vec::new(),
            values: m,
            spans: None,
            origins: BTreeMap::new(),
        });
        Ok(())
    };
    for e in &o.values.set_json {
        flag_layer(None, "--set-json", e)?;
    }
    for (flag, exprs, name) in [
        (Flag::Set, &o.values.set, "--set"),
        (Flag::SetString, &o.values.set_string, "--set-string"),
        (Flag::SetFile, &o.values.set_file, "--set-file"),
        (Flag::SetLiteral, &o.values.set_literal, "--set-literal"),
    ] {
        for e in exprs {
            flag_layer(Some(flag), name, e)?;
        }
    }
    unreachable_subchart_values(raw, chart, &layers[user_from..], &mut warnings);
    Ok(Layers {
        layers,
        user_from,
        warnings,
        chart_warnings,
    })
}

/// A layer per `import-values` entry of `chart`'s dependencies (not deeper: a
/// subchart's own imports are in its values already): the dependency's values at the
/// child path, placed at the parent path, positioned by the dependency's `values.yaml`
/// where it writes them.
fn import_layers(chart: &Chart, dir: &str) -> Vec<Layer> {
    crate::dependencies::imports(chart)
        .into_iter()
        .map(|i| {
            let sub = chart.dependencies.iter().find(|d| d.name() == i.dependency);
            let child = capstan_value::Path(
                i.child
                    .split('.')
                    .filter(|k| !k.is_empty())
                    .map(|k| capstan_value::Segment::Key(Str::from(k)))
                    .collect(),
            );
            let spans = sub
                .and_then(|d| d.defaults_layer.get())
                .and_then(|l| l.spans.as_ref())
                .and_then(|t| t.at(&child))
                .map(|t| std::sync::Arc::new(t.clone()));
            let sub_dir = sub.map_or(i.dependency.as_str(), |d| d.dir.as_str());
            Layer {
                label: format!("{dir}/charts/{sub_dir}/values.yaml"),
                kind: format!("import-values from {} ({})", i.dependency, i.child),
                prefix: i
                    .parent
                    .split('.')
                    .filter(|k| !k.is_empty())
                    .map(Str::from)
                    .collect(),
                values: i.values,
                spans,
                origins: BTreeMap::new(),
            }
        })
        .collect()
}

/// Values under a subchart's chart name when the parent knows it by an alias, or under a
/// subchart that is disabled: neither reaches the subchart.
fn unreachable_subchart_values(
    raw: &Chart,
    processed: &Chart,
    user: &[Layer],
    warnings: &mut Vec<Trap>,
) {
    let used: Vec<&str> = processed.dependencies.iter().map(|d| d.name()).collect();
    for dep in &raw.metadata.dependencies {
        let reason = if !dep.alias.is_empty() && !used.contains(&dep.name.as_str()) {
            Some((dep.name.clone(), format!("the subchart is used under its alias {:?}, so values under {:?} never reach it", dep.alias, dep.name)))
        } else {
            let name = if dep.alias.is_empty() {
                &dep.name
            } else {
                &dep.alias
            };
            (!used.contains(&name.as_str())).then(|| (name.clone(), format!("subchart {name:?} is disabled (condition or tags), so these values are not used")))
        };
        let Some((key, message)) = reason else {
            continue;
        };
        for l in user {
            let only_switch = l
                .values
                .get(key.as_str())
                .and_then(|v| v.as_map())
                .is_some_and(|m| m.snapshot().keys().all(|k| &**k == "enabled"));
            if l.values.contains_key(key.as_str()) && !only_switch {
                warnings.push(Trap {
                    path: capstan_value::Path(vec![capstan_value::Segment::Key(Str::from(
                        key.as_str(),
                    ))]),
                    message: format!("{}: {message}", l.label),
                });
            }
        }
    }
}
