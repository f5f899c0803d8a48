//! Turning rendered templates into what `helm template` prints: documents split on
//! `---`, each document's head read (kind, name, hook annotations), hooks set apart,
//! both lists ordered by Helm's install order of kinds (stable, unknown kinds last by
//! name), and printed with `# Source:` headers.

use capstan_value::Value;
use std::collections::BTreeMap;

capstan_source::message_error!(
    /// Why rendered manifests could not be sorted or filtered (Helm's text).
    ManifestError
);

/// Helm's `InstallOrder`.
const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

const HOOK_EVENTS: &[&str] = &[
    "pre-install",
    "post-install",
    "pre-delete",
    "post-delete",
    "pre-upgrade",
    "post-upgrade",
    "pre-rollback",
    "post-rollback",
    "test",
    "test-success",
];

/// One document of a rendered template.
#[derive(Clone, Debug)]
pub struct Manifest<'a> {
    /// The template path (`chart/templates/cm.yaml`).
    pub source: &'a str,
    /// The document's text (a slice of the rendered file: a chart's CRDs run to
    /// megabytes, and every copy of them costs).
    pub content: &'a str,
    /// Its `kind` (empty when it has none).
    pub kind: String,
    /// Hook events, for hooks.
    pub events: Vec<String>,
}

/// Regular manifests and hooks, each in install order.
#[derive(Debug, Default)]
pub struct Sorted<'a> {
    /// The release's resources, in install order.
    pub manifests: Vec<Manifest<'a>>,
    /// Its hooks, in install order.
    pub hooks: Vec<Manifest<'a>>,
}

/// Helm 4.3's `SplitManifests`: leading whitespace removed, the text is split at every
/// `---` that starts a line, together with the ASCII whitespace after it (Go's `\s`:
/// what follows the dashes on that line, such as a comment, starts the next document);
/// empty pieces are dropped and each document loses its leading whitespace but keeps
/// its trailing whitespace (Helm 4.3 prints it: a blank line before the next `---`).
pub fn split_documents(text: &str) -> Vec<String> {
    document_slices(text)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// A line starting with `---`.
static SEPARATOR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\n---"));

/// [`split_documents`] as slices of `text`: separators (`---` at a line start) found with
/// a substring search rather than line by line.
pub(crate) fn document_slices(text: &str) -> Vec<&str> {
    let text = text.trim_start();
    let bytes = text.as_bytes();
    let mut docs = Vec::new();
    let mut start = 0;
    // The next separator is a line start at or after `at`.
    let mut at: usize = 0;
    loop {
        let sep = if at == 0 && bytes.starts_with(b"---") {
            Some(0)
        } else {
            // From the byte before `at`: a separator at `at` itself follows a newline.
            let from = at.saturating_sub(1);
            SEPARATOR.find(&bytes[from..]).map(|i| from + i + 1)
        };
        let Some(sep) = sep else { break };
        docs.push(&text[start..sep]);
        at = sep + 3;
        while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\n' | b'\r' | 0x0c) {
            at += 1;
        }
        start = at;
    }
    docs.push(&text[start..]);
    docs.into_iter()
        .filter(|d| !d.is_empty())
        .map(|d| d.trim_start())
        .collect()
}

/// The rendered files that hold manifests: partials (`_*`) and empty files left out.
pub(crate) fn manifest_files(
    files: &BTreeMap<String, String>,
) -> impl Iterator<Item = (&String, &String)> {
    files.iter().filter(|(path, content)| {
        let base = path.rsplit('/').next().unwrap_or(path);
        !base.starts_with('_') && !content.trim().is_empty()
    })
}

