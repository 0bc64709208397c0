//! The one error type of the core crates, with stable codes a host can branch on.

use std::fmt;
use std::io;

/// A stable error code. The binding layer throws JS errors whose `code` is `as_str()` of this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// An argument has the wrong type or an out-of-range value.
    InvalidArg,
    /// A named entry, checkpoint or session does not exist.
    NotFound,
    /// An I/O failure not covered by a more specific code.
    Io,
    /// Data on disk could not be parsed.
    Corrupt,
    /// The disk (or quota) is full.
    NoSpace,
    /// The state directory is read-only or not writable by this process.
    PermissionDenied,
    /// Content exceeds a configured size limit.
    TooLarge,
    /// A path would leave the state directory, or a session directory is a symlink.
    UnsafePath,
    /// A file in the state directory was refused: a symbolic link, a hard link (more than one
    /// name), not a regular file (a FIFO, device, socket), or larger than anything its writer
    /// produces. This package never writes such a file; it is neither read nor followed.
    UnsafeFile,
    /// A Rust panic was caught at the binding boundary (a bug: please report it).
    Panic,
}

impl ErrorCode {
    /// The code as it appears on the JS `Error.code` property.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArg => "InvalidArg",
            ErrorCode::NotFound => "NotFound",
            ErrorCode::Io => "Io",
            ErrorCode::Corrupt => "Corrupt",
            ErrorCode::NoSpace => "NoSpace",
            ErrorCode::PermissionDenied => "PermissionDenied",
            ErrorCode::TooLarge => "TooLarge",
            ErrorCode::UnsafePath => "UnsafePath",
            ErrorCode::UnsafeFile => "UnsafeFile",
            ErrorCode::Panic => "Panic",
        }
    }
}

/// An error with a stable code and a message that says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }
    pub fn invalid_arg(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::InvalidArg, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::NotFound, message)
    }
    pub fn corrupt(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Corrupt, message)
    }
    pub fn unsafe_path(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::UnsafePath, message)
    }

    /// Maps an I/O error to the most specific code, naming what was being done.
    pub fn io(context: impl fmt::Display, err: io::Error) -> Self {
        let code = io_code(&err);
        let hint = match code {
            ErrorCode::NoSpace => " (the disk is full: free space or move the state directory)",
            ErrorCode::PermissionDenied => {
                " (the state directory is not writable: check its permissions or mount)"
            }
            _ => "",
        };
        Error::new(code, format!("{context}: {err}{hint}"))
    }
}

fn io_code(err: &io::Error) -> ErrorCode {
    match err.kind() {
        io::ErrorKind::NotFound => ErrorCode::NotFound,
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            ErrorCode::PermissionDenied
        }
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => ErrorCode::NoSpace,
        _ => match err.raw_os_error() {
            // ENOSPC, EDQUOT (Linux), EROFS
            Some(28) | Some(122) => ErrorCode::NoSpace,
            Some(30) => ErrorCode::PermissionDenied,
            _ => ErrorCode::Io,
        },
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_map_to_specific_codes() {
        let e = Error::io("writing x", io::Error::from_raw_os_error(28));
        assert_eq!(e.code, ErrorCode::NoSpace);
        assert!(e.message.contains("disk is full"));
        let e = Error::io("writing x", io::Error::from_raw_os_error(30));
        assert_eq!(e.code, ErrorCode::PermissionDenied);
        let e = Error::io("reading x", io::Error::from(io::ErrorKind::NotFound));
        assert_eq!(e.code, ErrorCode::NotFound);
        let e = Error::io("x", io::Error::other("boom"));
        assert_eq!(e.code, ErrorCode::Io);
    }
}
