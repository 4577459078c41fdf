//! Errors a region's store reports, and the HBase exception class each one maps to.

use bytes::Bytes;
use hbclient_proto::binary_text::to_string_binary;
use hbclient_proto::cell::CellType;
use thiserror::Error;

/// `org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException`.
const NO_SUCH_COLUMN_FAMILY: &str =
    "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException";
/// `org.apache.hadoop.hbase.DoNotRetryIOException`.
const DO_NOT_RETRY: &str = "org.apache.hadoop.hbase.DoNotRetryIOException";

/// Why a store operation was refused. A refused operation changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// The family is not one of the table's column families.
    #[error("Column family {} does not exist in region", to_string_binary(family))]
    NoSuchColumnFamily {
        /// The unknown family.
        family: Bytes,
    },
    /// An increment found a current value that is not an 8-byte long.
    #[error("Field is not a long, it's {len} bytes wide")]
    NotALong {
        /// Family of the column.
        family: Bytes,
        /// Qualifier of the column.
        qualifier: Bytes,
        /// Length of the current value.
        len: usize,
    },
    /// A mutation carried a cell type that cannot be stored (`Minimum` or `Maximum`).
    #[error("Unsupported cell type {cell_type:?} in a mutation")]
    InvalidCellType {
        /// The offending type.
        cell_type: CellType,
    },
}

impl StoreError {
    /// The fully-qualified HBase exception class to send to the client for this error.
    pub fn java_class(&self) -> &'static str {
        match self {
            StoreError::NoSuchColumnFamily { .. } => NO_SUCH_COLUMN_FAMILY,
            StoreError::NotALong { .. } | StoreError::InvalidCellType { .. } => DO_NOT_RETRY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_classes() {
        let nscf = StoreError::NoSuchColumnFamily {
            family: Bytes::from_static(b"x"),
        };
        assert_eq!(nscf.java_class(), NO_SUCH_COLUMN_FAMILY);
        let nal = StoreError::NotALong {
            family: Bytes::from_static(b"f"),
            qualifier: Bytes::from_static(b"q"),
            len: 3,
        };
        assert_eq!(nal.java_class(), DO_NOT_RETRY);
        assert_eq!(nal.to_string(), "Field is not a long, it's 3 bytes wide");
    }

    #[test]
    fn binary_rendering() {
        assert_eq!(to_string_binary(b"cf\x00\xff\\"), "cf\\x00\\xFF\\x5C");
    }
}
