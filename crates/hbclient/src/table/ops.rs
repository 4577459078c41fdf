//! Operations on one row: `Get`, `Put`, `Delete`, `Increment`, `Append`, and their encoding.
//!
//! Mutations travel as HBase's Java client sends them in batches: a `MutationProto` that only
//! announces `associated_cell_count`, with the cells themselves in the request's cellblock.

use bytes::{BufMut, Bytes};
use hbclient_proto::cell::{
    check_cell_limits, encode_kv, kv_encoded_len, CellType, LATEST_TIMESTAMP,
};
use hbclient_proto::pb;
use hbclient_proto::pb::mutation_proto::{Durability as PbDurability, MutationType};

use crate::attributes::Attributes;
use crate::error::{Error, Result};
use crate::table::columns::Columns;
use crate::table::filter::Filter;
use crate::table::timeline::Consistency;
pub(crate) use crate::wire::{delimited_len, put_delimited_field};

/// How a write is made durable (`Durability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// The table's setting.
    #[default]
    UseDefault,
    /// Skip the write-ahead log (faster; lost if the server dies before a flush).
    SkipWal,
    /// Write the WAL asynchronously.
    AsyncWal,
    /// Write the WAL synchronously.
    SyncWal,
    /// Write and fsync the WAL.
    FsyncWal,
}

impl Durability {
    fn to_pb(self) -> PbDurability {
        match self {
            Durability::UseDefault => PbDurability::UseDefault,
            Durability::SkipWal => PbDurability::SkipWal,
            Durability::AsyncWal => PbDurability::AsyncWal,
            Durability::SyncWal => PbDurability::SyncWal,
            Durability::FsyncWal => PbDurability::FsyncWal,
        }
    }
}

/// Reads one row (or checks that it exists).
#[derive(Debug, Clone, PartialEq)]
pub struct Get {
    pub(crate) row: Bytes,
    pub(crate) columns: Columns,
    pub(crate) max_versions: u32,
    pub(crate) time_range: Option<(u64, u64)>,
    pub(crate) filter: Option<Filter>,
    pub(crate) existence_only: bool,
    pub(crate) priority: Option<u32>,
    pub(crate) attributes: Attributes,
    pub(crate) consistency: Consistency,
}

impl Get {
    /// The newest version of every column of `row`.
    pub fn new(row: impl Into<Bytes>) -> Get {
        Get {
            row: row.into(),
            columns: Columns::default(),
            max_versions: 1,
            time_range: None,
            filter: None,
            existence_only: false,
            priority: None,
            attributes: Attributes::new(),
            consistency: Consistency::Strong,
        }
    }

    /// How consistent the read must be (Java's `setConsistency`); `Strong` unless set. With
    /// [`Consistency::Timeline`] on a table with region replicas, a slow primary is raced by
    /// its secondaries and the answer may be stale ([`RowResult::is_stale`]).
    ///
    /// [`AsyncTable::exists`](crate::AsyncTable::exists) and
    /// [`AsyncTable::get_many`](crate::AsyncTable::get_many) (batched in Multi calls, as
    /// Java's batches are) always read the primary.
    ///
    /// [`RowResult::is_stale`]: crate::RowResult::is_stale
    pub fn consistency(mut self, consistency: Consistency) -> Get {
        self.consistency = consistency;
        self
    }

    /// Reads the whole family (replacing columns of it selected before).
    pub fn family(mut self, family: impl Into<Bytes>) -> Get {
        self.columns.add_family(family.into());
        self
    }

    /// Reads one column (adds to the columns already selected in its family).
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Get {
        self.columns.add_column(family.into(), qualifier.into());
        self
    }

    /// Up to `n` versions of each column, newest first. 0 is refused when the get runs
    /// ([`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)), as Java's
    /// `readVersions` refuses it.
    pub fn max_versions(mut self, n: u32) -> Get {
        self.max_versions = n;
        self
    }

