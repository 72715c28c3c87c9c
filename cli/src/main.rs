//! `rocksfilter`: build, inspect and query RocksDB filter blocks from the
//! command line, and `rocksfilter demo` to see the library at work.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use rocksfilter::{BuilderOptions, Filter, FilterBuilder, FilterInfo, Policy, RibbonFailure};

mod deletable;
mod inspect;
mod report;
mod size;

#[derive(Parser)]
#[command(name = "rocksfilter", version, about = "RocksDB filter blocks (Bloom, Ribbon, legacy Bloom) without RocksDB")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum PolicyArg {
    /// FastLocalBloom (RocksDB format_version >= 5)
    Bloom,
    /// Standard128Ribbon with RocksDB's Bloom fallbacks
    Ribbon,
    /// Legacy Bloom (format_version < 5)
    Legacy,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Policy {
        match p {
            PolicyArg::Bloom => Policy::Bloom,
            PolicyArg::Ribbon => Policy::Ribbon,
            PolicyArg::Legacy => Policy::LegacyBloom,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Build filters over generated keys and report size, FP rate and speed.
    Demo {
        /// Number of keys to add (and of absent keys to query).
        #[arg(long, default_value_t = 1_000_000)]
        keys: usize,
        /// Bloom bits per key (Ribbon targets the same FP rate).
        #[arg(long, default_value_t = 10.0)]
        bits_per_key: f64,
    },
    /// Build a filter block from a file of keys (one per line).
    Build {
        #[arg(long, value_enum, default_value = "bloom")]
        policy: PolicyArg,
        /// RocksDB's bits/key (unused with --fpr or --max-bytes).
        #[arg(long, default_value_t = 10.0)]
        bits_per_key: f64,
        /// Size for this target FP rate instead (Bloom: the smallest block
        /// whose estimate meets it; Ribbon: RocksDB's column split for it).
        #[arg(long, conflicts_with = "max_bytes")]
        fpr: Option<f64>,
        /// Size for this byte budget instead: the most accurate block that
        /// fits (the 5-byte trailer included).
        #[arg(long)]
        max_bytes: Option<usize>,
        /// Ribbon: slots for a 1-in-N chance that a seed fails to solve
        /// (RocksDB's tables: 2, 20 (RocksDB's own), 1000).
        #[arg(long, value_name = "N")]
        ribbon_failure: Option<u64>,
        /// File with one key per line ("-" for standard input).
        #[arg(long)]
        keys: PathBuf,
        /// Keys are hex-encoded (for binary keys).
        #[arg(long)]
        hex: bool,
        /// Where to write the filter block.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Ask a filter block or an SST file whether keys may be present.
    Query {
        /// A filter block file, or a RocksDB SST file.
        filter: PathBuf,
        /// Keys to query.
        keys: Vec<String>,
        /// Also query the keys of this file, one per line ("-" for standard
        /// input), after those on the command line.
        #[arg(long = "keys", value_name = "FILE")]
        keys_file: Option<PathBuf>,
        /// Keys are hex-encoded.
        #[arg(long)]
        hex: bool,
        /// SST files: read the filter on demand through a cache of this
        /// many bytes (partitions and full filters read when a key needs
        /// them, evicted under the budget) and print its counters on
        /// standard error.
        #[arg(long, value_name = "BYTES")]
        cache_bytes: Option<usize>,
    },
    /// Report an SST file: format, checksum, filter kind and geometry, properties.
    Inspect {
        sst: PathBuf,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Skip checksum verification.
        #[arg(long)]
        no_verify: bool,
        /// Read the filter through a cache of this many bytes (each
        /// partition read on demand, evicted under the budget) and report
        /// its counters.
        #[arg(long, value_name = "BYTES")]
        cache_bytes: Option<usize>,
    },
    /// Filter size for N keys at a target FP rate, from RocksDB's own
    /// estimates: Bloom and Ribbon at the bits/key RocksDB needs for it,
    /// blocks sized for the rate itself (and a byte budget); for
    /// comparison, the information-theoretic floor, binary fuse filters and
    /// filters that can delete (counting Bloom, cuckoo, quotient: built and
    /// their FP rates measured).
    Size {
        /// Number of keys (distinct entries) the filter will hold.
        #[arg(long)]
        keys: usize,
        /// Target false-positive rate, e.g. 0.01 for 1%.
        #[arg(long)]
        fpr: f64,
        /// Also the most accurate blocks that fit in this many bytes.
        #[arg(long)]
        max_bytes: Option<usize>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Report a database's filters per level from its MANIFEST: files,
    /// entries, filter bytes, bits/key, FP rates, the expected wasted reads
    /// per absent Get, what other formats, policies and bits/key would cost,
    /// and warnings.
    Report {
        /// The database directory (holding CURRENT and the MANIFEST).
        db: PathBuf,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Ask each key of this file (one a line) as RocksDB's Get would, in
        /// the default column family, and count the filters' "may match"
        /// answers: for absent keys, the wasted reads themselves.
        #[arg(long, value_name = "KEYS_FILE")]
        probe: Option<PathBuf>,
        /// Write an SVG of filter memory and expected wasted reads per level,
        /// today and for each "what if".
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
        /// The cache every file's filter is read through (bytes).
        #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
        cache_bytes: usize,
    },
    /// Print the kind and geometry of a filter block.
    Info {
        filter: PathBuf,
        /// Report RocksDB's FP-rate estimate for this many keys.
        #[arg(long)]
        keys: Option<usize>,
    },
}

fn main() -> ExitCode {
    // Output piped into `head` and closed early: end quietly, as Unix tools
    // do, instead of panicking in println! on EPIPE (Rust ignores SIGPIPE).
    // SAFETY: restoring a signal's default disposition before any thread
    // is started has no preconditions.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { keys, bits_per_key } => demo(keys, bits_per_key),
        Command::Build { policy, bits_per_key, fpr, max_bytes, ribbon_failure, keys, hex, output } => {
            build_options(policy.into(), bits_per_key, fpr, max_bytes, ribbon_failure)
                .and_then(|opts| build(&opts, &keys, hex, &output))
        }
        Command::Query { filter, keys, keys_file, hex, cache_bytes } => {
            query(&filter, &keys, keys_file.as_deref(), hex, cache_bytes)
        }
        Command::Info { filter, keys } => info(&filter, keys),
        Command::Size { keys, fpr, max_bytes, json } => size::size(keys, fpr, max_bytes, json),
        Command::Inspect { sst, json, no_verify, cache_bytes } => inspect::inspect(&sst, json, !no_verify, cache_bytes),
        Command::Report { db, json, probe, plot, cache_bytes } => {
            report::report(&db, &report::Options { json, probe: probe.as_deref(), plot: plot.as_deref(), cache_bytes })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("rocksfilter: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    if path == Path::new("-") {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut v)
            .map_err(|e| format!("reading standard input: {e}"))?;
        return Ok(v);
    }
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn decode_hex(s: &str, what: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    if s.len() % 2 != 0 {
        return Err(format!("{what}: odd number of hex digits"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("{what}: invalid hex at column {}", i + 1)))
        .collect()
}

fn build_options(
    policy: Policy,
    bits_per_key: f64,
    fpr: Option<f64>,
    max_bytes: Option<usize>,
    ribbon_failure: Option<u64>,
) -> Result<BuilderOptions, String> {
    let mut o = BuilderOptions::new(policy).bits_per_key(bits_per_key);
    if let Some(p) = fpr {
        o = o.fp_rate(p);
    }
    if let Some(b) = max_bytes {
        o = o.max_bytes(b);
    }
    if let Some(n) = ribbon_failure {
        o = o.ribbon_failure(RibbonFailure::from_one_in(n).map_err(|e| e.to_string())?);
    }
    Ok(o)
}

/// Calls `each` with every key of a file of one key per line (hex-decoded
/// with `hex`); a final newline ends the last key, a CR before it is dropped.
fn for_each_key(path: &Path, hex: bool, mut each: impl FnMut(&[u8])) -> Result<(), String> {
    let text = read(path)?;
    let mut lines = text.split(|&c| c == b'\n').peekable();
    let mut line_no = 0;
    while let Some(line) = lines.next() {
        line_no += 1;
        if lines.peek().is_none() && line.is_empty() {
            break; // trailing newline
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if hex {
            let s = std::str::from_utf8(line).map_err(|_| format!("{}:{line_no}: not hex text", path.display()))?;
            each(&decode_hex(s, &format!("{}:{line_no}", path.display()))?);
        } else {
            each(line);
        }
    }
    Ok(())
}

fn build(opts: &BuilderOptions, keys: &Path, hex: bool, output: &Path) -> Result<(), String> {
    let mut b = FilterBuilder::with_options(opts).map_err(|e| e.to_string())?;
    for_each_key(keys, hex, |k| b.add_key(k))?;
    let n = b.num_entries();
    let (_, estimate) = b.estimate(n);
    let block = b.finish().map_err(|e| e.to_string())?;
    std::fs::write(output, &block).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    println!(
        "wrote {} bytes ({} entries, estimated FP rate {:.4}%) to {}",
        block.len(),
        n,
        100.0 * estimate,
        output.display()
    );
    Ok(())
}

fn load(path: &Path) -> Result<Filter<'static>, String> {
    Filter::from_vec(read(path)?).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether a key may be in the queried file.
type Answer = Box<dyn Fn(&[u8]) -> bool>;

fn query(
    path: &Path,
    keys: &[String],
    keys_file: Option<&Path>,
    hex: bool,
    cache_bytes: Option<usize>,
) -> Result<(), String> {
    let cache = cache_bytes.map(rocksfilter::FilterCache::new);
    let answer: Answer = if inspect::looks_like_sst(path) {
        let mut options = rocksfilter::SstOptions::default();
        if let Some(c) = &cache {
            options = options.with_cache(c.clone()).with_cache_full_filters(true);
        }
        let sst = rocksfilter::Sst::open_with(path, options).map_err(|e| e.to_string())?;
        Box::new(move |k| sst.may_match(k))
    } else if cache.is_some() {
        return Err(format!("{}: --cache-bytes applies to SST files, not to filter blocks", path.display()));
    } else {
        let f = load(path)?;
        Box::new(move |k| f.may_match(k))
    };
    let verdict = |b: &[u8]| if answer(b) { "may match" } else { "absent" };
    for k in keys {
        let bytes = if hex { decode_hex(k, k)? } else { k.as_bytes().to_vec() };
        println!("{k}\t{}", verdict(&bytes));
    }
    if let Some(file) = keys_file {
        // Printed as given: hex again with --hex, else the bytes themselves.
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let mut result = Ok(());
        for_each_key(file, hex, |k| {
            let shown = if hex {
                k.iter().map(|b| format!("{b:02x}")).collect()
            } else {
                String::from_utf8_lossy(k).into_owned()
            };
            if result.is_ok() {
                result = writeln!(out, "{shown}\t{}", verdict(k));
            }
        })?;
        result.and_then(|()| out.flush()).map_err(|e| format!("writing standard output: {e}"))?;
    }
    if let Some(c) = &cache {
        eprintln!("filter cache: {}", inspect::cache_line(&c.stats()));
    }
    Ok(())
}

fn info(path: &Path, keys: Option<usize>) -> Result<(), String> {
    let f = load(path)?;
    println!("file:        {}", path.display());
    println!("kind:        {}", f.kind().name());
    println!("bytes:       {}", f.as_bytes().len());
    match f.info() {
        FilterInfo::FastLocalBloom { num_probes, .. } => {
            println!("num_probes:  {num_probes}");
            println!("line bytes:  64");
        }
        FilterInfo::LegacyBloom { num_probes, num_lines, line_bytes, .. } => {
            println!("num_probes:  {num_probes}");
            println!("line bytes:  {line_bytes}");
            println!("num_lines:   {num_lines}");
        }
        FilterInfo::Standard128Ribbon { num_blocks, seed, lower_num_columns, upper_start_block, .. } => {
            // Blocks of 128 slots; each slot holds lower_num_columns result bits
            // before upper_start_block and one more from there on.
            let upper = num_blocks - upper_start_block;
            let bits_per_slot = (lower_num_columns as f64 * upper_start_block as f64
                + (lower_num_columns + 1) as f64 * upper as f64)
                / num_blocks as f64;
            println!("num_blocks:  {num_blocks} (128 slots each)");
            println!("seed:        {seed}");
            println!(
                "columns:     {} for blocks 0..{}, {} for the other {} ({:.3} bits/slot)",
                lower_num_columns,
                upper_start_block,
                lower_num_columns + 1,
                upper,
                bits_per_slot
            );
        }
        _ => {}
    }
    if let Some(n) = keys {
        println!("bits/key:    {:.3} (for {n} keys)", 8.0 * f.as_bytes().len() as f64 / n.max(1) as f64);
        println!("est. FP:     {:.4}% (RocksDB's estimate for {n} keys)", 100.0 * f.estimated_fp_rate(n));
    }
    Ok(())
}

/// Deterministic keys: `prefix` + 16 hex digits of a counter mixed by a
/// 64-bit permutation, so present and absent sets never overlap.
fn demo_key(prefix: u8, i: u64) -> [u8; 20] {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    let mut k = [0u8; 20];
    k[0] = prefix;
    k[1..4].copy_from_slice(b"key");
    for (j, b) in k[4..].iter_mut().enumerate() {
        *b = b"0123456789abcdef"[((x >> (60 - 4 * j)) & 15) as usize];
    }
    k
}

fn demo(n: usize, bits_per_key: f64) -> Result<(), String> {
    println!("rocksfilter {} demo: {n} keys of 20 bytes, {bits_per_key} bits/key", rocksfilter::VERSION);
    let present: Vec<[u8; 20]> = (0..n as u64).map(|i| demo_key(b'p', i)).collect();
    let absent: Vec<[u8; 20]> = (0..n as u64).map(|i| demo_key(b'a', i)).collect();
    println!(
        "{:<18} {:>12} {:>9} {:>7} {:>10} {:>10} {:>9} {:>9} {:>9}",
        "filter", "bytes", "bits/key", "probes", "FP rate", "RocksDB", "build", "query", "batch"
    );
    println!(
        "{:<18} {:>12} {:>9} {:>7} {:>10} {:>10} {:>9} {:>9} {:>9}",
        "", "", "", "", "measured", "estimate", "ns/key", "ns/key", "ns/key"
    );
    for policy in [Policy::Bloom, Policy::Ribbon, Policy::LegacyBloom] {
        let mut b = match FilterBuilder::new(policy, bits_per_key) {
            Ok(b) => b,
            Err(e) => {
                println!("{:<18} {e}", format!("{policy:?}"));
                continue;
            }
        };
        let t = Instant::now();
        for k in &present {
            b.add_key(k);
        }
        let block = b.finish().map_err(|e| e.to_string())?;
        let build_ns = t.elapsed().as_nanos() as f64 / n as f64;
        let f = Filter::new(&block).map_err(|e| e.to_string())?;
        let missing = present.iter().filter(|k| !f.may_match(&k[..])).count();
        if missing != 0 {
            return Err(format!("{policy:?}: {missing} added keys answered absent (bug)"));
        }
        let t = Instant::now();
        let fp = absent.iter().filter(|k| f.may_match(&k[..])).count();
        let query_ns = t.elapsed().as_nanos() as f64 / n as f64;
        let mut results = vec![false; n];
        let t = Instant::now();
        f.may_match_batch(&absent, &mut results);
        let batch_ns = t.elapsed().as_nanos() as f64 / n as f64;
        let i = f.info();
        println!(
            "{:<18} {:>12} {:>9.2} {:>7} {:>9.4}% {:>9.4}% {:>9.1} {:>9.1} {:>9.1}",
            i.kind().name(),
            block.len(),
            8.0 * block.len() as f64 / n as f64,
            i.num_probes().map_or("-".into(), |p| p.to_string()),
            100.0 * fp as f64 / n as f64,
            100.0 * f.estimated_fp_rate(n),
            build_ns,
            query_ns,
            batch_ns
        );
    }
    println!("every added key answered \"may match\"; FP rate measured on {n} absent keys");
    Ok(())
}
