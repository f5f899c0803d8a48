//! Case results and how they are printed: one line per failing case, then exactly
//! `N passed, N failed`.

/// The outcome of one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case's id.
    pub id: String,
    /// `None` when the case passed; otherwise what differed.
    pub failure: Option<Failure>,
}

#[derive(Debug, Clone)]
/// Why a case failed: what was expected and what came out.
pub struct Failure {
    /// One line: what went wrong.
    pub summary: String,
    /// The full expected/actual texts, for `-v`.
    pub detail: String,
}

impl CaseResult {
    /// A case that passed.
    pub fn pass(id: impl Into<String>) -> Self {
        CaseResult {
            id: id.into(),
            failure: None,
        }
    }

    /// A case that failed.
    pub fn fail(
        id: impl Into<String>,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        CaseResult {
            id: id.into(),
            failure: Some(Failure {
                summary: summary.into(),
                detail: detail.into(),
            }),
        }
    }

    /// Compares expected and actual texts; the summary shows where they first differ.
    pub fn compare(id: impl Into<String>, what: &str, expected: &str, actual: &str) -> Self {
        if expected == actual {
            return CaseResult::pass(id);
        }
        let at = expected
            .chars()
            .zip(actual.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let clip = |s: &str| -> String {
            let tail: String = s.chars().skip(at.saturating_sub(10)).take(60).collect();
            format!("{tail:?}")
        };
        CaseResult::fail(
            id,
            format!(
                "{what} differs at char {at}: expected {} got {}",
                clip(expected),
                clip(actual)
            ),
            format!("--- expected {what}\n{expected}\n--- actual {what}\n{actual}"),
        )
    }

    /// Whether the case passed.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// All results of one suite run.
#[derive(Debug, Default)]
pub struct Report {
    /// Every case's result.
    pub results: Vec<CaseResult>,
}

impl Report {
    /// How many passed.
    pub fn passed(&self) -> usize {
        self.results.iter().filter(|r| r.passed()).count()
    }

    /// How many failed.
    pub fn failed(&self) -> usize {
        self.results.len() - self.passed()
    }

    /// The printed report; `verbose` adds the full diff under each failing case.
    pub fn render(&self, verbose: bool) -> String {
        let mut out = String::new();
        for r in &self.results {
            if let Some(f) = &r.failure {
                out.push_str(&format!("FAIL {}: {}\n", r.id, f.summary));
                if verbose {
                    for line in f.detail.lines() {
                        out.push_str("    ");
                        out.push_str(line);
                        out.push('\n');
                    }
                }
            }
        }
        out.push_str(&format!(
            "{} passed, {} failed\n",
            self.passed(),
            self.failed()
        ));
        out
    }
}
