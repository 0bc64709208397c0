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
    ///
    /// On a read-only state directory (or one this process may not write) an existing lock file
    /// is opened read-only instead: reads still serialise with writers, and still work; a write
    /// then fails on its own file with `PermissionDenied`.
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        Self::acquire_with(dir, |path| {
            let mut o = OpenOptions::new();
            o.read(true).write(true).create(true).truncate(false);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                o.mode(0o600);
            }
            o.open(path)
        })
    }

    fn acquire_with(
        dir: &Path,
        open_rw: impl FnOnce(&Path) -> std::io::Result<File>,
    ) -> Result<DirLock> {
        let path = dir.join(LOCK_FILE);
        let file = match open_rw(&path) {
            Ok(f) => f,
            Err(e) if is_read_only(&e) && path.is_file() => File::open(&path)
                .map_err(|e| Error::io(format!("opening lock {}", path.display()), e))?,
            Err(e) => return Err(Error::io(format!("opening lock {}", path.display()), e)),
        };
        fs4::FileExt::lock(&file)
            .map_err(|e| Error::io(format!("locking {}", path.display()), e))?;
        Ok(DirLock { file })
    }
}

fn is_read_only(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::PermissionDenied || e.raw_os_error() == Some(30)
    // EROFS
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

    /// Found by the reliability suite (issue 8): on a read-only state directory every read
    /// (`readContextState`, `readObservation`, `listObservations`) failed opening `.lock` for
    /// writing. An existing lock file is now opened read-only.
    #[test]
    fn read_only_lock_file_still_locks() {
        let d = std::env::temp_dir().join(format!("fsio-lock-ro-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let erofs = |_: &Path| Err(std::io::Error::from_raw_os_error(30));
        // no lock file yet: nothing to fall back to
        let e = DirLock::acquire_with(&d, erofs).unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::PermissionDenied);
        drop(DirLock::acquire(&d).unwrap());
        let held = DirLock::acquire_with(&d, erofs).unwrap();
        // the read-only lock excludes a writer
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(d.join(LOCK_FILE))
            .unwrap();
        assert!(fs4::FileExt::try_lock(&f).is_err());
        drop(held);
        assert!(fs4::FileExt::try_lock(&f).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }

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