/// Helm's `SortManifests` over the rendered files (partials, empty files and NOTES.txt
/// already excluded by the caller or here).
pub(crate) fn sort_manifests(
    files: &BTreeMap<String, String>,
) -> Result<Sorted<'_>, ManifestError> {
    let mut out = Sorted::default();
    let docs: Vec<(&String, &str)> = manifest_files(files)
        .flat_map(|(path, content)| document_slices(content).into_iter().map(move |d| (path, d)))
        .collect();
    let heads = heads(&docs);
    for ((path, doc), head) in docs.into_iter().zip(heads) {
        // Most manifests: read from the parser's events; the rest decoded in full
        // (in order, so the first failing document is the error).
        let (kind, hook) = match head {
            Some(h) => (h.kind, h.hook.map(Value::from)),
            None => full_head(doc, path)?,
        };
        let mut m = Manifest {
            source: path,
            content: doc,
            kind,
            events: Vec::new(),
        };
        match hook {
            Some(Value::String(events)) => {
                let mut known = true;
                for e in events.split(',') {
                    let e = e.trim().to_lowercase();
                    if HOOK_EVENTS.contains(&e.as_str()) {
                        m.events.push(e);
                    } else {
                        known = false;
                        break;
                    }
                }
                if known {
                    out.hooks.push(m);
                }
            }
            _ => out.manifests.push(m),
        }
    }
    sort_by_kind(&mut out.manifests);
    sort_by_kind(&mut out.hooks);
    Ok(out)
}

/// Rendered output from which reading the heads is worth a second thread (CRDs
/// included by templates run to megabytes; most charts render far less).
const PARALLEL_HEADS_FROM: usize = 1 << 20;

/// [`capstan_yaml::manifest_head`] of every document, on every core when there is
/// enough to read; the results in the documents' order.
fn heads(docs: &[(&String, &str)]) -> Vec<Option<capstan_yaml::ManifestHead>> {
    let total: usize = docs.iter().map(|(_, d)| d.len()).sum();
    let serial = || {
        docs.iter()
            .map(|(_, d)| capstan_yaml::manifest_head(d))
            .collect()
    };
    if total < PARALLEL_HEADS_FROM {
        return serial();
    }
    // (Asking the system reads cgroup files: only for the rare big render.)
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(docs.len());
    if threads < 2 {
        return serial();
    }
    // Each thread takes the next unread document (they differ in size by 1000x).
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut heads: Vec<Option<capstan_yaml::ManifestHead>> = vec![None; docs.len()];
    let found: Vec<Vec<(usize, Option<capstan_yaml::ManifestHead>)>> =
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some((_, doc)) = docs.get(i) else {
                                return mine;
                            };
                            mine.push((i, capstan_yaml::manifest_head(doc)));
                        }
                    })
                })
                .collect();
            // A thread that panicked read nothing: its documents are decoded in full below.
            workers.into_iter().filter_map(|w| w.join().ok()).collect()
        });
    for (i, head) in found.into_iter().flatten() {
        heads[i] = head;
    }
    heads
}

/// `kind` and the `helm.sh/hook` annotation of a manifest decoded in full, with Helm's
/// errors for one that is not YAML or whose `kind` is not a string.
fn full_head(doc: &str, path: &str) -> Result<(String, Option<Value>), ManifestError> {
    let head = capstan_yaml::decode_helm_value(doc)
        .map_err(|e| format!("YAML parse error on {path}: {e}"))?;
    let head_map = head.as_map().map(|m| m.snapshot()).unwrap_or_default();
    let kind = crate::model::string_field(&head_map, "kind", "SimpleHead")
        .map_err(|e| format!("YAML parse error on {path}: {e}"))?;
    let hook = head
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.as_map().map(|m| m.snapshot()))
        .and_then(|a| a.get("helm.sh/hook").cloned());
    Ok((kind, hook))
}

fn sort_by_kind(list: &mut Vec<Manifest>) {
    // Each kind's place looked up once; unknown kinds last, by name (a stable sort).
    let mut ranked: Vec<(usize, Manifest)> = std::mem::take(list)
        .into_iter()
        .map(|m| {
            let rank = INSTALL_ORDER.iter().position(|o| *o == m.kind);
            (rank.unwrap_or(usize::MAX), m)
        })
        .collect();
    ranked.sort_by(|(x, a), (y, b)| {
        x.cmp(y).then_with(|| {
            if *x == usize::MAX {
                a.kind.cmp(&b.kind)
            } else {
                std::cmp::Ordering::Equal
            }
        })
    });
    list.extend(ranked.into_iter().map(|(_, m)| m));
}

