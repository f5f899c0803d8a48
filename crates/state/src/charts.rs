//! Charts from helm repositories, fetched natively so `template` needs no helm: a
//! release's `repo/chart` is looked up in `repositories:`, the repository's
//! `index.yaml` read (once per run), the highest version satisfying `version:` chosen
//! as helm chooses (Masterminds semver; no constraint means the latest stable), the
//! `.tgz` downloaded (its sha256 digest checked) into the cache, and rendered from there.

use crate::host::Host;
use crate::merge::Tree;
use crate::spec::{list_of, str_of};
use crate::StateError;
use capstan_gocompat::semver::{semver_compare, Version as SemVersion};
use capstan_value::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Held while a chart is looked up in the cache and downloaded, so releases rendered
/// in parallel download each chart once.
static DOWNLOADING: Mutex<()> = Mutex::new(());

/// `index.yaml` documents already read in this run, by URL.
static INDEXES: Mutex<Option<HashMap<String, Arc<Value>>>> = Mutex::new(None);

struct Repo {
    name: String,
    url: String,
    user: String,
    password: String,
    oci: bool,
    plain_http: bool,
}

fn repositories(doc: &Tree) -> Vec<Repo> {
    list_of(doc, "repositories")
        .iter()
        .filter_map(|r| {
            let t = r.as_map()?.snapshot();
            let url = str_of(&t, "url");
            Some(Repo {
                name: str_of(&t, "name"),
                oci: matches!(t.get("oci"), Some(Value::Bool(true))) || url.starts_with("oci://"),
                plain_http: matches!(t.get("plainHttp"), Some(Value::Bool(true))),
                url,
                user: str_of(&t, "username"),
                password: str_of(&t, "password"),
            })
        })
        .collect()
}

fn repository(doc: &Tree, name: &str) -> Option<Repo> {
    repositories(doc).into_iter().find(|r| r.name == name)
}

fn index(host: &dyn Host, repo: &Repo) -> Result<Arc<Value>, StateError> {
    let url = format!("{}/index.yaml", repo.url.trim_end_matches('/'));
    if let Some(v) = INDEXES
        .lock()
        .ok()
        .and_then(|m| m.as_ref().and_then(|m| m.get(&url).cloned()))
    {
        return Ok(v);
    }
    let body = host.http_get(&url, &repo.user, &repo.password)?;
    let v = capstan_yaml::decode_helm(&String::from_utf8_lossy(&body))
        .map_err(|e| format!("repository {:?}: index.yaml: {e}", repo.name))?;
    let v = Arc::new(v);
    if let Ok(mut m) = INDEXES.lock() {
        m.get_or_insert_with(HashMap::new).insert(url, v.clone());
    }
    Ok(v)
}

/// The entry of `index.yaml` helm would pick for `constraint`.
fn choose(entries: &[Value], constraint: &str) -> Option<(SemVersion, Value)> {
    let versions: Vec<String> = entries
        .iter()
        .map(|e| match e.get("version") {
            Some(Value::String(v)) => v.to_string(),
            _ => String::new(),
        })
        .collect();
    let i = best_version(&versions, constraint)?;
    Some((SemVersion::parse(&versions[i]).ok()?, entries[i].clone()))
}

/// The index of the highest version satisfying `constraint` (Masterminds semver; an
/// empty constraint means the latest stable version), as helm picks.
fn best_version(versions: &[String], constraint: &str) -> Option<usize> {
    let mut best: Option<(SemVersion, usize)> = None;
    for (i, v) in versions.iter().enumerate() {
        let Ok(parsed) = SemVersion::parse(v) else {
            continue;
        };
        let ok = if constraint.is_empty() {
            parsed.pre.is_empty()
        } else {
            semver_compare(constraint, v).unwrap_or(false)
        };
        if ok && best.as_ref().is_none_or(|(b, _)| parsed.compare(b).is_gt()) {
            best = Some((parsed, i));
        }
    }
    best.map(|(_, i)| i)
}

/// The version a helmfile lock file (`lockFilePath`, default `helmfile.lock` beside the
/// state file) pins for chart `name`, if any.
fn locked_version(host: &dyn Host, doc: &Tree, base: &str, name: &str) -> Option<String> {
    let lock = str_of(doc, "lockFilePath");
    let lock = if lock.is_empty() {
        "helmfile.lock".to_string()
    } else {
        lock
    };
    let path = crate::envvals::join_shown(base, &lock);
    let text = host.read_file(std::path::Path::new(&path)).ok()?;
    let v = capstan_yaml::decode_helmfile(&String::from_utf8_lossy(&text)).ok()?;
    let deps = v.get("dependencies")?;
    deps.as_list()?.items.iter().find_map(|d| {
        (d.get("name")?.as_str()? == name)
            .then(|| d.get("version").map(|x| crate::scalar_text(&x)))?
    })
}

