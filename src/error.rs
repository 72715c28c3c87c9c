//! One error type for the whole library; its kind maps 1:1 onto the C
//! status codes.

use std::fmt;

/// What went wrong, in the categories of the C ABI's `rocksfilter_status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The caller passed something unusable (bad bits/key, NULL, misuse).
    InvalidArgument,
    /// The bytes are not what they claim to be (geometry, checksum, layout).
    Corruption,
    /// Valid input this library does not handle (named in the message).
    NotSupported,
    /// Reading a file failed.
    Io,
    /// The thing asked for is not there (e.g. no full filter in an SST).
    NotFound,
    /// A bug in this library (a caught panic); please report it.
    Internal,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::InvalidArgument => "invalid argument",
            ErrorKind::Corruption => "corruption",
            ErrorKind::NotSupported => "not supported",
            ErrorKind::Io => "I/O error",
            ErrorKind::NotFound => "not found",
            ErrorKind::Internal => "internal error",
        })
    }
}

/// An error with its kind and a message saying what was wrong and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error of `kind` saying `message`.
    ///
    /// ```
    /// use rocksfilter::{Error, ErrorKind};
    /// let e = Error::new(ErrorKind::Corruption, "block at offset 4096: bad checksum");
    /// assert_eq!(e.to_string(), "corruption: block at offset 4096: bad checksum");
    /// assert_eq!(e.kind(), ErrorKind::Corruption);
    /// assert_eq!(e.message(), "block at offset 4096: bad checksum");
    /// ```
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }
    /// The kind (the C status code it maps to).
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// The message without the kind prefix.
    pub fn message(&self) -> &str {
        &self.message
    }
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidArgument, message)
    }
    pub(crate) fn corruption(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Corruption, message)
    }
    pub(crate) fn not_supported(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::NotSupported, message)
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
