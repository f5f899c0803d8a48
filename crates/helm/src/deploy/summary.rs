//! What a cluster command did ([`Affected`]) and helmfile's summary tables of it
//! (`UPDATED RELEASES:`, `DELETED RELEASES:`, `FAILED RELEASES:`…).

/// A release that was upgraded, deleted or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffectedRelease {
    /// The release's name.
    pub name: String,
    /// Its namespace.
    pub namespace: String,
    /// Its chart.
    pub chart: String,
    /// The chart version deployed.
    pub version: String,
    /// How long its helm call took.
    pub seconds: u64,
}

/// What a command did (helmfile's `AffectedReleases`).
#[derive(Clone, Debug, Default)]
pub struct Affected {
    /// Installed or upgraded.
    pub upgraded: Vec<AffectedRelease>,
    /// Uninstalled.
    pub deleted: Vec<AffectedRelease>,
    /// Whose install or upgrade failed.
    pub failed: Vec<AffectedRelease>,
    /// Whose uninstall failed.
    pub delete_failed: Vec<AffectedRelease>,
}

impl Affected {
    /// helmfile's summary tables (`UPDATED RELEASES:` ...), empty when nothing happened.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let mut table = |title: &str, rows: &[AffectedRelease], with_chart: bool| {
            if rows.is_empty() {
                return;
            }
            out.push_str(&format!("\n{title}\n"));
            let mut lines: Vec<Vec<String>> = Vec::new();
            let mut header = vec!["NAME", "NAMESPACE"];
            if with_chart {
                header.extend(["CHART", "VERSION"]);
            }
            header.push("DURATION");
            lines.push(header.iter().map(|s| s.to_string()).collect());
            for r in rows {
                let mut l = vec![r.name.clone(), r.namespace.clone()];
                if with_chart {
                    l.extend([redact_chart(&r.chart), r.version.clone()]);
                }
                l.push(go_seconds(r.seconds));
                lines.push(l);
            }
            let cols = lines[0].len();
            let width: Vec<usize> = (0..cols)
                .map(|c| {
                    let min = if c == 0 || c == cols - 1 { 0 } else { 6 };
                    lines
                        .iter()
                        .map(|l| l[c].chars().count())
                        .max()
                        .unwrap_or(0)
                        .max(min)
                })
                .collect();
            for l in &lines {
                let mut cells = Vec::new();
                for (c, cell) in l.iter().enumerate() {
                    if c == cols - 1 {
                        cells.push(format!("{cell:>w$}", w = width[c]));
                    } else {
                        cells.push(format!("{cell:<w$}", w = width[c]));
                    }
                }
                out.push_str(cells.join("   ").trim_end());
                out.push('\n');
            }
            // helmfile logs the table's text (which ends in a newline) as one line.
            out.push('\n');
        };
        table("UPDATED RELEASES:", &self.upgraded, true);
        table("DELETED RELEASES:", &self.deleted, false);
        table("FAILED RELEASES:", &self.failed, true);
        table("FAILED TO DELETE RELEASES:", &self.delete_failed, false);
        out
    }
}

/// Go's `time.Duration` text for whole seconds (`0s`, `5s`, `1m5s`, `1h0m0s`).
fn go_seconds(s: u64) -> String {
    let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
    if h > 0 {
        format!("{h}h{m}m{sec}s")
    } else if m > 0 {
        format!("{m}m{sec}s")
    } else {
        format!("{sec}s")
    }
}

fn redact_chart(chart: &str) -> String {
    crate::exec::redact_url(chart).replace(":xxxxx@", ":---@")
}
