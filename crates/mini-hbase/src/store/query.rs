//! What a read asks for (the columns, time range and versions of an HBase `Get` or `Scan`), and
//! how the versions of one column are chosen for it.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

use super::row::Column;

/// The column, time and version selection of a read (a `Get`, or one row of a `Scan`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadQuery {
    /// Families to read, each with the qualifiers wanted. Empty = every family. For each
    /// family, an empty qualifier list = the whole family.
    ///
    /// Entries are applied in order like the Java client's `addFamily` / `addColumn`: a family
    /// entry selects the whole family (replacing earlier qualifiers), a qualifier entry narrows
    /// a whole-family selection down to the qualifiers listed from then on.
    pub columns: Vec<(Bytes, Vec<Bytes>)>,
    /// `[from, to)` in milliseconds; default `[0, u64::MAX)`. Like HBase's `TimeRange`, `to` is
    /// exclusive.
    pub time_range: (u64, u64),
    /// Versions per column to return (HBase `max_versions`, default 1), capped by the
    /// family's `VERSIONS`. 0 is treated as 1.
    pub max_versions: u32,
}

impl Default for ReadQuery {
    fn default() -> Self {
        ReadQuery {
            columns: Vec::new(),
            time_range: (0, u64::MAX),
            max_versions: 1,
        }
    }
}

impl ReadQuery {
    /// The newest version of every column of every family.
    pub fn new() -> ReadQuery {
        ReadQuery::default()
    }

    /// Adds a whole family.
    pub fn family(mut self, family: impl Into<Bytes>) -> ReadQuery {
        self.columns.push((family.into(), Vec::new()));
        self
    }

    /// Adds one column.
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> ReadQuery {
        self.columns.push((family.into(), vec![qualifier.into()]));
        self
    }

    /// Sets the time range `[from, to)`.
    pub fn time_range(mut self, from: u64, to: u64) -> ReadQuery {
        self.time_range = (from, to);
        self
    }

    /// Sets the number of versions per column.
    pub fn versions(mut self, max_versions: u32) -> ReadQuery {
        self.max_versions = max_versions;
        self
    }

    /// The families the query names (with repeats), for validation.
    pub fn families(&self) -> impl Iterator<Item = &[u8]> {
        self.columns.iter().map(|(family, _)| &family[..])
    }

    /// The selected qualifiers per named family; `None` means the whole family.
    pub(crate) fn selection(&self) -> BTreeMap<&[u8], Option<BTreeSet<&Bytes>>> {
        let mut selection: BTreeMap<&[u8], Option<BTreeSet<&Bytes>>> = BTreeMap::new();
        for (family, qualifiers) in &self.columns {
            if qualifiers.is_empty() {
                selection.insert(family, None);
            } else {
                selection
                    .entry(family)
                    .or_insert(None)
                    .get_or_insert_with(BTreeSet::new)
                    .extend(qualifiers);
            }
        }
        selection
    }
}

/// Chooses the versions of one column a read returns, as HBase's `ScanQueryMatcher` does: skip
/// expired cells (TTL) and cells outside the time range, then take the newest `limit`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VersionFilter {
    from: u64,
    to: u64,
    /// Cells older than this have outlived the family's TTL.
    oldest_unexpired: u64,
    limit: usize,
}

impl VersionFilter {
    /// `ttl_secs` is the family's TTL, `limit` the number of versions wanted.
    pub(crate) fn new(
        time_range: (u64, u64),
        ttl_secs: Option<u64>,
        now_ms: u64,
        limit: usize,
    ) -> VersionFilter {
        VersionFilter {
            from: time_range.0,
            to: time_range.1,
            oldest_unexpired: oldest_unexpired(ttl_secs, now_ms),
            limit,
        }
    }

    /// The chosen versions, newest first.
    pub(crate) fn select<'a>(&self, column: &'a Column) -> impl Iterator<Item = (u64, &'a Bytes)> {
        let oldest = self.from.max(self.oldest_unexpired);
        column
            .versions_below(self.to)
            .take_while(move |(ts, _)| *ts >= oldest)
            .take(self.limit)
    }
}

/// HBase's `oldestUnexpiredTS = now - ttl`: cells with a smaller timestamp are expired.
pub(crate) fn oldest_unexpired(ttl_secs: Option<u64>, now_ms: u64) -> u64 {
    match ttl_secs {
        Some(ttl) => now_ms.saturating_sub(ttl.saturating_mul(1000)),
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(query: &ReadQuery) -> Vec<(String, Option<Vec<String>>)> {
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
        query
            .selection()
            .into_iter()
            .map(|(f, qs)| {
                (
                    text(f),
                    qs.map(|qs| qs.into_iter().map(|q| text(q)).collect()),
                )
            })
            .collect()
    }

    #[test]
    fn selection_follows_add_family_and_add_column() {
        let q = ReadQuery::new()
            .column("f", "b")
            .column("f", "a")
            .column("f", "b")
            .family("g")
            .column("h", "x")
            .family("h");
        assert_eq!(
            render(&q),
            vec![
                ("f".into(), Some(vec!["a".into(), "b".into()])),
                ("g".into(), None),
                ("h".into(), None),
            ]
        );
        // addColumn after addFamily narrows the family to that column.
        let q = ReadQuery::new().family("f").column("f", "q");
        assert_eq!(render(&q), vec![("f".into(), Some(vec!["q".into()]))]);
        assert!(ReadQuery::new().selection().is_empty());
    }

    #[test]
    fn ttl_threshold() {
        assert_eq!(oldest_unexpired(None, 10_000), 0);
        assert_eq!(oldest_unexpired(Some(3), 10_000), 7_000);
        assert_eq!(oldest_unexpired(Some(30), 10_000), 0);
        assert_eq!(oldest_unexpired(Some(u64::MAX), 10_000), 0);
    }
}
