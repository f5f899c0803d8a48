//! `capstan version`: capstan's version and platform, and the helm it would run for
//! cluster commands (`helm version --short`), or why there is none; `capstan --version`:
//! the one line helmfile's `--version` prints, without asking helm.

use std::path::Path;

/// What `--version` prints: `capstan version X.Y.Z`, as `helmfile --version` prints
/// `helmfile version X.Y.Z` (no helm run: it is asked for often, by scripts).
pub fn short() -> String {
    format!("capstan version {}\n", env!("CARGO_PKG_VERSION"))
}

/// The text `version` prints: capstan's version, then the helm binary's (`binary` as
/// `--helm-binary` names it, else `helm`).
pub fn text(binary: &str, cwd: &Path) -> String {
    let binary = if binary.is_empty() { "helm" } else { binary };
    let helm = match capstan_helm::setup::detect(binary, cwd) {
        Ok((text, _)) => text,
        Err(e) => format!(
            "not available ({e}); template, build, list, values and write-values need no helm"
        ),
    };
    format!(
        "capstan {}\n  Platform    {}/{}\n  Helm        {helm}\n",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::OS,
        std::env::consts::ARCH,
    )
}
