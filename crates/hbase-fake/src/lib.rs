//! A byte-level fault proxy for hbclient's own tests, in the style of scylla-proxy: faults are
//! data (`Rule` = a condition on a call and a `Fault`), installed per test and changed while the
//! proxy runs.
//!
//! The proxy listens once per upstream server (a mini-hbase master and each region server, or
//! any HBase on loopback) and forwards whole HBase frames. It reads each request's header, so a
//! rule can pick a call by service, method, request content and how many matching calls came
//! before it; the answer of a picked call can be dropped, delayed, truncated, corrupted, replaced
//! by an exception or rewritten field by field, and the request itself can be rewritten or
//! swallowed. Everything else passes through unchanged, except server addresses: registry
//! answers, `hbase:meta` rows (`info:server*`, `info:sn*`) and `RegionMovedException`s name the
//! proxy's ports instead of the upstream ones, so a client given only the proxy's master address
//! stays behind the proxy for every server.
//!
//! Limits: SIMPLE authentication over plain TCP only (a TLS or SASL connection is forwarded as
//! raw bytes, without rules or rewriting); compressed cellblocks are passed through, so a meta
//! scan must not use a cellblock compressor; addresses are mapped by port (loopback clusters).

mod proxy;
mod rewrite;

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use hbclient_proto::pb;
use prost::Message;

pub use proxy::FaultProxy;

/// A request as the proxy read it: which service and method, its header, parameter and cells.
#[derive(Debug, Clone)]
pub struct Call {
    /// The connection's service (`ClientService`, `ClientMetaService`, `MasterService`...).
    pub service: String,
    /// The request header (call id, method name, ...).
    pub header: pb::RequestHeader,
    /// The encoded `<Method>Request`.
    pub param: Bytes,
    /// The request's cellblock (empty when none).
    pub cellblock: Bytes,
}

impl Call {
    /// The method name.
    pub fn method(&self) -> &str {
        self.header.method_name.as_deref().unwrap_or_default()
    }

    /// The parameter decoded as `M` (`None` when it does not decode as one).
    pub fn param<M: Message + Default>(&self) -> Option<M> {
        M::decode(self.param.clone()).ok()
    }

    /// Replaces the parameter.
    pub fn set_param(&mut self, param: &impl Message) {
        self.param = param.encode_to_vec().into();
    }

    /// True for a Scan that opens a scanner on a table other than `hbase:meta`.
    pub fn opens_user_scanner(&self) -> bool {
        self.method() == "Scan"
            && self
                .param::<pb::ScanRequest>()
                .and_then(|r| r.region)
                .is_some_and(|r| !r.value.starts_with(b"hbase:meta,"))
    }
}

/// An answer as the proxy read it, for [`Fault::Rewrite`].
#[derive(Debug, Clone)]
pub struct Answer {
    /// The method the answer is for.
    pub method: String,
    /// The response header (call id, exception, cellblock length: recomputed when sent).
    pub header: pb::ResponseHeader,
    /// The encoded `<Method>Response` (empty for an exception).
    pub body: Bytes,
    /// The answer's cellblock (empty when none).
    pub cellblock: Bytes,
}

impl Answer {
    /// The body decoded as `M` (`None` when it does not decode as one).
    pub fn body<M: Message + Default>(&self) -> Option<M> {
        M::decode(self.body.clone()).ok()
    }

    /// Replaces the body.
    pub fn set_body(&mut self, body: &impl Message) {
        self.body = body.encode_to_vec().into();
    }

    /// Replaces the answer with an exception (no body, no cells).
    pub fn set_exception(&mut self, class: &str, message: &str) {
        self.header.exception = Some(pb::ExceptionResponse {
            exception_class_name: Some(class.to_string()),
            stack_trace: Some(format!("{class}: {message}")),
            ..Default::default()
        });
        self.body = Bytes::new();
        self.cellblock = Bytes::new();
    }
}

/// Edits a request before it is forwarded.
pub type EditCall = Arc<dyn Fn(&mut Call) + Send + Sync>;
/// Edits an answer before it is forwarded.
pub type EditAnswer = Arc<dyn Fn(&mut Answer) + Send + Sync>;
/// Picks calls by their content.
pub type CallFilter = Arc<dyn Fn(&Call) -> bool + Send + Sync>;

/// What happens to a picked call.
#[derive(Clone)]
pub enum Fault {
    /// Forward the request after this edit (the server sees the edited request).
    RewriteRequest(EditCall),
    /// Never forward the request: the call goes unanswered, the connection stays up.
    DropRequest,
    /// Hold the answer this long (answers behind it on the connection wait too).
    Delay(Duration),
    /// Swallow the answer: the server did the work, the client never hears of it.
    DropAnswer,
    /// Close the client's connection instead of forwarding the answer.
    Close,
    /// Send only the first `n` bytes of the answer frame (length prefix included), then close.
    Truncate(usize),
    /// XOR the byte at `at` (from the start of the frame, length prefix included) with `xor`;
    /// the frame's length stays as it was.
    Corrupt {
        /// Offset into the frame.
        at: usize,
        /// Bits to flip.
        xor: u8,
    },
    /// Answer with this exception instead of the server's answer (which the server did produce).
    Exception {
        /// Java class name.
        class: String,
        /// Message (any length: servers' messages are not bounded either).
        message: String,
    },
    /// Forward the answer after this edit.
    Rewrite(EditAnswer),
    /// Send this whole frame (length prefix included) before the answer.
    Inject(Bytes),
}

