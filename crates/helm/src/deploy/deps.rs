//! `deps` (`helm dependency update` of local charts, helmfile's lock file of repository
//! charts) and `unittest` (the helm-unittest plugin per release with `unitTests:`).

use super::*;

impl StateRun<'_, '_> {
    /// `a.deps`: `helm dependency update` of each local chart, then the state's lock file
    /// (`helmfile.lock` beside `helmfile.yaml`): the repository charts its releases use,
    /// resolved by `helm dependency update` of a chart that depends on all of them.
    pub(super) fn deps(&self) -> Result<bool, Vec<StateFailure>> {
        let which: Vec<usize> = if self.rs.selected.is_empty() {
            return Ok(false);
        } else {
            self.rs.selected.clone()
        };
        self.c.helm.set_extra_args(self.extra_args());
        // The repositories first (unless --skip-repos), as helmfile: a local chart's
        // dependencies may come from them.
        if !self.o().skip_repos {
            self.sync_repos()?;
        }
        let mut errs = Vec::new();
        let mut wanted: Vec<(String, String, String)> = Vec::new();
        for &i in &which {
            let r = self.r(i);
            let chart = chart_for_helm(&self.ps.state.base, &r.chart);
            if self.c.settings.host.is_dir(std::path::Path::new(&chart)) {
                if let Err(e) = self.c.helm.update_deps(&chart) {
                    errs.push(StateFailure::release(r, e));
                }
                continue;
            }
            let Some((repo, name)) = r.chart.split_once('/') else {
                continue;
            };
            let Some(url) = self.repo_of(&r.chart).map(|t| str_of(&t, "url")) else {
                continue;
            };
            if url.is_empty() || url.starts_with("oci://") || name.contains('/') {
                let _ = repo;
                continue;
            }
            let version = if r.version.is_empty() {
                "*".to_string()
            } else {
                r.version.clone()
            };
            let entry = (name.to_string(), url, version);
            if !wanted.contains(&entry) {
                wanted.push(entry);
            }
        }
        if !errs.is_empty() {
            return Err(errs);
        }
        if wanted.is_empty() {
            return Ok(true);
        }
        let lock = crate::lock::resolve(self.c.helm, self.c.settings, &wanted)
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        let path = crate::lock::lock_path(&self.ps.state.file);
        self.c
            .settings
            .host
            .write_file(std::path::Path::new(&path), lock.as_bytes())
            .map_err(|e| vec![StateFailure::Plain(format!("writing {path}: {e}").into())])?;
        (self.c.log)(LogLevel::Info, &format!("Updated {path}"));
        Ok(true)
    }

    /// `a.unittest`: the helm-unittest plugin for each release with `unitTests:` (each
    /// entry a directory of `*_test.yaml` files).
    pub(super) fn unittest(&self) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        let rels = self.with_needs(false)?;
        self.prepare(&rels, "unittest")?;
        self.c.helm.set_extra_args(self.extra_args());
        let mut errs = Vec::new();
        let tested: Vec<usize> = rels.iter().copied().filter(|&i| self.desired(i)).collect();
        for &i in &tested {
            let r = self.r(i);
            let dirs = strings_of(&r.raw, "unitTests");
            if dirs.is_empty() {
                continue;
            }
            let files = match self.values_files(i) {
                Ok(f) => f,
                Err(e) => {
                    errs.push(e);
                    continue;
                }
            };
            let mut flags = match self.with_flags(i, &files, |src| src.namespace_and_values()) {
                Ok(f) => f,
                Err(e) => {
                    errs.push(StateFailure::Plain(e.0.into()));
                    continue;
                }
            };
            self.extra_values_and_set(&mut flags);
            if self.o().fail_fast {
                flags.push("--failfast".into());
            }
            // helm-unittest for Helm 4 has no --color.
            if self.o().color && self.c.helm.version().is_helm3() {
                flags.push("--color".into());
            }
            if self.o().debug_plugin {
                flags.push("--debugPlugin".into());
            }
            for d in dirs {
                flags.extend([
                    "--file".into(),
                    format!("{}/*_test.yaml", d.trim_end_matches('/')),
                ]);
            }
            let chart = chart_for_helm(&self.ps.state.base, &r.chart);
            if let Err(e) = self.c.helm.unittest(&r.name, &chart, &flags) {
                errs.push(StateFailure::release(r, e));
            }
        }
        self.cleanup(&tested, "unittest");
        if errs.is_empty() {
            Ok(true)
        } else {
            Err(errs)
        }
    }
}