    /// Only cells with `from <= timestamp < to`. `from > to` is refused when the get runs
    /// ([`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)), as Java's
    /// `TimeRange` refuses it.
    pub fn time_range(mut self, from: u64, to: u64) -> Get {
        self.time_range = Some((from, to));
        self
    }

    /// A server-side filter.
    pub fn filter(mut self, filter: Filter) -> Get {
        self.filter = Some(filter);
        self
    }

    /// The QoS priority of the read's RPCs (`RequestHeader.priority`; Java's `setPriority`),
    /// e.g. [`priority::HIGH`](crate::priority::HIGH) for the server's priority handlers.
    /// Unset, a user table's read goes without one and the server treats it as
    /// [`priority::NORMAL`](crate::priority::NORMAL).
    pub fn priority(mut self, priority: u32) -> Get {
        self.priority = Some(priority);
        self
    }

    /// An operation attribute, sent inside the Get (Java's `setAttribute`); server-side
    /// coprocessors read it. Setting a name again replaces its value.
    pub fn attribute(mut self, name: impl Into<String>, value: impl Into<Bytes>) -> Get {
        self.attributes.set(name, value);
        self
    }

    /// The operation attributes set so far.
    pub fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    /// The row key.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    /// The checks Java makes when the Get is built, made before anything is sent.
    pub(crate) fn validate(&self) -> Result<()> {
        validate_row(&self.row)?;
        if self.max_versions == 0 {
            return Err(Error::invalid(
                "Get::max_versions must be at least 1 (got 0)",
            ));
        }
        check_time_range("Get::time_range", self.time_range)
    }

    pub(crate) fn to_pb(&self) -> pb::Get {
        pb::Get {
            row: self.row.clone(),
            column: self.columns.to_pb(),
            filter: self.filter.as_ref().map(Filter::to_pb),
            time_range: self.time_range.map(|(from, to)| pb::TimeRange {
                from: Some(from),
                to: Some(to),
            }),
            max_versions: Some(self.max_versions),
            existence_only: self.existence_only.then_some(true),
            attribute: self.attributes.to_pb(),
            consistency: self.consistency.to_pb(),
            ..Default::default()
        }
    }
}

/// One cell of a mutation, before encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MutationCell {
    pub(crate) family: Bytes,
    pub(crate) qualifier: Bytes,
    pub(crate) timestamp: u64,
    pub(crate) cell_type: CellType,
    pub(crate) value: Bytes,
}

/// What every mutation has in common.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MutationCore {
    pub(crate) row: Bytes,
    pub(crate) cells: Vec<MutationCell>,
    pub(crate) timestamp: u64,
    pub(crate) durability: Durability,
    pub(crate) priority: Option<u32>,
    pub(crate) attributes: Attributes,
}

impl MutationCore {
    fn new(row: Bytes) -> MutationCore {
        MutationCore {
            row,
            cells: Vec::new(),
            timestamp: LATEST_TIMESTAMP,
            durability: Durability::UseDefault,
            priority: None,
            attributes: Attributes::new(),
        }
    }

    fn push(
        &mut self,
        family: Bytes,
        qualifier: Bytes,
        timestamp: u64,
        cell_type: CellType,
        value: Bytes,
    ) {
        // Most mutations have one or two cells, and each is kept until it is acknowledged
        // (100,000 puts in flight keep 100,000 of these vectors): grow by doubling from one
        // cell instead of `Vec`'s first step of four.
        if self.cells.len() == self.cells.capacity() {
            self.cells.reserve_exact(self.cells.len().max(1));
        }
        self.cells.push(MutationCell {
            family,
            qualifier,
            timestamp,
            cell_type,
            value,
        });
    }

