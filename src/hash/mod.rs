//! The two hash functions RocksDB's filters are built from.

pub(crate) mod chunks;
mod legacy;
mod xxph3;

pub use legacy::bloom_hash;
pub use xxph3::hash64;
pub(crate) use xxph3::hash64_inline;
