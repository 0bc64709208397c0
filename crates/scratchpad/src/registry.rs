//! The process-wide registry of scratchpads, keyed by session id.
//!
//! Thread-safe: Node's worker_threads load the addon once per process, so every thread shares
//! this registry. One short global lock finds a session; each session has its own lock, so a
//! slow change in one session never blocks another.
//!
//! Bounded: at most [`MAX_SESSIONS`] sessions are held. Inserting one more evicts the least
//! recently used ones (every read, change, restore and nudge counts as a use), a batch of 1% at a
//! time so the O(n) scan is amortised. An evicted session loses nothing that matters: its content
//! is in the session file and comes back with `restore`; only the transient nudge counters reset,
//! as they do on a gateway restart.

use crate::pad::Scratchpad;
use rustc_hash::FxHashMap;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

/// The idle-session cap of the process-wide registry.
pub const MAX_SESSIONS: usize = 10_000;

struct Slot {
    pad: Arc<Mutex<Scratchpad>>,
    last_used: u64,
}

#[derive(Default)]
struct Inner {
    map: FxHashMap<String, Slot>,
    tick: u64,
}

/// A bounded, thread-safe map from session id to scratchpad.
pub struct Registry {
    inner: Mutex<Inner>,
    cap: usize,
}

static GLOBAL: LazyLock<Registry> = LazyLock::new(|| Registry::new(MAX_SESSIONS));

/// Locks, recovering from poisoning: state is only ever replaced whole (computed first, then
/// installed), so a panic elsewhere never leaves a half-written scratchpad behind.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Registry {
    /// A registry holding at most `cap` sessions (at least 1).
    pub fn new(cap: usize) -> Self {
        Registry {
            inner: Mutex::new(Inner::default()),
            cap: cap.max(1),
        }
    }

    /// The process-wide registry (capped at [`MAX_SESSIONS`]).
    pub fn global() -> &'static Registry {
        &GLOBAL
    }

    /// The session's scratchpad if it is held, marking it used.
    pub fn find(&self, id: &str) -> Option<Arc<Mutex<Scratchpad>>> {
        let mut g = lock(&self.inner);
        g.tick += 1;
        let tick = g.tick;
        g.map.get_mut(id).map(|s| {
            s.last_used = tick;
            s.pad.clone()
        })
    }

    /// The session's scratchpad, created empty if it is not held (evicting the least recently
    /// used sessions when the registry is full).
    pub fn get_or_create(&self, id: &str) -> Arc<Mutex<Scratchpad>> {
        let mut g = lock(&self.inner);
        g.tick += 1;
        let tick = g.tick;
        if let Some(s) = g.map.get_mut(id) {
            s.last_used = tick;
            return s.pad.clone();
        }
        if g.map.len() >= self.cap {
            Self::evict(&mut g, (self.cap / 100).max(1));
        }
        let pad = Arc::new(Mutex::new(Scratchpad::new()));
        g.map.insert(
            id.to_string(),
            Slot {
                pad: pad.clone(),
                last_used: tick,
            },
        );
        pad
    }

    fn evict(g: &mut Inner, n: usize) {
        let mut ages: Vec<(u64, &String)> = g.map.iter().map(|(k, s)| (s.last_used, k)).collect();
        let n = n.min(ages.len());
        if n == 0 {
            return;
        }
        ages.select_nth_unstable(n - 1);
        let victims: Vec<String> = ages[..n].iter().map(|(_, k)| (*k).clone()).collect();
        for k in victims {
            g.map.remove(&k);
        }
    }

    /// Drops a session; true if it was held.
    pub fn remove(&self, id: &str) -> bool {
        lock(&self.inner).map.remove(id).is_some()
    }

    /// Number of sessions held.
    pub fn len(&self) -> usize {
        lock(&self.inner).map.len()
    }

    /// True when no session is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `f` on the session's scratchpad (created if needed) under its lock.
    pub fn with<T>(&self, id: &str, f: impl FnOnce(&mut Scratchpad) -> T) -> T {
        let pad = self.get_or_create(id);
        let mut p = lock(&pad);
        f(&mut p)
    }

    /// Runs `f` on the session's scratchpad if it is held.
    pub fn with_existing<T>(&self, id: &str, f: impl FnOnce(&mut Scratchpad) -> T) -> Option<T> {
        let pad = self.find(id)?;
        let mut p = lock(&pad);
        Some(f(&mut p))
    }

    /// The session's rendered block: an `Arc` clone of the cached string, no rendering or
    /// counting. `None` for an unknown session or an empty scratchpad.
    pub fn content(&self, id: &str) -> Option<Arc<str>> {
        let pad = self.find(id)?;
        let p = lock(&pad);
        p.content()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn evicts_least_recently_used_beyond_cap() {
        let r = Registry::new(3);
        for id in ["a", "b", "c"] {
            r.with(id, |p| {
                p.apply(&json!({"action": "set_plan", "content": id}), None)
            });
        }
        assert!(r.content("a").is_some()); // a is now the most recent
        r.with("d", |_| ());
        assert_eq!(r.len(), 3);
        assert!(r.find("b").is_none(), "b was least recently used");
        assert!(r.find("a").is_some() && r.find("c").is_some() && r.find("d").is_some());
        assert!(r.remove("a"));
        assert!(!r.remove("a"));
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn threads_share_one_session_and_serialise() {
        let r = Arc::new(Registry::new(10));
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let r = r.clone();
                std::thread::spawn(move || {
                    for i in 0..50 {
                        let o = r.with("s", |p| {
                            p.apply(
                                &json!({"action": "refs.add", "ref": format!("t{t}-{i}")}),
                                None,
                            )
                        });
                        assert!(o.ok);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        r.with("s", |p| {
            assert_eq!(p.refs().len(), 50);
            assert_eq!(p.usage().version, 200);
        });
    }
}