    /// Bytes the cells take in a cellblock.
    pub(crate) fn cells_len(&self) -> usize {
        self.cells
            .iter()
            .map(|c| {
                kv_encoded_len(
                    self.row.len(),
                    c.family.len(),
                    c.qualifier.len(),
                    c.value.len(),
                )
            })
            .sum()
    }

    /// Appends the cells to a cellblock.
    pub(crate) fn write_cells(&self, out: &mut impl BufMut) {
        for c in &self.cells {
            encode_kv(
                out,
                &self.row,
                &c.family,
                &c.qualifier,
                c.timestamp,
                c.cell_type,
                &c.value,
            );
        }
    }

    /// Bytes the mutation takes on the wire as `kind`: its cells plus the `MutationProto` that
    /// announces them (with room for a nonce when the kind carries one).
    pub(crate) fn encoded_len(&self, kind: MutationType) -> usize {
        let nonce = matches!(kind, MutationType::Increment | MutationType::Append).then_some(1);
        self.cells_len() + self.header_len(kind, nonce)
    }

    /// The encoded length of [`MutationCore::to_pb`]'s message, without building it: every
    /// buffered mutation is sized when it is buffered and again when its flush is cut.
    pub(crate) fn header_len(&self, kind: MutationType, nonce: Option<u64>) -> usize {
        use prost::encoding::{bytes, int32, key_len, uint64};
        let attributes: usize = self
            .attributes
            .iter()
            .map(|(name, value)| delimited_len(5, name_bytes_pair_len(name, value)))
            .sum();
        bytes::encoded_len(1, &self.row)
            + int32::encoded_len(2, &(kind as i32))
            + self
                .wire_timestamp()
                .map_or(0, |ts| uint64::encoded_len(4, &ts))
            + attributes
            + self
                .wire_durability()
                .map_or(0, |d| int32::encoded_len(6, &d))
            + int32::encoded_len(8, &(self.cells.len() as i32))
            + nonce.map_or(0, |n| key_len(9) + prost::encoding::encoded_len_varint(n))
    }

    /// Writes [`MutationCore::to_pb`]'s message (`header_len` bytes, no length prefix) without
    /// building it; byte for byte what prost writes for it.
    pub(crate) fn write_header(
        &self,
        kind: MutationType,
        nonce: Option<u64>,
        out: &mut impl BufMut,
    ) {
        use prost::encoding::{encode_key, encode_varint, int32, uint64, WireType};
        // Not prost's `bytes::encode`: it clones the `Bytes` to write it, which turns a row
        // built from a `Vec` into a shared one (an allocation, then atomic reference counts).
        put_delimited_field(1, &self.row, out);
        int32::encode(2, &(kind as i32), out);
        if let Some(ts) = self.wire_timestamp() {
            uint64::encode(4, &ts, out);
        }
        for (name, value) in self.attributes.iter() {
            encode_key(5, WireType::LengthDelimited, out);
            encode_varint(name_bytes_pair_len(name, value) as u64, out);
            put_delimited_field(1, name.as_bytes(), out);
            put_delimited_field(2, value, out);
        }
        if let Some(d) = self.wire_durability() {
            int32::encode(6, &d, out);
        }
        int32::encode(8, &(self.cells.len() as i32), out);
        if let Some(n) = nonce {
            uint64::encode(9, &n, out);
        }
    }

    /// The timestamp field: set only when it is not "latest" (the server's clock).
    fn wire_timestamp(&self) -> Option<u64> {
        (self.timestamp != LATEST_TIMESTAMP).then_some(self.timestamp)
    }

    /// The durability field: set only when it is not the table's default.
    fn wire_durability(&self) -> Option<i32> {
        (self.durability != Durability::UseDefault).then_some(self.durability.to_pb() as i32)
    }

