//! checkAndMutate conditions, evaluated as HBase 2.x's `HRegion.checkAndMutateInternal` does:
//! read the newest version of one column (within the time range), or run a filter over the row.
//!
//! The comparison is `comparator.compareTo(cell value)` checked against the operator, so
//! `LESS` holds when the *given* value is less than the stored one. An empty given value means
//! "the column is absent or empty" (`NOT_EQUAL` inverts it).

use hbclient_proto::pb;

use crate::catalog::RegionData;
use crate::exception::{class, RemoteException};
use crate::filter::compare::{decode_comparator, CompareOp};
use crate::region_ops::{read_row, store_error};
use crate::state::now_ms;
use crate::store::ReadQuery;

/// Whether `condition` holds for the locked region's current data.
pub(crate) fn holds(data: &RegionData, condition: &pb::Condition) -> Result<bool, RemoteException> {
    let time_range = condition.time_range.as_ref();
    if let Some(filter) = &condition.filter {
        let get = pb::Get {
            row: condition.row.clone(),
            filter: Some(filter.clone()),
            time_range: time_range.cloned(),
            ..Default::default()
        };
        return Ok(!read_row(data, &get)?.is_empty());
    }
    let (Some(family), Some(comparator)) = (&condition.family, &condition.comparator) else {
        return Err(RemoteException::new(
            class::DO_NOT_RETRY,
            "condition needs a family and a comparator, or a filter",
        ));
    };
    let qualifier = condition.qualifier.clone().unwrap_or_default();
    let op = CompareOp::from_pb(
        condition
            .compare_type
            .unwrap_or(pb::CompareType::Equal as i32),
    )
    .map_err(bad)?;
    let comparator = decode_comparator(comparator).map_err(bad)?;
    let query = ReadQuery {
        columns: vec![(family.clone(), vec![qualifier])],
        time_range: time_range.map_or((0, u64::MAX), |tr| {
            (tr.from.unwrap_or(0), tr.to.unwrap_or(i64::MAX as u64))
        }),
        max_versions: 1,
    };
    data.store.check_query(&query).map_err(store_error)?;
    let cells = data.store.get(&condition.row, &query, now_ms());
    let given_is_empty = comparator.value().is_none_or(|v| v.is_empty());
    let not_equal = op == CompareOp::NotEqual;
    Ok(match (cells.first(), given_is_empty) {
        (None, true) => !not_equal,
        (Some(cell), true) => cell.value.is_empty() != not_equal,
        (Some(cell), false) => {
            let order = comparator.compare_to(&cell.value).map_err(bad)?;
            match op {
                CompareOp::Less => order.is_lt(),
                CompareOp::LessOrEqual => order.is_le(),
                CompareOp::Equal => order.is_eq(),
                CompareOp::NotEqual => order.is_ne(),
                CompareOp::GreaterOrEqual => order.is_ge(),
                CompareOp::Greater => order.is_gt(),
                CompareOp::NoOp => {
                    return Err(RemoteException::new(
                        class::DO_NOT_RETRY,
                        "Unknown Compare op NO_OP",
                    ))
                }
            }
        }
        (None, false) => false,
    })
}

fn bad(e: crate::filter::FilterError) -> RemoteException {
    RemoteException::new(class::DO_NOT_RETRY, e.message)
}
