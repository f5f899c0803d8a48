//! Parsing a chart's templates while the rest of the render is prepared: when a chart is
//! loaded to be rendered, a second thread starts parsing its template files (the top
//! chart's first) as soon as they are read, while the loader decodes the `values.yaml`
//! files and the values are merged. The render then takes the trees that are ready,
//! helps with the rest of the queue, and parses anything not found here itself
//! ([`take`]), so the outcome never depends on this module: only how soon it comes.
//!
//! A file is parsed under a provisional name (its path in the top chart), since the
//! names templates get in the set (`top/charts/sub/templates/x.yaml`) come from
//! `Chart.yaml` files not read yet. Only a parse that succeeded is used, its main tree
//! renamed; one whose definitions could clash with either name, or that failed (its
//! error names the template), is parsed again under its real name.

use crate::model::ChartFile;
use capstan_gotmpl::Tree;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One template file to parse.
struct Job {
    /// The provisional name: the file's path in the top chart.
    path: String,
    data: Arc<[u8]>,
    /// Set by the render for files it does not need (a disabled subchart's).
    skip: AtomicBool,
    /// The trees, once parsed without error.
    trees: Mutex<Option<Vec<Tree>>>,
}

/// The template files of one loaded chart tree, taken from a shared queue by the
/// background thread and, once the render arrives, by the render too.
struct Ahead {
    jobs: Vec<Job>,
    next: AtomicUsize,
    worker: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Ahead {
    /// Parses queued jobs until none is left.
    fn work(&self) {
        let funcs = crate::render::helm_func_map();
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = self.jobs.get(i) else { break };
            if job.skip.load(Ordering::Relaxed) {
                continue;
            }
            let text = crate::render::lossy_text(&job.data);
            // A panic (input nested too deeply) leaves the file to the render, which
            // reports it as it always does.
            let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                capstan_gotmpl::parse_trees(&job.path, &text, &funcs)
            }));
            if let Ok(Ok(trees)) = parsed {
                if let Ok(mut slot) = job.trees.lock() {
                    *slot = Some(trees);
                }
            }
        }
    }
}

/// Charts whose templates are being parsed ahead, not yet taken by a render.
static PENDING: Mutex<Vec<Arc<Ahead>>> = Mutex::new(Vec::new());

/// Whether `path` (in the top chart) is a template file of the top chart or of a
/// subchart folder (`charts/<name>/…/templates/…`).
fn is_template(path: &str) -> bool {
    let mut rest = path;
    loop {
        if rest.starts_with("templates/") {
            return true;
        }
        let Some(sub) = rest.strip_prefix("charts/") else {
            return false;
        };
        let Some((_, inner)) = sub.split_once('/') else {
            return false;
        };
        rest = inner;
    }
}

/// Starts parsing the template files among `files` (a chart folder's files, paths in
/// the top chart) on a second thread, when this machine has one to spare.
pub(crate) fn start(files: &[ChartFile]) {
    if capstan_value::stack::cores() < 2 {
        return;
    }
    let mut jobs: Vec<Job> = files
        .iter()
        .filter(|f| is_template(&f.name))
        .map(|f| Job {
            path: f.name.clone(),
            data: f.data.clone(),
            skip: AtomicBool::new(false),
            trees: Mutex::new(None),
        })
        .collect();
    if jobs.is_empty() {
        return;
    }
    // The top chart's own templates first: they are always rendered.
    jobs.sort_by_key(|j| !j.path.starts_with("templates/"));
    let ahead = Arc::new(Ahead {
        jobs,
        next: AtomicUsize::new(0),
        worker: Mutex::new(None),
    });
    let background = ahead.clone();
    let spawned = std::thread::Builder::new()
        .name("capstan-parse".into())
        .stack_size(capstan_value::DEEP_STACK_BYTES)
        .spawn(move || {
            capstan_value::stack::mark_thread_stack(capstan_value::DEEP_STACK_BYTES);
            background.work();
        });
    let Ok(handle) = spawned else { return };
    if let Ok(mut w) = ahead.worker.lock() {
        *w = Some(handle);
    }
    if let Ok(mut pending) = PENDING.lock() {
        pending.push(ahead);
    }
}