    /// The `MutationProto` announcing this mutation's cells.
    pub(crate) fn to_pb(&self, kind: MutationType, nonce: Option<u64>) -> pb::MutationProto {
        pb::MutationProto {
            row: Some(self.row.clone()),
            mutate_type: Some(kind as i32),
            timestamp: self.wire_timestamp(),
            durability: self.wire_durability(),
            associated_cell_count: Some(self.cells.len() as i32),
            nonce,
            attribute: self.attributes.to_pb(),
            ..Default::default()
        }
    }

    /// Client-side checks: a row, sane lengths, and no cell above `max_cell` bytes (0: no limit).
    pub(crate) fn validate(&self, needs_cells: bool, max_cell: usize) -> Result<()> {
        validate_row(&self.row)?;
        if needs_cells && self.cells.is_empty() {
            return Err(Error::invalid(
                "No columns to insert: a mutation needs at least one column",
            ));
        }
        for c in &self.cells {
            check_cell_limits(
                self.row.len(),
                c.family.len(),
                c.qualifier.len(),
                c.value.len(),
            )
            .map_err(Error::invalid)?;
            if c.family.is_empty() {
                return Err(Error::invalid("column family must not be empty"));
            }
            let size = kv_encoded_len(
                self.row.len(),
                c.family.len(),
                c.qualifier.len(),
                c.value.len(),
            ) - 4;
            if max_cell > 0 && size > max_cell {
                return Err(Error::invalid(format!(
                    "KeyValue size too large: {size} bytes exceeds hbase.client.keyvalue.maxsize ({max_cell})"
                )));
            }
        }
        Ok(())
    }
}

/// Length of a `NameBytesPair` (an operation attribute) without its field key.
fn name_bytes_pair_len(name: &str, value: &[u8]) -> usize {
    delimited_len(1, name.len()) + delimited_len(2, value.len())
}

/// A time range `[from, to)` as Java's `TimeRange` accepts it: `from <= to`. `what` names the
/// argument in the error.
pub(crate) fn check_time_range(what: &str, range: Option<(u64, u64)>) -> Result<()> {
    match range {
        Some((from, to)) if from > to => Err(Error::invalid(format!(
            "{what}: from ({from}) must be <= to ({to})"
        ))),
        _ => Ok(()),
    }
}

fn validate_row(row: &[u8]) -> Result<()> {
    if row.is_empty() {
        return Err(Error::invalid(
            "Row length is 0: a row key must not be empty",
        ));
    }
    if row.len() > hbclient_proto::cell::MAX_ROW_LEN {
        return Err(Error::invalid(format!(
            "Row length {} is > {}",
            row.len(),
            hbclient_proto::cell::MAX_ROW_LEN
        )));
    }
    Ok(())
}

macro_rules! mutation_common {
    ($t:ident) => {
        impl $t {
            /// The row key.
            pub fn row(&self) -> &Bytes {
                &self.core.row
            }

            /// How the write is made durable.
            pub fn durability(mut self, durability: Durability) -> $t {
                self.core.durability = durability;
                self
            }

            /// The QoS priority of the write's RPC (`RequestHeader.priority`; Java's
            /// `setPriority`), e.g. [`priority::HIGH`](crate::priority::HIGH). In a batch, a
            /// Multi goes with the highest priority of its actions, as in Java.
            pub fn priority(mut self, priority: u32) -> $t {
                self.core.priority = Some(priority);
                self
            }

            /// An operation attribute, sent inside the mutation (Java's `setAttribute`);
            /// server-side coprocessors read it. Setting a name again replaces its value.
            pub fn attribute(mut self, name: impl Into<String>, value: impl Into<Bytes>) -> $t {
                self.core.attributes.set(name, value);
                self
            }

            /// The operation attributes set so far.
            pub fn attributes(&self) -> &Attributes {
                &self.core.attributes
            }

            /// Bytes this mutation's cells take on the wire (what buffers account for).
            pub fn encoded_len(&self) -> usize {
                self.core.cells_len()
            }
        }
    };
}

/// Writes cells to one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Put {
    pub(crate) core: MutationCore,
}