/// The cached archive of `repo/chart` at the version `constraint` (or the lock file)
/// selects, or `None` when the chart does not name a known (non-OCI) repository.
pub fn repo_chart(
    host: &dyn Host,
    doc: &Tree,
    base: &str,
    chart: &str,
    constraint: &str,
) -> Result<Option<PathBuf>, StateError> {
    if chart.starts_with("oci://") {
        let bare = chart.trim_start_matches("oci://");
        // Credentials of a listed OCI repository this reference lives under.
        let repo = repositories(doc).into_iter().find(|r| {
            let url = r.url.trim_start_matches("oci://").trim_end_matches('/');
            r.oci && !url.is_empty() && bare.starts_with(&format!("{url}/"))
        });
        return oci_chart(host, repo.as_ref(), chart, constraint).map(Some);
    }
    let Some((repo_name, name)) = chart.split_once('/') else {
        return Ok(None);
    };
    let Some(repo) = repository(doc, repo_name) else {
        return Ok(None);
    };
    if repo.oci {
        let locked = locked_version(host, doc, base, name);
        let reference = format!(
            "oci://{}/{name}",
            repo.url.trim_start_matches("oci://").trim_end_matches('/')
        );
        return oci_chart(
            host,
            Some(&repo),
            &reference,
            locked.as_deref().unwrap_or(constraint),
        )
        .map(Some);
    }
    let locked = locked_version(host, doc, base, name);
    let constraint = locked.as_deref().unwrap_or(constraint);
    repo_archive(host, &repo, name, constraint).map(Some)
}

/// The cached archive of chart `name` of `repo` at the version `constraint` selects,
/// downloaded (digest checked) when not cached. The repository's credentials go only to
/// its own host, as helm sends them without `--pass-credentials`.
fn repo_archive(
    host: &dyn Host,
    repo: &Repo,
    name: &str,
    constraint: &str,
) -> Result<PathBuf, StateError> {
    let index = index(host, repo)?;
    let entries = index
        .get("entries")
        .and_then(|e| e.get(name))
        .and_then(|l| l.as_list().map(|l| l.items.clone()))
        .ok_or_else(|| format!("chart \"{name}\" not found in {} index. (try 'helm repo update'): no chart name found", repo.name))?;
    let Some((version, entry)) = choose(&entries, constraint) else {
        let wanted = if constraint.is_empty() {
            "any stable version".to_string()
        } else {
            format!("version \"{constraint}\"")
        };
        return Err(format!(
            "chart \"{name}\" matching {wanted} not found in {} index. (try 'helm repo update')",
            repo.name
        )
        .into());
    };
    let _one_at_a_time = DOWNLOADING.lock();
    // Cached by the repository's URL, not its name (two states may give one name to two
    // repositories); the chart's name and version come from the repository's index:
    // none may steer the file out of the cache.
    let file = host
        .cache_dir()
        .join("charts")
        .join(repository_key(repo))
        .join(cache_component(&format!("{name}-{version}.tgz"))?);
    let digest = match entry.get("digest") {
        Some(Value::String(d)) if !d.is_empty() => Some(d.to_lowercase()),
        _ => None,
    };
    // An archive the index gives no digest for cannot be checked: it is fetched again
    // in every run (once per run).
    let reusable = match &digest {
        Some(_) => cached_archive_intact(host, &file, digest.as_deref()),
        None => fetched_this_run(&file, false) && cached_archive_intact(host, &file, None),
    };
    if reusable {
        return Ok(file);
    }
    let url = entry
        .get("urls")
        .and_then(|u| u.as_list().and_then(|l| l.items.first().cloned()))
        .and_then(|u| u.as_str().map(String::from))
        .ok_or_else(|| {
            format!(
                "chart \"{name}\" {version} in {} has no download URL",
                repo.name
            )
        })?;
    let absolute = if url.contains("://") {
        url
    } else {
        format!(
            "{}/{}",
            repo.url.trim_end_matches('/'),
            url.trim_start_matches('/')
        )
    };
    host.progress(&format!(
        "Downloading {name} {version} from repo {}",
        capstan_fetch::redact(&repo.url)
    ));
    let (user, password) = if capstan_fetch::same_origin(&absolute, &repo.url) {
        (repo.user.as_str(), repo.password.as_str())
    } else {
        ("", "")
    };
    let data = host.http_get(&absolute, user, password)?;
    if let Some(Value::String(digest)) = entry.get("digest") {
        let got: String = capstan_gocompat::hex::encode(&Sha256::digest(&data));
        if !digest.is_empty() && *digest.to_lowercase() != got {
            return Err(format!(
                "chart \"{name}\" {version} from {}: digest mismatch (index says {digest}, download is {got})",
                repo.name
            ).into());
        }
    }
    host.write_file(&file, &data)
        .map_err(|e| format!("caching {}: {e}", file.display()))?;
    fetched_this_run(&file, true);
    Ok(file)
}

