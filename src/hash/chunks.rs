//! The builders' hash buffer: fixed-size chunks, like the `std::deque`
//! RocksDB buffers hashes in, rather than one growing vector. Growing never
//! copies (a vector's doubling copies whenever `realloc` cannot remap) and
//! never over-allocates by more than one chunk (a vector can hold up to
//! twice what it needs), so the peak memory of a build is the hashes
//! themselves plus the filter. Chunks are 64 KiB, below glibc's mmap
//! threshold (128 KiB by default), so a reused builder recycles heap memory instead of faulting
//! in fresh pages.

/// Bytes per chunk (8,192 `u64` hashes, 16,384 `u32` ones).
const CHUNK_BYTES: usize = 64 * 1024;

#[derive(Clone, Debug)]
pub(crate) struct Chunks<H> {
    /// Full chunks, each exactly `chunk_len()` entries.
    full: Vec<Box<[H]>>,
    /// The chunk being filled (capacity `chunk_len()` once started).
    cur: Vec<H>,
}

impl<H> Default for Chunks<H> {
    fn default() -> Self {
        Chunks { full: Vec::new(), cur: Vec::new() }
    }
}

impl<H: Copy> Chunks<H> {
    #[inline(always)]
    const fn chunk_len() -> usize {
        let n = CHUNK_BYTES / std::mem::size_of::<H>();
        if n == 0 {
            1
        } else {
            n
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, h: H) {
        if self.cur.len() == self.cur.capacity() {
            self.spill();
        }
        self.cur.push(h);
    }

    #[cold]
    #[inline(never)]
    fn spill(&mut self) {
        if !self.cur.is_empty() {
            // Exact capacity: into_boxed_slice does not reallocate.
            let full = std::mem::take(&mut self.cur);
            self.full.push(full.into_boxed_slice());
        }
        self.cur = Vec::with_capacity(Self::chunk_len());
        crate::mem::populate_spare(&mut self.cur);
    }

    #[inline(always)]
    pub(crate) fn last(&self) -> Option<H> {
        match self.cur.last() {
            Some(&h) => Some(h),
            None => self.full.last().and_then(|c| c.last().copied()),
        }
    }

    pub(crate) fn first(&self) -> Option<H> {
        match self.full.first() {
            Some(c) => c.first().copied(),
            None => self.cur.first().copied(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.full.len() * Self::chunk_len() + self.cur.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries as slices, in order.
    pub(crate) fn parts(&self) -> Vec<&[H]> {
        let mut v: Vec<&[H]> = self.full.iter().map(|c| &c[..]).collect();
        if !self.cur.is_empty() {
            v.push(&self.cur[..]);
        }
        v
    }

    /// All entries, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = H> + '_ {
        self.full.iter().flat_map(|c| c.iter().copied()).chain(self.cur.iter().copied())
    }

    #[cfg(test)]
    pub(crate) fn to_vec(&self) -> Vec<H> {
        self.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_order_across_boundaries() {
        let mut c = Chunks::<u64>::default();
        assert!(c.is_empty() && c.last().is_none() && c.first().is_none());
        let n = 3 * Chunks::<u64>::chunk_len() + 5;
        for i in 0..n as u64 {
            c.push(i);
            assert_eq!(c.last(), Some(i));
        }
        assert_eq!(c.len(), n);
        assert_eq!(c.first(), Some(0));
        assert!(c.iter().eq(0..n as u64));
        let parts = c.parts();
        assert_eq!(parts.len(), 4);
        assert!(parts.iter().flat_map(|p| p.iter().copied()).eq(0..n as u64));
    }
}
