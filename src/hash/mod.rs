//! The two hash functions RocksDB's filters are built from.

mod legacy;
mod xxph3;

pub use legacy::bloom_hash;
pub use xxph3::hash64;
