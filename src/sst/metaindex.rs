//! The metaindex block: which filter block (and properties block) a
//! RocksDB release reads from a table (`BlockBasedTable::Open`,
//! `PrefetchIndexAndFilterBlocks`, `FindOptionalMetaBlock`).

use super::block::BlockIter;
use super::format::BlockHandle;
use crate::error::Result;

const FULL_FILTER_PREFIX: &str = "fullfilter.";
const PARTITIONED_FILTER_PREFIX: &str = "partitionedfilter.";
const OBSOLETE_FILTER_PREFIX: &str = "filter.";
/// `kPropertiesBlockName` (`table/meta_blocks.cc`).
const PROPERTIES_BLOCK: &[u8] = b"rocksdb.properties";
/// `kPropertiesBlockOldName`: RocksDB up to 8.x looks it up when
/// `rocksdb.properties` is absent (`FindOptionalMetaBlock`).
const PROPERTIES_BLOCK_OLD: &[u8] = b"rocksdb.stats";
/// The name every built-in RocksDB filter policy (Bloom, Ribbon, legacy)
/// writes after the filter prefix (`BuiltinFilterPolicy::kCompatibilityName`).
/// RocksDB 6.x and 9.11.1+ look up exactly `<prefix>` + this name.
const BUILTIN_POLICY_NAME: &str = "rocksdb.BuiltinBloomFilter";
/// RocksDB 7.0 to 9.11.0 instead seek to `<prefix>` and take the first
/// entry if its name is one of these (`kBuiltinNameAndAliases` in
/// `BlockBasedTable::PrefetchIndexAndFilterBlocks`; early 7.0.x releases
/// wrote the aliases).
const BUILTIN_POLICY_ALIASES: &[&str] = &[
    BUILTIN_POLICY_NAME,
    "rocksdb.internal.LegacyBloomFilter",
    "rocksdb.internal.FastLocalBloomFilter",
    "rocksdb.internal.Standard128RibbonFilter",
    "rocksdb.internal.DeprecatedBlockBasedBloomFilter",
    "bloomfilter",
    "ribbonfilter",
];

/// The filter block a reader picks from the metaindex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum FilterPick {
    None,
    Full(BlockHandle),
    Partitioned(BlockHandle),
    /// `filter.rocksdb.BuiltinBloomFilter`: the block-based filter of RocksDB < 7.0.
    BlockBased(BlockHandle),
    /// A filter block of a policy other than the built-in ones.
    Custom(String),
    /// RocksDB releases disagree on the filter, or cannot tell: the reason.
    Ambiguous(String),
}

impl FilterPick {
    pub(super) fn name(&self) -> Option<String> {
        let full = |p: &str| Some(format!("{p}{BUILTIN_POLICY_NAME}"));
        match self {
            FilterPick::None | FilterPick::Ambiguous(_) => None,
            FilterPick::Full(_) => full(FULL_FILTER_PREFIX),
            FilterPick::Partitioned(_) => full(PARTITIONED_FILTER_PREFIX),
            FilterPick::BlockBased(_) => full(OBSOLETE_FILTER_PREFIX),
            FilterPick::Custom(n) => Some(n.clone()),
        }
    }
}

/// What the metaindex says, read once in one linear pass.
///
/// RocksDB looks entries up with `Seek` (a binary search over the restart
/// points) and its releases differ in how they match filter names (see
/// [`BUILTIN_POLICY_ALIASES`]). On a metaindex whose names are sorted and
/// unique every lookup method agrees, and that is every file RocksDB writes;
/// where they could disagree (names out of order, the same name twice with
/// different handles, releases picking different filter blocks) this
/// library does not use the filter, so that no reading of the file by any
/// release finds a key this library calls absent.
pub(super) struct MetaIndex {
    /// Values of the exactly-named entries of interest, each list in file order.
    properties: Vec<Vec<u8>>,
    properties_old: Vec<Vec<u8>>,
    /// Per filter prefix: values of `<prefix>rocksdb.BuiltinBloomFilter`.
    exact: [Vec<Vec<u8>>; 3],
    /// Per filter prefix: the first entry at or after it (name, value).
    first_after: [Option<(Vec<u8>, Vec<u8>)>; 3],
    /// First metaindex entry out of order, if any.
    out_of_order: Option<String>,
}

const FILTER_PREFIXES: [&str; 3] = [FULL_FILTER_PREFIX, PARTITIONED_FILTER_PREFIX, OBSOLETE_FILTER_PREFIX];

/// Filter names longer than this are never built-in ones; they are not copied.
const MAX_NAME: usize = 256;

