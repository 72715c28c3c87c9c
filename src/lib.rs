//! # rocksfilter
//!
//! RocksDB's filter blocks without RocksDB: build, serialize, load and query
//! FastLocalBloom (format_version >= 5), Standard128Ribbon and legacy Bloom
//! (format_version < 5) blocks, byte for byte as RocksDB writes them.
//!
//! ```
//! use rocksfilter::{Filter, FilterBuilder, Policy};
//!
//! let mut builder = FilterBuilder::new(Policy::Bloom, 10.0)?;
//! for key in [&b"apple"[..], b"banana", b"cherry"] {
//!     builder.add_key(key);
//! }
//! let block: Vec<u8> = builder.finish()?; // what RocksDB writes for these keys
//! let filter = Filter::new(&block)?;
//! assert!(filter.may_match(b"banana"));
//! # Ok::<(), rocksfilter::Error>(())
//! ```
//!
//! The C ABI (`include/rocksfilter.h`) is a thin layer over this API.

#![warn(missing_docs)]

mod arch;
mod arena;
mod bloom;
mod builder;
mod cache;
mod error;
/// The C ABI (`include/rocksfilter.h`): not part of the Rust API. The
/// symbols are exported from the cdylib and staticlib; Rust code never
/// needs the module (see [`internal_ffi`] for this crate's own tests).
mod ffi;
mod files;
/// The C ABI's functions, for this crate's own tests and fuzz targets that
/// call them from Rust (the `internal-ffi` feature). Not an API.
/// (A second `mod ffi` declaration under `cfg` would make cbindgen, which
/// ignores `cfg`, emit every declaration twice.)
#[cfg(feature = "internal-ffi")]
#[doc(hidden)]
#[allow(missing_docs)] // documented in the C header
pub mod internal_ffi {
    pub use crate::ffi::*;
}
mod filter;
mod format;
mod hash;
/// JNI entry points of the Java binding's JNI backend (not the C ABI).
///
/// cbindgen:ignore
mod jni;
pub mod manifest;
mod mem;
mod policy;
mod ribbon;
mod slab;
pub mod sst;

pub use bloom::{cache_local_fp_rate, choose_num_probes, standard_fp_rate};
pub use builder::FilterBuilder;
pub use cache::{CacheStats, FilterCache, DEFAULT_OPEN_FILES};
pub use error::{Error, ErrorKind, Result};
pub use filter::{Filter, FilterInfo, Kind};
pub use hash::{bloom_hash, hash64};
pub use policy::{BitsPerKey, BuilderOptions, Policy};
pub use ribbon::RibbonFailure;
pub use sst::{ChecksumType, Sst, SstFilter, SstFilterType, SstOptions};

/// This library's version (the crate version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[cfg(test)]
mod send_sync {
    fn assert_send_sync<T: Send + Sync>() {}
    #[test]
    fn filter_and_builder_are_thread_safe_values() {
        assert_send_sync::<crate::Filter<'static>>();
        assert_send_sync::<crate::FilterBuilder>();
    }
}

/// The README's Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
