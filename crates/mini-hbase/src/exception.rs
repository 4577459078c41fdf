//! HBase exceptions as mini-hbase sends them: a Java class name, a message, and the flags HBase
//! puts in `ExceptionResponse`.

use std::fmt;

use bytes::Bytes;
use hbclient_proto::pb;

/// Fully-qualified class names of the exceptions mini-hbase raises (shared with the client).
pub mod class {
    pub use hbclient_proto::exceptions::*;
}

/// Classes that extend `DoNotRetryIOException` in HBase, so `do_not_retry` is set for them.
const DO_NOT_RETRY_CLASSES: &[&str] = &[
    class::DO_NOT_RETRY,
    class::NO_SUCH_COLUMN_FAMILY,
    class::TABLE_NOT_FOUND,
    class::TABLE_EXISTS,
    class::TABLE_NOT_ENABLED,
    class::TABLE_NOT_DISABLED,
    class::NAMESPACE_NOT_FOUND,
    class::NAMESPACE_EXIST,
    class::CONSTRAINT,
    class::UNKNOWN_SCANNER,
    class::OUT_OF_ORDER_SCANNER_NEXT,
    class::FAILED_SANITY_CHECK,
    class::REQUEST_TOO_BIG,
    class::UNKNOWN_PROTOCOL,
    // FatalConnectionException and its subclasses extend DoNotRetryIOException.
    class::FATAL_CONNECTION,
    class::WRONG_VERSION,
    class::BAD_AUTH,
    class::UNKNOWN_SERVICE,
    class::UNSUPPORTED_CELL_CODEC,
    class::UNSUPPORTED_COMPRESSION,
];

/// Classes HBase flags as "server overloaded".
const OVERLOADED_CLASSES: &[&str] = &[class::CALL_QUEUE_TOO_BIG, class::CALL_DROPPED];

/// An exception to send to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteException {
    /// Java class name.
    pub class: String,
    /// The exception message.
    pub message: String,
    /// `ExceptionResponse.do_not_retry`.
    pub do_not_retry: bool,
    /// `ExceptionResponse.server_overloaded`.
    pub server_overloaded: bool,
    /// For `RegionMovedException`: where the region went.
    pub moved_to: Option<(String, u16)>,
    /// Connection-level errors (preamble, header): HBase sends the bare message as `stack_trace`,
    /// without the class name, and clients parse it (`Expected HEADER=`).
    pub bare_message: bool,
}

impl RemoteException {
    /// An exception of `class`, with HBase's flags for that class.
    pub fn new(class: impl Into<String>, message: impl Into<String>) -> RemoteException {
        let class = class.into();
        RemoteException {
            do_not_retry: DO_NOT_RETRY_CLASSES.contains(&class.as_str()),
            server_overloaded: OVERLOADED_CLASSES.contains(&class.as_str()),
            class,
            message: message.into(),
            moved_to: None,
            bare_message: false,
        }
    }

    /// A connection-level error as HBase sends it before any call: `stack_trace` is the message
    /// alone.
    pub fn connection(class: impl Into<String>, message: impl Into<String>) -> RemoteException {
        RemoteException {
            bare_message: true,
            ..RemoteException::new(class, message)
        }
    }

    /// `NotServingRegionException` for a region name.
    pub fn not_serving(region: &[u8]) -> RemoteException {
        RemoteException::new(
            class::NOT_SERVING_REGION,
            format!("Region {} is not online", String::from_utf8_lossy(region)),
        )
    }

    /// `RegionMovedException` pointing at `host:port` (message in HBase's parseable format).
    pub fn region_moved(region: &[u8], host: &str, port: u16, start_code: u64) -> RemoteException {
        let mut e = RemoteException::new(
            class::REGION_MOVED,
            format!(
                "Region moved to: hostname={host} port={port} startCode={start_code}. As of locationSeqNum=0. ({})",
                String::from_utf8_lossy(region)
            ),
        );
        e.moved_to = Some((host.to_string(), port));
        e
    }

    /// What HBase answers for a method the service does not have (or mini-hbase does not implement).
    pub fn unsupported_method(service: &str, method: &str) -> RemoteException {
        RemoteException::new(
            class::DO_NOT_RETRY,
            format!("java.lang.UnsupportedOperationException: {service}.{method} is not supported"),
        )
    }

    /// A request that could not be decoded.
    pub fn bad_request(detail: impl fmt::Display) -> RemoteException {
        RemoteException::new(class::DO_NOT_RETRY, format!("Malformed request: {detail}"))
    }

    /// The stringified exception HBase puts in `stack_trace` and in Multi's `NameBytesPair.value`.
    pub fn stack_trace(&self) -> String {
        if self.bare_message {
            return self.message.clone();
        }
        format!("{}: {}\n\tat mini-hbase\n", self.class, self.message)
    }

    /// As the header of a failed call.
    pub fn to_pb(&self) -> pb::ExceptionResponse {
        pb::ExceptionResponse {
            exception_class_name: Some(self.class.clone()),
            stack_trace: Some(self.stack_trace()),
            hostname: self.moved_to.as_ref().map(|(h, _)| h.clone()),
            port: self.moved_to.as_ref().map(|(_, p)| i32::from(*p)),
            do_not_retry: Some(self.do_not_retry),
            // Only HBaseServerException subclasses carry the flag (observed on 2.6.4: absent for
            // connection errors and plain IOExceptions).
            server_overloaded: self.server_overloaded.then_some(true),
        }
    }

    /// As a per-action or per-region exception inside a Multi response.
    pub fn to_name_bytes_pair(&self) -> pb::NameBytesPair {
        pb::NameBytesPair {
            name: self.class.clone(),
            value: Some(Bytes::from(self.stack_trace())),
        }
    }
}

impl fmt::Display for RemoteException {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class, self.message)
    }
}

impl std::error::Error for RemoteException {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_the_class() {
        assert!(RemoteException::new(class::TABLE_NOT_FOUND, "t").do_not_retry);
        assert!(!RemoteException::new(class::NOT_SERVING_REGION, "r").do_not_retry);
        assert!(RemoteException::new(class::CALL_QUEUE_TOO_BIG, "q").server_overloaded);
        let moved = RemoteException::region_moved(b"r", "127.0.0.1", 16020, 5).to_pb();
        assert_eq!(moved.hostname.as_deref(), Some("127.0.0.1"));
        assert_eq!(moved.port, Some(16020));
        assert!(moved
            .stack_trace
            .unwrap()
            .contains("hostname=127.0.0.1 port=16020 startCode=5."));
    }
}
