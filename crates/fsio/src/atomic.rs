//! Atomic, durable file writes: temp file in the same directory, fsync, rename, fsync the directory.

use crate::error::{Error, Result};
use crate::file::create_new_private;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

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

/// Writes `bytes` to `dir/name` so that a reader sees the old content or the new, never a mix,
/// and (with `Durable`) the new content survives a power cut once this returns. Files are 0600.
///
/// The temp file `.tmp-<name>-<16 random hex>` is created by [`create_new_private`]: exclusively
/// and without following links, so a file or link planted at any name is never written through,
/// and the rename replaces the name `name` itself (a link there is replaced, not followed).
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
    let target = dir.join(name);
    let (mut f, tmp) = create_new_private(dir, &format!("{TEMP_PREFIX}{name}-"))
        .map_err(|e| Error::io(format!("writing {}", target.display()), e))?;
    let result = (|| -> io::Result<()> {
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
    use std::path::PathBuf;

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

    /// Issue 12: links planted at the old predictable temp names (`.tmp-<name>-<pid>-<n>`) or at
    /// the target were written through. Temp files are now created exclusively under random names.
    #[cfg(unix)]
    #[test]
    fn planted_links_are_never_written_through() {
        let d = tmpdir("links");
        let outside = d
            .join("..")
            .join(format!("fsio-outside-{}", std::process::id()));
        fs::write(&outside, b"outside").unwrap();
        for n in 0..100 {
            let name = format!("{TEMP_PREFIX}x.json-{}-{n}", std::process::id());
            if n % 2 == 0 {
                std::os::unix::fs::symlink(&outside, d.join(name)).unwrap();
            } else {
                fs::hard_link(&outside, d.join(name)).unwrap();
            }
        }
        std::os::unix::fs::symlink(&outside, d.join("x.json")).unwrap();
        for _ in 0..10 {
            atomic_write(&d, "x.json", b"{}", Durability::Fast).unwrap();
        }
        assert_eq!(fs::read(&outside).unwrap(), b"outside");
        let m = fs::symlink_metadata(d.join("x.json")).unwrap();
        assert!(m.is_file() && !m.file_type().is_symlink());
        assert_eq!(sweep_temp_files(&d), 100);
        assert_eq!(fs::read(&outside).unwrap(), b"outside");
        fs::remove_file(&outside).unwrap();
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
