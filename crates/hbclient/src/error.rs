//! The one public error type: what went wrong ([`ErrorKind`]), whether a retry can help, and the
//! server's exception when there was one.
//!
//! `Error` is a pointer-sized, cheaply cloned handle, so one connection failure can be handed to
//! every call that was waiting on it.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The caller passed something HBase would reject (empty row, oversized cell, bad name...).
    InvalidArgument,
    /// Could not connect, or the connection broke while the call was pending.
    Connection,
    /// The call or the whole operation ran out of time.
    Timeout,
    /// The server answered with an exception that has no kind of its own (its class and message
    /// are in [`Error::remote_error`]).
    Remote,
    /// The table does not exist.
    TableNotFound,
    /// The table exists but is disabled.
    TableNotEnabled,
    /// A column family the table does not have.
    NoSuchColumnFamily,
    /// The peer sent bytes that do not decode (a protocol violation).
    Protocol,
    /// The connection was closed by the user.
    Closed,
    /// A blocking call was made from inside an async runtime.
    BlockingInAsync,
    /// Who we are could not be proven or was refused: Kerberos credentials, SASL negotiation,
    /// certificates, or the server's `AccessDeniedException`. Not retried.
    Authentication,
    /// The table exists already (`TableExistsException`, e.g. from
    /// [`Admin::create_table`](crate::Admin::create_table)). Not retried.
    TableExists,
    /// The table is not disabled, and the operation needs it to be
    /// (`TableNotDisabledException`: [`Admin::delete_table`](crate::Admin::delete_table),
    /// [`Admin::enable_table`](crate::Admin::enable_table) of an enabled table, truncate). Not
    /// retried.
    TableNotDisabled,
    /// The namespace exists already (`NamespaceExistException`, from
    /// [`Admin::create_namespace`](crate::Admin::create_namespace)). Not retried.
    NamespaceExists,
    /// The namespace does not exist (`NamespaceNotFoundException`: creating a table in it,
    /// deleting it). Not retried.
    NamespaceNotFound,
    /// The region is too busy to take the write now (`RegionTooBusyException`: its memstore is
    /// over its blocking limit, or its lock could not be taken in time). Retried with backoff;
    /// seen when the retries ran out, or per action in a batch or buffered mutator: write
    /// slower or later.
    RegionTooBusy,
    /// The server refused the call because its queues are full (`CallQueueTooBigException`,
    /// `CallDroppedException`). Retried with a longer backoff; seen when the retries ran out:
    /// the cluster is overloaded.
    ServerOverloaded,
}

/// The step of an attempt at which a failure happened (see [`Error::step`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Step {
    /// Finding the region's server (hbase:meta lookups, the registry).
    Locate,
    /// Connecting to the server (TCP, TLS, SASL, the connection header).
    Connect,
    /// Handing the request to the connection (it had failed, or there was no room in time).
    Send,
    /// Sent, waiting for the answer: the server's exception, a lost connection, a timeout.
    Wait,
    /// Reading the answer.
    Decode,
}

impl Step {
    /// A lower-case name (`locate`, `connect`, `send`, `wait`, `decode`).
    pub fn name(self) -> &'static str {
        match self {
            Step::Locate => "locate",
            Step::Connect => "connect",
            Step::Send => "send",
            Step::Wait => "wait",
            Step::Decode => "decode",
        }
    }
}

/// A cause kept in an error's [`source`](std::error::Error::source) chain.
type Source = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// An exception reported by an HBase server (read it from [`Error::remote_error`]). Fields may
/// be added in later versions, so outside this crate one is built with [`RemoteError::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RemoteError {
    /// Fully qualified Java class name, e.g. `org.apache.hadoop.hbase.NotServingRegionException`.
    pub class: String,
    /// The exception message (first line of the server's stack trace, class name removed).
    pub message: String,
    /// The server marked it "do not retry".
    pub do_not_retry: bool,
    /// The server is overloaded (CallQueueTooBig, CallDropped): back off longer.
    pub server_overloaded: bool,
    /// For `RegionMovedException`: `host:port` of the region's new server.
    pub moved_to: Option<String>,
}

/// The most bytes of text a server sent (an exception's class or message) that an error keeps,
/// and so that a log line quoting the error shows: a server's exception text is not bounded
/// (megabytes of stack trace or message have been seen from a broken server). Longer text is cut
/// on a character boundary and marked as truncated.
pub const MAX_SERVER_TEXT: usize = 8 * 1024;