/// The documents of text `helm template` printed (the name from each `# Source:` line,
/// `manifest.yaml` when there is none): for output helm itself rendered.
pub fn documents_of(manifest: &str) -> Vec<(String, String)> {
    split_documents(manifest)
        .into_iter()
        .map(|d| match d.strip_prefix("# Source: ") {
            Some(rest) => {
                let (name, content) = rest.split_once('\n').unwrap_or((rest, ""));
                (name.trim().to_string(), content.to_string())
            }
            None => ("manifest.yaml".to_string(), d),
        })
        .collect()
}

/// Helm's `--show-only` over the text `helm template` prints: that text split again
/// into documents (a document keeps the whitespace before the next `---`), and for each
/// pattern in turn the documents whose `# Source:` path (without the chart name)
/// matches it, printed as `---`, the document and a newline.
pub fn show_only(manifest: &str, patterns: &[String]) -> Result<String, ManifestError> {
    let docs = split_documents(manifest);
    let mut out = String::new();
    for p in patterns {
        let mut found = false;
        for d in &docs {
            let Some(path) = source_path(d) else {
                continue;
            };
            if capstan_gocompat::glob::glob_match(p, path) {
                out.push_str("---\n");
                out.push_str(d);
                out.push('\n');
                found = true;
            }
        }
        if !found {
            return Err(format!("could not find template {p} in chart").into());
        }
    }
    Ok(out)
}

