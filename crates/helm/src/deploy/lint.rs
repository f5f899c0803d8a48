//! `lint`: `helm lint` of each release's chart with its values; repository charts fetched
//! into a private directory first.

use super::*;

impl StateRun<'_, '_> {
    /// `a.lint`: lint errors (deferred) and other errors.
    pub(super) fn lint(&self) -> Result<(bool, Vec<String>), Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok((false, Vec::new()));
        }
        let rels = self.with_needs(false)?;
        self.prepare(&rels, "lint")?;
        self.c.helm.set_extra_args(self.extra_args());
        let mut errs = Vec::new();
        let mut deferred = Vec::new();
        let linted: Vec<usize> = rels.iter().copied().filter(|&i| self.desired(i)).collect();
        // helmfile prepares charts first: the repositories are added, a repository's
        // chart is fetched into a directory (`helm lint` takes only a path), and a local
        // chart's dependencies are built, so `helm lint` lints its subcharts too.
        if !self.o().skip_repos {
            self.sync_repos()?;
        }
        let fetched = LintCharts::new(self.c.settings.host.as_ref());
        let mut charts = Vec::new();
        for &i in &linted {
            match self.lint_chart(i, &fetched) {
                Ok(c) => charts.push(c),
                Err(e) => return Err(vec![e]),
            }
        }
        let built = self.build_dependencies(&linted);
        if !built.is_empty() {
            return Err(built);
        }
        for (i, chart) in linted.iter().copied().zip(charts) {
            let files = match self.values_files(i) {
                Ok(f) => f,
                Err(e) => {
                    errs.push(e);
                    continue;
                }
            };
            let mut flags = match self.with_flags(i, &files, |src| src.lint_flags()) {
                Ok(f) => f,
                Err(e) => {
                    errs.push(StateFailure::Plain(e.0.into()));
                    continue;
                }
            };
            self.extra_values_and_set(&mut flags);
            if errs.is_empty() {
                let r = self.r(i);
                if let Err(e) = self.c.helm.lint(&r.name, &chart, &flags) {
                    match e.exit_code {
                        Some(c) if c > 0 => deferred.push(e.message),
                        _ => errs.push(StateFailure::Plain(e.message.into())),
                    }
                }
            }
        }
        self.cleanup(&linted, "lint");
        if errs.is_empty() {
            Ok((true, deferred))
        } else {
            Err(errs)
        }
    }

    /// The chart `helm lint` is given for release `i`: a local chart's directory, an OCI
    /// chart's pulled archive, or a repository's chart fetched by helm as helmfile does
    /// (`helm fetch CHART [--version V] [--devel] --untar --untardir
    /// TMP/[NAMESPACE/]NAME/CHART/VERSION`, then `…/BASENAME`).
    fn lint_chart(&self, i: usize, fetched: &LintCharts) -> Result<String, StateFailure> {
        let r = self.r(i);
        let local = self.prepared_chart(r);
        let oci = self
            .repo_of(&r.chart)
            .is_some_and(|t| bool_of(&t, "oci") == Some(true));
        if self.c.settings.host.is_dir(std::path::Path::new(&local))
            || oci
            || r.chart.contains("://")
            || !r.chart.contains('/')
        {
            return if oci { self.chart_arg(r) } else { Ok(local) };
        }
        let version = str_of(&r.raw, "version");
        let mut dir = fetched.dir().map_err(|e| StateFailure::Release {
            name: r.name.clone(),
            message: format!("making a directory for the chart: {e}"),
            code: 0,
        })?;
        // Each part a plain name: nothing in the state may lead helm outside the
        // private directory.
        let parts = [
            r.namespace.as_str(),
            &r.name,
            &r.chart,
            if version.is_empty() {
                "latest"
            } else {
                &version
            },
        ];
        for part in parts
            .iter()
            .flat_map(|p| p.split('/'))
            .filter(|p| !p.is_empty())
        {
            dir.push(if part == ".." || part == "." {
                "_"
            } else {
                part
            });
        }
        let mut flags = Vec::new();
        if !version.is_empty() {
            flags.extend(["--version".into(), version.clone()]);
        }
        if bool_of(&r.raw, "devel") == Some(true) {
            flags.push("--devel".into());
        }
        flags.extend([
            "--untar".into(),
            "--untardir".into(),
            dir.display().to_string(),
        ]);
        self.c
            .helm
            .fetch_chart(&r.chart, &flags)
            .map_err(|e| StateFailure::release(r, e))?;
        let base = r.chart.rsplit('/').next().unwrap_or(&r.chart);
        Ok(dir.join(base).display().to_string())
    }
}

/// The private directory `lint` fetches repository charts into: made on first use,
/// removed when dropped.
struct LintCharts<'h> {
    host: &'h dyn capstan_state::host::Host,
    dir: std::sync::Mutex<Option<std::path::PathBuf>>,
}

impl<'h> LintCharts<'h> {
    fn new(host: &'h dyn capstan_state::host::Host) -> Self {
        LintCharts {
            host,
            dir: std::sync::Mutex::new(None),
        }
    }

    fn dir(&self) -> std::io::Result<std::path::PathBuf> {
        let mut dir = self.dir.lock().unwrap_or_else(|e| e.into_inner());
        if dir.is_none() {
            *dir = Some(self.host.write_private(&[])?);
        }
        Ok(dir.clone().unwrap_or_default())
    }
}

impl Drop for LintCharts<'_> {
    fn drop(&mut self) {
        if let Some(d) = self.dir.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = self.host.remove_private(&d);
        }
    }
}
