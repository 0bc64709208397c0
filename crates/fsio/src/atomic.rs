//! Atomic, durable file writes: temp file in the same directory, fsync, rename, fsync the directory.

use crate::error::{Error, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Prefix of every temp file this crate writes; `sweep_temp_files` removes leftovers.
pub const TEMP_PREFIX: &str = ".tmp-";

/// Whether a write waits for the disk (`fsync` of the file and its directory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync the temp file before the rename and the directory after it (the default).
    Durable,
    /// fsync the temp file but not the directory: for the first of several files written into one
    /// directory, when the caller makes the last write `Durable` (one directory fsync covers every
    /// rename before it).
    FileOnly,
    /// fsync the directory but not the file: for a file that is only a hint (a pointer a reader
    /// can do without), written last, whose directory fsync makes the earlier renames durable.
    /// After a power cut the file may be empty; the rename before it is not lost.
    DirOnly,
    /// Skip both fsyncs: atomic against crashes of this process, not against power loss.
    Fast,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn temp_path(dir: &Path, name: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("{TEMP_PREFIX}{name}-{}-{}", std::process::id(), n))
}

/// Writes `bytes` to `dir/name` so that a reader sees the old content or the new, never a mix,
/// and (with `Durable`) the new content survives a power cut once this returns. Files are 0600.
pub fn atomic_write(dir: &Path, name: &str, bytes: &[u8], durability: Durability) -> Result<()> {
    atomic_write_with(dir, name, durability, |f| f.write_all(bytes))
}

/// Like [`atomic_write`], with the content streamed by `fill` (for large entries).
pub fn atomic_write_with(
    dir: &Path,
    name: &str,
    durability: Durability,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<()> {
    let tmp = temp_path(dir, name);
    let target = dir.join(name);
    let result = (|| -> io::Result<()> {
        let mut f = create_private(&tmp)?;
        fill(&mut f)?;
        f.flush()?;
        if matches!(durability, Durability::Durable | Durability::FileOnly) {
            f.sync_all()?;
        }
        drop(f);
        rename_with_retry(&tmp, &target)?;
        if matches!(durability, Durability::Durable | Durability::DirOnly) {
            sync_dir(dir)?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(format!("writing {}", target.display()), e));
    }
    Ok(())
}

/// Creates a new file with mode 0600 (truncating any leftover of the same name).
pub fn create_private(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path)
}

/// fsync a directory so a rename inside it is durable (a no-op where directories cannot be opened).
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Renames, retrying the transient Windows errors (EPERM/EBUSY/EACCES from virus scanners and
/// indexers holding the target) with backoff, then falling back to copy + remove as OpenClaw's
/// own config writer does.
fn rename_with_retry(from: &Path, to: &Path) -> io::Result<()> {
    retry_then_copy(from, to, |a, b| fs::rename(a, b), cfg!(windows))
}

pub(crate) fn retry_then_copy(
    from: &Path,
    to: &Path,
    mut rename: impl FnMut(&Path, &Path) -> io::Result<()>,
    windows_semantics: bool,
) -> io::Result<()> {
    let mut delay_ms = 5;
    for attempt in 0..6 {
        match rename(from, to) {
            Ok(()) => return Ok(()),
            Err(e) if windows_semantics && is_transient(&e) && attempt < 5 => {
                std::thread::sleep(std::time::Duration::from_millis(delay_ms));
                delay_ms *= 2;
            }
            Err(e) if windows_semantics && is_transient(&e) => {
                fs::copy(from, to)?;
                let _ = fs::remove_file(from);
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    }
    unreachable!("the loop returns on its last attempt")
}

fn is_transient(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied
        || matches!(e.raw_os_error(), Some(5) | Some(32) | Some(16) | Some(1))
}

/// Removes every temp file left in `dir` by writes that crashed. Call it while holding the
/// directory's lock, so no live write's temp file is taken. Returns how many were removed.
pub fn sweep_temp_files(dir: &Path) -> usize {
    let Ok(rd) = fs::read_dir(dir) else { return 0 };
    let mut n = 0;
    for e in rd.flatten() {
        if e.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
            && fs::remove_file(e.path()).is_ok()
        {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fsio-atomic-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn writes_replace_whole_files_and_leave_no_temp() {
        let d = tmpdir("a");
        atomic_write(&d, "x.json", b"one", Durability::Durable).unwrap();
        atomic_write(&d, "x.json", b"two", Durability::Fast).unwrap();
        assert_eq!(fs::read(d.join("x.json")).unwrap(), b"two");
        atomic_write(&d, "x.json", b"three", Durability::FileOnly).unwrap();
        atomic_write(&d, "x.json", b"four", Durability::DirOnly).unwrap();
        assert_eq!(fs::read(d.join("x.json")).unwrap(), b"four");
        let names: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(d.join("x.json")).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        fs::write(d.join(format!("{TEMP_PREFIX}x.json-1-1")), b"torn").unwrap();
        assert_eq!(sweep_temp_files(&d), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn failed_fill_leaves_old_content_and_no_temp() {
        let d = tmpdir("b");
        atomic_write(&d, "x", b"old", Durability::Durable).unwrap();
        let err = atomic_write_with(&d, "x", Durability::Durable, |_| {
            Err(io::Error::from_raw_os_error(28))
        })
        .unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::NoSpace);
        assert_eq!(fs::read(d.join("x")).unwrap(), b"old");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn windows_rename_retries_then_copies() {
        let d = tmpdir("c");
        fs::write(d.join("src"), b"new").unwrap();
        let mut calls = 0;
        retry_then_copy(
            &d.join("src"),
            &d.join("dst"),
            |_, _| {
                calls += 1;
                Err(io::Error::from(io::ErrorKind::PermissionDenied))
            },
            true,
        )
        .unwrap();
        assert_eq!(calls, 6);
        assert_eq!(fs::read(d.join("dst")).unwrap(), b"new");
        assert!(!d.join("src").exists());
        // Non-Windows semantics: no retry, the error surfaces.
        fs::write(d.join("src"), b"x").unwrap();
        let e = retry_then_copy(
            &d.join("src"),
            &d.join("dst"),
            |_, _| Err(io::Error::from(io::ErrorKind::PermissionDenied)),
            false,
        );
        assert!(e.is_err());
        fs::remove_dir_all(&d).unwrap();
    }
}
