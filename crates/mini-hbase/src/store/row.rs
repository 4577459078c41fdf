//! The cells of one row: per family, per column, the put versions and the delete markers.
//!
//! Puts that a delete marker masks are dropped as soon as both are known: markers are never
//! removed (mini-hbase never compacts), so such a put can never become visible again. What is
//! stored is therefore exactly the visible puts plus the markers still able to mask future puts,
//! and reads need no delete tracking.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

/// Put versions a column may hold beyond its family's `VERSIONS` before it is trimmed.
///
/// HBase keeps every version in the memstore and drops the surplus when it flushes; older
/// versions can still be read until then (with a time range, or after deleting newer ones).
/// Trimming a column back to `VERSIONS` once it exceeds `VERSIONS + EXTRA_VERSIONS` emulates a
/// flush of that column and keeps memory bounded under overwrite-heavy load.
pub(crate) const EXTRA_VERSIONS: usize = 64;

/// A column's put values by timestamp, newest first.
///
/// A sorted `Vec`, not a `BTreeMap`: almost every column holds one version, and a map's first
/// node costs ~450 bytes where one entry here costs 40. Inserts are O(versions), and a column
/// never holds more than `VERSIONS + EXTRA_VERSIONS` of them.
#[derive(Debug, Default)]
struct Versions(Vec<(u64, Bytes)>);

impl Versions {
    /// Newest first.
    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = (u64, &Bytes)> {
        self.0.iter().map(|(ts, value)| (*ts, value))
    }

    /// The versions older than `to` (exclusive), newest first.
    fn below(&self, to: u64) -> impl Iterator<Item = (u64, &Bytes)> {
        let from = self.0.partition_point(|(t, _)| *t >= to);
        self.0[from..].iter().map(|(ts, value)| (*ts, value))
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Keeps the newest `n` versions.
    fn keep_newest(&mut self, n: usize) {
        self.0.truncate(n);
    }

    /// Index of the first version at or older than `ts`.
    fn at_or_below(&self, ts: u64) -> usize {
        self.0.partition_point(|(t, _)| *t > ts)
    }

    fn insert(&mut self, ts: u64, value: Bytes) {
        let at = self.at_or_below(ts);
        match self.0.get_mut(at) {
            Some(slot) if slot.0 == ts => slot.1 = value,
            _ => {
                if self.0.is_empty() {
                    self.0.reserve_exact(1);
                }
                self.0.insert(at, (ts, value));
            }
        }
    }

    fn remove(&mut self, ts: u64) {
        let at = self.at_or_below(ts);
        if self.0.get(at).is_some_and(|(t, _)| *t == ts) {
            self.0.remove(at);
        }
    }

    /// Drops every version at or before `ts`.
    fn drop_at_or_below(&mut self, ts: u64) {
        let keep = self.at_or_below(ts);
        self.0.truncate(keep);
    }
}

/// One column (family + qualifier) of one row.
#[derive(Debug, Default)]
pub(crate) struct Column {
    /// Put values by timestamp, newest first.
    puts: Versions,
    /// Newest `DeleteColumn` marker: masks every put at or before it.
    delete_column: Option<u64>,
    /// `Delete` (one version) markers newer than `delete_column`: each masks puts at exactly it.
    delete_versions: BTreeSet<u64>,
}

impl Column {
    /// Put versions, newest first.
    #[cfg(test)]
    pub(crate) fn versions(&self) -> impl Iterator<Item = (u64, &Bytes)> {
        self.puts.iter()
    }

    /// Put versions older than `to` (exclusive), newest first.
    pub(crate) fn versions_below(&self, to: u64) -> impl Iterator<Item = (u64, &Bytes)> {
        self.puts.below(to)
    }

    /// True if the column holds at least one put.
    pub(crate) fn has_puts(&self) -> bool {
        !self.puts.is_empty()
    }

    fn is_empty(&self) -> bool {
        self.puts.is_empty() && self.delete_column.is_none() && self.delete_versions.is_empty()
    }

    fn masks(&self, ts: u64) -> bool {
        self.delete_column.is_some_and(|d| ts <= d) || self.delete_versions.contains(&ts)
    }

    /// Stores a put unless a marker masks it; a put at an existing timestamp replaces it.
    /// `max_versions` is the family's `VERSIONS`.
    fn put(&mut self, ts: u64, value: Bytes, max_versions: usize) {
        if self.masks(ts) {
            return;
        }
        self.puts.insert(ts, value);
        if self.puts.len() > max_versions + EXTRA_VERSIONS {
            self.flush(max_versions);
        }
    }

    /// What a memstore flush does to the column: keep the newest `max_versions` puts.
    fn flush(&mut self, max_versions: usize) {
        self.puts.keep_newest(max_versions);
    }

    /// What a major compaction does to the column: flush, drop expired puts and every marker.
    fn major_compact(&mut self, max_versions: usize, oldest_unexpired: u64) {
        self.flush(max_versions);
        if let Some(newest_expired) = oldest_unexpired.checked_sub(1) {
            self.puts.drop_at_or_below(newest_expired);
        }
        self.delete_column = None;
        self.delete_versions.clear();
    }

