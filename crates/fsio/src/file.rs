//! The one way to create a file in the state dir and the one way to read one.
//!
//! Every file this crate's users write is created by [`create_new_private`]: exclusively
//! (`O_CREAT|O_EXCL`, so an existing name, a symlink or a hard link planted there is never
//! opened), without following a final symlink (`O_NOFOLLOW`), mode 0600, under a name with 64
//! random bits from the OS, then renamed into place. Every file they read is opened by
//! [`open_regular`] / [`read_bounded`]: without following a symlink, without blocking on a FIFO
//! (`O_NONBLOCK`), and refused (`UnsafeFile`) unless it is a regular file with one link and, for
//! whole-file reads, at most the size its writer ever produces.
//!
//! Windows: there are no FIFOs in a directory tree and `O_NOFOLLOW` does not exist; files are
//! opened with `FILE_FLAG_OPEN_REPARSE_POINT`, so a symlink or junction is opened as itself and
//! refused by the same type check. The hard-link count is not checked there (std has no stable
//! accessor); `CREATE_NEW` gives the exclusive creation.

use crate::error::{Error, ErrorCode, Result};
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Tries of a random temp name before giving up (each collision is a 2^-64 event or a planted file).
const CREATE_TRIES: usize = 16;

/// 16 hex characters from the OS random source.
pub fn random_hex() -> io::Result<String> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b)
        .map_err(|e| io::Error::other(format!("the OS random source failed: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Flags that keep an open from following a final symlink or blocking on a FIFO.
#[cfg(unix)]
fn no_follow(o: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
}

#[cfg(windows)]
fn no_follow(o: &mut OpenOptions) {
    use std::os::windows::fs::OpenOptionsExt;
    // FILE_FLAG_OPEN_REPARSE_POINT: open a symlink or junction itself, not its target.
    o.custom_flags(0x0020_0000);
}

#[cfg(not(any(unix, windows)))]
fn no_follow(_: &mut OpenOptions) {}

/// Creates `dir/<prefix><random>` exclusively (never an existing file, never through a link),
/// mode 0600. Returns the open file and its path. A name that exists (planted, or a 2^-64
/// collision) is skipped for another random one.
pub fn create_new_private(dir: &Path, prefix: &str) -> io::Result<(File, PathBuf)> {
    let mut last = None;
    for _ in 0..CREATE_TRIES {
        let path = dir.join(format!("{prefix}{}", random_hex()?));
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        no_follow(&mut o);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600);
        }
        match o.open(&path) {
            Ok(f) => return Ok((f, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists)))
}

/// Whether an open failed because the final component is a symlink (`O_NOFOLLOW` gives `ELOOP`;
/// FreeBSD gives `EMLINK`).
fn is_link_refusal(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::EMLINK))
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

fn refused(path: &Path, why: &str) -> Error {
    Error::new(
        ErrorCode::UnsafeFile,
        format!(
            "{} {why}; this package never writes such a file and refuses to read it: remove it",
            path.display()
        ),
    )
}

/// Checks the metadata of an open file: a regular file with a single link.
pub fn check_regular(path: &Path, m: &Metadata) -> Result<()> {
    if m.file_type().is_symlink() {
        return Err(refused(path, "is a symbolic link"));
    }
    if !m.is_file() {
        return Err(refused(
            path,
            "is not a regular file (a FIFO, device, socket or directory)",
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if m.nlink() > 1 {
            return Err(refused(
                path,
                &format!(
                    "has {} hard links (another name for it exists, possibly outside the state directory)",
                    m.nlink()
                ),
            ));
        }
    }
    Ok(())
}

/// Opens `path` for reading without following a symlink or blocking on a FIFO, and checks it is a
/// regular file with one link. Errors: `NotFound` when missing, `UnsafeFile` when refused.
pub fn open_regular(path: &Path) -> Result<(File, Metadata)> {
    let mut o = OpenOptions::new();
    o.read(true);
    no_follow(&mut o);
    let f = match o.open(path) {
        Ok(f) => f,
        Err(e) if is_link_refusal(&e) => return Err(refused(path, "is a symbolic link")),
        Err(e) => return Err(Error::io(format!("opening {}", path.display()), e)),
    };
    let m = f
        .metadata()
        .map_err(|e| Error::io(format!("inspecting {}", path.display()), e))?;
    check_regular(path, &m)?;
    Ok((f, m))
}

/// Reads the whole of `path` through [`open_regular`], refusing (`UnsafeFile`) a file larger than
/// `max` bytes, whatever it grows to while read. `NotFound` when missing.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>> {
    let (f, m) = open_regular(path)?;
    let too_large = || {
        refused(
            path,
            &format!("is larger than {max} bytes, the most its writer ever produces"),
        )
    };
    if m.len() > max {
        return Err(too_large());
    }
    let mut out = Vec::with_capacity(m.len() as usize);
    f.take(max + 1)
        .read_to_end(&mut out)
        .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    if out.len() as u64 > max {
        return Err(too_large());
    }
    Ok(out)
}

/// Overwrites the existing regular file `dir/name` in place with `bytes` followed by spaces up to
/// its current length, then fsyncs it: no new block is allocated, so this works on a full disk
/// (for a JSON file whose new content is not longer, as a catalog after a delete). Not atomic
/// against a crash: only for when an atomic write failed with `NoSpace`.
pub fn overwrite_in_place(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(name);
    let what = |e| Error::io(format!("rewriting {} in place", path.display()), e);
    let mut o = OpenOptions::new();
    o.write(true);
    no_follow(&mut o);
    let mut f = match o.open(&path) {
        Ok(f) => f,
        Err(e) if is_link_refusal(&e) => return Err(refused(&path, "is a symbolic link")),
        Err(e) => return Err(what(e)),
    };
    let m = f.metadata().map_err(what)?;
    check_regular(&path, &m)?;
    let len = m.len();
    if bytes.len() as u64 > len {
        return Err(Error::new(
            ErrorCode::NoSpace,
            format!(
                "{} cannot be rewritten in place: the new content is longer (the disk is full: free space)",
                path.display()
            ),
        ));
    }
    let mut buf = Vec::with_capacity(len as usize);
    buf.extend_from_slice(bytes);
    buf.resize(len as usize, b' ');
    f.seek(SeekFrom::Start(0)).map_err(what)?;
    f.write_all(&buf).map_err(what)?;
    f.sync_data().map_err(what)?;
    Ok(())
}

/// Whether two metadata describe the same file (device and inode on Unix; creation time and size
/// elsewhere, where std exposes no file index).
pub fn same_file(a: &Metadata, b: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        a.created().ok() == b.created().ok() && a.len() == b.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fsio-file-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn created_names_are_random_and_exclusive() {
        let d = tmpdir("create");
        let (_, a) = create_new_private(&d, ".tmp-x-").unwrap();
        let (_, b) = create_new_private(&d, ".tmp-x-").unwrap();
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name.len(), ".tmp-x-".len() + 16);
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn reads_refuse_links_fifos_and_huge_files() {
        let d = tmpdir("read");
        let outside = d.join("outside");
        fs::write(&outside, b"secret").unwrap();
        fs::write(d.join("ok"), b"{}").unwrap();
        assert_eq!(read_bounded(&d.join("ok"), 10).unwrap(), b"{}");
        std::os::unix::fs::symlink(&outside, d.join("sym")).unwrap();
        fs::hard_link(&outside, d.join("hard")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", d.join("zero")).unwrap();
        let fifo = std::ffi::CString::new(d.join("fifo").to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        for bad in ["sym", "hard", "zero", "fifo"] {
            let e = read_bounded(&d.join(bad), 1 << 20).unwrap_err();
            assert_eq!(e.code, ErrorCode::UnsafeFile, "{bad}: {e}");
        }
        let big = File::create(d.join("big")).unwrap();
        big.set_len(1 << 30).unwrap();
        let e = read_bounded(&d.join("big"), 1 << 20).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnsafeFile);
        assert!(e.message.contains("larger than"));
        let e = read_bounded(&d.join("missing"), 10).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn in_place_overwrite_pads_and_never_grows() {
        let d = tmpdir("inplace");
        fs::write(d.join("c.json"), br#"{"entries":[1,2,3]}"#).unwrap();
        overwrite_in_place(&d, "c.json", br#"{"entries":[1]}"#).unwrap();
        let v: serde_json::Value =
            serde_json::from_slice(&fs::read(d.join("c.json")).unwrap()).unwrap();
        assert_eq!(v["entries"].as_array().unwrap().len(), 1);
        assert_eq!(fs::metadata(d.join("c.json")).unwrap().len(), 19);
        let e = overwrite_in_place(&d, "c.json", &[b' '; 40]).unwrap_err();
        assert_eq!(e.code, ErrorCode::NoSpace);
        fs::remove_dir_all(&d).unwrap();
    }
}
