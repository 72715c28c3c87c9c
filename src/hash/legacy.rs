//! The 32-bit hash of the legacy Bloom filter (format_version < 5):
//! RocksDB's `BloomHash(key)` = `Hash(key, 0xbc9f1d34)` from `util/hash.cc`,
//! a MurmurHash1 variant inherited from LevelDB.
//!
//! The tail bytes are added *sign-extended* (`(uint32_t)(int8_t)byte`): the
//! original code shifted a possibly negative `char`, and because the hash is
//! part of the on-disk format RocksDB kept that behaviour, independent of
//! whether `char` is signed on the platform.

const SEED: u32 = 0xbc9f_1d34;
const M: u32 = 0xc6a4_a793;
const R: u32 = 24;

/// RocksDB's `BloomHash`: the hash legacy Bloom filters are built from.
///
/// ```
/// use rocksfilter::bloom_hash;
/// assert_eq!(bloom_hash(b"key"), bloom_hash(b"key"));
/// assert_ne!(bloom_hash(b"key"), bloom_hash(b"kez"));
/// ```
#[inline]
pub fn bloom_hash(key: &[u8]) -> u32 {
    let n = key.len();
    // `seed ^ (n * m)` is computed in size_t and then truncated to 32 bits;
    // truncating n first gives the same low 32 bits.
    let mut h = SEED ^ (n as u32).wrapping_mul(M);
    let mut words = key.chunks_exact(4);
    for w in &mut words {
        h = h.wrapping_add(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        h = h.wrapping_mul(M);
        h ^= h >> 16;
    }
    let rest = words.remainder();
    let sx = |b: u8| b as i8 as i32 as u32;
    if !rest.is_empty() {
        if rest.len() == 3 {
            h = h.wrapping_add(sx(rest[2]) << 16);
        }
        if rest.len() >= 2 {
            h = h.wrapping_add(sx(rest[1]) << 8);
        }
        h = h.wrapping_add(sx(rest[0]));
        h = h.wrapping_mul(M);
        h ^= h >> R;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_bytes_are_sign_extended() {
        // 0x80 as a signed char is -128: adding it sign-extended must differ
        // from adding it as 128.
        let a = bloom_hash(&[0x80]);
        let unsigned = {
            let mut h = SEED ^ M;
            h = h.wrapping_add(0x80).wrapping_mul(M);
            h ^ (h >> R)
        };
        assert_ne!(a, unsigned);
    }

    #[test]
    fn empty_key_is_seed_mixed_with_length_zero() {
        assert_eq!(bloom_hash(b""), SEED);
    }
}
