//! `diff` and `apply`'s diffing half: each release's deployed manifest against capstan's
//! rendering (or the helm-diff plugin with `--diff-plugin`), the flags helm-diff would
//! get, and the "Affected releases" summary.

use super::*;

impl StateRun<'_, '_> {
    /// helm-diff's flags shared by every release (`commonDiffFlags`).
    pub(super) fn common_diff_flags(&self, detailed: bool) -> Vec<String> {
        let o = self.o();
        let mut flags = Vec::new();
        self.values_control(&mut flags);
        if detailed {
            flags.push("--detailed-exitcode".into());
        }
        if o.strip_trailing_cr {
            flags.push("--strip-trailing-cr".into());
        }
        if o.include_tests {
            flags.push("--include-tests".into());
        }
        for s in &o.suppress {
            flags.extend(["--suppress".into(), s.clone()]);
        }
        if o.suppress_secrets {
            flags.push("--suppress-secrets".into());
        }
        if o.show_secrets {
            flags.push("--show-secrets".into());
        }
        if o.no_hooks {
            flags.push("--no-hooks".into());
        }
        if o.no_color {
            flags.push("--no-color".into());
        } else if o.color {
            flags.push("--color".into());
        }
        if o.context > 0 {
            flags.extend(["--context".into(), o.context.to_string()]);
        }
        if !o.diff_output.is_empty() {
            flags.extend(["--output".into(), o.diff_output.clone()]);
        }
        for s in &o.set {
            flags.extend(["--set".into(), s.clone()]);
        }
        if !o.diff_args.is_empty() {
            flags.extend(collect_args(&o.diff_args));
        } else if self.defaults.contains_key("diffArgs") {
            flags.extend(collect_args(
                &strings_of(&self.defaults, "diffArgs").join(" "),
            ));
        }
        flags
    }

    /// `flagsForDiff`: the release's own helm-diff flags.
    pub(super) fn diff_flags(
        &self,
        i: usize,
        disable_validation: bool,
    ) -> Result<Vec<String>, StateFailure> {
        let files = self.values_files(i)?;
        let u = &self.o().upgrade;
        let opt = DiffOptions {
            post_renderer: u.post_renderer.clone(),
            post_renderer_args: u.post_renderer_args.clone(),
            skip_schema_validation: u.skip_schema_validation,
            suppress_output_line_regex: self.o().suppress_output_line_regex.clone(),
        };
        self.with_flags(i, &files, |src| src.diff_flags(&opt, disable_validation))
            .map_err(|e| StateFailure::Release {
                name: self.r(i).name.clone(),
                message: e.0,
                code: 0,
            })
    }

