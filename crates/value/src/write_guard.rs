//! Writes to maps that existed before a parallel render began. Helm renders a chart's
//! templates one after the other, and a template may change a map the next one reads
//! (`set $ "x" …`, `set .Values …`: Go maps are references). capstan may render
//! templates on several threads only as long as none does that: every [`crate::Map`]
//! records the epoch it was made in, a parallel render starts a new epoch
//! ([`begin_epoch`]) and marks its threads with it ([`guard_thread`]), and a write from
//! such a thread to a map made before stops that template with the [`SharedWrite`]
//! panic, before anything changes. The render then starts over on one thread.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};

/// The current epoch: maps made now record it. 32 bits, which fit beside a map's other
/// fields without making it larger (a state of 20,000 releases holds millions of maps);
/// the epochs run out after 4 billion parallel renders, which then stay on one thread.
static EPOCH: AtomicU32 = AtomicU32::new(1);

thread_local! {
    /// Maps made before this epoch may not be written on this thread (0: any may).
    static GUARD: Cell<u32> = const { Cell::new(0) };
}

/// The epoch a map made now records.
#[inline]
pub(crate) fn current_epoch() -> u32 {
    EPOCH.load(Ordering::Relaxed)
}

/// Starts a new epoch and returns it: every map made before is older than it; `None`
/// once the epochs have run out. The first call keeps off standard error, from then on,
/// [`SharedWrite`] panics (caught and acted on, never a bug to report) and any panic of
/// a guarded thread (the render it stops is repeated in order, which reports it then:
/// once, not twice).
pub fn begin_epoch() -> Option<u32> {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !is_shared_write(info.payload()) && thread_guard() == 0 {
                previous(info);
            }
        }));
    });
    EPOCH
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |e| e.checked_add(1))
        .ok()
        .map(|previous| previous + 1)
}

/// The epoch guarding this thread's writes (0 when none does).
pub fn thread_guard() -> u32 {
    GUARD.with(Cell::get)
}

/// From now on, this thread may not write to maps made before `epoch` (0 lifts it).
pub fn guard_thread(epoch: u32) {
    GUARD.with(|g| g.set(epoch));
}

/// The panic payload of a guarded thread writing to an older map.
#[derive(Debug, Clone, Copy)]
pub struct SharedWrite;

/// Whether a caught panic payload is [`SharedWrite`].
pub fn is_shared_write(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.downcast_ref::<SharedWrite>().is_some()
}

/// Called before a map made in epoch `born` changes in place.
#[inline]
pub(crate) fn check_write(born: u32) {
    let guard = thread_guard();
    if guard != 0 && born < guard {
        std::panic::panic_any(SharedWrite);
    }
}

#[cfg(test)]
mod tests {
    use crate::{Str, Value};

    #[test]
    fn a_guarded_thread_writes_its_own_maps_and_stops_at_older_ones() {
        let old = Value::empty_map();
        let epoch = super::begin_epoch().expect("epochs left");
        let outcome = std::thread::spawn(move || {
            super::guard_thread(epoch);
            let new = Value::empty_map();
            if let Value::Map(m) = &new {
                m.insert(Str::from("k"), Value::Int(1));
            }
            let new_written = new.get("k").is_some();
            let old_write = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if let Value::Map(m) = &old {
                    m.insert(Str::from("k"), Value::Int(1));
                }
            }));
            let stopped = old_write.is_err_and(|p| super::is_shared_write(&*p));
            (new_written, stopped, old.get("k").is_none())
        })
        .join()
        .expect("the test thread");
        assert_eq!(outcome, (true, true, true));
        // An unguarded thread writes anything.
        let other = Value::empty_map();
        super::begin_epoch();
        if let Value::Map(m) = &other {
            m.insert(Str::from("k"), Value::Int(2));
        }
        assert!(other.get("k").is_some());
    }
}