impl Put {
    /// A put to `row`; add columns with [`Put::add`].
    pub fn new(row: impl Into<Bytes>) -> Put {
        Put {
            core: MutationCore::new(row.into()),
        }
    }

    /// A put whose cells default to `timestamp` instead of the server's clock.
    pub fn with_timestamp(row: impl Into<Bytes>, timestamp: u64) -> Put {
        let mut put = Put::new(row);
        put.core.timestamp = timestamp;
        put
    }

    /// Sets a column's value (timestamp: the put's, or the server's clock).
    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> Put {
        let ts = self.core.timestamp;
        self.core.push(
            family.into(),
            qualifier.into(),
            ts,
            CellType::Put,
            value.into(),
        );
        self
    }

    /// Sets a column's value at an explicit timestamp.
    pub fn add_at(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: u64,
        value: impl Into<Bytes>,
    ) -> Put {
        self.core.push(
            family.into(),
            qualifier.into(),
            timestamp,
            CellType::Put,
            value.into(),
        );
        self
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.core.cells.len()
    }

    /// True when no column was added.
    pub fn is_empty(&self) -> bool {
        self.core.cells.is_empty()
    }
}
mutation_common!(Put);

/// Deletes columns, families, versions, or the whole row.
///
/// With nothing added it deletes the whole row (every family, every version up to its timestamp).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delete {
    pub(crate) core: MutationCore,
}

impl Delete {
    /// Deletes the whole row, unless columns or families are added.
    pub fn new(row: impl Into<Bytes>) -> Delete {
        Delete {
            core: MutationCore::new(row.into()),
        }
    }

    /// Deletes the whole row's cells with timestamps up to `timestamp`.
    pub fn with_timestamp(row: impl Into<Bytes>, timestamp: u64) -> Delete {
        let mut d = Delete::new(row);
        d.core.timestamp = timestamp;
        d
    }

    /// Deletes every version of every column of a family (`addFamily`).
    pub fn family(mut self, family: impl Into<Bytes>) -> Delete {
        let ts = self.core.timestamp;
        self.core.push(
            family.into(),
            Bytes::new(),
            ts,
            CellType::DeleteFamily,
            Bytes::new(),
        );
        self
    }

    /// Deletes every column of a family at exactly `timestamp` (`addFamilyVersion`).
    pub fn family_version(mut self, family: impl Into<Bytes>, timestamp: u64) -> Delete {
        self.core.push(
            family.into(),
            Bytes::new(),
            timestamp,
            CellType::DeleteFamilyVersion,
            Bytes::new(),
        );
        self
    }

    /// Deletes every version of a column (`addColumns`).
    pub fn all_versions(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Delete {
        let ts = self.core.timestamp;
        self.core.push(
            family.into(),
            qualifier.into(),
            ts,
            CellType::DeleteColumn,
            Bytes::new(),
        );
        self
    }

    /// Deletes the newest version of a column (`addColumn`).
    pub fn latest_version(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
    ) -> Delete {
        self.core.push(
            family.into(),
            qualifier.into(),
            LATEST_TIMESTAMP,
            CellType::Delete,
            Bytes::new(),
        );
        self
    }

    /// Deletes the version of a column at exactly `timestamp` (`addColumn(f, q, ts)`).
    pub fn version(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: u64,
    ) -> Delete {
        self.core.push(
            family.into(),
            qualifier.into(),
            timestamp,
            CellType::Delete,
            Bytes::new(),
        );
        self
    }
}
mutation_common!(Delete);

/// Atomically adds to 8-byte big-endian counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Increment {
    pub(crate) core: MutationCore,
}

impl Increment {
    /// An increment of `row`.
    pub fn new(row: impl Into<Bytes>) -> Increment {
        Increment {
            core: MutationCore::new(row.into()),
        }
    }

