//! The helm version helmfile works with: found in `helm version --client --short` output
//! (`v3.14.0-rc.1+g69dcc92`, `Client: v2.16.1+ge13bc94`), its pre-release dropped, and
//! compared as helmfile's `IsVersionAtLeast` / `IsHelm3` / `IsHelm4` do. An unknown
//! version (helmfile's mock with no version) counts as Helm 4 and is "at least" nothing.

use std::cmp::Ordering;

capstan_source::message_error!(
    /// Why `helm version` output could not be read.
    VersionError
);

/// A helm version, or unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct HelmVersion {
    /// `(major, minor, patch)`; `None` when unknown.
    pub triple: Option<(u64, u64, u64)>,
}

impl HelmVersion {
    /// An unknown version.
    pub const UNKNOWN: HelmVersion = HelmVersion { triple: None };

    /// The version `major.minor.patch`.
    pub fn new(major: u64, minor: u64, patch: u64) -> HelmVersion {
        HelmVersion {
            triple: Some((major, minor, patch)),
        }
    }

    /// The first `[v]MAJOR.MINOR.PATCH` in `text` (a pre-release or build suffix is
    /// ignored, as helmfile drops the pre-release); also `MAJOR.MINOR` as semver allows.
    pub fn parse(text: &str) -> Result<HelmVersion, VersionError> {
        if text.trim().is_empty() {
            return Err("empty helm version".into());
        }
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit()
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'v')
            {
                let mut parts = Vec::new();
                let mut j = i;
                loop {
                    let start = j;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    if start == j {
                        break;
                    }
                    parts.push(text[start..j].parse::<u64>().unwrap_or(u64::MAX));
                    if parts.len() < 3
                        && j + 1 < b.len()
                        && b[j] == b'.'
                        && b[j + 1].is_ascii_digit()
                    {
                        j += 1;
                    } else {
                        break;
                    }
                }
                if parts.len() >= 2 {
                    let patch = parts.get(2).copied().unwrap_or(0);
                    return Ok(HelmVersion::new(parts[0], parts[1], patch));
                }
                i = j.max(i + 1);
            } else {
                i += 1;
            }
        }
        Err(format!("error find helm srmver version '{text}': no semver found").into())
    }

    /// The major version, when known.
    pub fn major(&self) -> Option<u64> {
        self.triple.map(|t| t.0)
    }

    /// helmfile's `IsHelm3`.
    pub(crate) fn is_helm3(&self) -> bool {
        self.major() == Some(3)
    }

    /// helmfile's `IsHelm4`: major 4, or a version it could not tell.
    pub(crate) fn is_helm4(&self) -> bool {
        matches!(self.major(), None | Some(4))
    }

    /// helmfile's `IsVersionAtLeast("X.Y.Z")`; always false for an unknown version.
    pub fn at_least(&self, major: u64, minor: u64, patch: u64) -> bool {
        match self.triple {
            Some(t) => t.cmp(&(major, minor, patch)) != Ordering::Less,
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_helm_prints() {
        assert_eq!(
            HelmVersion::parse("v4.0.1+g12500dd"),
            Ok(HelmVersion::new(4, 0, 1))
        );
        assert_eq!(
            HelmVersion::parse("Client: v2.16.1+ge13bc94"),
            Ok(HelmVersion::new(2, 16, 1))
        );
        assert_eq!(
            HelmVersion::parse("v3.14.0-rc.1+g69dcc92"),
            Ok(HelmVersion::new(3, 14, 0))
        );
        assert_eq!(HelmVersion::parse("3.2.0"), Ok(HelmVersion::new(3, 2, 0)));
        assert!(HelmVersion::parse("").is_err());
        assert!(HelmVersion::parse("no version").is_err());
    }

    #[test]
    fn gates() {
        let v = HelmVersion::new(3, 3, 2);
        assert!(v.at_least(3, 3, 2) && !v.at_least(3, 3, 3) && v.is_helm3() && !v.is_helm4());
        assert!(HelmVersion::UNKNOWN.is_helm4() && !HelmVersion::UNKNOWN.at_least(0, 0, 0));
    }
}
