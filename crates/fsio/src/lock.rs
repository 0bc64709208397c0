//! Cross-process locks on a sidecar lock file (fs4), serialising writers of one session directory.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::path::Path;

/// Name of the sidecar lock file inside a locked directory.
pub const LOCK_FILE: &str = ".lock";

/// An exclusive lock on a directory, released on drop (and by the OS if the process dies).
#[derive(Debug)]
pub struct DirLock {
    file: File,
}

impl DirLock {
    /// Blocks until this process holds the exclusive lock on `dir/.lock`.
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        let path = dir.join(LOCK_FILE);
        let mut o = OpenOptions::new();
        o.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600);
        }
        let file = o
            .open(&path)
            .map_err(|e| Error::io(format!("opening lock {}", path.display()), e))?;
        fs4::FileExt::lock(&file)
            .map_err(|e| Error::io(format!("locking {}", path.display()), e))?;
        Ok(DirLock { file })
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = fs4::FileExt::unlock(&self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn lock_serialises_threads() {
        let d = std::env::temp_dir().join(format!("fsio-lock-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let inside = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let d = d.clone();
                let inside = inside.clone();
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let _g = DirLock::acquire(&d).unwrap();
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