/// What Helm's `# Source: [^/]+/(.+)` finds first in a document: the template path
/// after the chart name.
fn source_path(doc: &str) -> Option<&str> {
    let mut rest = doc;
    while let Some(at) = rest.find("# Source: ") {
        let after = &rest[at + "# Source: ".len()..];
        if let Some(slash) = after.find('/').filter(|n| *n > 0) {
            let path = after[slash + 1..].split('\n').next().unwrap_or("");
            if !path.is_empty() {
                return Some(path);
            }
        }
        rest = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_starting_with_dashes_separates_documents() {
        assert_eq!(
            split_documents("a: 1\n---# a comment\nb: 2\n---\n\n---   \nc: 3\n----\nd: 4"),
            ["a: 1\n", "# a comment\nb: 2\n", "c: 3\n", "-\nd: 4"]
        );
        assert_eq!(split_documents("x: '---'\n  ---\n"), ["x: '---'\n  ---\n"]);
        // Helm 4.3 keeps a document's trailing whitespace and drops its leading one.
        assert_eq!(
            split_documents(" \n\n a: 1  \n  \n---  \t\n\n  b: 2\r\n---\r\nc: 3\n\n"),
            ["a: 1  \n  \n", "b: 2\r\n", "c: 3\n\n"]
        );
        assert_eq!(split_documents("---\n---\n---"), Vec::<String>::new());
    }

    #[test]
    fn documents_split_and_sorted_by_kind() {
        let mut files = BTreeMap::new();
        files.insert(
            "c/templates/a.yaml".to_string(),
            "kind: Service\n---\n# only a comment\n---\nkind: ConfigMap\n".to_string(),
        );
        let s = sort_manifests(&files).unwrap();
        let kinds: Vec<&str> = s.manifests.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(kinds, ["ConfigMap", "Service", ""]);
    }

    /// Megabytes of rendered output (as charts that include their CRDs render) are read
    /// on several threads: the result is what one thread reads, in the same order, and
    /// the first failing document is still the error.
    #[test]
    fn big_output_reads_heads_in_parallel_with_the_same_result() {
        let big_doc = |kind: &str, i: usize| {
            let mut d = format!("apiVersion: v1\nkind: {kind}\nmetadata:\n  name: x{i}\n");
            if i.is_multiple_of(7) {
                d.push_str("  annotations:\n    helm.sh/hook: pre-install\n");
            }
            d.push_str("data:\n");
            for k in 0..4000 {
                d.push_str(&format!("  key{k}: value {k}\n"));
            }
            d
        };
        let kinds = ["Service", "ConfigMap", "Deployment", "Thing", "Secret"];
        let mut files = BTreeMap::new();
        for f in 0..6 {
            let docs: Vec<String> = (0..5)
                .map(|i| big_doc(kinds[(f + i) % 5], f * 5 + i))
                .collect();
            files.insert(format!("c/templates/t{f}.yaml"), docs.join("---\n"));
        }
        let total: usize = files.values().map(String::len).sum();
        assert!(
            total > PARALLEL_HEADS_FROM,
            "{total} bytes would not take the threads"
        );
        let parallel = sort_manifests(&files).unwrap();
        let one_by_one: Vec<(String, String)> = manifest_files(&files)
            .flat_map(|(p, c)| split_documents(c).into_iter().map(move |d| (p.clone(), d)))
            .collect();
        assert_eq!(
            parallel.manifests.len() + parallel.hooks.len(),
            one_by_one.len()
        );
        for m in parallel.manifests.iter().chain(&parallel.hooks) {
            let head = capstan_yaml::manifest_head(m.content).unwrap();
            assert_eq!(m.kind, head.kind);
            assert_eq!(!m.events.is_empty(), head.hook.is_some());
        }
        assert_eq!(parallel.hooks.len(), 5);
        // The same documents read one by one and sorted give the same list.
        let mut expected: Vec<Manifest> = one_by_one
            .iter()
            .filter_map(|(source, content)| {
                let head = capstan_yaml::manifest_head(content).unwrap();
                head.hook.is_none().then_some(Manifest {
                    source,
                    content,
                    kind: head.kind,
                    events: Vec::new(),
                })
            })
            .collect();
        sort_by_kind(&mut expected);
        let names = |l: &[Manifest]| -> Vec<(String, String)> {
            l.iter()
                .map(|m| (m.kind.clone(), m.content.to_string()))
                .collect()
        };
        assert_eq!(names(&parallel.manifests), names(&expected));

        // Two bad documents: the first in file order is the error.
        let mut bad = files.clone();
        bad.insert("c/templates/t2.yaml".into(), "kind: [unclosed\n".into());
        bad.insert("c/templates/t4.yaml".into(), "kind: {also: bad\n".into());
        let e = sort_manifests(&bad).unwrap_err().to_string();
        assert!(e.contains("c/templates/t2.yaml"), "{e}");
    }
}

#[cfg(test)]
mod document_slices_tests {
    /// The line-by-line reading the substring search replaced.
    fn document_slices_by_lines(text: &str) -> Vec<&str> {
        let text = text.trim_start();
        let bytes = text.as_bytes();
        let mut docs = Vec::new();
        let mut start = 0;
        let mut at = 0;
        while at < bytes.len() {
            let line_start = at == 0 || bytes[at - 1] == b'\n';
            if line_start && bytes[at..].starts_with(b"---") {
                docs.push(&text[start..at]);
                at += 3;
                while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\n' | b'\r' | 0x0c) {
                    at += 1;
                }
                start = at;
                continue;
            }
            // The next line start (or the end).
            at = bytes[at..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(bytes.len(), |n| at + n + 1);
        }
        docs.push(&text[start..]);
        docs.into_iter()
            .filter(|d| !d.is_empty())
            .map(|d| d.trim_start())
            .collect()
    }

    #[test]
    fn the_search_splits_as_the_line_reader_does() {
        let parts = [
            "---", "--- ", "---\t\n", "----", "a: 1", "b: ---", " ---", "\n", "\n\n", "x\r\n",
            "- ---", "---x", "", " ",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..(seed % 9) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(parts[(seed % parts.len() as u64) as usize]);
                if seed & 0x100 != 0 {
                    text.push('\n');
                }
            }
            seed = seed.wrapping_add(0x632b_e59b_d9b4_e019);
            assert_eq!(
                super::document_slices(&text),
                document_slices_by_lines(&text),
                "{text:?}"
            );
        }
    }
}
