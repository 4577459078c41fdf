//! HBase exceptions as mini-hbase sends them: a Java class name, a message, and the flags HBase
//! puts in `ExceptionResponse`.

use std::fmt;

use bytes::Bytes;
use hbclient_proto::pb;

/// Fully-qualified class names of the exceptions mini-hbase raises.
pub mod class {
    /// Base class of every "don't retry" error.
    pub const DO_NOT_RETRY: &str = "org.apache.hadoop.hbase.DoNotRetryIOException";
    /// The region is not (or no longer) on this server.
    pub const NOT_SERVING_REGION: &str = "org.apache.hadoop.hbase.NotServingRegionException";
    /// The region moved; hostname and port say where.
    pub const REGION_MOVED: &str = "org.apache.hadoop.hbase.exceptions.RegionMovedException";
    /// The region is being opened on this server.
    pub const REGION_OPENING: &str = "org.apache.hadoop.hbase.exceptions.RegionOpeningException";
    /// The region is too busy; back off.
    pub const REGION_TOO_BUSY: &str = "org.apache.hadoop.hbase.RegionTooBusyException";
    /// The server's call queue is full; back off (server overloaded).
    pub const CALL_QUEUE_TOO_BIG: &str = "org.apache.hadoop.hbase.CallQueueTooBigException";
    /// The call was dropped unserved (server overloaded).
    pub const CALL_DROPPED: &str = "org.apache.hadoop.hbase.CallDroppedException";
    /// The region server is stopping.
    pub const REGION_SERVER_STOPPED: &str =
        "org.apache.hadoop.hbase.regionserver.RegionServerStoppedException";
    /// The server has not finished starting.
    pub const SERVER_NOT_RUNNING_YET: &str =
        "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException";
    /// Retry right away.
    pub const RETRY_IMMEDIATELY: &str = "org.apache.hadoop.hbase.RetryImmediatelyException";
    /// A column family the table does not have.
    pub const NO_SUCH_COLUMN_FAMILY: &str =
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException";
    /// A table that does not exist.
    pub const TABLE_NOT_FOUND: &str = "org.apache.hadoop.hbase.TableNotFoundException";
    /// A table that already exists.
    pub const TABLE_EXISTS: &str = "org.apache.hadoop.hbase.TableExistsException";
    /// A table that must be enabled is not.
    pub const TABLE_NOT_ENABLED: &str = "org.apache.hadoop.hbase.TableNotEnabledException";
    /// A table that must be disabled is not.
    pub const TABLE_NOT_DISABLED: &str = "org.apache.hadoop.hbase.TableNotDisabledException";
    /// A namespace that does not exist.
    pub const NAMESPACE_NOT_FOUND: &str = "org.apache.hadoop.hbase.NamespaceNotFoundException";
    /// A namespace that already exists.
    pub const NAMESPACE_EXIST: &str = "org.apache.hadoop.hbase.NamespaceExistException";
    /// A request that breaks a constraint (deleting a reserved or non-empty namespace).
    pub const CONSTRAINT: &str = "org.apache.hadoop.hbase.constraint.ConstraintException";
    /// A scanner id the server does not know (expired lease or closed).
    pub const UNKNOWN_SCANNER: &str = "org.apache.hadoop.hbase.UnknownScannerException";
    /// A scanner `next` whose `next_call_seq` does not match.
    pub const OUT_OF_ORDER_SCANNER_NEXT: &str =
        "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException";
    /// A row outside the region it was sent to.
    pub const WRONG_REGION: &str = "org.apache.hadoop.hbase.regionserver.WrongRegionException";
    /// A malformed or invalid request.
    pub const FAILED_SANITY_CHECK: &str =
        "org.apache.hadoop.hbase.exceptions.FailedSanityCheckException";
    /// Fatal: the connection is closed after it.
    pub const FATAL_CONNECTION: &str = "org.apache.hadoop.hbase.ipc.FatalConnectionException";
    /// A secured server refusing an unauthenticated (SIMPLE) client.
    pub const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";
    /// Fatal: unknown service name in the connection header.
    pub const UNKNOWN_SERVICE: &str = "org.apache.hadoop.hbase.ipc.UnknownServiceException";
    /// Fatal: unknown cellblock codec in the connection header.
    pub const UNSUPPORTED_CELL_CODEC: &str =
        "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException";
    /// Fatal: a compressor mini-hbase does not implement.
    pub const UNSUPPORTED_COMPRESSION: &str =
        "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException";
    /// The security preamble reached a server without Kerberos.
    pub const SECURITY_NOT_ENABLED: &str =
        "org.apache.hadoop.hbase.ipc.SecurityNotEnabledException";
    /// Fatal: the preamble's RPC version is not 0.
    pub const WRONG_VERSION: &str = "org.apache.hadoop.hbase.ipc.WrongVersionException";
    /// Fatal: the preamble's authentication code is unknown.
    pub const BAD_AUTH: &str = "org.apache.hadoop.hbase.ipc.BadAuthException";
    /// A request frame longer than `hbase.ipc.max.request.size`.
    pub const REQUEST_TOO_BIG: &str = "org.apache.hadoop.hbase.exceptions.RequestTooBigException";
    /// A plain I/O error (retried by clients).
    pub const IO: &str = "java.io.IOException";
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
    "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
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
