//! Arbitrary bytes as a MANIFEST, twice: as they are (mostly checksum and
//! framing errors), and split into records framed with valid checksums
//! (`encode_log`), which reaches the VersionEdit decoder and the edits'
//! application. Parsing never panics or hangs; an error is a corruption
//! naming an offset; a parsed MANIFEST's files have internal keys (at least
//! 8 bytes) sorted by level, and parsing again gives the same result. A
//! framed log never fails in its framing: only an edit can be at fault.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocksfilter::manifest::{self, encode_log};
use rocksfilter::ErrorKind;
use rocksfilter_fuzz::split_records;

fuzz_target!(|data: &[u8]| {
    check(data, false);
    check(&encode_log(&split_records(data)), true);
});

fn check(data: &[u8], framed: bool) {
    match manifest::parse(data) {
        Ok(m) => {
            for cf in &m.column_families {
                for f in &cf.files {
                    assert!(f.smallest.len() >= 8 && f.largest.len() >= 8);
                    assert!(f.smallest_user_key().len() + 8 == f.smallest.len());
                }
                assert!(cf.files.windows(2).all(|w| w[0].level <= w[1].level));
            }
            for w in &m.warnings {
                assert!(w.contains("offset"), "{w}");
                assert!(!framed || w.contains("atomic group"), "a framed log's warning: {w}");
            }
            assert_eq!(manifest::parse(data).unwrap(), m);
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Corruption, "{e}");
            assert!(e.message().contains("offset"), "{e}");
            assert!(!framed || e.message().starts_with("VersionEdit at offset"), "a framed log's error: {e}");
        }
    }
}