    /// Adds `delta` to a column (a missing column counts as 0).
    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        delta: i64,
    ) -> Increment {
        self.core.push(
            family.into(),
            qualifier.into(),
            LATEST_TIMESTAMP,
            CellType::Put,
            Bytes::copy_from_slice(&delta.to_be_bytes()),
        );
        self
    }
}
mutation_common!(Increment);

/// Atomically appends bytes to column values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Append {
    pub(crate) core: MutationCore,
}

impl Append {
    /// An append to `row`.
    pub fn new(row: impl Into<Bytes>) -> Append {
        Append {
            core: MutationCore::new(row.into()),
        }
    }

    /// Appends `value` to a column (a missing column counts as empty).
    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> Append {
        self.core.push(
            family.into(),
            qualifier.into(),
            LATEST_TIMESTAMP,
            CellType::Put,
            value.into(),
        );
        self
    }
}
mutation_common!(Append);

/// Any mutation, for batches and row mutations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    /// A put.
    Put(Put),
    /// A delete.
    Delete(Delete),
    /// An increment.
    Increment(Increment),
    /// An append.
    Append(Append),
}

impl Mutation {
    pub(crate) fn core(&self) -> &MutationCore {
        match self {
            Mutation::Put(p) => &p.core,
            Mutation::Delete(d) => &d.core,
            Mutation::Increment(i) => &i.core,
            Mutation::Append(a) => &a.core,
        }
    }

    pub(crate) fn kind(&self) -> MutationType {
        match self {
            Mutation::Put(_) => MutationType::Put,
            Mutation::Delete(_) => MutationType::Delete,
            Mutation::Increment(_) => MutationType::Increment,
            Mutation::Append(_) => MutationType::Append,
        }
    }

    /// The row key.
    pub fn row(&self) -> &Bytes {
        &self.core().row
    }

    /// The priority set on the mutation, if any.
    pub(crate) fn priority(&self) -> Option<u32> {
        self.core().priority
    }

    /// Whether a retry could apply it twice (increments and appends carry nonces).
    pub(crate) fn needs_nonce(&self) -> bool {
        matches!(self, Mutation::Increment(_) | Mutation::Append(_))
    }

    pub(crate) fn validate(&self, max_cell: usize) -> Result<()> {
        self.core()
            .validate(!matches!(self, Mutation::Delete(_)), max_cell)
    }

    /// Bytes this mutation takes on the wire: its cellblock cells and its protobuf header.
    pub fn encoded_len(&self) -> usize {
        self.core().encoded_len(self.kind())
    }
}

impl From<Put> for Mutation {
    fn from(p: Put) -> Mutation {
        Mutation::Put(p)
    }
}

impl From<Delete> for Mutation {
    fn from(d: Delete) -> Mutation {
        Mutation::Delete(d)
    }
}

impl From<Increment> for Mutation {
    fn from(i: Increment) -> Mutation {
        Mutation::Increment(i)
    }
}

