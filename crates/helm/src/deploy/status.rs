//! `status` and `test`: `helm status` and `helm test` of each release.

use super::*;

impl StateRun<'_, '_> {
    /// `a.status`.
    pub(super) fn status(&self) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        // helmfile prepares the charts first, running `prepare` hooks (not building
        // dependencies).
        self.prepare(&self.rs.selected, self.command)?;
        let to_status: Vec<usize> = self
            .rs
            .selected
            .iter()
            .copied()
            .filter(|&i| self.desired(i))
            .collect();
        self.c.helm.set_extra_args(self.extra_args());
        let groups = self
            .plan(to_status, false, true, false)
            .map_err(|e| vec![StateFailure::Plain(e)])?;
        for g in groups {
            let mut errs = Vec::new();
            for i in g {
                let r = self.r(i);
                let mut flags = Vec::new();
                if !r.namespace.is_empty() {
                    flags.extend(["--namespace".into(), r.namespace.clone()]);
                }
                flags.extend(self.connection_flags(i));
                if let Err(e) = self
                    .c
                    .helm
                    .release_status(&self.context(i), &r.name, &flags)
                {
                    errs.push(StateFailure::Plain(e.message.into()));
                }
            }
            if !errs.is_empty() {
                return Err(errs);
            }
        }
        Ok(true)
    }

    /// `a.test`.
    pub(super) fn test(&self) -> Result<bool, Vec<StateFailure>> {
        if self.rs.selected.is_empty() {
            return Ok(false);
        }
        self.prepare(&self.rs.selected, self.command)?;
        self.c.helm.set_extra_args(self.extra_args());
        let mut errs = Vec::new();
        for &i in &self.rs.selected {
            if !self.desired(i) {
                continue;
            }
            let r = self.r(i);
            let mut flags = Vec::new();
            if !r.namespace.is_empty() {
                flags.extend(["--namespace".into(), r.namespace.clone()]);
            }
            if self.o().logs {
                flags.push("--logs".into());
            }
            let timeout = match self.o().test_timeout {
                Some(t) => t,
                None => crate::flags::int_of(&r.raw, "timeout")
                    .or_else(|| crate::flags::int_of(&self.defaults, "timeout"))
                    .unwrap_or(0),
            };
            if timeout != 0 {
                flags.extend(["--timeout".into(), format!("{timeout}s")]);
            }
            flags.extend(self.connection_flags(i));
            if let Err(e) = self.c.helm.test_release(&self.context(i), &r.name, &flags) {
                errs.push(StateFailure::Plain(e.message.into()));
            }
        }
        if errs.is_empty() {
            Ok(true)
        } else {
            Err(errs)
        }
    }
}