/// The trees parsed ahead for each `(name, data)` of a set about to be parsed (`None`
/// for a file to parse here). The render helps with what is still queued, waits for the
/// background thread, and takes the chart out of the pending list.
pub(crate) fn take(names: &[(&str, &Arc<[u8]>)]) -> Vec<Option<Vec<Tree>>> {
    let mut out: Vec<Option<Vec<Tree>>> = names.iter().map(|_| None).collect();
    let wanted = |data: &Arc<[u8]>| names.iter().any(|(_, d)| Arc::ptr_eq(d, data));
    let mine: Vec<Arc<Ahead>> = match PENDING.lock() {
        Ok(mut pending) => {
            let (mine, rest): (Vec<_>, Vec<_>) = pending
                .drain(..)
                .partition(|a| a.jobs.iter().any(|j| wanted(&j.data)));
            *pending = rest;
            mine
        }
        Err(_) => return out,
    };
    for ahead in mine {
        for job in &ahead.jobs {
            if !wanted(&job.data) {
                job.skip.store(true, Ordering::Relaxed);
            }
        }
        ahead.work();
        let worker = ahead.worker.lock().ok().and_then(|mut w| w.take());
        if let Some(w) = worker {
            // A worker that panicked parsed nothing more: the render parses the rest.
            let _ = w.join();
        }
        for (slot, (name, data)) in out.iter_mut().zip(names) {
            if slot.is_some() {
                continue;
            }
            let Some(job) = ahead.jobs.iter().find(|j| Arc::ptr_eq(&j.data, data)) else {
                continue;
            };
            let Some(mut trees) = job.trees.lock().ok().and_then(|mut t| t.take()) else {
                continue;
            };
            // The main tree comes first; a definition named like either name would
            // have been parsed differently under the real one.
            let clash = trees
                .iter()
                .skip(1)
                .any(|t| t.name == job.path || t.name == *name);
            match trees.first_mut() {
                Some(main) if !clash && main.name == job.path => {
                    main.name = name.to_string();
                    *slot = Some(trees);
                }
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_files_of_the_chart_and_its_subchart_folders() {
        assert!(is_template("templates/a.yaml"));
        assert!(is_template("templates/_helpers.tpl"));
        assert!(is_template("charts/db/templates/a.yaml"));
        assert!(is_template("charts/db/charts/x/templates/b/c.yaml"));
        assert!(!is_template("files/templates/a.yaml"));
        assert!(!is_template("charts/db/files/a.yaml"));
        assert!(!is_template("charts/db.tgz"));
        assert!(!is_template("Chart.yaml"));
    }

    fn file(name: &str, text: &str) -> ChartFile {
        ChartFile {
            name: name.to_string(),
            data: Arc::from(text.as_bytes()),
        }
    }

    #[test]
    fn trees_parsed_ahead_are_named_as_the_set_names_them() {
        let files = vec![
            file(
                "templates/a.yaml",
                "a: {{ .Values.x }}{{ define \"d\" }}D{{ end }}",
            ),
            file(
                "templates/b.yaml",
                "{{ define \"templates/b.yaml\" }}clash{{ end }}b",
            ),
            file("templates/bad.yaml", "{{ if }}"),
            file("charts/sub/templates/c.yaml", "c"),
        ];
        start(&files);
        let names: Vec<(&str, &Arc<[u8]>)> = vec![
            ("top/templates/a.yaml", &files[0].data),
            ("top/templates/b.yaml", &files[1].data),
            ("top/templates/bad.yaml", &files[2].data),
        ];
        let got = take(&names);
        if capstan_value::stack::cores() < 2 {
            assert!(got.iter().all(Option::is_none));
            return;
        }
        let a = got[0].as_ref().expect("a parsed ahead");
        assert_eq!(a[0].name, "top/templates/a.yaml");
        assert_eq!(a[1].name, "d");
        // A definition named like the provisional name, and a parse error, are left to
        // the render.
        assert!(got[1].is_none());
        assert!(got[2].is_none());
        // Taken once: the chart is no longer pending.
        assert!(take(&names).iter().all(Option::is_none));
    }
}