    fn delete_version(&mut self, ts: u64) {
        if self.delete_column.is_some_and(|d| ts <= d) {
            return;
        }
        self.delete_versions.insert(ts);
        self.puts.remove(ts);
    }

    fn delete_column(&mut self, ts: u64) {
        self.delete_column = Some(self.delete_column.map_or(ts, |d| d.max(ts)));
        self.drop_up_to(ts);
    }

    /// Drops every put and `Delete` marker at or before `ts`.
    fn drop_up_to(&mut self, ts: u64) {
        self.puts.drop_at_or_below(ts);
        retain_newer_than(&mut self.delete_versions, ts);
    }

    /// Applies a `DeleteFamily` at `ts` to this column.
    fn delete_family(&mut self, ts: u64) {
        self.drop_up_to(ts);
        if self.delete_column.is_some_and(|d| d <= ts) {
            self.delete_column = None;
        }
    }

    fn remove_put(&mut self, ts: u64) {
        self.puts.remove(ts);
    }
}

/// Keeps only the timestamps newer than `ts`.
fn retain_newer_than(set: &mut BTreeSet<u64>, ts: u64) {
    *set = match ts.checked_add(1) {
        Some(next) => set.split_off(&next),
        None => BTreeSet::new(),
    };
}

/// One family of one row.
#[derive(Debug, Default)]
pub(crate) struct FamilyCells {
    /// Columns by qualifier (unsigned byte order, as HBase sorts them).
    columns: BTreeMap<Bytes, Column>,
    /// Newest `DeleteFamily` marker: masks every column at or before it.
    delete_family: Option<u64>,
    /// `DeleteFamilyVersion` markers newer than `delete_family`: each masks every column at it.
    delete_family_versions: BTreeSet<u64>,
}

impl FamilyCells {
    /// Columns in qualifier order.
    pub(crate) fn columns(&self) -> impl Iterator<Item = (&Bytes, &Column)> {
        self.columns.iter()
    }

    /// One column (with its stored qualifier), if it holds anything.
    pub(crate) fn column(&self, qualifier: &[u8]) -> Option<(&Bytes, &Column)> {
        self.columns.get_key_value(qualifier)
    }

    fn is_empty(&self) -> bool {
        self.columns.is_empty()
            && self.delete_family.is_none()
            && self.delete_family_versions.is_empty()
    }

    fn has_puts(&self) -> bool {
        self.columns.values().any(Column::has_puts)
    }

    /// True if a `DeleteFamily` marker covers `ts`.
    fn family_deleted(&self, ts: u64) -> bool {
        self.delete_family.is_some_and(|d| ts <= d)
    }

    /// True if a family-wide marker masks every column at `ts`.
    fn masks(&self, ts: u64) -> bool {
        self.family_deleted(ts) || self.delete_family_versions.contains(&ts)
    }

    fn column_mut(&mut self, qualifier: &[u8]) -> &mut Column {
        if !self.columns.contains_key(qualifier) {
            // Copy: the caller's bytes may be a slice of a whole request frame.
            let owned = Bytes::copy_from_slice(qualifier);
            self.columns.insert(owned, Column::default());
        }
        self.columns.get_mut(qualifier).expect("just inserted")
    }

    /// Runs `op` on one column and forgets the column if it is left empty.
    fn with_column(&mut self, qualifier: &[u8], op: impl FnOnce(&mut Column)) {
        let column = self.column_mut(qualifier);
        op(column);
        if column.is_empty() {
            self.columns.remove(qualifier);
        }
    }

    /// Stores a put unless a marker masks it. `max_versions` is the family's `VERSIONS`.
    pub(crate) fn put(&mut self, qualifier: &[u8], ts: u64, value: Bytes, max_versions: usize) {
        if !self.masks(ts) {
            self.with_column(qualifier, |c| c.put(ts, value, max_versions));
        }
    }

    /// Flushes every column (see [`Column::flush`]).
    pub(crate) fn flush(&mut self, max_versions: usize) {
        self.columns
            .values_mut()
            .for_each(|c| c.flush(max_versions));
    }

    /// Major-compacts every column and drops the family markers.
    pub(crate) fn major_compact(&mut self, max_versions: usize, oldest_unexpired: u64) {
        self.delete_family = None;
        self.delete_family_versions.clear();
        self.columns.retain(|_, column| {
            column.major_compact(max_versions, oldest_unexpired);
            !column.is_empty()
        });
    }

    /// Records a `Delete` (one version) marker.
    pub(crate) fn delete_version(&mut self, qualifier: &[u8], ts: u64) {
        if !self.family_deleted(ts) {
            self.with_column(qualifier, |c| c.delete_version(ts));
        }
    }

    /// Records a `DeleteColumn` marker.
    pub(crate) fn delete_column(&mut self, qualifier: &[u8], ts: u64) {
        if !self.family_deleted(ts) {
            self.with_column(qualifier, |c| c.delete_column(ts));
        }
    }