    /// `DiffReleases`: the releases among `which` helm-diff finds changed, and errors.
    /// Up to `--concurrency` diffs run at once; their output is printed in release order.
    pub(super) fn diff_releases(
        &self,
        which: &[usize],
        detailed: bool,
    ) -> (Vec<usize>, Vec<StateFailure>) {
        let common = self.common_diff_flags(detailed);
        let cache: std::sync::Mutex<std::collections::BTreeMap<usize, bool>> = Default::default();
        let installed = |i: usize| -> bool {
            if let Some(v) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&i) {
                return *v;
            }
            match self.installed(i) {
                Ok(v) => {
                    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(i, v);
                    v
                }
                Err(e) => {
                    (self.c.log)(
                        LogLevel::Warn,
                        &format!(
                            "confirming if the release is already installed or not: {}",
                            e.text()
                        ),
                    );
                    false
                }
            }
        };
        let desired: Vec<usize> = which.iter().copied().filter(|&i| self.desired(i)).collect();
        // (changed, error, output to print) per release.
        let outcomes = parallel(
            desired.len(),
            self.o().concurrency,
            |k| -> (bool, Option<StateFailure>, String) {
                let i = desired[k];
                let r = self.r(i);
                let suppress =
                    bool_of(&r.raw, "suppressDiff") == Some(true) || self.o().suppress_diff;
                if self.o().skip_diff_on_install && !installed(i) {
                    return (true, None, String::new());
                }
                if !self.o().diff_plugin {
                    return self.native_diff(i, suppress);
                }
                let disable_validation =
                    bool_of(&r.raw, "disableValidationOnInstall") == Some(true) && !installed(i);
                let mut flags = match self.diff_flags(i, disable_validation) {
                    Ok(f) => f,
                    Err(e) => return (false, Some(e), String::new()),
                };
                for v in &self.o().values {
                    flags.extend(["--values".into(), v.clone()]);
                }
                flags.extend(common.iter().cloned());
                let chart = match self.chart_arg(r) {
                    Ok(c) => c,
                    Err(e) => return (false, Some(e), String::new()),
                };
                let shown = |out: &str| {
                    if suppress || out.is_empty() {
                        String::new()
                    } else {
                        format!("{out}\n")
                    }
                };
                match self.c.helm.diff_release(
                    &self.context(i),
                    &r.name,
                    &chart,
                    &r.namespace,
                    suppress,
                    &flags,
                ) {
                    // With --detailed-exitcode helmfile prints only diffs that found changes.
                    Ok(out) => (
                        false,
                        None,
                        if detailed { String::new() } else { shown(&out) },
                    ),
                    Err(e) => {
                        let changed = e.exit_code == Some(2);
                        let out = if changed {
                            shown(&e.stdout)
                        } else {
                            String::new()
                        };
                        (changed, Some(StateFailure::release(r, e)), out)
                    }
                }
            },
        );
        let mut changed = Vec::new();
        let mut errs = Vec::new();
        for (k, (c, e, out)) in outcomes.into_iter().enumerate() {
            if c {
                changed.push(desired[k]);
            }
            errs.extend(e);
            if !out.is_empty() {
                (self.c.print)(&out);
            }
        }
        (changed, errs)
    }

    /// capstan's own diff of one release: `helm get manifest` against the rendering.
    pub(super) fn native_diff(
        &self,
        i: usize,
        suppress: bool,
    ) -> (bool, Option<StateFailure>, String) {
        let r = self.r(i);
        let mut flags = self.connection_flags(i);
        if !r.namespace.is_empty() {
            flags.extend(["--namespace".into(), r.namespace.clone()]);
        }
        let o = self.o();
        // helm-diff's sides: the latest revision's manifest and hooks against the
        // rendering with hooks, tests left out of both (unless --include-tests).
        let old = match self
            .c
            .helm
            .get_manifest(&self.context(i), &r.name, &flags, !o.no_hooks)
        {
            Ok(m) => m,
            Err(e) => return (false, Some(StateFailure::release(r, e)), String::new()),
        };
        let how = RenderFor {
            is_upgrade: old.is_some(),
            hooks: !o.no_hooks,
            cluster: self.c.helm.cluster_capabilities(&flags),
        };
        let new = match (self.c.render)(self.ps, r, &how) {
            Ok(m) => m,
            Err(e) => {
                return (
                    false,
                    Some(StateFailure::Release {
                        name: r.name.clone(),
                        message: e.message,
                        code: 1,
                    }),
                    String::new(),
                )
            }
        };
        // helm-diff's --suppress-secrets suppresses the kind Secret.
        let mut suppress_kinds = o.suppress.clone();
        if o.suppress_secrets {
            suppress_kinds.push("Secret".into());
        }
        let style = crate::manifest_diff::DiffStyle {
            context: (o.context > 0).then_some(o.context),
            show_secrets: o.show_secrets,
            suppress_kinds,
            color: o.color && !o.no_color,
            simple: o.diff_output == "simple",
        };
        let ns = if r.namespace.is_empty() {
            "default"
        } else {
            &r.namespace
        };
        let side = |text: &str| {
            let text = if o.strip_trailing_cr {
                std::borrow::Cow::Owned(text.replace("\r\n", "\n"))
            } else {
                std::borrow::Cow::Borrowed(text)
            };
            let mut resources = crate::manifest_diff::parse(&text, ns);
            if !o.include_tests {
                resources.retain(|r| !r.is_test_hook());
            }
            resources
        };
        let (mut text, changed) =
            crate::manifest_diff::diff(&side(old.as_deref().unwrap_or("")), &side(&new), &style);
        if o.show_values {
            match self.values_change(i, &flags) {
                Ok(lines) if !lines.is_empty() => {
                    text.push_str(&format!("{ns}, {}: values that change:\n", r.name));
                    for l in lines {
                        text.push_str(&l);
                        text.push('\n');
                    }
                    text.push('\n');
                }
                Ok(_) => {}
                Err(e) => return (false, Some(e), String::new()),
            }
        }
        let out = if suppress || text.is_empty() {
            String::new()
        } else {
            text
        };
        if changed {
            let e = StateFailure::Release {
                name: r.name.clone(),
                message: "changes found".into(),
                code: 2,
            };
            (true, Some(e), out)
        } else {
            (false, None, out)
        }
    }

    /// The release's values that change: deployed (`helm get values`) against computed.
    pub(super) fn values_change(
        &self,
        i: usize,
        flags: &[String],
    ) -> Result<Vec<String>, StateFailure> {
        let r = self.r(i);
        let old = self
            .c
            .helm
            .get_values(&self.context(i), &r.name, flags)
            .map_err(|e| StateFailure::release(r, e))?
            .unwrap_or(serde_json::Value::Object(Default::default()));
        let (new, origins) =
            (self.c.user_values)(self.ps, r).map_err(|e| StateFailure::Release {
                name: r.name.clone(),
                message: e.message,
                code: 1,
            })?;
        let new = crate::values_diff::to_json(&Value::map_from(new));
        Ok(crate::values_diff::values_diff(
            &old,
            &new,
            &origins,
            self.o().show_secrets && !self.o().suppress_secrets,
        ))
    }

    /// `Run.diff`: changed releases to upgrade and existing disabled ones to delete, or
    /// the errors that are not "changes found".
    pub(super) fn diff_plan(
        &self,
        which: &[usize],
        detailed: bool,
    ) -> Result<(Vec<usize>, Vec<usize>), Vec<StateFailure>> {
        let (changed, mut errs) = self.diff_releases(which, detailed);
        let mut deleting = Vec::new();
        for &i in which {
            if self.desired(i) {
                continue;
            }
            match self.installed(i) {
                Ok(true) => deleting.push(i),
                Ok(false) => {}
                Err(e) => errs.push(e),
            }
        }
        let fatal: Vec<StateFailure> = errs
            .into_iter()
            .filter(|e| !matches!(e, StateFailure::Release { code: 2, .. }))
            .collect();
        if !fatal.is_empty() {
            return Err(fatal);
        }
        let updated: Vec<usize> = changed
            .into_iter()
            .filter(|i| !deleting.contains(i))
            .collect();
        Ok((updated, deleting))
    }

    pub(super) fn info_affected(
        &self,
        level: LogLevel,
        updated: &[usize],
        deleted: &[usize],
    ) -> String {
        let mut names: Vec<String> = updated
            .iter()
            .map(|&i| format!("  {} ({}) UPDATED", self.r(i).name, self.r(i).chart))
            .chain(
                deleted
                    .iter()
                    .map(|&i| format!("  {} ({}) DELETED", self.r(i).name, self.r(i).chart)),
            )
            .collect();
        names.sort();
        let msg = format!("Affected releases are:\n{}\n", names.join("\n"));
        if !self.o().interactive || level == LogLevel::Info {
            (self.c.log)(level, &msg);
        }
        msg
    }

    /// `a.diff`: whether anything changed, or the errors.
    pub(super) fn diff(&self) -> Result<(bool, bool), Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok((false, false));
        }
        let rels = self.with_needs(true)?;
        self.prepare(&rels, "diff")?;
        self.c.helm.set_extra_args(self.extra_args());
        let planned = self.diff_plan(&rels, self.o().detailed_exitcode);
        let diffed: Vec<usize> = rels.iter().copied().filter(|&i| self.desired(i)).collect();
        self.cleanup(&diffed, "diff");
        let (updated, deleted) = planned?;
        if updated.is_empty() && deleted.is_empty() {
            if self.o().detailed_exitcode {
                (self.c.log)(LogLevel::Info, "No affected releases");
            }
            return Ok((true, false));
        }
        self.info_affected(LogLevel::Info, &updated, &deleted);
        Ok((true, true))
    }
}
