//! `sync` and `apply`'s deploying half: releases deleted in reverse `needs:` order and
//! installed or upgraded in `needs:` order, a group at a time (`helm upgrade --install`,
//! `helm uninstall`), with helmfile's hooks around each.

use super::*;

impl StateRun<'_, '_> {
    /// Deletes a group's releases (up to `--concurrency` at once), recording the outcome.
    pub(super) fn delete_group(
        &self,
        group: &[usize],
        for_sync: bool,
        affected: &mut Affected,
    ) -> Vec<StateFailure> {
        let outcomes = parallel(group.len(), self.o().concurrency, |k| {
            let mut one = Affected::default();
            let r = if for_sync {
                self.delete_for_sync(group[k], &mut one)
            } else {
                self.delete(group[k], &mut one)
            };
            (one, r)
        });
        let mut errs = Vec::new();
        for (one, r) in outcomes {
            affected.deleted.extend(one.deleted);
            affected.delete_failed.extend(one.delete_failed);
            if let Err(e) = r {
                errs.push(e);
            }
        }
        errs
    }

    /// `DeleteReleasesForSync` of one release: `presync`, `preuninstall`, `helm delete`,
    /// `postuninstall`, then `postsync` and `cleanup` hooks.
    pub(super) fn delete_for_sync(
        &self,
        i: usize,
        affected: &mut Affected,
    ) -> Result<(), StateFailure> {
        let r = self.r(i);
        let hook_err = |e: StateError| StateFailure::Release {
            name: r.name.clone(),
            message: e.message,
            code: 0,
        };
        let mut flags = Vec::new();
        if !r.namespace.is_empty() {
            flags.extend(["--namespace".into(), r.namespace.clone()]);
        }
        self.delete_wait_flags(i, &mut flags);
        flags.extend(self.connection_flags(i));
        self.cascade_flags(i, &mut flags);
        let started = std::time::Instant::now();
        let result = self
            .trigger("presync", Some(i), None, "sync")
            .map_err(hook_err)
            .and_then(|_| {
                self.trigger("preuninstall", Some(i), None, "sync")
                    .map_err(hook_err)?;
                self.c
                    .helm
                    .delete_release(&self.context(i), &r.name, &flags)
                    .map_err(|e| StateFailure::release(r, e))?;
                self.trigger("postuninstall", Some(i), None, "sync")
                    .map_err(hook_err)
            });
        match &result {
            Ok(_) => affected.deleted.push(self.affected(i, started)),
            Err(_) => affected.delete_failed.push(self.affected(i, started)),
        }
        let err_text = result.as_ref().err().map(|e| e.text());
        if let Err(e) = self.trigger("postsync", Some(i), err_text.as_deref(), "sync") {
            (self.c.log)(LogLevel::Warn, &format!("warn: {e}\n"));
        }
        self.cleanup(&[i], "sync");
        result.map(|_| ())
    }

    /// `DeleteReleases` (destroy) of one release, between its `preuninstall` and
    /// `postuninstall` hooks.
    pub(super) fn delete(&self, i: usize, affected: &mut Affected) -> Result<(), StateFailure> {
        let r = self.r(i);
        let hook_err = |e: StateError| StateFailure::Release {
            name: r.name.clone(),
            message: e.message,
            code: 0,
        };
        let mut flags = self.connection_flags(i);
        self.cascade_flags(i, &mut flags);
        self.delete_wait_flags(i, &mut flags);
        if !r.namespace.is_empty() {
            flags.extend(["--namespace".into(), r.namespace.clone()]);
        }
        let started = std::time::Instant::now();
        let result = self
            .trigger("preuninstall", Some(i), None, self.command)
            .map_err(hook_err)
            .and_then(|_| {
                self.c
                    .helm
                    .delete_release(&self.context(i), &r.name, &flags)
                    .map_err(|e| StateFailure::release(r, e))?;
                self.trigger("postuninstall", Some(i), None, self.command)
                    .map_err(hook_err)
            });
        match result {
            Ok(_) => {
                affected.deleted.push(self.affected(i, started));
                Ok(())
            }
            Err(e) => {
                affected.delete_failed.push(self.affected(i, started));
                Err(e)
            }
        }
    }

