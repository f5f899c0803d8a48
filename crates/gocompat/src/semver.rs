//! Semantic versions and constraints with Masterminds/semver v3 rules (what Helm and
//! sprig use): lenient versions (`v1.2`, leading zeros), and constraints with
//! `^ ~ ~> = != > >= < <=`, wildcards, hyphen ranges, `,`/space for AND and `||` for OR.

use std::cmp::Ordering;

/// A parsed version (`*semver.Version`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// The major version.
    pub major: u64,
    /// The minor version (0 when not written).
    pub minor: u64,
    /// The patch version (0 when not written).
    pub patch: u64,
    /// The pre-release part after `-`, empty when none.
    pub pre: String,
    /// The build metadata after `+`, empty when none.
    pub meta: String,
    /// The text the version was parsed from (`Original()`).
    pub original: String,
}

/// Why Masterminds' semver refused a version or constraint; `Display` is its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SemverError {
    /// `NewVersion` of text that is not a semantic version.
    InvalidVersion,
    /// `NewConstraint` of text that is not a constraint (the whole constraint text).
    ImproperConstraint(String),
}

impl std::fmt::Display for SemverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SemverError::InvalidVersion => f.write_str("invalid semantic version"),
            SemverError::ImproperConstraint(text) => {
                write!(f, "improper constraint: {}", crate::quote::go_quote(text))
            }
        }
    }
}

impl std::error::Error for SemverError {}

const INVALID: SemverError = SemverError::InvalidVersion;

fn ident_ok(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-'))
}

