//! A big chart's templates executed on two threads, with exactly the output of Helm's
//! one-after-the-other render. Helm sets `.Template` on the chart's scope map before each
//! template, and a template may change a map a later one reads; so each template gets a
//! copy of its chart's scope (and of the subcharts' scopes under `.Subcharts`) holding the
//! `.Template` each would hold at that point of Helm's order, made before the render
//! starts, and the threads run under [`capstan_value::write_guard`]: a template writing
//! to any map made before (the values, a scope, `$`) stops the whole attempt before the
//! write happens, and the caller renders one template after the other instead. A panic of
//! any other kind does the same, so that errors come in Helm's order.

use capstan_gotmpl::{ExecError, Templates};
use capstan_value::write_guard;
use capstan_value::{static_str, Str, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Template text (every file of the chart tree, helpers included) below which a chart
/// renders on one thread: starting threads costs more than small charts take.
pub(crate) const PARALLEL_FROM_BYTES: usize = 128 << 10;

/// Renders running in this process: a render started while another runs (helmfile's
/// releases, rendered side by side) stays on its thread.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Renders whose templates ran on two threads to the end (none fell back).
static PARALLEL: AtomicUsize = AtomicUsize::new(0);

/// Notes a render done on two threads.
pub(crate) fn count_parallel() {
    PARALLEL.fetch_add(1, Ordering::Relaxed);
}

/// How many renders of this process executed their templates on two threads (the rest
/// ran one template after the other: small charts, renders side by side, templates
/// that write to shared maps). For tests and diagnostics.
pub fn parallel_renders() -> usize {
    PARALLEL.load(Ordering::Relaxed)
}

/// Counts a render as running while it lives.
pub(crate) struct Running(bool);

impl Running {
    /// Starts counting; [`Running::alone`] says whether no other render was running.
    pub(crate) fn start() -> Running {
        Running(RUNNING.fetch_add(1, Ordering::SeqCst) == 0)
    }

    /// Whether this render began while no other was running.
    pub(crate) fn alone(&self) -> bool {
        self.0
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One template to execute: its name, its chart's scope and its `.Template` object.
pub(crate) struct Job<'a> {
    pub name: &'a str,
    pub scope: &'a Value,
    pub template: Value,
}

/// A chart's scope and the subcharts' under its `.Subcharts`.
struct Node {
    original: Value,
    children: Vec<(Str, usize)>,
    parent: Option<usize>,
    /// `.Template` as Helm's render would have left it so far.
    template: Option<Value>,
    /// The copy for the current point of the order, while still valid.
    copy: Option<Value>,
}

/// The scope tree of the render, and copies of it along Helm's order.
struct Scopes {
    nodes: Vec<Node>,
    by_address: HashMap<usize, usize>,
}

fn address(v: &Value) -> Option<usize> {
    match v {
        Value::Map(m) => Some(Arc::as_ptr(m) as usize),
        _ => None,
    }
}

impl Scopes {
    /// The node of `scope`, added with its subcharts' when new.
    fn node(&mut self, scope: &Value, parent: Option<usize>) -> Option<usize> {
        let key = address(scope)?;
        if let Some(&i) = self.by_address.get(&key) {
            return Some(i);
        }
        let i = self.nodes.len();
        self.by_address.insert(key, i);
        self.nodes.push(Node {
            original: scope.clone(),
            children: Vec::new(),
            parent,
            template: None,
            copy: None,
        });
        if let Some(Value::Map(subs)) = scope.get("Subcharts") {
            for (name, sub) in subs.snapshot() {
                let child = self.node(&sub, Some(i))?;
                self.nodes[child].parent = Some(i);
                self.nodes[i].children.push((name, child));
            }
        }
        Some(i)
    }

    /// `.Template` of node `i` set: its copy and its ancestors' are out of date.
    fn set_template(&mut self, i: usize, template: Value) {
        self.nodes[i].template = Some(template);
        let mut at = Some(i);
        while let Some(n) = at {
            self.nodes[n].copy = None;
            at = self.nodes[n].parent;
        }
    }

    /// The copy of node `i` as things stand.
    fn copy(&mut self, i: usize) -> Value {
        if let Some(c) = &self.nodes[i].copy {
            return c.clone();
        }
        let Value::Map(original) = &self.nodes[i].original else {
            return self.nodes[i].original.clone();
        };
        let mut entries = original.snapshot();
        match &self.nodes[i].template {
            Some(t) => entries.insert(static_str!("Template"), t.clone()),
            None => entries.remove("Template"),
        };
        if !self.nodes[i].children.is_empty() {
            let children = self.nodes[i].children.clone();
            let mut subs = match entries.get("Subcharts") {
                Some(Value::Map(m)) => m.snapshot(),
                _ => Default::default(),
            };
            for (name, child) in children {
                subs.insert(name, self.copy(child));
            }
            entries.insert(static_str!("Subcharts"), Value::map_from(subs));
        }
        let copy = Value::map_from(entries);
        self.nodes[i].copy = Some(copy.clone());
        copy
    }
}

/// Each job's scope: a copy of its chart's scope with `.Template` (its own, and under
/// `.Subcharts` the subcharts' latest) as Helm's order leaves them. `None` when a scope is
/// not a map.
fn job_scopes(jobs: &[Job<'_>]) -> Option<Vec<Value>> {
    let mut scopes = Scopes {
        nodes: Vec::new(),
        by_address: HashMap::new(),
    };
    let mut out = Vec::with_capacity(jobs.len());
    for job in jobs {
        let i = scopes.node(job.scope, None)?;
        scopes.set_template(i, job.template.clone());
        out.push(scopes.copy(i));
    }
    Some(out)
}

/// The jobs' outputs in order, each as executing it alone in Helm's order gives it (the
/// first error ends the list, as it ends Helm's render); `None` when the jobs must run
/// one after the other instead: a template wrote to a map made before the render, or
/// something panicked.
pub(crate) fn execute(set: &Templates, jobs: &[Job<'_>]) -> Option<Vec<Result<String, ExecError>>> {
    let scopes = job_scopes(jobs)?;
    // Every map made so far (the values, the scopes and their copies) is now older than
    // what the threads may write.
    let epoch = write_guard::begin_epoch()?;
    let next = AtomicUsize::new(0);
    let first_error = AtomicUsize::new(usize::MAX);
    let stop = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<Result<String, ExecError>>>> =
        jobs.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        let mine = set.fresh_copy();
        while !stop.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            // Nothing after the first failure is needed.
            if i >= jobs.len() || i > first_error.load(Ordering::Relaxed) {
                break;
            }
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                mine.execute(jobs[i].name, &scopes[i])
            }));
            match run {
                Ok(out) => {
                    if out.is_err() {
                        first_error.fetch_min(i, Ordering::Relaxed);
                    }
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(out);
                    }
                }
                Err(_) => stop.store(true, Ordering::Relaxed),
            }
        }
    };
    // This thread and one more (its allocator's memory is already warm); alone when no
    // thread can start.
    std::thread::scope(|scope| {
        let _helper = std::thread::Builder::new()
            .name("capstan-render".into())
            .stack_size(capstan_value::DEEP_STACK_BYTES)
            .spawn_scoped(scope, || {
                capstan_value::stack::mark_thread_stack(capstan_value::DEEP_STACK_BYTES);
                write_guard::guard_thread(epoch);
                work();
            });
        let before = write_guard::thread_guard();
        write_guard::guard_thread(epoch);
        work();
        write_guard::guard_thread(before);
    });
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut out = Vec::with_capacity(jobs.len());
    for slot in slots {
        let result = slot.into_inner().ok().flatten()?;
        let failed = result.is_err();
        out.push(result);
        if failed {
            break;
        }
    }
    Some(out)
}