/// The cache folder of a repository: its name (for a reader) and a digest of its URL
/// (what the cache is keyed by).
fn repository_key(repo: &Repo) -> String {
    let url = repo.url.trim_end_matches('/');
    let digest = capstan_gocompat::hex::encode(&Sha256::digest(url.as_bytes()));
    let readable: String = repo
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    format!("{readable}-{}", &digest[..16])
}

/// Whether this run downloaded `file` (recording it when `record`).
fn fetched_this_run(file: &std::path::Path, record: bool) -> bool {
    static FETCHED: Mutex<Option<std::collections::HashSet<PathBuf>>> = Mutex::new(None);
    let mut set = FETCHED.lock().unwrap_or_else(|e| e.into_inner());
    let set = set.get_or_insert_with(Default::default);
    if record {
        set.insert(file.to_path_buf())
    } else {
        set.contains(file)
    }
}

/// What `helm dependency build` fetches for a dependency of the local chart in
/// `chart_dir` that `charts/` lacks: `file://` a directory beside the chart, `https://`
/// (or `http://`) a repository by URL (with the credentials of the listed repository of
/// that URL), `@name`/`alias:name` a repository listed under `repositories:`,
/// `oci://` a registry. The version is `Chart.lock`'s when it pins one, else the
/// constraint in `Chart.yaml`. `None` for a dependency without a repository (it must be
/// in `charts/`).
pub(crate) fn dependency_chart(
    host: &dyn Host,
    doc: &Tree,
    chart_dir: &std::path::Path,
    name: &str,
    version: &str,
    repository: &str,
) -> Result<Option<PathBuf>, StateError> {
    let locked = chart_lock_version(host, chart_dir, name, repository);
    let constraint = locked.as_deref().unwrap_or(version);
    if repository.is_empty() {
        return Ok(None);
    }
    if let Some(path) = repository.strip_prefix("file://") {
        return Ok(Some(chart_dir.join(path)));
    }
    if repository.starts_with("oci://") {
        let base = repository
            .trim_start_matches("oci://")
            .trim_end_matches('/');
        let listed = repositories(doc).into_iter().find(|r| {
            let url = r.url.trim_start_matches("oci://").trim_end_matches('/');
            r.oci && !url.is_empty() && (base == url || base.starts_with(&format!("{url}/")))
        });
        return oci_chart(
            host,
            listed.as_ref(),
            &format!("oci://{base}/{name}"),
            constraint,
        )
        .map(Some);
    }
    if let Some(alias) = repository
        .strip_prefix('@')
        .or_else(|| repository.strip_prefix("alias:"))
    {
        let repo = self::repository(doc, alias).ok_or_else(|| {
            format!("no repository definition for {repository}: list it under `repositories:`")
        })?;
        if repo.oci {
            let reference = format!(
                "oci://{}/{name}",
                repo.url.trim_start_matches("oci://").trim_end_matches('/')
            );
            return oci_chart(host, Some(&repo), &reference, constraint).map(Some);
        }
        return repo_archive(host, &repo, name, constraint).map(Some);
    }
    if repository.starts_with("https://") || repository.starts_with("http://") {
        let url = repository.trim_end_matches('/');
        let repo = repositories(doc)
            .into_iter()
            .find(|r| r.url.trim_end_matches('/') == url)
            .unwrap_or_else(|| Repo {
                // The cache folder of a repository known only by its URL.
                name: url
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect(),
                url: url.to_string(),
                user: String::new(),
                password: String::new(),
                oci: false,
                plain_http: false,
            });
        return repo_archive(host, &repo, name, constraint).map(Some);
    }
    Err(format!(
        "dependency {name:?}: repository {repository:?} is not a URL helm can fetch from (file://, https://, oci://, @name)"
    ).into())
}

/// The version `Chart.lock` beside the chart pins for a dependency.
fn chart_lock_version(
    host: &dyn Host,
    chart_dir: &std::path::Path,
    name: &str,
    repository: &str,
) -> Option<String> {
    let text = host.read_file(&chart_dir.join("Chart.lock")).ok()?;
    let v = capstan_yaml::decode_helm(&String::from_utf8_lossy(&text)).ok()?;
    v.get("dependencies")?
        .as_list()?
        .items
        .iter()
        .find_map(|d| {
            let same = d.get("name")?.as_str()? == name
                && d.get("repository")
                    .and_then(|r| r.as_str().map(|r| r == repository))
                    .unwrap_or(repository.is_empty());
            same.then(|| d.get("version").map(|x| crate::scalar_text(&x)))?
        })
}

