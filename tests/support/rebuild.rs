//! What RocksDB's full-filter builder adds for each key of an SST, rebuilt
//! with this library's builder: shared by the tests that compare blocks
//! RocksDB wrote byte for byte.

use rocksfilter::{FilterBuilder, Policy, Sst};

/// A filter block over these entries, in order (a writer that adds what it
/// chose, e.g. Pebble's `Split` prefixes).
#[allow(dead_code)]
pub fn entries<'k>(entries: impl Iterator<Item = &'k [u8]>, policy: Policy, bits_per_key: f64) -> Vec<u8> {
    let mut b = FilterBuilder::new(policy, bits_per_key).unwrap();
    for e in entries {
        b.add_key(e);
    }
    b.finish().unwrap()
}

/// What RocksDB's full-filter builder adds for each key, in order
/// (`FullFilterBlockBuilder::Add`): the key and/or its prefix.
///
/// RocksDB 7.x quirk, found by comparing with its files: with a prefix
/// extractor and whole-key filtering off, its "re-add the last prefix at a
/// partition start" branch fires once, on the key after the first in-domain
/// key, and adds its never-assigned `last_prefix_str_`: the empty string.
/// Later versions (AddKeyAndAlt) do not.
pub fn rebuild(keys: &[Vec<u8>], writer: &str, policy: Policy, bits_per_key: f64, sst: &Sst) -> Vec<u8> {
    let mut b = FilterBuilder::new(policy, bits_per_key).unwrap();
    let prefix = sst.prefix_extractor();
    let rocksdb7 = ["rocksdb-6.", "rocksdb-7.", "rocksdb-8.", "rocksjava-6.", "rocksjava-7.", "rocksjava-8."]
        .iter()
        .any(|p| writer.starts_with(p));
    let (mut last_in_domain, mut empty_added) = (false, false);
    for k in keys {
        let p = prefix.and_then(|p| p.prefix(k));
        match (p, sst.whole_key_filtering()) {
            (Some(p), true) => b.add_key_and_alt(k, p),
            (Some(p), false) => {
                if rocksdb7 && last_in_domain && !empty_added {
                    b.add_key(b"");
                    empty_added = true;
                }
                b.add_key(p)
            }
            (None, true) => b.add_key(k),
            (None, false) => {
                if rocksdb7 && last_in_domain && !empty_added {
                    b.add_key(b"");
                    empty_added = true;
                }
            }
        }
        last_in_domain = p.is_some();
    }
    b.finish().unwrap()
}
