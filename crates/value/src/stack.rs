//! Deep recursion without stack overflow. Templates, YAML and values nest as deep as their
//! input (Go grows a goroutine's stack to 1 GiB, then dies). Every recursive walk calls
//! [`grow`] at each level: while the current thread has room it runs the next level in
//! place; near the end of the stack it continues on a fresh thread with a large reserved
//! stack. Past [`MAX_SEGMENTS`] such stacks the work stops with a [`TooDeep`] panic,
//! which the command line reports as an error (never an abort).

use std::cell::Cell;

use crate::DEEP_STACK_BYTES;

/// How many stacks of [`DEEP_STACK_BYTES`] one chain of recursion may use: 8 GiB of
/// address space, far deeper than Go (which stops at 1 GiB).
pub const MAX_SEGMENTS: usize = 8;

/// Room left free at the end of a stack before moving on: more than any one level needs.
const RED_ZONE: usize = 256 * 1024;

/// Room assumed on a thread capstan did not start (the main thread, a test's thread):
/// Rust gives spawned threads 2 MiB, the main thread 8 MiB.
const UNKNOWN_STACK_ROOM: usize = 1024 * 1024;

thread_local! {
    /// The lowest stack address this thread may recurse to (stacks grow down), 0 when not
    /// known yet.
    static LIMIT: Cell<usize> = const { Cell::new(0) };
    /// Which stack of a chain this thread is (1 for the first).
    static SEGMENT: Cell<usize> = const { Cell::new(1) };
}

/// The panic payload when input nests past [`MAX_SEGMENTS`] stacks.
#[derive(Debug, Clone, Copy)]
pub struct TooDeep;

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "input nested too deeply: more than {} GiB of stack",
            MAX_SEGMENTS * (DEEP_STACK_BYTES >> 30)
        )
    }
}

#[inline(never)]
fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Records that the current thread's stack holds `size` bytes from about here.
pub fn mark_thread_stack(size: usize) {
    let here = stack_position();
    LIMIT.with(|l| l.set(here.saturating_sub(size.saturating_sub(RED_ZONE))));
}

/// Runs `f` on a new thread with a [`DEEP_STACK_BYTES`] stack, one segment further down
/// the chain than the current thread. Runs it here when no thread can be started.
pub(crate) fn on_deep_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let segment = SEGMENT.with(Cell::get) + 1;
    if segment > MAX_SEGMENTS {
        std::panic::panic_any(TooDeep);
    }
    // The write guard of a parallel render goes with the work.
    let guard = crate::write_guard::thread_guard();
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("capstan-deep".into())
            .stack_size(DEEP_STACK_BYTES)
            .spawn_scoped(scope, move || {
                mark_thread_stack(DEEP_STACK_BYTES);
                SEGMENT.with(|s| s.set(segment));
                crate::write_guard::guard_thread(guard);
                f()
            });
        match spawned {
            Ok(handle) => match handle.join() {
                Ok(r) => r,
                Err(payload) => std::panic::resume_unwind(payload),
            },
            Err(_) => std::panic::panic_any(TooDeep),
        }
    })
}

/// Runs one level of a recursive walk: in place while the stack has room, else on a new
/// stack (see the module documentation).
#[inline]
pub fn grow<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let here = stack_position();
    let limit = LIMIT.with(|l| {
        if l.get() == 0 {
            l.set(here.saturating_sub(UNKNOWN_STACK_ROOM));
        }
        l.get()
    });
    if here > limit {
        f()
    } else {
        on_deep_stack(f)
    }
}

/// Whether a caught panic payload is [`TooDeep`].
pub fn is_too_deep(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.downcast_ref::<TooDeep>().is_some()
}

/// Runs `work` on `workers` scoped threads, each with capstan's deep stack
/// ([`crate::DEEP_STACK_BYTES`], marked with [`mark_thread_stack`]); when no thread can
/// start (address space limits) it runs once on the calling thread instead. `work`
/// pulls its jobs itself (from a shared counter, say).
pub fn deep_workers(workers: usize, name: &str, work: impl Fn() + Sync) {
    std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..workers {
            let spawned = std::thread::Builder::new()
                .name(name.to_string())
                .stack_size(crate::DEEP_STACK_BYTES)
                .spawn_scoped(scope, || {
                    mark_thread_stack(crate::DEEP_STACK_BYTES);
                    work()
                });
            started += usize::from(spawned.is_ok());
        }
        if started == 0 {
            work();
        }
    });
}

/// The cores this process may use (asked once: the answer reads cgroup files).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// `f` over every job on up to [`cores`] deep-stack threads (see [`deep_workers`]),
/// each thread taking the next job not yet taken; the results in the jobs' order. A
/// panic in `f` goes on once every thread has stopped (as [`std::thread::scope`] does);
/// `None` only for a job no thread ran (none could start and the calling thread's run
/// stopped early, which it does not).
pub fn parallel_map<T: Sync, R: Send>(jobs: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<Option<R>> {
    let workers = cores().min(jobs.len());
    if workers < 2 {
        return jobs.iter().map(|j| Some(f(j))).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<R>>> =
        jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    deep_workers(workers, "capstan-worker", || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(job) = jobs.get(i) else { break };
        let out = f(job);
        if let Ok(mut slot) = slots[i].lock() {
            *slot = Some(out);
        }
    });
    slots
        .into_iter()
        .map(|s| s.into_inner().ok().flatten())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // A frame of some size, as real walks have.
        let pad = std::hint::black_box([0u8; 512]);
        grow(|| depth(n - 1)) + 1 + usize::from(pad[0])
    }

    #[test]
    fn recursion_past_one_stack_continues_on_new_stacks() {
        // On a 2 MiB test thread: 200,000 levels of ~1 KiB need several hundred MiB.
        assert_eq!(depth(200_000), 200_000);
    }
}