    /// The `helm upgrade` flags of a release (`prepareSyncReleases`).
    pub(super) fn upgrade_flags(&self, i: usize) -> Result<Vec<String>, StateFailure> {
        let files = self.values_files(i)?;
        let mut flags = self
            .with_flags(i, &files, |src| src.upgrade_flags(&self.o().upgrade))
            .map_err(|e| StateFailure::Release {
                name: self.r(i).name.clone(),
                message: e.0,
                code: 0,
            })?;
        self.extra_values_and_set(&mut flags);
        if self.o().skip_crds {
            flags.push("--skip-crds".into());
        }
        self.values_control(&mut flags);
        Ok(flags)
    }

    /// `SyncReleases` over one group: flags for all first, then `helm upgrade` each.
    pub(super) fn sync_group(&self, group: &[usize], affected: &mut Affected) -> Vec<StateFailure> {
        let mut prepared = Vec::new();
        let mut errs = Vec::new();
        for &i in group {
            match self.upgrade_flags(i) {
                Ok(f) => prepared.push((i, f)),
                Err(e) => errs.push(e),
            }
        }
        if !errs.is_empty() {
            return errs;
        }
        let outcomes = parallel(prepared.len(), self.o().concurrency, |k| {
            let (i, flags) = &prepared[k];
            let r = self.r(*i);
            let hook_err = |e: StateError| StateFailure::Release {
                name: r.name.clone(),
                message: e.message,
                code: 0,
            };
            let started = std::time::Instant::now();
            let mut result = self
                .trigger("presync", Some(*i), None, "sync")
                .map_err(hook_err)
                .and_then(|_| self.chart_arg(r))
                .and_then(|chart| {
                    let ctx = self.context(*i);
                    let first =
                        self.c
                            .helm
                            .sync_release(&ctx, &r.name, &chart, &r.namespace, flags);
                    match first {
                        // `updateStrategy: reinstallIfForbidden`: an upgrade the API
                        // server forbids (an immutable field, say) becomes an uninstall
                        // and a fresh install.
                        Err(e)
                            if str_of(&r.raw, "updateStrategy") == "reinstallIfForbidden"
                                && e.forbidden() =>
                        {
                            (self.c.log)(
                                LogLevel::Info,
                                &format!("release {}: upgrade forbidden, reinstalling it", r.name),
                            );
                            let mut del = self.connection_flags(*i);
                            if !r.namespace.is_empty() {
                                del.extend(["--namespace".into(), r.namespace.clone()]);
                            }
                            self.c
                                .helm
                                .delete_release(&ctx, &r.name, &del)
                                .and_then(|_| {
                                    self.c.helm.sync_release(
                                        &ctx,
                                        &r.name,
                                        &chart,
                                        &r.namespace,
                                        flags,
                                    )
                                })
                        }
                        other => other,
                    }
                    .map_err(|e| StateFailure::release(r, e))
                });
            // helmfile's summary shows the chart version helm installed, read back from
            // the release (`getDeployedVersion`), not the `version:` asked for.
            let mut deployed_version = None;
            if result.is_ok() {
                let mut query = self.connection_flags(*i);
                if !r.namespace.is_empty() {
                    query.extend(["--namespace".into(), r.namespace.clone()]);
                }
                deployed_version = self.c.helm.deployed_chart_version(&r.name, &query);
            }
            let err_text = result.as_ref().err().map(|e| e.text());
            if let Err(e) = self.trigger("postsync", Some(*i), err_text.as_deref(), "sync") {
                if result.is_ok() {
                    result = Err(hook_err(e));
                } else {
                    (self.c.log)(LogLevel::Warn, &format!("warn: {e}\n"));
                }
            }
            if let Err(e) = self.trigger("cleanup", Some(*i), None, "sync") {
                if result.is_ok() {
                    result = Err(hook_err(e));
                } else {
                    (self.c.log)(LogLevel::Warn, &format!("warn: {e}\n"));
                }
            }
            let mut done = self.affected(*i, started);
            if let Some(v) = deployed_version {
                done.version = v;
            }
            (done, result)
        });
        for (done, result) in outcomes {
            match result {
                Ok(()) => affected.upgraded.push(done),
                Err(e) => {
                    affected.failed.push(done);
                    errs.push(e);
                }
            }
        }
        errs
    }