impl fmt::Debug for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::RewriteRequest(_) => f.write_str("RewriteRequest(..)"),
            Fault::DropRequest => f.write_str("DropRequest"),
            Fault::Delay(d) => write!(f, "Delay({d:?})"),
            Fault::DropAnswer => f.write_str("DropAnswer"),
            Fault::Close => f.write_str("Close"),
            Fault::Truncate(n) => write!(f, "Truncate({n})"),
            Fault::Corrupt { at, xor } => write!(f, "Corrupt {{ at: {at}, xor: {xor} }}"),
            Fault::Exception { class, message } => {
                write!(f, "Exception({class}, {} bytes)", message.len())
            }
            Fault::Rewrite(_) => f.write_str("Rewrite(..)"),
            Fault::Inject(b) => write!(f, "Inject({} bytes)", b.len()),
        }
    }
}

/// Which calls a rule picks: by method (and service), by content, skipping the first `skip`
/// matching calls, at most `times` of them.
#[derive(Clone, Default)]
pub struct When {
    method: Option<String>,
    service: Option<String>,
    filter: Option<CallFilter>,
    skip: u64,
    times: Option<u64>,
}

impl When {
    /// Every call.
    pub fn any() -> When {
        When::default()
    }

    /// Calls of `method` (e.g. `"Scan"`, `"Get"`, `"Multi"`).
    pub fn method(method: &str) -> When {
        When {
            method: Some(method.to_string()),
            ..When::default()
        }
    }

    /// Only calls on connections to `service`.
    pub fn service(mut self, service: &str) -> When {
        self.service = Some(service.to_string());
        self
    }

    /// Only calls for which `filter` holds.
    pub fn only(mut self, filter: impl Fn(&Call) -> bool + Send + Sync + 'static) -> When {
        self.filter = Some(Arc::new(filter));
        self
    }

    /// Leaves the first `n` matching calls alone (the rule picks the `n+1`-th on).
    pub fn skip(mut self, n: u64) -> When {
        self.skip = n;
        self
    }

    /// Picks at most `n` calls.
    pub fn times(mut self, n: u64) -> When {
        self.times = Some(n);
        self
    }

    fn matches(&self, call: &Call) -> bool {
        self.method.as_deref().is_none_or(|m| m == call.method())
            && self.service.as_deref().is_none_or(|s| s == call.service)
            && self.filter.as_ref().is_none_or(|f| f(call))
    }
}

/// A condition and what happens to the calls it picks.
#[derive(Clone)]
pub struct Rule {
    /// The condition.
    pub when: When,
    /// The faults, applied in order.
    pub then: Vec<Fault>,
}

impl Rule {
    /// A rule with one fault.
    pub fn new(when: When, then: Fault) -> Rule {
        Rule {
            when,
            then: vec![then],
        }
    }

    /// A rule with several faults (e.g. a request rewrite and an answer rewrite).
    pub fn with(when: When, then: Vec<Fault>) -> Rule {
        Rule { when, then }
    }
}

/// Handle of an installed rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleId(u64);

struct Installed {
    id: RuleId,
    rule: Rule,
    matched: u64,
    fired: u64,
}

/// The rules of one proxy, shared by its connections.
#[derive(Default)]
pub(crate) struct Rules {
    next: u64,
    installed: Vec<Installed>,
}

impl Rules {
    fn add(&mut self, rule: Rule) -> RuleId {
        self.next += 1;
        let id = RuleId(self.next);
        self.installed.push(Installed {
            id,
            rule,
            matched: 0,
            fired: 0,
        });
        id
    }

    /// The faults of every rule that picks `call` (counted as fired).
    pub(crate) fn pick(&mut self, call: &Call) -> Vec<Fault> {
        let mut faults = Vec::new();
        for r in &mut self.installed {
            if !r.rule.when.matches(call) {
                continue;
            }
            r.matched += 1;
            if r.matched <= r.rule.when.skip || r.rule.when.times.is_some_and(|t| r.fired >= t) {
                continue;
            }
            r.fired += 1;
            faults.extend(r.rule.then.iter().cloned());
        }
        faults
    }
}

/// Shared by the proxy handle and its connection tasks.
pub(crate) type SharedRules = Arc<Mutex<Rules>>;

impl FaultProxy {
    /// Installs a rule; it applies to calls read from now on.
    pub fn add(&self, rule: Rule) -> RuleId {
        lock(&self.rules).add(rule)
    }

    /// Removes a rule.
    pub fn remove(&self, id: RuleId) {
        lock(&self.rules).installed.retain(|r| r.id != id);
    }

    /// Removes every rule.
    pub fn clear(&self) {
        lock(&self.rules).installed.clear();
    }

    /// How many calls the rule has picked.
    pub fn fired(&self, id: RuleId) -> u64 {
        lock(&self.rules)
            .installed
            .iter()
            .find(|r| r.id == id)
            .map_or(0, |r| r.fired)
    }

    /// How many calls matched the rule's condition (picked or skipped).
    pub fn matched(&self, id: RuleId) -> u64 {
        lock(&self.rules)
            .installed
            .iter()
            .find(|r| r.id == id)
            .map_or(0, |r| r.matched)
    }
}

/// Locks, ignoring poisoning (a panicking test thread must not hide the proxy's state).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