/// `text` cut to at most [`MAX_SERVER_TEXT`] bytes on a character boundary, with a marker that
/// says how long it was; unchanged (and not copied) when short enough.
pub(crate) fn cap_server_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_SERVER_TEXT {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = MAX_SERVER_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!(
        "{}... [truncated: {} bytes in all]",
        &text[..end],
        text.len()
    ))
}

/// Caps an owned server text in place (no copy when short enough).
fn cap_owned(text: String) -> String {
    match cap_server_text(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(capped) => capped,
    }
}

/// Exception classes after which the cached region location is wrong.
const RELOCATE: &[&str] = &[
    hbclient_proto::exceptions::NOT_SERVING_REGION,
    hbclient_proto::exceptions::REGION_MOVED,
    hbclient_proto::exceptions::REGION_OPENING,
    hbclient_proto::exceptions::REGION_SERVER_STOPPED,
    hbclient_proto::exceptions::REGION_SERVER_ABORTED,
    hbclient_proto::exceptions::WRONG_REGION,
    hbclient_proto::exceptions::SERVER_NOT_RUNNING_YET,
];

/// Exception classes that must not be retried although the server did not flag them.
const NEVER_RETRY: &[&str] = &[
    hbclient_proto::exceptions::DO_NOT_RETRY,
    hbclient_proto::exceptions::TABLE_NOT_FOUND,
    hbclient_proto::exceptions::TABLE_NOT_ENABLED,
    hbclient_proto::exceptions::TABLE_NOT_DISABLED,
    hbclient_proto::exceptions::TABLE_EXISTS,
    hbclient_proto::exceptions::NAMESPACE_NOT_FOUND,
    hbclient_proto::exceptions::NAMESPACE_EXIST,
    hbclient_proto::exceptions::NO_SUCH_COLUMN_FAMILY,
    hbclient_proto::exceptions::FAILED_SANITY_CHECK,
    hbclient_proto::exceptions::ACCESS_DENIED,
    "org.apache.hadoop.security.AccessControlException",
    "javax.security.sasl.SaslException",
    hbclient_proto::exceptions::UNKNOWN_SCANNER,
    hbclient_proto::exceptions::OUT_OF_ORDER_SCANNER_NEXT,
    hbclient_proto::exceptions::FATAL_CONNECTION,
    hbclient_proto::exceptions::WRONG_VERSION,
    hbclient_proto::exceptions::BAD_AUTH,
    hbclient_proto::exceptions::UNSUPPORTED_CELL_CODEC,
    hbclient_proto::exceptions::UNKNOWN_SERVICE,
];

impl RemoteError {
    /// An exception of Java class `class` (fully qualified) with `message`, not flagged by the
    /// server (retry and overload flags off, no new location): for tests and wrappers that
    /// hand an [`Error::remote`] to code expecting one from a server.
    pub fn new(class: impl Into<String>, message: impl Into<String>) -> RemoteError {
        RemoteError {
            class: class.into(),
            message: message.into(),
            do_not_retry: false,
            server_overloaded: false,
            moved_to: None,
        }
    }

    /// True when the region's cached location must be dropped before retrying.
    pub fn needs_relocation(&self) -> bool {
        RELOCATE.contains(&self.class.as_str())
    }

    /// True when a retry may succeed.
    pub fn is_retriable(&self) -> bool {
        !self.do_not_retry && !NEVER_RETRY.contains(&self.class.as_str())
    }

    /// The class name without its package.
    pub fn short_class(&self) -> &str {
        self.class.rsplit('.').next().unwrap_or(&self.class)
    }
}

#[derive(Debug, Clone)]
struct Inner {
    kind: ErrorKind,
    message: String,
    remote: Option<RemoteError>,
    context: Vec<(&'static str, String)>,
    retriable: bool,
    /// What this error came from: the last real failure of a retried operation, or an I/O
    /// error.
    source: Option<Source>,
    /// Where in an attempt it happened.
    step: Option<Step>,
    /// How the operation that ended with this error went (`None` if it was not retried).
    history: Option<Box<History>>,
}

/// The tries of the operation an error ended.
#[derive(Debug, Clone, Default)]
struct History {
    tries: u32,
    pauses: Vec<Duration>,
    spent: String,
}

/// An hbclient error. Cheap to clone; compare with [`Error::kind`].
#[derive(Clone)]
pub struct Error {
    inner: Arc<Inner>,
}

impl Error {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        let retriable = matches!(kind, ErrorKind::Connection | ErrorKind::Timeout);
        Error {
            inner: Arc::new(Inner {
                kind,
                // Messages may quote what a server sent.
                message: cap_owned(message.into()),
                remote: None,
                context: Vec::new(),
                retriable,
                source: None,
                step: None,
                history: None,
            }),
        }
    }

