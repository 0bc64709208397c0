//! Session directory names and safe directories under the state dir.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::fs;
use std::path::{Path, PathBuf};

/// Longest readable prefix kept from a session key in its directory name.
pub const SESSION_DIR_PREFIX_MAX: usize = 48;

/// The directory name for a session key: the seed's `sanitizeSessionKeyForPath()` (every character
/// outside `[a-zA-Z0-9._-]` becomes `_`), cut to 48 characters, then `-` and 16 hex digits of the
/// SHA-256 of the exact key.
///
/// The hash suffix makes the name collision-free: `a:b` and `a_b`, or `Key` and `key` (on a
/// case-insensitive file system), get different directories. A leading `.` becomes `_`, so the name
/// is never `.`, `..` or hidden, and the suffix means it is never a Windows reserved name
/// (`CON`, `NUL`, `COM1`, ...) nor ends with a dot or a space. At most 65 bytes long.
pub fn session_dir_name(session_key: &str) -> Result<String> {
    if session_key.is_empty() {
        return Err(Error::invalid_arg(
            "sessionKey must be a non-empty string, e.g. 'agent:main:telegram:direct:123456'",
        ));
    }
    // JS strings reach Rust as UTF-8, a lone surrogate as U+FFFD: 'a\uD800' and 'a\uDC00' would
    // share a directory. Refusing U+FFFD refuses every key that was not well-formed Unicode.
    if session_key.contains('\u{FFFD}') {
        return Err(Error::invalid_arg(
            "sessionKey must be well-formed Unicode: no lone surrogates (and no U+FFFD)",
        ));
    }
    let mut prefix: String = session_key
        .chars()
        .take(SESSION_DIR_PREFIX_MAX)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if prefix.starts_with('.') {
        prefix.replace_range(0..1, "_");
    }
    let digest = Sha256::digest(session_key.as_bytes());
    let mut name = prefix;
    name.push('-');
    for b in &digest[..8] {
        name.push_str(&format!("{b:02x}"));
    }
    Ok(name)
}

/// Creates (0700) and returns `<state_dir>/<parts...>/<session_dir_name(key)>`.
///
/// Refuses (`UnsafePath`) when any component below the state dir, or the session directory itself,
/// is a symlink or not a directory: a planted link must not redirect writes outside the state dir.
pub fn session_dir(state_dir: &Path, parts: &[&str], session_key: &str) -> Result<PathBuf> {
    let name = session_dir_name(session_key)?;
    let mut dir = state_root(state_dir)?;
    for part in parts.iter().copied().chain(std::iter::once(name.as_str())) {
        dir.push(part);
        ensure_real_dir(&dir)?;
    }
    Ok(dir)
}

/// Creates (0700) and returns `<state_dir>/<parts...>`, refusing symlinks and non-directories
/// below the state dir (`UnsafePath`), as [`session_dir`] does.
pub fn state_subdir(state_dir: &Path, parts: &[&str]) -> Result<PathBuf> {
    let mut dir = state_root(state_dir)?;
    for part in parts {
        dir.push(part);
        ensure_real_dir(&dir)?;
    }
    Ok(dir)
}

/// The path of a session directory without creating anything (for reads). `None` when the state
/// dir or the session dir does not exist; `UnsafePath` when a component is a symlink.
pub fn existing_session_dir(
    state_dir: &Path,
    parts: &[&str],
    session_key: &str,
) -> Result<Option<PathBuf>> {
    let name = session_dir_name(session_key)?;
    let mut dir = PathBuf::from(state_dir);
    for part in parts.iter().copied().chain(std::iter::once(name.as_str())) {
        dir.push(part);
        match fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::unsafe_path(format!(
                    "{} is a symlink; refusing to follow it out of the state directory",
                    dir.display()
                )))
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Error::unsafe_path(format!(
                    "{} exists but is not a directory",
                    dir.display()
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(format!("inspecting {}", dir.display()), e)),
        }
    }
    Ok(Some(dir))
}

/// Validates the state dir argument: non-empty, no NUL. Creates it (0700) if missing.
pub fn state_root(state_dir: &Path) -> Result<PathBuf> {
    let s = state_dir.as_os_str();
    if s.is_empty() {
        return Err(Error::invalid_arg(
            "stateDir must be a non-empty path, e.g. '~/.openclaw' expanded",
        ));
    }
    if s.as_encoded_bytes().contains(&0) {
        return Err(Error::invalid_arg("stateDir must not contain a NUL byte"));
    }
    // The state dir itself may be a symlink (users move ~/.openclaw); only what is below it is
    // checked. Concurrent first calls race to create it: losing that race is success.
    match create_dir_private(state_dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && state_dir.is_dir() => {}
        Err(e) => return Err(Error::io(format!("creating {}", state_dir.display()), e)),
    }
    Ok(state_dir.to_path_buf())
}

fn ensure_real_dir(dir: &Path) -> Result<()> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => Err(Error::unsafe_path(format!(
            "{} is a symlink; refusing to follow it out of the state directory",
            dir.display()
        ))),
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Error::unsafe_path(format!(
            "{} exists but is not a directory",
            dir.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match create_dir_private(dir) {
            Ok(()) => Ok(()),
            // Another process created it between our check and our mkdir: check it again.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => ensure_real_dir(dir),
            Err(e) => Err(Error::io(format!("creating {}", dir.display()), e)),
        },
        Err(e) => Err(Error::io(format!("inspecting {}", dir.display()), e)),
    }
}