impl MetaIndex {
    pub(super) fn parse(block: &[u8], offset: u64, format_version: u32) -> Result<MetaIndex> {
        let mut it = BlockIter::new(block, "metaindex", offset, format_version)?;
        let mut m = MetaIndex {
            properties: Vec::new(),
            properties_old: Vec::new(),
            exact: Default::default(),
            first_after: Default::default(),
            out_of_order: None,
        };
        let mut first = true;
        loop {
            let (key, value, info) = match it.next_entry() {
                Ok(Some(e)) => e,
                Ok(None) => break,
                // RocksDB looks entries up by binary search, so it may find
                // what it needs before a malformed entry; this library does
                // not know which lookups would succeed: none of them does.
                Err(e) => {
                    m.out_of_order.get_or_insert_with(|| e.message().to_string());
                    break;
                }
            };
            if !first && m.out_of_order.is_none() && info.prev.bytewise(key) == std::cmp::Ordering::Greater {
                m.out_of_order = Some(format!(
                    "metaindex block at offset {offset}: entry at block offset {} is out of order",
                    info.offset
                ));
            }
            first = false;
            if key == PROPERTIES_BLOCK {
                m.properties.push(value.to_vec());
            } else if key == PROPERTIES_BLOCK_OLD {
                m.properties_old.push(value.to_vec());
            }
            for (i, prefix) in FILTER_PREFIXES.iter().enumerate() {
                let p = prefix.as_bytes();
                if m.first_after[i].is_none() && key >= p {
                    let name = if key.len() <= MAX_NAME { key.to_vec() } else { key[..MAX_NAME].to_vec() };
                    m.first_after[i] = Some((name, value.to_vec()));
                }
                if key.len() == p.len() + BUILTIN_POLICY_NAME.len()
                    && key.starts_with(p)
                    && &key[p.len()..] == BUILTIN_POLICY_NAME.as_bytes()
                {
                    m.exact[i].push(value.to_vec());
                }
            }
        }
        Ok(m)
    }

    /// The one value of a name, or why there is no single one.
    fn single<'v>(values: &'v [Vec<u8>], name: &str) -> std::result::Result<Option<&'v [u8]>, String> {
        match values {
            [] => Ok(None),
            [v, rest @ ..] if rest.iter().all(|r| r == v) => Ok(Some(v)),
            _ => Err(format!("the metaindex names {name:?} {} times with different handles", values.len())),
        }
    }

    fn handle(value: &[u8]) -> Option<BlockHandle> {
        let mut p = 0;
        BlockHandle::decode(value, &mut p)
    }

    /// The properties block: `rocksdb.properties`, else `rocksdb.stats`
    /// (RocksDB up to 8.x). Err when the metaindex cannot say.
    pub(super) fn properties(&self) -> std::result::Result<Option<BlockHandle>, String> {
        if let Some(why) = &self.out_of_order {
            return Err(why.clone());
        }
        let value = match Self::single(&self.properties, "rocksdb.properties")? {
            Some(v) => Some(v),
            None => Self::single(&self.properties_old, "rocksdb.stats")?,
        };
        match value {
            None => Ok(None),
            Some(v) => {
                Self::handle(v).map(Some).ok_or_else(|| "the properties block's handle is malformed".to_string())
            }
        }
    }

    /// The filter block every RocksDB release would use.
    pub(super) fn filter(&self) -> FilterPick {
        if let Some(why) = &self.out_of_order {
            return FilterPick::Ambiguous(why.clone());
        }
        let pick = |i: usize, h: BlockHandle| match i {
            0 => FilterPick::Full(h),
            1 => FilterPick::Partitioned(h),
            _ => FilterPick::BlockBased(h),
        };
        // RocksDB 6.x and 9.11.1+: the exact name, in this order, skipping a
        // malformed handle.
        let mut exact = FilterPick::None;
        for (i, (names, prefix)) in self.exact.iter().zip(FILTER_PREFIXES).enumerate() {
            match Self::single(names, prefix) {
                Err(why) => return FilterPick::Ambiguous(why),
                Ok(Some(v)) => {
                    if let Some(h) = Self::handle(v) {
                        exact = pick(i, h);
                        break;
                    }
                }
                Ok(None) => {}
            }
        }
        // RocksDB 7.0 to 9.11.0: the first entry at or after the prefix, if
        // it is the built-in name or an alias.
        let mut seek = FilterPick::None;
        for (i, (first, prefix)) in self.first_after.iter().zip(FILTER_PREFIXES).enumerate() {
            if let Some((name, v)) = first {
                let p = prefix.as_bytes();
                let builtin =
                    name.starts_with(p) && BUILTIN_POLICY_ALIASES.iter().any(|a| a.as_bytes() == &name[p.len()..]);
                if let (true, Some(h)) = (builtin, Self::handle(v)) {
                    seek = pick(i, h);
                    break;
                }
            }
        }
        if exact == seek {
            if exact == FilterPick::None {
                // Say so when the file has a filter of another policy.
                for (name, _) in self.first_after.iter().flatten() {
                    if FILTER_PREFIXES.iter().any(|p| name.starts_with(p.as_bytes())) {
                        return FilterPick::Custom(String::from_utf8_lossy(name).into_owned());
                    }
                }
            }
            return exact;
        }
        FilterPick::Ambiguous(format!(
            "RocksDB releases disagree on this file's filter block (6.x and 9.11.1+ read {:?}, 7.0 to 9.11.0 read {:?})",
            exact.name().unwrap_or_else(|| "none".into()),
            seek.name().unwrap_or_else(|| "none".into())
        ))
    }
}
