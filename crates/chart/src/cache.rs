//! Charts loaded once per run: releases of the same chart directory share one load
//! (files read, `Chart.yaml` and `values.yaml` decoded, subcharts unpacked). Each release
//! gets its own copy whose values and `Chart.yaml` document are deep copies, because
//! templates may change the maps they are given (`set`, `unset`) and values must never
//! leak from one release into another. Loads that fail are not kept (each release reports
//! its own error).

use crate::load::Chart;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Loaded charts by directory (as given) and loader (`true`: a directory of plain
/// manifests).
type Loaded = HashMap<(PathBuf, bool), Arc<Chart>>;

/// The charts of one run.
#[derive(Clone, Default)]
pub struct ChartCache(Arc<Mutex<Loaded>>);

impl std::fmt::Debug for ChartCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChartCache")
    }
}

impl ChartCache {
    /// The chart in `dir`: a detached copy of the one loaded before, else `load()`'s
    /// (kept for later releases when it succeeds). `load` runs without the lock held.
    pub(crate) fn get_or_load<E>(
        &self,
        dir: &Path,
        manifests: bool,
        load: impl FnOnce() -> Result<Chart, E>,
    ) -> Result<Chart, E> {
        let key = (dir.to_path_buf(), manifests);
        if let Some(chart) = self.0.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(chart.detached());
        }
        let chart = load()?;
        if let Ok(mut c) = self.0.lock() {
            c.entry(key).or_insert_with(|| Arc::new(chart.detached()));
        }
        Ok(chart)
    }
}

/// The chart in `chart_dir`: a directory of plain manifests (`manifests`) or a chart,
/// through the run's `cache` when there is one.
pub(crate) fn load_for(
    fs: &dyn crate::fs::ChartFs,
    chart_dir: &Path,
    manifests: bool,
    cache: Option<&ChartCache>,
) -> Result<Chart, crate::load::LoadError> {
    let load = || {
        if manifests {
            crate::load::load_manifest_dir_in(fs, chart_dir)
        } else {
            crate::load::load_dir_in(fs, chart_dir)
        }
    };
    match cache {
        Some(cache) => cache.get_or_load(chart_dir, manifests, load),
        None => load(),
    }
}

impl Chart {
    /// A copy sharing nothing mutable with `self`: values and the `Chart.yaml` document
    /// deep-copied, for this chart and every subchart.
    pub(crate) fn detached(&self) -> Chart {
        let deep = |m: &crate::model::Map| -> crate::model::Map {
            let mut copy = m.clone();
            for v in copy.values_mut() {
                *v = v.deep_copy();
            }
            copy
        };
        // Field by field: nothing is cloned only to be replaced.
        let m = &self.metadata;
        Chart {
            metadata: crate::model::Metadata {
                raw: deep(&m.raw),
                name: m.name.clone(),
                version: m.version.clone(),
                api_version: m.api_version.clone(),
                kube_version: m.kube_version.clone(),
                chart_type: m.chart_type.clone(),
                dependencies: m.dependencies.clone(),
            },
            values: deep(&self.values),
            values_text: self.values_text.clone(),
            defaults_layer: self.defaults_layer.clone(),
            dir: self.dir.clone(),
            schema: self.schema.clone(),
            templates: self.templates.clone(),
            files: self.files.clone(),
            files_value: self.files_value.clone(),
            dependencies: self.dependencies.iter().map(Chart::detached).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use capstan_value::Value;

    #[test]
    fn copies_share_no_values_and_failures_are_not_kept() {
        let cache = ChartCache::default();
        let mut first = Chart::default();
        let nested = Value::map_from(Default::default());
        first.values.insert("a".into(), nested);
        let loaded: Result<Chart, crate::load::LoadError> =
            cache.get_or_load(Path::new("c"), false, || Ok(first));
        let one = loaded.unwrap();
        let two: Chart = cache
            .get_or_load(Path::new("c"), false, || {
                Err::<Chart, String>("reloaded".into())
            })
            .unwrap();
        if let (Some(Value::Map(a)), Some(Value::Map(b))) =
            (one.values.get("a"), two.values.get("a"))
        {
            assert!(
                !Arc::ptr_eq(a, b),
                "a release's copy shares a map with another's"
            );
        } else {
            panic!("values lost");
        }
        let failed: Result<Chart, crate::load::LoadError> =
            cache.get_or_load(Path::new("d"), false, || {
                Err(crate::load::LoadError::new("bad"))
            });
        assert!(failed.is_err());
        let again: Result<Chart, crate::load::LoadError> =
            cache.get_or_load(Path::new("d"), false, || Ok(Chart::default()));
        assert!(again.is_ok(), "a failed load is tried again");
    }
}
