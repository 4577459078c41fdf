//! Java class names of the HBase exceptions that cross the wire, spelled once for the client
//! (which maps them to typed errors and retry decisions) and for mini-hbase (which raises them).

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
pub const SERVER_NOT_RUNNING_YET: &str = "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException";
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
pub const SECURITY_NOT_ENABLED: &str = "org.apache.hadoop.hbase.ipc.SecurityNotEnabledException";
/// Fatal: the preamble's RPC version is not 0.
pub const WRONG_VERSION: &str = "org.apache.hadoop.hbase.ipc.WrongVersionException";
/// Fatal: the preamble's authentication code is unknown.
pub const BAD_AUTH: &str = "org.apache.hadoop.hbase.ipc.BadAuthException";
/// A request frame longer than `hbase.ipc.max.request.size`.
pub const REQUEST_TOO_BIG: &str = "org.apache.hadoop.hbase.exceptions.RequestTooBigException";
/// A plain I/O error (retried by clients).
pub const IO: &str = "java.io.IOException";
/// A region server that is aborting.
pub const REGION_SERVER_ABORTED: &str =
    "org.apache.hadoop.hbase.regionserver.RegionServerAbortedException";
/// The server reset a scanner (its state is gone); the client reopens it.
pub const SCANNER_RESET: &str = "org.apache.hadoop.hbase.exceptions.ScannerResetException";
/// A method or coprocessor service the server does not have.
pub const UNKNOWN_PROTOCOL: &str = "org.apache.hadoop.hbase.exceptions.UnknownProtocolException";
