//! The separator keys of an index block, decoded once at open: the top-level
//! index of a partitioned filter, and the data-block index that the
//! block-based filter needs. A separator is an upper bound of the keys of
//! its block (and below the next block's first key), in the file's order.

use std::cmp::Ordering;

use super::block::EntryInfo;
use super::{Backing, Comparator, Order, MAX_PARTITIONS_PER_QUERY};

/// Where a separator's bytes are: in the file, or in the decompression buffer.
#[derive(Clone, Copy, Debug)]
struct KeyLoc {
    start: usize,
    len: u32,
    in_arena: bool,
}

/// Separators in file order, with the keys that share bytes with their
/// predecessor decompressed into one buffer of bounded size.
#[derive(Clone, Debug)]
pub(super) struct Separators<'a> {
    backing: Backing<'a>,
    keys: Vec<KeyLoc>,
    arena: Vec<u8>,
    /// Bytes the arena may hold (grows with each index block read).
    budget: usize,
    /// Separators are internal keys (user key + 8-byte trailer).
    pub(super) internal: bool,
    pub(super) order: Order,
    /// Bytes of user-defined timestamp ending each user key.
    ts: usize,
}

/// Order of (previous, current) keys as the file's comparator orders them:
/// user keys without timestamp, then timestamps descending
/// (`ComparatorWithU64TsImpl`), then trailers descending
/// (`InternalKeyComparator`). None when a key is shorter than its trailer
/// and timestamp.
fn compare(prev: &[u8], cur: &[u8], internal: bool, reverse: bool, ts: usize) -> Option<Ordering> {
    let (pu, cu) = if internal {
        (&prev[..prev.len().checked_sub(8)?], &cur[..cur.len().checked_sub(8)?])
    } else {
        (prev, cur)
    };
    let (pk, ck) = (&pu[..pu.len().checked_sub(ts)?], &cu[..cu.len().checked_sub(ts)?]);
    let user = if reverse { ck.cmp(pk) } else { pk.cmp(ck) };
    let fixed = |k: &[u8], at: usize| u64::from_le_bytes(k[at..at + 8].try_into().expect("8 bytes"));
    let user = user.then_with(|| if ts == 8 { fixed(cu, ck.len()).cmp(&fixed(pu, pk.len())) } else { Ordering::Equal });
    if !internal {
        return Some(user);
    }
    // Higher (sequence, type) first.
    Some(user.then_with(|| fixed(cur, cur.len() - 8).cmp(&fixed(prev, prev.len() - 8))))
}

impl<'a> Separators<'a> {
    pub(super) fn new(backing: Backing<'a>, internal: bool, cmp: Comparator, budget: usize) -> Self {
        Separators { backing, keys: Vec::new(), arena: Vec::new(), budget, internal, order: cmp.order, ts: cmp.ts }
    }

    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// More room for decompressed keys (a further index block was read).
    pub(super) fn grow_budget(&mut self, bytes: usize) {
        self.budget = self.budget.saturating_add(bytes);
    }

    /// Separator `i` as stored.
    pub(super) fn separator(&self, i: usize) -> &[u8] {
        let k = self.keys[i];
        let src = if k.in_arena { &self.arena[..] } else { self.backing.bytes() };
        &src[k.start..k.start + k.len as usize]
    }

    /// Separator `i` as a user key without timestamp (what filters hold).
    pub(super) fn user_key(&self, i: usize) -> &[u8] {
        let s = self.separator(i);
        let s = if self.internal { &s[..s.len() - 8] } else { s };
        &s[..s.len() - self.ts]
    }

    /// Separator `i`'s 8-byte trailer (sequence << 8 | type), if internal.
    pub(super) fn trailer(&self, i: usize) -> Option<u64> {
        let s = self.separator(i);
        self.internal.then(|| u64::from_le_bytes(s[s.len() - 8..].try_into().expect("8 bytes")))
    }

    /// Appends the key just decoded from the index block at file offset
    /// `block_offset`. `first_in_block`: it is the block's first entry, so
    /// its order is checked against the previous block's last separator.
    /// `decompressed`: the block is not the file's bytes (every key is
    /// copied).
    /// Err where RocksDB's lookups are not well defined (keys out of order,
    /// an internal key without trailer) or past the decompression budget.
    pub(super) fn push(
        &mut self,
        key: &[u8],
        info: &EntryInfo,
        block_offset: u64,
        first_in_block: bool,
        decompressed: bool,
        what: &str,
    ) -> Result<(), String> {
        let at = info.offset;
        let min = if self.internal { 8 } else { 0 } + self.ts;
        if key.len() < min {
            return Err(format!(
                "{what} at offset {block_offset}: separator of {} bytes at block offset {at} is shorter than its {min}-byte internal key trailer and timestamp",
                key.len()
            ));
        }
        if !self.keys.is_empty() && self.order != Order::Unknown {
            let reverse = self.order == Order::ReverseBytewise;
            let cmp = if first_in_block || self.ts > 0 {
                compare(self.separator(self.keys.len() - 1), key, self.internal, reverse, self.ts)
            } else if self.internal {
                info.prev.internal(key, reverse)
            } else if reverse {
                Some(info.prev.bytewise(key).reverse())
            } else {
                Some(info.prev.bytewise(key))
            };
            if cmp == Some(Ordering::Greater) {
                return Err(format!(
                    "{what} at offset {block_offset}: separator at block offset {at} is out of order, so RocksDB's lookup is not well defined"
                ));
            }
        }
        let loc = if info.stored_whole && !decompressed {
            KeyLoc { start: block_offset as usize + info.key_offset, len: key.len() as u32, in_arena: false }
        } else {
            if self.arena.len() + key.len() > self.budget {
                return Err(format!(
                    "{what} at offset {block_offset}: its prefix-compressed separators decompress to more than {} bytes (a limit of this library)",
                    self.budget
                ));
            }
            let start = self.arena.len();
            // Grow by doubling, but never past the budget (a doubling
            // past it would transiently hold 1.5x more).
            if self.arena.capacity() < start + key.len() {
                let want = (2 * self.arena.capacity()).max(4096).max(start + key.len()).min(self.budget);
                self.arena.reserve_exact(want - start);
            }
            self.arena.extend_from_slice(key);
            KeyLoc { start, len: key.len() as u32, in_arena: true }
        };
        self.keys.push(loc);
        Ok(())
    }

    /// The first separator that `is_before` (the lookup key) says false of:
    /// a binary search, as the separators are in order.
    pub(super) fn first_not_before(&self, is_before: impl Fn(usize) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if is_before(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// From `first` (< len), the last separator a lookup can still land on:
    /// `within` says whether a separator's user key may still be followed by
    /// candidates (it equals the key, or has the prefix). None when that
    /// spans more than [`MAX_PARTITIONS_PER_QUERY`] separators.
    pub(super) fn run_end(&self, first: usize, within: impl Fn(&[u8]) -> bool) -> Option<usize> {
        let n = self.len();
        let mut end = first;
        while end < n - 1 && within(self.user_key(end)) {
            end += 1;
            if end - first >= MAX_PARTITIONS_PER_QUERY {
                return None;
            }
        }
        Some(end)
    }
}
