//! ColumnPaginationFilter, RandomRowFilter and FirstKeyValueMatchingQualifiersFilter, with their
//! protobuf forms (HBase's Filter.proto field numbers; missing from our `filter.proto`).

use bytes::Bytes;
use hbclient_proto::cell::Cell;

use super::base::{Filter, FilterResult, ReturnCode};
use super::wire::decode;
use super::FilterError;

#[derive(Clone, PartialEq, prost::Message)]
struct ColumnPaginationProto {
    #[prost(int32, required, tag = "1")]
    limit: i32,
    #[prost(int32, optional, tag = "2")]
    offset: Option<i32>,
    #[prost(bytes = "bytes", optional, tag = "3")]
    column_offset: Option<Bytes>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct RandomRowProto {
    #[prost(float, required, tag = "1")]
    chance: f32,
}

#[derive(Clone, PartialEq, prost::Message)]
struct FirstKeyValueMatchingQualifiersProto {
    #[prost(bytes = "bytes", repeated, tag = "1")]
    qualifiers: Vec<Bytes>,
}

/// `ColumnPaginationFilter`: `limit` columns per row after skipping `offset` columns (or every
/// column before `column_offset`).
pub(crate) struct ColumnPaginationFilter {
    limit: i32,
    offset: i32,
    column_offset: Option<Bytes>,
    count: i32,
}

impl Filter for ColumnPaginationFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        if let Some(column_offset) = &self.column_offset {
            if self.count >= self.limit {
                return Ok(ReturnCode::NextRow);
            }
            if cell.qualifier.as_ref() < column_offset.as_ref() {
                // HBase seeks to the offset column with a hint; skipping the column is the same.
                return Ok(ReturnCode::NextCol);
            }
            self.count += 1;
            return Ok(ReturnCode::IncludeAndNextCol);
        }
        if self.count >= self.offset.saturating_add(self.limit) {
            return Ok(ReturnCode::NextRow);
        }
        let code = if self.count < self.offset {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        };
        self.count += 1;
        Ok(code)
    }
}

pub(crate) fn column_pagination(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let p: ColumnPaginationProto = decode(bytes, &[1])?;
    if p.limit < 0 || p.offset.is_some_and(|o| o < 0) {
        return Err(FilterError::new(format!(
            "java.lang.IllegalArgumentException: limit must be positive {}",
            p.limit
        )));
    }
    Ok(Box::new(ColumnPaginationFilter {
        limit: p.limit,
        offset: p.offset.unwrap_or(-1).max(0),
        column_offset: p.column_offset,
        count: 0,
    }))
}

/// `RandomRowFilter`: each row passes with probability `chance` (< 0: none, > 1: all).
pub(crate) struct RandomRowFilter {
    chance: f32,
    filter_out_row: bool,
    state: u64,
}

impl RandomRowFilter {
    fn next_float(&mut self) -> f32 {
        // xorshift64*: enough randomness for sampling rows.
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let x = self.state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x >> 40) as f32 / (1u64 << 24) as f32
    }
}

impl Filter for RandomRowFilter {
    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        self.filter_out_row = if self.chance < 0.0 {
            true
        } else if self.chance > 1.0 {
            false
        } else {
            self.next_float() >= self.chance
        };
        Ok(self.filter_out_row)
    }

    fn filter_cell(&mut self, _cell: &Cell) -> FilterResult<ReturnCode> {
        Ok(if self.filter_out_row {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        })
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out_row
    }
}

pub(crate) fn random_row(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let p: RandomRowProto = decode(bytes, &[1])?;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x9E37_79B9_7F4A_7C15, |d| d.as_nanos() as u64)
        | 1;
    Ok(Box::new(RandomRowFilter {
        chance: p.chance,
        filter_out_row: false,
        state: seed,
    }))
}

/// `FirstKeyValueMatchingQualifiersFilter` (deprecated in HBase): the cells of a row up to and
/// including the first one whose qualifier is listed.
pub(crate) struct FirstKeyValueMatchingQualifiersFilter {
    qualifiers: Vec<Bytes>,
    found: bool,
}

impl Filter for FirstKeyValueMatchingQualifiersFilter {
    fn reset(&mut self) {
        self.found = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> FilterResult<bool> {
        Ok(false)
    }

    fn filter_cell(&mut self, cell: &Cell) -> FilterResult<ReturnCode> {
        if self.found {
            return Ok(ReturnCode::NextRow);
        }
        if self.qualifiers.iter().any(|q| q == &cell.qualifier) {
            self.found = true;
        }
        Ok(ReturnCode::Include)
    }
}

pub(crate) fn first_kv_matching_qualifiers(bytes: &[u8]) -> FilterResult<Box<dyn Filter>> {
    let p: FirstKeyValueMatchingQualifiersProto = decode(bytes, &[])?;
    Ok(Box::new(FirstKeyValueMatchingQualifiersFilter {
        qualifiers: p.qualifiers,
        found: false,
    }))
}