/// A chart from an OCI registry (`oci://host/path/name`) at the version `constraint`
/// selects, as helm resolves it: an exact version is the tag; a range is matched
/// against the repository's tags; no version is helmfile's `latest` error. Exact versions
/// already in the cache are not pulled again (helmfile's rule).
fn oci_chart(
    host: &dyn Host,
    repo: Option<&Repo>,
    reference: &str,
    constraint: &str,
) -> Result<PathBuf, StateError> {
    let auth = crate::host::OciAuth {
        username: repo.map(|r| r.user.clone()).unwrap_or_default(),
        password: repo.map(|r| r.password.clone()).unwrap_or_default(),
        plain_http: repo.is_some_and(|r| r.plain_http),
    };
    let bare = reference.trim_start_matches("oci://");
    if constraint.is_empty() {
        // helmfile asks helm for the `latest` tag here, which helm refuses.
        return Err("the version for OCI charts should be semver compliant, the latest tag is not supported anymore for helm >= 3.8.0".into());
    }
    // A full version (`1.2.3`, `v1.2.3-rc.1+b`) is the tag; anything else (`1.2`,
    // `~1.2`, `>=1`) is a constraint over the tag list, as helm reads it.
    let exact = is_full_version(constraint);
    let version = if exact {
        constraint.to_string()
    } else {
        let tags: Vec<String> = host
            .oci_tags(reference, &auth)?
            .iter()
            .map(|t| t.replace('_', "+"))
            .collect();
        let wanted = if constraint.is_empty() {
            "any stable version".to_string()
        } else {
            format!("version \"{constraint}\"")
        };
        let i = best_version(&tags, constraint)
            .ok_or_else(|| format!("{bare}: no tag matching {wanted}"))?;
        tags[i].clone()
    };
    let mut dir = PathBuf::new();
    for part in bare.split('/').filter(|p| !p.is_empty()) {
        dir.push(cache_component(&part.replace(':', "_"))?);
    }
    let name = bare.rsplit('/').next().unwrap_or(bare);
    let file = host
        .cache_dir()
        .join("charts")
        .join("oci")
        .join(dir)
        .join(cache_component(&format!("{name}-{version}.tgz"))?);
    let _one_at_a_time = DOWNLOADING.lock();
    if exact && cached_archive_intact(host, &file, None) {
        return Ok(file);
    }
    let tagged = format!("{bare}:{version}");
    host.progress(&format!("Pulling {tagged}"));
    let (digest, data) = host.oci_pull(reference, &version, &auth)?;
    host.progress(&format!("Pulled: {tagged}\nDigest: {digest}"));
    host.write_file(&file, &data)
        .map_err(|e| format!("caching {}: {e}", file.display()))?;
    Ok(file)
}

/// One path component of a cache file named from a state file, an index or a registry:
/// refused when it could name another directory.
fn cache_component(part: &str) -> Result<&str, StateError> {
    if part.is_empty() || part == "." || part == ".." || part.contains(['/', '\\', '\0']) {
        return Err(format!(
            "{part:?} cannot name a file in the chart cache (a path separator or '..')"
        )
        .into());
    }
    Ok(part)
}

/// Whether a cached chart archive is whole: its digest (when the index gives one)
/// matches, else it unpacks as a chart. A download cut short is fetched again.
fn cached_archive_intact(host: &dyn Host, file: &std::path::Path, digest: Option<&str>) -> bool {
    let Ok(data) = host.read_file(file) else {
        return false;
    };
    match digest {
        Some(d) => {
            let got: String = capstan_gocompat::hex::encode(&Sha256::digest(&data));
            got == d
        }
        None => capstan_chart::archive::read_archive(&data).is_ok(),
    }
}

/// Whether `v` is a complete semantic version (three numeric parts, optional
/// pre-release and build), optionally with a leading `v`.
fn is_full_version(v: &str) -> bool {
    let v = v.strip_prefix('v').unwrap_or(v);
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && SemVersion::parse(v).is_ok()
}

#[cfg(test)]
mod tests {
    use super::is_full_version;

    #[test]
    fn full_versions_are_tags() {
        for v in ["1.2.3", "v0.1.0", "1.0.0-rc.1", "1.0.0+build.5"] {
            assert!(is_full_version(v), "{v}");
        }
        for v in ["1.2", "1", "~1.2.3", ">=1.0.0", "1.2.x", ""] {
            assert!(!is_full_version(v), "{v}");
        }
    }
}
