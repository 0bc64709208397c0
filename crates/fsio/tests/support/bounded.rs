//! Shared by the hostile-files tests of several crates (included with `#[path]`).

use std::time::Duration;

/// Runs `f` on a thread; panics if it does not return within 10 s (a FIFO read would hang).
pub fn bounded<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the call hung (a FIFO or device was read)")
}