    /// Records a `DeleteFamily` marker.
    pub(crate) fn delete_family(&mut self, ts: u64) {
        if self.family_deleted(ts) {
            return;
        }
        self.delete_family = Some(ts);
        retain_newer_than(&mut self.delete_family_versions, ts);
        self.columns.retain(|_, column| {
            column.delete_family(ts);
            !column.is_empty()
        });
    }

    /// Records a `DeleteFamilyVersion` marker.
    pub(crate) fn delete_family_version(&mut self, ts: u64) {
        if self.masks(ts) {
            return;
        }
        self.delete_family_versions.insert(ts);
        self.columns.retain(|_, column| {
            column.remove_put(ts);
            !column.is_empty()
        });
    }
}

/// Every family of one row, indexed like the region's (sorted) family list.
#[derive(Debug)]
pub(crate) struct Row {
    families: Vec<FamilyCells>,
}

impl Row {
    /// A row with nothing stored in any of `family_count` families.
    pub(crate) fn new(family_count: usize) -> Row {
        Row {
            families: (0..family_count).map(|_| FamilyCells::default()).collect(),
        }
    }

    /// The family at `index` in the region's family list.
    pub(crate) fn family(&self, index: usize) -> &FamilyCells {
        &self.families[index]
    }

    /// Every family with its index, for writing.
    pub(crate) fn families_mut(&mut self) -> impl Iterator<Item = (usize, &mut FamilyCells)> {
        self.families.iter_mut().enumerate()
    }

    /// The family at `index`, for writing.
    pub(crate) fn family_mut(&mut self, index: usize) -> &mut FamilyCells {
        &mut self.families[index]
    }

    /// True if nothing at all (not even a delete marker) is stored.
    pub(crate) fn is_empty(&self) -> bool {
        self.families.iter().all(FamilyCells::is_empty)
    }

    /// True if at least one put is stored (time range and TTL not considered).
    pub(crate) fn has_puts(&self) -> bool {
        self.families.iter().any(FamilyCells::has_puts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts_list(column: &Column) -> Vec<u64> {
        column.versions().map(|(ts, _)| ts).collect()
    }

    fn v(s: &'static str) -> Bytes {
        Bytes::from_static(s.as_bytes())
    }

    #[test]
    fn put_versions_are_newest_first_and_overwrite() {
        let mut c = Column::default();
        c.put(1, v("a"), 3);
        c.put(3, v("c"), 3);
        c.put(2, v("b"), 3);
        c.put(2, v("B"), 3);
        assert_eq!(ts_list(&c), vec![3, 2, 1]);
        assert_eq!(c.versions().nth(1).unwrap().1, &v("B"));
    }

    #[test]
    fn surplus_versions_are_trimmed_like_a_flush() {
        let mut c = Column::default();
        for ts in 1..=(2 + EXTRA_VERSIONS as u64) {
            c.put(ts, v("x"), 2);
        }
        assert_eq!(c.puts.len(), 2 + EXTRA_VERSIONS);
        c.put(1000, v("y"), 2);
        assert_eq!(ts_list(&c), vec![1000, 2 + EXTRA_VERSIONS as u64]);
    }

    #[test]
    fn markers_drop_masked_puts_and_dominated_markers() {
        let mut c = Column::default();
        for ts in 1..=5 {
            c.put(ts, v("x"), 10);
        }
        c.delete_version(4);
        c.delete_version(2);
        assert_eq!(ts_list(&c), vec![5, 3, 1]);
        c.delete_column(3);
        assert_eq!(ts_list(&c), vec![5]);
        let markers: Vec<u64> = c.delete_versions.iter().copied().collect();
        assert_eq!(markers, [4], "Delete@2 is dominated by DeleteColumn@3");
        c.put(3, v("late"), 10);
        assert_eq!(ts_list(&c), vec![5]);
    }

    #[test]
    fn retain_newer_than_handles_the_top_timestamp() {
        let mut set: BTreeSet<u64> = [1, 5, u64::MAX].into_iter().collect();
        retain_newer_than(&mut set, 1);
        assert_eq!(set.iter().copied().collect::<Vec<_>>(), vec![5, u64::MAX]);
        retain_newer_than(&mut set, u64::MAX);
        assert!(set.is_empty());
    }

    #[test]
    fn family_markers_clear_columns() {
        let mut f = FamilyCells::default();
        let (a, b) = (v("a"), v("b"));
        f.put(&a, 1, v("1"), 5);
        f.put(&a, 3, v("3"), 5);
        f.put(&b, 3, v("3"), 5);
        f.delete_family_version(3);
        assert_eq!(ts_list(f.column(b"a").unwrap().1), vec![1]);
        assert!(f.column(b"b").is_none(), "emptied columns are forgotten");
        f.delete_family(2);
        assert!(f.columns.is_empty());
        assert!(f.delete_family_versions.contains(&3));
        f.delete_family(5);
        assert!(f.delete_family_versions.is_empty());
        assert!(!f.is_empty(), "the DeleteFamily marker itself stays");
    }
}
