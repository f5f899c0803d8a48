//! A panic of a thread guarded by `write_guard` stays off standard error (the render it
//! stops is repeated in order, which reports it); other threads' panics reach the hook
//! that was there before. Alone in its test binary: the panic hook is the process's.

use std::sync::{Arc, Mutex};

#[test]
fn a_guarded_threads_panic_is_kept_quiet_and_others_are_not() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let recorder = seen.clone();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<&str>()
            .copied()
            .unwrap_or("?");
        if let Ok(mut seen) = recorder.lock() {
            seen.push(text.to_string());
        }
    }));
    let epoch = capstan_value::write_guard::begin_epoch().expect("epochs left");
    let guarded = std::thread::spawn(move || {
        capstan_value::write_guard::guard_thread(epoch);
        panic!("guarded")
    })
    .join();
    let plain = std::thread::spawn(|| panic!("plain")).join();
    assert!(guarded.is_err() && plain.is_err());
    let _ = std::panic::take_hook();
    assert_eq!(
        *seen.lock().unwrap_or_else(|e| e.into_inner()),
        vec!["plain".to_string()]
    );
}
