//! `rocksfilter size`'s rows for filters that can delete: a counting Bloom
//! filter (4-bit counters, written here: no kept crate has one), a cuckoo
//! filter (`scalable_cuckoo_filter`: fingerprints sized for the target, 4
//! per bucket) and a quotient filter (`qfilter`, a rank-select quotient
//! filter). None is a
//! RocksDB format; they are built on the requested number of keys and their
//! FP rates measured on at least 1,000,000 absent keys, for comparison.

/// What a deletion-capable filter costs, measured.
pub struct Measured {
    pub name: &'static str,
    pub how: String,
    pub bytes: usize,
    pub fp_rate: f64,
    /// How inserts fail, measured.
    pub insert_failure: String,
}

/// splitmix64's output for counter `i`: a bijection of u64.
fn splitmix(i: u64) -> u64 {
    let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `count` distinct keys starting at `from` (a bijection of the counter, so
/// the inserted and the absent ranges never share a key).
pub(crate) fn keys(from: u64, count: u64) -> impl Iterator<Item = u64> {
    (from..from + count).map(splitmix)
}

/// Absent keys probed for each measured FP rate.
fn absent(n: u64) -> u64 {
    n.max(1_000_000)
}

/// A counting Bloom filter: `m` 4-bit counters (two a byte), `k` probes by
/// double hashing. A counter saturates at 15 and then never decrements, so
/// that a delete cannot make a present key absent.
struct CountingBloom {
    counters: Vec<u8>,
    m: u64,
    k: u32,
}

impl CountingBloom {
    /// Sized as the standard Bloom filter for `n` keys at `p`:
    /// m = n ln(1/p) / ln(2)^2 counters, k = (m/n) ln 2 probes.
    fn new(n: u64, p: f64) -> Self {
        let m = ((n as f64) * (1.0 / p).ln() / (2f64.ln().powi(2))).ceil().max(1.0) as u64;
        let k = ((m as f64 / n as f64) * 2f64.ln()).round().clamp(1.0, 30.0) as u32;
        CountingBloom { counters: vec![0; m.div_ceil(2) as usize], m, k }
    }
    fn probes(&self, key: u64) -> impl Iterator<Item = u64> {
        let h = rocksfilter::hash64(&key.to_le_bytes());
        let (a, b) = (h, h.rotate_left(32) | 1);
        let m = self.m;
        (0..self.k as u64).map(move |i| a.wrapping_add(i.wrapping_mul(b)) % m)
    }
    fn get(&self, c: u64) -> u8 {
        (self.counters[(c / 2) as usize] >> ((c % 2) * 4)) & 0xF
    }
    /// Adds `key`; returns how many of its counters were already saturated.
    fn insert(&mut self, key: u64) -> u32 {
        let mut saturated = 0;
        for c in self.probes(key).collect::<Vec<_>>() {
            let v = self.get(c);
            if v == 15 {
                saturated += 1;
            } else {
                self.counters[(c / 2) as usize] += 1 << ((c % 2) * 4);
            }
        }
        saturated
    }
    fn contains(&self, key: u64) -> bool {
        self.probes(key).all(|c| self.get(c) > 0)
    }
}

fn measured_fp(n: u64, contains: impl Fn(u64) -> bool) -> f64 {
    let probes = absent(n);
    keys(n, probes).filter(|&k| contains(k)).count() as f64 / probes as f64
}

pub fn rows(n: u64, fpr: f64) -> Result<Vec<Measured>, String> {
    let mut out = Vec::new();

    let mut cb = CountingBloom::new(n, fpr);
    let saturated: u64 = keys(0, n).map(|k| cb.insert(k) as u64).sum();
    out.push(Measured {
        name: "counting Bloom (4-bit counters)",
        how: format!("{} counters, {} probes; written here", cb.m, cb.k),
        bytes: cb.counters.len(),
        fp_rate: measured_fp(n, |k| cb.contains(k)),
        insert_failure: format!(
            "never refuses; a counter saturates at 15 and is never decremented again ({saturated} saturated increments)"
        ),
    });

    // The cuckoo filter sizes its fingerprints for the target (half of it
    // for the first of its filters: log2(2/p) + log2(2 x 4) bits), 4 a
    // bucket, buckets a power of two; an insert that finds no room after
    // 512 kicks parks the key aside and starts a second filter twice the
    // size: its "refusal". The kicks' choices come from a seeded generator,
    // so the row is the same on every run.
    let cuckoo = |n: u64| {
        scalable_cuckoo_filter::ScalableCuckooFilterBuilder::new()
            .initial_capacity(n as usize)
            .false_positive_probability(fpr)
            .rng(SplitMix(0x5eed))
            .finish::<u64>()
    };
    let mut cf = cuckoo(n);
    for k in keys(0, n) {
        cf.insert(&k);
    }
    // The load at the first refusal, on a filter of the same size filled
    // until it grows.
    let mut fill = cuckoo(n);
    let slots = fill.capacity();
    let mut added = 0u64;
    for k in keys(0, slots as u64 * 2) {
        fill.insert(&k);
        // A second filter adds twice the slots (a parked key adds one).
        if fill.capacity() > slots + slots / 2 {
            break;
        }
        added += 1;
    }
    out.push(Measured {
        name: "cuckoo (scalable_cuckoo_filter)",
        how: format!("{slots} slots in buckets of 4, first filter's fingerprints for {fpr}/2"),
        bytes: cf.bits().div_ceil(8) as usize,
        fp_rate: measured_fp(n, |k| cf.contains(&k)),
        insert_failure: format!(
            "first refused at {:.1}% load ({added} of {slots} slots), then grows by a second filter",
            100.0 * added as f64 / slots as f64
        ),
    });

    let mut qf = qfilter::Filter::new(n, fpr).map_err(|e| format!("qfilter on {n} keys at {fpr}: {e:?}"))?;
    for k in keys(0, n) {
        qf.insert(k).map_err(|e| format!("qfilter refused key {k} of {n}: {e:?}"))?;
    }
    let capacity = qf.capacity();
    let mut full = qf.clone();
    let mut extra = 0u64;
    for k in keys(n, capacity * 2) {
        if full.insert(k).is_err() {
            break;
        }
        extra += 1;
    }
    out.push(Measured {
        name: "quotient (qfilter, RSQF)",
        how: format!("capacity {capacity}, {}-bit fingerprints", qf.fingerprint_size()),
        bytes: qf.memory_usage(),
        fp_rate: measured_fp(n, |k| qf.contains(k)),
        insert_failure: format!(
            "first refused at {:.1}% of its capacity ({} keys); new_resizeable grows it instead",
            100.0 * (n + extra) as f64 / capacity as f64,
            n + extra
        ),
    });
    Ok(out)
}

/// splitmix64 as the cuckoo filter's random generator: its kicks repeat.
struct SplitMix(u64);

impl rand_core::RngCore for SplitMix {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        splitmix(self.0)
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}