    /// Deletions in reverse needs order, then upgrades in needs order.
    pub(super) fn converge(
        &self,
        to_delete: &[usize],
        to_update: &[usize],
        affected: &mut Affected,
    ) -> Vec<StateFailure> {
        let mut errs = Vec::new();
        if !to_delete.is_empty() {
            match self.plan(to_delete.to_vec(), true, true, false) {
                Err(e) => return vec![StateFailure::Plain(e)],
                Ok(groups) => {
                    for g in groups {
                        let ge = self.delete_group(&g, true, affected);
                        if !ge.is_empty() {
                            errs.extend(ge);
                            break;
                        }
                    }
                }
            }
        }
        if !to_update.is_empty() {
            let deps = self.build_dependencies(to_update);
            if !deps.is_empty() {
                errs.extend(deps);
                return errs;
            }
            match self.plan(to_update.to_vec(), false, true, false) {
                Err(e) => errs.push(StateFailure::Plain(e)),
                Ok(groups) => {
                    for g in groups {
                        let g: Vec<usize> =
                            g.into_iter().filter(|i| !to_delete.contains(i)).collect();
                        let ge = self.sync_group(&g, affected);
                        if !ge.is_empty() {
                            errs.extend(ge);
                            break;
                        }
                    }
                }
            }
        }
        errs
    }

    /// `a.sync`: whether anything was selected, and the errors.
    pub(super) fn sync(&self, affected: &mut Affected) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        let with_needs = self.selected_with_needs(self.include())?;
        self.prepare(&with_needs, "sync")?;
        let mut to_delete = Vec::new();
        for &i in &with_needs {
            if !self.desired(i) && self.installed(i).map_err(|e| vec![e])? {
                to_delete.push(i);
            }
        }
        let to_update: Vec<usize> = with_needs
            .iter()
            .copied()
            .filter(|i| !to_delete.contains(i) && self.desired(*i))
            .collect();
        let unchanged: Vec<usize> = with_needs
            .iter()
            .copied()
            .filter(|i| !to_delete.contains(i) && !to_update.contains(i))
            .collect();
        self.cleanup(&unchanged, "sync");
        let msg = self.info_affected(LogLevel::Debug, &to_update, &to_delete);
        if self.o().interactive
            && !(self.c.confirm)(&format!(
                "{msg}\nDo you really want to sync?\n  Helmfile will sync all your releases, as shown above.\n\n"
            ))
        {
            return Ok(true);
        }
        self.c.helm.set_extra_args(self.extra_args());
        if !self.o().skip_repos && !to_update.is_empty() {
            self.sync_repos()?;
        }
        let errs = self.converge(&to_delete, &to_update, affected);
        if errs.is_empty() {
            Ok(true)
        } else {
            Err(errs)
        }
    }

    /// `a.apply`: (selected anything, changed anything), or the errors.
    pub(super) fn apply(&self, affected: &mut Affected) -> Result<(bool, bool), Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok((false, false));
        }
        let with_needs = self.selected_with_needs(self.include())?;
        self.prepare(&with_needs, "apply")?;
        self.c.helm.set_extra_args(self.extra_args());
        let (to_update, to_delete) = self.diff_plan(&with_needs, true)?;
        let unchanged: Vec<usize> = with_needs
            .iter()
            .copied()
            .filter(|i| !to_delete.contains(i) && !to_update.contains(i))
            .collect();
        if to_update.is_empty() && to_delete.is_empty() {
            self.cleanup(&unchanged, "apply");
            return Ok((true, false));
        }
        let msg = self.info_affected(LogLevel::Debug, &to_update, &to_delete);
        if self.o().interactive
            && !(self.c.confirm)(&format!(
                "{msg}\nDo you really want to apply?\n  Helmfile will apply all your changes, as shown above.\n\n"
            ))
        {
            self.cleanup(&unchanged, "apply");
            return Ok((true, false));
        }
        // `preapply` hooks of every release applied, in reverse needs order.
        let reversed = self
            .plan(with_needs.clone(), true, true, false)
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        for i in reversed.concat() {
            self.trigger("preapply", Some(i), None, "apply")
                .map_err(|e| vec![StateFailure::Plain(e)])?;
        }
        if !self.o().skip_repos && !to_update.is_empty() {
            self.sync_repos()?;
        }
        let errs = self.converge(&to_delete, &to_update, affected);
        self.cleanup(&unchanged, "apply");
        if errs.is_empty() {
            Ok((true, true))
        } else {
            Err(errs)
        }
    }
}