impl From<Append> for Mutation {
    fn from(a: Append) -> Mutation {
        Mutation::Append(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hbclient_proto::cell::CellBlockReader;

    #[test]
    fn puts_encode_as_cellblock_cells() {
        let put = Put::new("r").add("f", "q", "v").add_at("f", "q2", 7, "w");
        let mut block = Vec::new();
        put.core.write_cells(&mut block);
        assert_eq!(block.len(), put.core.cells_len());
        assert_eq!(block.len(), 28 + 29);
        let cells = CellBlockReader::new(block.into()).next_cells(2).unwrap();
        assert_eq!(cells[0].timestamp, LATEST_TIMESTAMP);
        assert_eq!(cells[1].timestamp, 7);
        let m = put.core.to_pb(MutationType::Put, None);
        assert_eq!(m.associated_cell_count, Some(2));
        assert!(m.column_value.is_empty());
    }

    /// Every field `to_pb` can set, alone and together, with sizes around varint boundaries.
    fn headers() -> Vec<(MutationCore, MutationType, Option<u64>)> {
        let put = |row: usize, cells: usize| {
            let mut p = Put::new(vec![b'r'; row]);
            for i in 0..cells {
                p = p.add("f", i.to_string(), "v");
            }
            p
        };
        let attributed = put(3, 1)
            .attribute("a", "1")
            .attribute("long", vec![7u8; 200])
            .durability(Durability::SkipWal);
        let mut all = vec![
            (put(1, 1).core, MutationType::Put, None),
            (put(127, 128).core, MutationType::Put, None),
            (put(128, 300).core, MutationType::Put, None),
            (attributed.core, MutationType::Put, None),
            (
                Put::with_timestamp("r", 1 << 40).add("f", "q", "v").core,
                MutationType::Put,
                None,
            ),
            (Delete::new("r").core, MutationType::Delete, None),
        ];
        for d in [
            Durability::AsyncWal,
            Durability::SyncWal,
            Durability::FsyncWal,
        ] {
            all.push((
                put(2, 2).durability(d).core,
                MutationType::Increment,
                Some(u64::MAX),
            ));
        }
        all.push((put(5, 1).core, MutationType::Append, Some(1)));
        all
    }

    #[test]
    fn headers_encode_as_prost_encodes_them() {
        for (core, kind, nonce) in headers() {
            let message = core.to_pb(kind, nonce);
            let mut ours = Vec::new();
            core.write_header(kind, nonce, &mut ours);
            assert_eq!(ours, prost::Message::encode_to_vec(&message), "{message:?}");
            assert_eq!(core.header_len(kind, nonce), ours.len(), "{message:?}");
        }
    }

    #[test]
    fn small_mutations_hold_no_spare_cells() {
        let put = |n: usize| (0..n).fold(Put::new("r"), |p, i| p.add("f", i.to_string(), "v"));
        let capacities: Vec<usize> = [1, 2, 3, 5]
            .iter()
            .map(|&n| put(n).core.cells.capacity())
            .collect();
        assert_eq!(capacities, [1, 2, 4, 8]);
    }

    #[test]
    fn validation() {
        assert!(Mutation::from(Put::new("")).validate(0).is_err());
        assert!(
            Mutation::from(Put::new("r")).validate(0).is_err(),
            "no columns"
        );
        assert!(
            Mutation::from(Delete::new("r")).validate(0).is_ok(),
            "whole-row delete"
        );
        let big = Put::new("r").add("f", "q", vec![0u8; 100]);
        assert!(Mutation::from(big.clone()).validate(50).is_err());
        assert!(Mutation::from(big).validate(0).is_ok());
        assert!(Mutation::from(Put::new("r").add("", "q", "v"))
            .validate(0)
            .is_err());
        assert!(
            Mutation::from(Put::new(vec![0u8; 40000]).add("f", "q", "v"))
                .validate(0)
                .is_err()
        );
    }

    #[test]
    fn gets_hbase_refuses_are_refused() {
        for (get, names) in [
            (Get::new("r").max_versions(0), "max_versions"),
            (Get::new("r").time_range(10, 5), "time_range"),
        ] {
            let e = get.validate().unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
            assert!(e.message().contains(names), "{e}");
        }
        assert!(Get::new("r")
            .max_versions(3)
            .time_range(5, 5)
            .validate()
            .is_ok());
    }

    #[test]
    fn delete_kinds() {
        let d = Delete::new("r")
            .family("f")
            .all_versions("f", "a")
            .latest_version("f", "b")
            .version("f", "c", 5)
            .family_version("f", 9);
        let types: Vec<CellType> = d.core.cells.iter().map(|c| c.cell_type).collect();
        assert_eq!(
            types,
            [
                CellType::DeleteFamily,
                CellType::DeleteColumn,
                CellType::Delete,
                CellType::Delete,
                CellType::DeleteFamilyVersion
            ]
        );
    }
}