    /// An error for an exception the server sent. Its class and message are capped at
    /// [`MAX_SERVER_TEXT`] bytes each.
    pub fn remote(mut remote: RemoteError) -> Error {
        remote.class = cap_owned(std::mem::take(&mut remote.class));
        remote.message = cap_owned(std::mem::take(&mut remote.message));
        let kind = match remote.class.as_str() {
            hbclient_proto::exceptions::TABLE_NOT_FOUND => ErrorKind::TableNotFound,
            hbclient_proto::exceptions::TABLE_NOT_ENABLED => ErrorKind::TableNotEnabled,
            hbclient_proto::exceptions::NO_SUCH_COLUMN_FAMILY => ErrorKind::NoSuchColumnFamily,
            hbclient_proto::exceptions::ACCESS_DENIED
            | "org.apache.hadoop.security.AccessControlException"
            | "javax.security.sasl.SaslException" => ErrorKind::Authentication,
            hbclient_proto::exceptions::TABLE_EXISTS => ErrorKind::TableExists,
            hbclient_proto::exceptions::TABLE_NOT_DISABLED => ErrorKind::TableNotDisabled,
            hbclient_proto::exceptions::NAMESPACE_EXIST => ErrorKind::NamespaceExists,
            hbclient_proto::exceptions::NAMESPACE_NOT_FOUND => ErrorKind::NamespaceNotFound,
            hbclient_proto::exceptions::REGION_TOO_BUSY => ErrorKind::RegionTooBusy,
            hbclient_proto::exceptions::CALL_QUEUE_TOO_BIG
            | hbclient_proto::exceptions::CALL_DROPPED => ErrorKind::ServerOverloaded,
            _ => ErrorKind::Remote,
        };
        Error {
            inner: Arc::new(Inner {
                kind,
                message: format!("{}: {}", remote.short_class(), remote.message),
                retriable: remote.is_retriable(),
                remote: Some(remote),
                context: Vec::new(),
                source: None,
                step: None,
                history: None,
            }),
        }
    }

