//! Cross-process locks on a sidecar lock file (fs4), serialising writers of one session directory.

use crate::error::{Error, ErrorCode, Result};
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
    /// The lock file is opened without following a symlink and without blocking on a FIFO, and
    /// must be a regular file (`UnsafeFile` otherwise): a link planted at `.lock` never makes
    /// this create or lock a file outside the state directory.
    ///
    /// On a read-only state directory (or one this process may not write) an existing lock file
    /// is opened read-only instead: reads still serialise with writers, and still work; a write
    /// then fails on its own file with `PermissionDenied`.
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        Self::acquire_with(dir, open_rw)
    }

    /// Like [`DirLock::acquire`], for a read that must never fail for want of a lock file: where
    /// none exists and none can be created (a read-only directory), no writer can change the
    /// directory either, and `None` is returned (read without the lock).
    pub fn acquire_for_read(dir: &Path) -> Result<Option<DirLock>> {
        match Self::acquire_with(dir, open_rw) {
            Ok(l) => Ok(Some(l)),
            Err(e)
                if e.code == ErrorCode::PermissionDenied
                    && std::fs::symlink_metadata(dir.join(LOCK_FILE)).is_err() =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn acquire_with(
        dir: &Path,
        open_rw: impl FnOnce(&Path) -> std::io::Result<File>,
    ) -> Result<DirLock> {
        let path = dir.join(LOCK_FILE);
        let file = match open_rw(&path) {
            Ok(f) => f,
            Err(e) if is_read_only(&e) => match open_ro(&path) {
                Ok(f) => f,
                Err(e2) if e2.kind() == std::io::ErrorKind::NotFound => {
                    return Err(Error::io(format!("opening lock {}", path.display()), e))
                }
                Err(e2) => return Err(lock_error(&path, e2)),
            },
            Err(e) => return Err(lock_error(&path, e)),
        };
        let m = file
            .metadata()
            .map_err(|e| Error::io(format!("inspecting lock {}", path.display()), e))?;
        if m.file_type().is_symlink() || !m.is_file() {
            return Err(Error::new(
                ErrorCode::UnsafeFile,
                format!(
                    "the lock file {} is not a regular file; remove it",
                    path.display()
                ),
            ));
        }
        fs4::FileExt::lock(&file)
            .map_err(|e| Error::io(format!("locking {}", path.display()), e))?;
        Ok(DirLock { file })
    }

    /// Whether `dir/.lock` is still the file this lock holds: false once the directory was
    /// renamed away or deleted (and perhaps created again) while this process waited for the
    /// lock. A caller that gets false must start over: its directory is no longer the live one.
    pub fn is_current(&self, dir: &Path) -> bool {
        match (
            std::fs::symlink_metadata(dir.join(LOCK_FILE)),
            self.file.metadata(),
        ) {
            (Ok(on_disk), Ok(held)) => crate::file::same_file(&on_disk, &held),
            _ => false,
        }
    }
}

/// Opens (creating, 0600) a lock file for writing without following a link or blocking.
fn open_rw(path: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    lock_flags(&mut o);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path)
}

fn open_ro(path: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true);
    lock_flags(&mut o);
    o.open(path)
}

fn lock_flags(o: &mut OpenOptions) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        o.custom_flags(0x0020_0000); // FILE_FLAG_OPEN_REPARSE_POINT
    }
    #[cfg(not(any(unix, windows)))]
    let _ = o;
}

fn lock_error(path: &Path, e: std::io::Error) -> Error {
    #[cfg(unix)]
    if matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::EMLINK)) {
        return Error::new(
            ErrorCode::UnsafeFile,
            format!(
                "the lock file {} is a symbolic link; this package never follows it: remove it",
                path.display()
            ),
        );
    }
    Error::io(format!("opening lock {}", path.display()), e)
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

    #[cfg(unix)]
    #[test]
    fn planted_lock_links_are_refused_not_followed() {
        let d = std::env::temp_dir().join(format!("fsio-lock-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let target = d.join("outside-target");
        std::os::unix::fs::symlink(&target, d.join(LOCK_FILE)).unwrap();
        let e = DirLock::acquire(&d).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnsafeFile);
        assert!(!target.exists(), "the dangling link's target was created");
        std::fs::remove_file(d.join(LOCK_FILE)).unwrap();
        let fifo = std::ffi::CString::new(d.join(LOCK_FILE).to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert_eq!(
            DirLock::acquire(&d).unwrap_err().code,
            ErrorCode::UnsafeFile
        );
        std::fs::remove_file(d.join(LOCK_FILE)).unwrap();
        // A lock whose directory was renamed away is no longer current.
        let l = DirLock::acquire(&d).unwrap();
        assert!(l.is_current(&d));
        let moved = d.with_extension("moved");
        std::fs::rename(&d, &moved).unwrap();
        assert!(!l.is_current(&d));
        std::fs::create_dir_all(&d).unwrap();
        drop(DirLock::acquire(&d).unwrap());
        assert!(!l.is_current(&d));
        std::fs::remove_dir_all(&d).unwrap();
        std::fs::remove_dir_all(&moved).unwrap();
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
