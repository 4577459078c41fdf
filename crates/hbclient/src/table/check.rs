//! Atomic operations on one row: `RowMutations` (several mutations applied together) and
//! `CheckAndMutate` (apply only if the row holds what the caller expects).

use bytes::Bytes;
use hbclient_proto::pb;
use prost::Message;

use crate::error::{Error, Result};
use crate::table::filter::{CompareOp, Filter};
use crate::table::ops::{Delete, Mutation, Put};

/// Mutations of one row applied atomically: all or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowMutations {
    pub(crate) row: Bytes,
    pub(crate) mutations: Vec<Mutation>,
}

impl RowMutations {
    /// The highest priority of its mutations (Java's `RowMutations.getMaxPriority`), which the
    /// one RPC carrying them all is sent with.
    pub(crate) fn max_priority(&self) -> Option<u32> {
        self.mutations.iter().filter_map(Mutation::priority).max()
    }

    /// An empty set for `row`.
    pub fn new(row: impl Into<Bytes>) -> RowMutations {
        RowMutations {
            row: row.into(),
            mutations: Vec::new(),
        }
    }

    /// Adds a put.
    pub fn put(mut self, put: Put) -> RowMutations {
        self.mutations.push(Mutation::Put(put));
        self
    }

    /// Adds a delete.
    pub fn delete(mut self, delete: Delete) -> RowMutations {
        self.mutations.push(Mutation::Delete(delete));
        self
    }

    /// The row key.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    pub(crate) fn validate(&self, max_cell: usize) -> Result<()> {
        if self.mutations.is_empty() {
            return Err(Error::invalid("RowMutations holds no mutation"));
        }
        for m in &self.mutations {
            if m.row() != &self.row {
                return Err(Error::invalid(format!(
                    "the row {:?} of a mutation differs from the RowMutations row {:?}",
                    String::from_utf8_lossy(m.row()),
                    String::from_utf8_lossy(&self.row)
                )));
            }
            m.validate(max_cell)?;
        }
        Ok(())
    }
}

/// What a [`CheckAndMutate`] checks.
#[derive(Debug, Clone, PartialEq)]
enum Check {
    /// `given OP stored` on the newest version of one column; `None` = "absent or empty".
    Column {
        family: Bytes,
        qualifier: Bytes,
        op: CompareOp,
        value: Option<Bytes>,
    },
    /// The row passes the filter.
    Filter(Filter),
}

/// A conditional mutation, built with [`CheckAndMutate::row`].
#[derive(Debug, Clone, PartialEq)]
pub struct CheckAndMutate {
    pub(crate) row: Bytes,
    check: Check,
    time_range: Option<(u64, u64)>,
    pub(crate) action: CheckAction,
}

/// What to do when the check holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CheckAction {
    One(Mutation),
    Row(RowMutations),
}

/// The first half of a [`CheckAndMutate`]: the row and the check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckBuilder {
    row: Bytes,
    check: Option<Check>,
    time_range: Option<(u64, u64)>,
}

impl CheckAndMutate {
    /// Starts a conditional mutation of `row`.
    pub fn row(row: impl Into<Bytes>) -> CheckBuilder {
        CheckBuilder {
            row: row.into(),
            check: None,
            time_range: None,
        }
    }

    pub(crate) fn condition(&self) -> pb::Condition {
        let mut condition = pb::Condition {
            row: self.row.clone(),
            time_range: self.time_range.map(|(from, to)| pb::TimeRange {
                from: Some(from),
                to: Some(to),
            }),
            ..Default::default()
        };
        match &self.check {
            Check::Column {
                family,
                qualifier,
                op,
                value,
            } => {
                condition.family = Some(family.clone());
                condition.qualifier = Some(qualifier.clone());
                condition.compare_type = Some(op.to_pb() as i32);
                condition.comparator = Some(pb::Comparator {
                    name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
                    serialized_comparator: Some(
                        pb::BinaryComparator {
                            comparable: pb::ByteArrayComparable {
                                value: value.clone(),
                            },
                        }
                        .encode_to_vec()
                        .into(),
                    ),
                });
            }
            Check::Filter(filter) => condition.filter = Some(filter.to_pb()),
        }
        condition
    }
}

impl CheckBuilder {
    /// Holds when the column's newest value equals `value`.
    pub fn if_equals(
        self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> CheckBuilder {
        self.if_matches(family, qualifier, CompareOp::Equal, value)
    }

    /// Holds when the column is absent (or empty).
    pub fn if_not_exists(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
    ) -> CheckBuilder {
        self.check = Some(Check::Column {
            family: family.into(),
            qualifier: qualifier.into(),
            op: CompareOp::Equal,
            value: None,
        });
        self
    }

    /// Holds when `value OP stored value` (HBase's order: the given value is on the left, so
    /// `Less` holds when the stored value is greater than `value`).
    pub fn if_matches(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOp,
        value: impl Into<Bytes>,
    ) -> CheckBuilder {
        self.check = Some(Check::Column {
            family: family.into(),
            qualifier: qualifier.into(),
            op,
            value: Some(value.into()),
        });
        self
    }

    /// Holds when the row passes the filter.
    pub fn if_filter(mut self, filter: Filter) -> CheckBuilder {
        self.check = Some(Check::Filter(filter));
        self
    }

    /// Restricts the check to cells with `from <= timestamp < to` (`from > to` is refused by
    /// `then_*`, as Java's `TimeRange` refuses it).
    pub fn time_range(mut self, from: u64, to: u64) -> CheckBuilder {
        self.time_range = Some((from, to));
        self
    }

    fn finish(self, action: CheckAction) -> Result<CheckAndMutate> {
        let check = self.check.ok_or_else(|| {
            Error::invalid("CheckAndMutate needs a condition (if_equals, if_not_exists, ...)")
        })?;
        crate::table::ops::check_time_range("CheckAndMutate::time_range", self.time_range)?;
        Ok(CheckAndMutate {
            row: self.row,
            check,
            time_range: self.time_range,
            action,
        })
    }

    /// Puts when the check holds.
    pub fn then_put(self, put: Put) -> Result<CheckAndMutate> {
        self.finish(CheckAction::One(Mutation::Put(put)))
    }

    /// Deletes when the check holds.
    pub fn then_delete(self, delete: Delete) -> Result<CheckAndMutate> {
        self.finish(CheckAction::One(Mutation::Delete(delete)))
    }

    /// Applies several mutations of the row atomically when the check holds.
    pub fn then_mutations(self, mutations: RowMutations) -> Result<CheckAndMutate> {
        self.finish(CheckAction::Row(mutations))
    }
}