    /// Shorthand for [`ErrorKind::InvalidArgument`].
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidArgument, message)
    }

    /// Shorthand for [`ErrorKind::Protocol`].
    pub fn protocol(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Protocol, message)
    }

    /// Shorthand for [`ErrorKind::Connection`].
    pub fn connection(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Connection, message)
    }

    /// Shorthand for [`ErrorKind::Authentication`].
    pub(crate) fn authentication(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Authentication, message)
    }

    /// An [`ErrorKind::Authentication`] error for an exception the server sent during the SASL
    /// exchange; the class and message stay available through [`Error::remote_error`].
    pub(crate) fn authentication_rejected(message: String, mut remote: RemoteError) -> Error {
        remote.class = cap_owned(std::mem::take(&mut remote.class));
        remote.message = cap_owned(std::mem::take(&mut remote.message));
        Error {
            inner: Arc::new(Inner {
                kind: ErrorKind::Authentication,
                message: cap_owned(message),
                remote: Some(remote),
                context: Vec::new(),
                retriable: false,
                source: None,
                step: None,
                history: None,
            }),
        }
    }

    /// Shorthand for [`ErrorKind::Timeout`].
    pub fn timeout(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Timeout, message)
    }

    /// A write whose outcome cannot be known (kind [`ErrorKind::Timeout`]); never retried, as a
    /// retry could not know either.
    pub(crate) fn outcome_unknown(message: impl Into<String>) -> Error {
        let mut e = Error::new(ErrorKind::Timeout, message);
        Arc::get_mut(&mut e.inner)
            .expect("a new error is not shared")
            .retriable = false;
        e
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// True when retrying the operation may succeed (connection trouble, timeouts, and server
    /// exceptions that HBase does not mark as final).
    pub fn is_retriable(&self) -> bool {
        self.inner.retriable
    }

    /// The server's exception, if the server reported one.
    pub fn remote_error(&self) -> Option<&RemoteError> {
        self.inner.remote.as_ref()
    }

    /// The Java class of the server's exception, if any.
    pub fn remote_class(&self) -> Option<&str> {
        self.inner.remote.as_ref().map(|r| r.class.as_str())
    }

    /// The message, without context.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// Context entries (`table`, `region`, `server`, ...) attached while the error travelled up.
    pub fn context(&self) -> &[(&'static str, String)] {
        &self.inner.context
    }

    /// Returns the error with one more context entry.
    pub fn with_context(self, key: &'static str, value: impl Into<String>) -> Error {
        let value = value.into();
        self.change(|inner| {
            if !inner.context.iter().any(|(k, _)| *k == key) {
                inner.context.push((key, value));
            }
        })
    }

    /// The error after `f` changed it (copied first if shared).
    fn change(self, f: impl FnOnce(&mut Inner)) -> Error {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        f(&mut inner);
        Error {
            inner: Arc::new(inner),
        }
    }

    /// A context entry's value.
    fn context_value(&self, key: &str) -> Option<&str> {
        self.inner
            .context
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The server the failure happened at, when one is known (`host:port`).
    pub fn server(&self) -> Option<&str> {
        self.context_value("server")
    }

    /// The region the failing call was for, when there was one (its full name).
    pub fn region(&self) -> Option<&str> {
        self.context_value("region")
    }

    /// The step of the attempt at which this failure happened, when it happened in one.
    pub fn step(&self) -> Option<Step> {
        self.inner.step
    }

    /// How many attempts the operation this error ended made (`None` for an error that did
    /// not end a retried operation).
    pub fn tries(&self) -> Option<u32> {
        self.inner.history.as_ref().map(|h| h.tries)
    }

    /// The pauses the operation this error ended took between its attempts, in order.
    pub fn pauses(&self) -> &[Duration] {
        self.inner
            .history
            .as_ref()
            .map_or(&[], |h| h.pauses.as_slice())
    }

    /// Where the operation's time went (`locating 0.20 s, waiting for the server 4.81 s (last:
    /// host:16020), backing off 0.30 s`), for an error that ended a retried operation.
    pub fn spent(&self) -> Option<&str> {
        self.inner.history.as_ref().map(|h| h.spent.as_str())
    }

    /// The last real failure behind this error: following [`source`](std::error::Error::source)
    /// through the errors of this crate (a timeout or exhausted retries name the failure of
    /// the last attempt that failed by itself). `self` when it has no such cause.
    pub fn cause(&self) -> &Error {
        let mut at = self;
        while let Some(next) = at
            .inner
            .source
            .as_deref()
            .and_then(|s| s.downcast_ref::<Error>())
        {
            at = next;
        }
        at
    }

    /// `self` with `step` recorded, unless an inner layer recorded one already.
    pub(crate) fn with_step(self, step: Step) -> Error {
        if self.inner.step.is_some() {
            return self;
        }
        self.change(|inner| inner.step = Some(step))
    }

    /// `self` with `step` recorded over whatever an inner layer recorded (a failed lookup is
    /// a failure of the locate step, whichever step of the lookup's own RPC failed).
    pub(crate) fn at_step(self, step: Step) -> Error {
        if self.inner.step == Some(step) {
            return self;
        }
        self.change(|inner| inner.step = Some(step))
    }

    /// `self` with `source` as its cause.
    pub(crate) fn with_source(
        self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        self.change(|inner| inner.source = Some(Arc::new(source)))
    }

    /// A [`ErrorKind::Connection`] error caused by an I/O error, which stays reachable as the
    /// error's [`source`](std::error::Error::source).
    pub(crate) fn io(message: impl Into<String>, io: std::io::Error) -> Error {
        Error::connection(message).with_source(io)
    }

    /// `self` as the end of an operation: how many attempts it made, the pauses between them
    /// and where its time went.
    pub(crate) fn with_history(self, tries: u32, pauses: Vec<Duration>, spent: String) -> Error {
        self.change(|inner| {
            inner.history = Some(Box::new(History {
                tries,
                pauses,
                spent,
            }))
        })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.inner.message)?;
        for (key, value) in &self.inner.context {
            write!(f, " [{key}={value}]")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("message", &self.inner.message)
            .field("remote", &self.inner.remote)
            .field("context", &self.inner.context)
            .field("step", &self.inner.step)
            .field("source", &self.inner.source)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner
            .source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

impl From<hbclient_proto::DecodeError> for Error {
    fn from(e: hbclient_proto::DecodeError) -> Error {
        Error::protocol(e.to_string())
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(class: &str, do_not_retry: bool) -> RemoteError {
        RemoteError {
            class: class.into(),
            message: "m".into(),
            do_not_retry,
            server_overloaded: false,
            moved_to: None,
        }
    }

    #[test]
    fn error_is_one_pointer() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
        assert_eq!(
            std::mem::size_of::<Result<()>>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn classification() {
        let nsre = Error::remote(remote(
            hbclient_proto::exceptions::NOT_SERVING_REGION,
            false,
        ));
        assert!(nsre.is_retriable());
        assert!(nsre.remote_error().unwrap().needs_relocation());
        assert_eq!(nsre.kind(), ErrorKind::Remote);
        let busy = Error::remote(remote(hbclient_proto::exceptions::REGION_TOO_BUSY, false));
        assert!(busy.is_retriable() && !busy.remote_error().unwrap().needs_relocation());
        assert_eq!(busy.kind(), ErrorKind::RegionTooBusy);
        let flagged = Error::remote(remote("com.example.Custom", true));
        assert!(!flagged.is_retriable());
        let tnf = Error::remote(remote(hbclient_proto::exceptions::TABLE_NOT_FOUND, false));
        assert_eq!(tnf.kind(), ErrorKind::TableNotFound);
        assert!(!tnf.is_retriable());
        assert!(Error::connection("x").is_retriable());
        assert!(!Error::invalid("x").is_retriable());
        let auth = Error::authentication("no ticket");
        assert_eq!(auth.kind(), ErrorKind::Authentication);
        assert!(!auth.is_retriable());
    }

    #[test]
    fn io_errors_stay_in_the_source_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let e = Error::io("cannot connect", io).with_step(Step::Connect);
        let e = e.with_step(Step::Wait); // an outer layer does not overwrite the step
        assert_eq!(e.step(), Some(Step::Connect));
        let source = std::error::Error::source(&e).unwrap();
        let io = source.downcast_ref::<std::io::Error>().unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
        assert!(std::ptr::eq(e.cause(), &e));
        assert_eq!(e.at_step(Step::Locate).step(), Some(Step::Locate));
    }

    #[test]
    fn server_text_is_capped_on_a_char_boundary_and_marked() {
        // A megabyte of three-byte characters: the cap falls inside one.
        let huge = "\u{20AC}".repeat(400 * 1024);
        let e = Error::remote(RemoteError {
            class: "x.Y".repeat(100_000),
            message: huge.clone(),
            do_not_retry: false,
            server_overloaded: false,
            moved_to: None,
        });
        let kept = e.remote_error().unwrap();
        for text in [&kept.message, &kept.class] {
            assert!(
                text.len() <= MAX_SERVER_TEXT + 64,
                "{} bytes kept",
                text.len()
            );
            assert!(text.contains("[truncated: "), "marked as truncated");
        }
        assert!(kept.message.starts_with("\u{20AC}\u{20AC}"));
        assert!(kept
            .message
            .contains(&format!("{} bytes in all", huge.len())));
        assert!(
            e.to_string().len() <= 3 * MAX_SERVER_TEXT,
            "{}",
            e.to_string().len()
        );
        assert!(Error::protocol(huge).message().len() <= MAX_SERVER_TEXT + 64);
        // Short text is kept as it came.
        let short = Error::remote(remote("a.B", false));
        assert_eq!(short.remote_error().unwrap().message, "m");
    }

    #[test]
    fn exceptions_callers_act_on_have_kinds() {
        use hbclient_proto::exceptions as class;
        for (class, kind, retriable) in [
            (class::TABLE_EXISTS, ErrorKind::TableExists, false),
            (
                class::TABLE_NOT_DISABLED,
                ErrorKind::TableNotDisabled,
                false,
            ),
            (class::NAMESPACE_EXIST, ErrorKind::NamespaceExists, false),
            (
                class::NAMESPACE_NOT_FOUND,
                ErrorKind::NamespaceNotFound,
                false,
            ),
            (class::REGION_TOO_BUSY, ErrorKind::RegionTooBusy, true),
            (class::CALL_QUEUE_TOO_BIG, ErrorKind::ServerOverloaded, true),
            (class::CALL_DROPPED, ErrorKind::ServerOverloaded, true),
            ("com.example.CustomException", ErrorKind::Remote, true),
        ] {
            let e = Error::remote(remote(class, false));
            assert_eq!(e.kind(), kind, "{class}");
            assert_eq!(e.is_retriable(), retriable, "{class}");
            assert_eq!(e.remote_class(), Some(class), "the class stays available");
        }
    }

    #[test]
    fn context_is_shown_once() {
        let e = Error::timeout("late")
            .with_context("table", "t")
            .with_context("table", "u")
            .with_context("server", "s:1");
        assert_eq!(e.to_string(), "late [table=t] [server=s:1]");
    }
}