impl Version {
    /// Masterminds' `NewVersion`.
    pub fn parse(text: &str) -> Result<Version, SemverError> {
        let body = text.strip_prefix('v').unwrap_or(text);
        let (body, meta) = match body.split_once('+') {
            Some((b, m)) => (b, m.to_string()),
            None => (body, String::new()),
        };
        let (core, pre) = match body.split_once('-') {
            Some((c, p)) => (c, p.to_string()),
            None => (body, String::new()),
        };
        if (!meta.is_empty() || text.contains('+')) && !ident_ok(&meta) {
            return Err(INVALID);
        }
        if (!pre.is_empty() || body.contains('-')) && !ident_ok(&pre) {
            return Err(INVALID);
        }
        let parts: Vec<&str> = core.split('.').collect();
        if parts.is_empty()
            || parts.len() > 3
            || parts
                .iter()
                .any(|p| p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()))
        {
            return Err(INVALID);
        }
        let num = |i: usize| -> Result<u64, SemverError> {
            parts
                .get(i)
                .map_or(Ok(0), |p| p.parse().map_err(|_| INVALID))
        };
        Ok(Version {
            major: num(0)?,
            minor: num(1)?,
            patch: num(2)?,
            pre,
            meta,
            original: text.to_string(),
        })
    }

    fn cmp_pre(a: &str, b: &str) -> Ordering {
        match (a.is_empty(), b.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
        for i in 0..pa.len().max(pb.len()) {
            let (x, y) = match (pa.get(i), pb.get(i)) {
                (None, _) => return Ordering::Less,
                (_, None) => return Ordering::Greater,
                (Some(x), Some(y)) => (x, y),
            };
            let o = match (x.parse::<u64>(), y.parse::<u64>()) {
                (Ok(m), Ok(n)) => m.cmp(&n),
                (Ok(_), Err(_)) => Ordering::Less,
                (Err(_), Ok(_)) => Ordering::Greater,
                _ => x.cmp(y),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// Masterminds' `Compare`: numbers first, then pre-release precedence; metadata is ignored.
    pub fn compare(&self, o: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(o.major, o.minor, o.patch))
            .then_with(|| Version::cmp_pre(&self.pre, &o.pre))
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.meta.is_empty() {
            write!(f, "+{}", self.meta)?;
        }
        Ok(())
    }
}

struct Constraint {
    op: String,
    con: Version,
    dirty: bool,
    minor_dirty: bool,
    patch_dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

fn parse_constraint(text: &str) -> Result<Constraint, SemverError> {
    let improper = || SemverError::ImproperConstraint(text.to_string());
    let ops = ["!=", ">=", "=>", "<=", "=<", "~>", ">", "<", "=", "~", "^"];
    let op = ops
        .iter()
        .find(|o| text.starts_with(**o))
        .copied()
        .unwrap_or("");
    let ver = text[op.len()..].trim();
    let ver = ver.strip_prefix('v').unwrap_or(ver);
    let (core, tail) = match ver.find(['-', '+']) {
        Some(i) => (&ver[..i], &ver[i..]),
        None => (ver, ""),
    };
    let parts: Vec<&str> = if core.is_empty() {
        Vec::new()
    } else {
        core.split('.').collect()
    };
    if parts.len() > 3
        || parts
            .iter()
            .any(|p| !(is_x(p) || (!p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))))
    {
        return Err(improper());
    }
    let get = |i: usize| parts.get(i).copied().unwrap_or("");
    let (mut dirty, mut minor_dirty, mut patch_dirty) = (false, false, false);
    let vtext = if parts.is_empty() || is_x(get(0)) {
        dirty = true;
        format!("0.0.0{tail}")
    } else if get(1).is_empty() || is_x(get(1)) {
        dirty = true;
        minor_dirty = true;
        format!("{}.0.0{tail}", get(0))
    } else if get(2).is_empty() || is_x(get(2)) {
        dirty = true;
        patch_dirty = true;
        format!("{}.{}.0{tail}", get(0), get(1))
    } else {
        format!("{core}{tail}")
    };
    let con = Version::parse(&vtext).map_err(|_| improper())?;
    Ok(Constraint {
        op: op.to_string(),
        con,
        dirty,
        minor_dirty,
        patch_dirty,
    })
}

fn check(v: &Version, c: &Constraint) -> bool {
    let pre_blocked = !v.pre.is_empty() && c.con.pre.is_empty();
    let cmp = v.compare(&c.con);
    let tilde = |v: &Version, c: &Constraint| {
        if cmp == Ordering::Less {
            return false;
        }
        if c.con.major == 0
            && c.con.minor == 0
            && c.con.patch == 0
            && !c.minor_dirty
            && !c.patch_dirty
        {
            return true;
        }
        if v.major != c.con.major {
            return false;
        }
        v.minor == c.con.minor || c.minor_dirty
    };
    match c.op.as_str() {
        "" | "=" => {
            !pre_blocked
                && if c.dirty {
                    tilde(v, c)
                } else {
                    cmp == Ordering::Equal
                }
        }
        "!=" => {
            if c.dirty {
                if v.major != c.con.major {
                    return true;
                }
                if c.minor_dirty {
                    return false;
                }
                return v.minor != c.con.minor;
            }
            cmp != Ordering::Equal
        }
        ">" => {
            if pre_blocked {
                return false;
            }
            if !c.dirty {
                return cmp == Ordering::Greater;
            }
            if v.major != c.con.major {
                return v.major > c.con.major;
            }
            if c.minor_dirty {
                return false;
            }
            if c.patch_dirty {
                return v.minor > c.con.minor;
            }
            cmp == Ordering::Greater
        }
        "<" => !pre_blocked && cmp == Ordering::Less,
        ">=" | "=>" => !pre_blocked && cmp != Ordering::Less,
        "<=" | "=<" => {
            if pre_blocked {
                return false;
            }
            if !c.dirty {
                return cmp != Ordering::Greater;
            }
            if v.major > c.con.major {
                return false;
            }
            !(v.major == c.con.major && v.minor > c.con.minor && !c.minor_dirty)
        }
        "~" | "~>" => !pre_blocked && tilde(v, c),
        "^" => {
            if pre_blocked || cmp == Ordering::Less {
                return false;
            }
            if c.con.major > 0 || c.minor_dirty {
                return v.major == c.con.major;
            }
            if v.major > 0 {
                return false;
            }
            if c.con.minor > 0 || c.patch_dirty {
                return v.minor == c.con.minor;
            }
            if v.minor > 0 {
                return false;
            }
            c.con.patch == v.patch
        }
        _ => false,
    }
}

/// Splits an AND group into clauses, joining an operator written apart from its version
/// and rewriting `a - b` ranges.
fn clauses(group: &str) -> Vec<String> {
    let toks: Vec<&str> = group
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        if i + 2 < toks.len() && toks[i + 1] == "-" {
            out.push(format!(">={t}"));
            out.push(format!("<={}", toks[i + 2]));
            i += 3;
            continue;
        }
        if t.bytes()
            .all(|c| matches!(c, b'<' | b'>' | b'=' | b'!' | b'~' | b'^'))
            && i + 1 < toks.len()
        {
            out.push(format!("{t}{}", toks[i + 1]));
            i += 2;
            continue;
        }
        out.push(t.to_string());
        i += 1;
    }
    out
}

/// Answers kept per thread before the memo starts over.
const MEMO_ENTRIES: usize = 1024;

thread_local! {
    /// `semver_compare`'s answers by (constraint, version): every release of a chart asks
    /// the same questions (its dependencies' versions, its `kubeVersion`).
    static MEMO: std::cell::RefCell<std::collections::HashMap<(String, String), Result<bool, SemverError>>> =
        Default::default();
}

/// `semverCompare constraint version`.
pub fn semver_compare(constraint: &str, version: &str) -> Result<bool, SemverError> {
    let key = (constraint.to_string(), version.to_string());
    if let Some(known) = MEMO.with(|m| m.borrow().get(&key).cloned()) {
        return known;
    }
    let answer = semver_compare_uncached(constraint, version);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= MEMO_ENTRIES {
            m.clear();
        }
        m.insert(key, answer.clone());
    });
    answer
}

fn semver_compare_uncached(constraint: &str, version: &str) -> Result<bool, SemverError> {
    let mut groups = Vec::new();
    for group in constraint.split("||") {
        let mut cs = Vec::new();
        for clause in clauses(group) {
            cs.push(
                parse_constraint(&clause)
                    .map_err(|_| SemverError::ImproperConstraint(constraint.to_string()))?,
            );
        }
        groups.push(cs);
    }
    let v = Version::parse(version)?;
    Ok(groups.iter().any(|g| g.iter().all(|c| check(&v, c))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_like_masterminds() {
        assert!(!semver_compare(">1.0.0", "1.0.0").unwrap());
        assert!(semver_compare("1.x", "1.99.0").unwrap());
        assert!(semver_compare("*", "0.0.1").unwrap());
        assert!(!semver_compare("^0.2.3", "0.3.0").unwrap());
        assert!(semver_compare("<= 2", "2.5.0").unwrap());
        assert!(semver_compare("1.2.3 || 2.x", "2.1.0").unwrap());
        assert!(semver_compare(">=1.20.0-0", "v1.21.3-gke.1200").unwrap());
        assert!(semver_compare("1.2 - 1.4", "1.3.7").unwrap());
        assert!(semver_compare("bad constraint", "1.0.0").is_err());
        assert_eq!(Version::parse("01.2.3").unwrap().to_string(), "1.2.3");
        assert!(Version::parse("1.2.3.4").is_err());
    }
}
