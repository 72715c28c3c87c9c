//! The separator keys of an index block, decoded once at open: the top-level
//! index of a partitioned filter, and the data-block index that the
//! block-based filter needs. A separator is an upper bound of the keys of
//! its block (and below the next block's first key), in the file's order.

use std::cmp::Ordering;
use std::sync::OnceLock;

use super::block::EntryInfo;
use super::{Comparator, Order, MAX_PARTITIONS_PER_QUERY};

/// Where a separator's bytes are in the arena.
#[derive(Clone, Copy, Debug)]
struct KeyLoc {
    start: usize,
    len: u32,
}

/// Separators in file order, copied (and, where they share bytes with
/// their predecessor, decompressed) into one buffer of bounded size: a
/// handle keeps no index block, only its keys.
#[derive(Clone, Debug)]
pub(super) struct Separators {
    keys: Vec<KeyLoc>,
    arena: Vec<u8>,
    /// Bytes the arena may hold (grows with each index block read).
    budget: usize,
    /// Separators are internal keys (user key + 8-byte trailer).
    pub(super) internal: bool,
    pub(super) order: Order,
    /// Bytes of user-defined timestamp ending each user key.
    ts: usize,
    /// The fast comparison form of the user keys, built on first use.
    heads: OnceLock<Heads>,
}

/// Separators' user keys for comparisons that mostly touch one u64: the
/// prefix every separator's user key shares, and of each the 8 bytes after
/// it, big-endian, zero-padded. Padded heads order as the keys do whenever
/// they differ (at the first differing byte the larger side has a real
/// byte, so the smaller side's byte is smaller or its key ended there), so
/// only equal heads need the keys themselves. A binary search over a few
/// hundred partitions then costs about one cache line of heads and a few
/// integer compares instead of a memcmp per step.
#[derive(Clone, Debug, Default)]
pub(super) struct Heads {
    common: Vec<u8>,
    heads: Vec<u64>,
}

/// The 8 bytes of `tail` from its start, big-endian, zero-padded.
#[inline(always)]
fn head_of(tail: &[u8]) -> u64 {
    match tail.first_chunk::<8>() {
        // One load (a copy through a stack buffer would stall on store
        // forwarding).
        Some(b) => u64::from_be_bytes(*b),
        None => tail.iter().enumerate().fold(0, |h, (i, &b)| h | u64::from(b) << (56 - 8 * i)),
    }
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

impl Separators {
    pub(super) fn new(internal: bool, cmp: Comparator, budget: usize) -> Self {
        Separators {
            keys: Vec::new(),
            arena: Vec::new(),
            budget,
            internal,
            order: cmp.order,
            ts: cmp.ts,
            heads: OnceLock::new(),
        }
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
        &self.arena[k.start..k.start + k.len as usize]
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
    /// Err where RocksDB's lookups are not well defined (keys out of order,
    /// an internal key without trailer) or past the decompression budget.
    pub(super) fn push(
        &mut self,
        key: &[u8],
        info: &EntryInfo,
        block_offset: u64,
        first_in_block: bool,
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
        let loc = {
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
            KeyLoc { start, len: key.len() as u32 }
        };
        self.keys.push(loc);
        Ok(())
    }

    /// Builds the heads [`Separators::key_range`] searches (otherwise
    /// built by the first lookup): call once all separators are pushed.
    pub(super) fn prepare_lookups(&self) {
        self.heads();
    }

    fn heads(&self) -> &Heads {
        self.heads.get_or_init(|| {
            let n = self.len();
            if n == 0 {
                return Heads::default();
            }
            // Keys are in order (checked by `push`; bytewise, either
            // direction, for user keys without timestamp), so what the
            // first and last share, all share.
            let (a, b) = (self.user_key(0), self.user_key(n - 1));
            let l = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            Heads { common: a[..l].to_vec(), heads: (0..n).map(|i| head_of(&self.user_key(i)[l..])).collect() }
        })
    }

    /// The separators a lookup for `key` can land on, as
    /// `Partitions::candidates` defines them for `is_before` = "user key
    /// before `key` in the file's order" and `within` = "user key equals
    /// `key`": from the first separator not before the key through the
    /// last of the run equal to it (the last separator when none is not
    /// before it); an empty range when the run is longer than
    /// [`MAX_PARTITIONS_PER_QUERY`]. Bytewise orders only (either
    /// direction); None for an unknown comparator.
    pub(super) fn key_range(&self, key: &[u8]) -> Option<std::ops::Range<usize>> {
        let reverse = match self.order {
            Order::Bytewise => false,
            Order::ReverseBytewise => true,
            Order::Unknown => return None,
        };
        let n = self.len();
        if n == 0 {
            // No partition to route to: "may match", never a false absent.
            return Some(0..0);
        }
        let h = self.heads();
        let l = h.common.len();
        // Where the key stands against the common prefix: before every
        // separator, after every one, or among them with this head.
        let m = l.min(key.len());
        let placed = match key[..m].cmp(&h.common[..m]) {
            Ordering::Equal if key.len() < l => Ordering::Less,
            Ordering::Equal => Ordering::Equal,
            o => o,
        };
        // "Before the key" in the file's order is "less" bytewise, or
        // "greater" in reverse.
        let before = if reverse { Ordering::Greater } else { Ordering::Less };
        let (first, head) = match placed {
            Ordering::Equal => {
                let head = head_of(&key[l..]);
                // Heads are in the file's order too: the run of heads equal
                // to the key's is found on the integers alone, and only
                // within it are the keys themselves compared.
                let lo = self.first_not_before(|i| h.heads[i].cmp(&head) == before);
                let first = lo
                    + (lo..n)
                        .take_while(|&i| h.heads[i] == head && self.user_key(i)[l..].cmp(&key[l..]) == before)
                        .count();
                (first, Some(head))
            }
            // Every separator is before the key, or none is.
            o if o == before.reverse() => (n, None),
            _ => (0, None),
        };
        if first == n {
            return Some(n - 1..n);
        }
        // The run of separators equal to the key (only a key sharing the
        // common prefix can equal one).
        let Some(head) = head else { return Some(first..first + 1) };
        let mut end = first;
        while end < n - 1 && h.heads[end] == head && self.user_key(end) == key {
            end += 1;
            if end - first >= MAX_PARTITIONS_PER_QUERY {
                return Some(0..0);
            }
        }
        Some(first..end + 1)
    }

    /// The first separator that `is_before` (the lookup key) says false of:
    /// a binary search, as the separators are in order.
    pub(super) fn first_not_before(&self, is_before: impl Fn(usize) -> bool) -> usize {
        // Branch-free halving (a conditional move per step): on random
        // lookups the branch of the textbook loop mispredicts every other
        // step, which costs more than the comparisons.
        let (mut base, mut size) = (0, self.len());
        while size > 1 {
            let half = size / 2;
            base = if is_before(base + half - 1) { base + half } else { base };
            size -= half;
        }
        if size == 1 && is_before(base) {
            base += 1;
        }
        base
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