/// `mkdir -p` with mode 0700 on Unix.
pub fn create_dir_private(dir: &Path) -> std::io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    if dir.exists() {
        return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
    }
    b.create(dir)
}

/// Checks a user-given entry name before it becomes a file name: non-empty, at most 200 bytes, no
/// path separators, no NUL, not `.` or `..`. Callers still hash or encode it before use as a path.
pub fn check_entry_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > 200 {
        return Err(Error::invalid_arg(
            "name must be 1 to 200 bytes, e.g. 'build_log'",
        ));
    }
    if name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(Error::invalid_arg(format!(
            "name {name:?} must not contain '/', '\\', NUL, nor be '.' or '..'"
        )));
    }
    Ok(())
}

/// Sub-path of a state dir holding checkpoint session directories (seed 001, 5.2).
pub const CHECKPOINTS_DIR: [&str; 2] = ["context", "checkpoints"];
/// Sub-path of a state dir holding incremental state session directories (seed 001, 7.1).
pub const STATE_DIR: [&str; 2] = ["context", "state"];
/// Sub-path of a state dir holding observation store session directories (seeds 003, 004).
pub const OBSERVATIONS_DIR: [&str; 2] = ["context", "observations"];

/// The one lock per session key that serialises checkpoint writes and state-file updates across
/// processes: `<stateDir>/context/checkpoints/<session dir>/.lock`. Creates the directory.
pub fn lock_session(state_dir: &Path, session_key: &str) -> Result<crate::DirLock> {
    let dir = session_dir(state_dir, &CHECKPOINTS_DIR, session_key)?;
    crate::DirLock::acquire(&dir)
}

/// The session lock for a read that must not create anything: `None` when the session has no
/// checkpoint directory (nothing was ever written under its lock) or when no lock file exists and
/// none can be created (a read-only state dir, where no writer can run either).
pub fn lock_existing_session(
    state_dir: &Path,
    session_key: &str,
) -> Result<Option<crate::DirLock>> {
    match existing_session_dir(state_dir, &CHECKPOINTS_DIR, session_key)? {
        Some(dir) => crate::DirLock::acquire_for_read(&dir),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_sanitised_and_collision_free() {
        let keys = [
            "agent:main:telegram:direct:123456",
            "agent_main_telegram_direct_123456",
            "Key",
            "key",
            ".",
            "..",
            "../../etc",
            "CON",
            "nul",
            "a b",
            "a\u{0}b",
            "é🦊\u{0}",
        ];
        let mut seen = HashSet::new();
        for k in keys {
            let n = session_dir_name(k).unwrap();
            assert!(seen.insert(n.to_lowercase()), "collision for {k:?}: {n}");
            assert!(n
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)));
            assert!(!n.starts_with('.'));
            assert!(n.len() <= SESSION_DIR_PREFIX_MAX + 17);
        }
        assert!(session_dir_name("agent:main:telegram:direct:123456")
            .unwrap()
            .starts_with("agent_main_telegram_direct_123456-"));
        let long = "x".repeat(300);
        assert_eq!(session_dir_name(&long).unwrap().len(), 65);
        assert!(session_dir_name("").is_err());
        let lossy = session_dir_name("a\u{FFFD}").unwrap_err();
        assert_eq!(lossy.code, crate::ErrorCode::InvalidArg);
    }

    #[test]
    fn session_dir_refuses_symlinks() {
        let root = std::env::temp_dir().join(format!("fsio-paths-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let d = session_dir(&root, &["context", "checkpoints"], "k").unwrap();
        assert!(d.starts_with(&root) && d.is_dir());
        #[cfg(unix)]
        {
            let outside = root.join("outside");
            fs::create_dir_all(&outside).unwrap();
            let name = session_dir_name("evil").unwrap();
            std::os::unix::fs::symlink(&outside, root.join("context/checkpoints").join(&name))
                .unwrap();
            let err = session_dir(&root, &["context", "checkpoints"], "evil").unwrap_err();
            assert_eq!(err.code, crate::ErrorCode::UnsafePath);
            let err = existing_session_dir(&root, &["context", "checkpoints"], "evil").unwrap_err();
            assert_eq!(err.code, crate::ErrorCode::UnsafePath);
        }
        assert_eq!(
            existing_session_dir(&root, &["context", "checkpoints"], "none").unwrap(),
            None
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn concurrent_first_calls_all_succeed() {
        for round in 0..20 {
            let root = std::env::temp_dir()
                .join(format!("fsio-race-{}-{round}", std::process::id()))
                .join("state");
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let root = root.clone();
                    std::thread::spawn(move || {
                        session_dir(&root, &["context", "observations"], &format!("k{}", i % 2))
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap().unwrap();
            }
            fs::remove_dir_all(root.parent().unwrap()).unwrap();
        }
    }

    #[test]
    fn entry_names_cannot_be_paths() {
        for bad in ["", ".", "..", "a/b", "..\\x", "a\0"] {
            assert!(check_entry_name(bad).is_err(), "{bad:?}");
        }
        check_entry_name("execute_command_1").unwrap();
    }
}
