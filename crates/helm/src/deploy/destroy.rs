//! `destroy`: every release uninstalled in reverse `needs:` order, with its hooks.

use super::*;

impl StateRun<'_, '_> {
    /// `a.delete` (destroy).
    pub(super) fn destroy(&self, affected: &mut Affected) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        // helmfile prepares the charts before deleting too (`prepare` hooks, the
        // repositories, `helm dependency build`), unless `--skip-charts`.
        if !self.o().skip_charts {
            self.prepare(&self.rs.selected, self.command)?;
            self.c.helm.set_extra_args(self.extra_args());
            if !self.o().skip_repos {
                self.sync_repos()?;
            }
            let errs = self.build_dependencies(&self.rs.selected);
            if !errs.is_empty() {
                return Err(errs);
            }
        }
        let mut to_delete = Vec::new();
        for &i in &self.rs.selected {
            if self.installed(i).map_err(|e| vec![e])? {
                to_delete.push(i);
            }
        }
        let kept: Vec<usize> = self
            .rs
            .selected
            .iter()
            .copied()
            .filter(|i| !to_delete.contains(i))
            .collect();
        self.cleanup(&kept, self.command);
        if self.o().interactive {
            let names: Vec<String> = self
                .rs
                .selected
                .iter()
                .map(|&i| format!("  {} ({})", self.r(i).name, self.r(i).chart))
                .collect();
            let question = format!(
                "Affected releases are:\n{}\n\nDo you really want to delete?\n  Helmfile will delete all your releases, as shown above.\n\n",
                names.join("\n")
            );
            if !(self.c.confirm)(&question) {
                return Ok(true);
            }
        }
        self.c.helm.set_extra_args(self.extra_args());
        if to_delete.is_empty() {
            return Ok(true);
        }
        let groups = self
            .plan(to_delete, true, true, false)
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        for g in groups {
            let errs = self.delete_group(&g, false, affected);
            if !errs.is_empty() {
                return Err(errs);
            }
        }
        Ok(true)
    }
}
