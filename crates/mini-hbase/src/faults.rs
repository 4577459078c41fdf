//! Fault injection as data: `(condition, reaction)` rules that a test installs, changes and removes
//! while the cluster runs. Each cluster has its own rules; nothing is global.
//!
//! A rule that names a table or region is checked when the server has resolved the call's region
//! (for `Multi`, once per region, so one region of a batch can fail alone); a rule without them is
//! checked as soon as the call's method is known.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use hbclient_proto::meta::TableName;

use crate::exception::RemoteException;

/// Which server of the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServerId {
    /// The master.
    Master,
    /// Region server number `n` (0-based).
    RegionServer(usize),
}

/// What a rule matches. Every field that is set must match; unset fields match anything.
#[derive(Debug, Clone, Default)]
pub struct Match {
    /// The server receiving the call.
    pub server: Option<ServerId>,
    /// The service (`ClientService`, `MasterService`, ...).
    pub service: Option<String>,
    /// The method (`Get`, `Multi`, `Scan`, `CreateTable`, ...).
    pub method: Option<String>,
    /// The table the call is for.
    pub table: Option<TableName>,
    /// The full region name the call is for.
    pub region: Option<Bytes>,
    /// Let this many matching calls through before the rule starts firing.
    pub skip: u64,
    /// Fire at most this many times (`None`: every time).
    pub times: Option<u64>,
}

impl Match {
    /// Matches every call.
    pub fn any() -> Match {
        Match::default()
    }

    /// Only calls of `method`.
    pub fn method(method: &str) -> Match {
        Match {
            method: Some(method.to_string()),
            ..Match::default()
        }
    }

    /// Restricts to one server.
    pub fn on(mut self, server: ServerId) -> Match {
        self.server = Some(server);
        self
    }

    /// Restricts to one service.
    pub fn service(mut self, service: &str) -> Match {
        self.service = Some(service.to_string());
        self
    }

    /// Restricts to one table.
    pub fn table(mut self, table: TableName) -> Match {
        self.table = Some(table);
        self
    }

    /// Restricts to one region.
    pub fn region(mut self, region: impl Into<Bytes>) -> Match {
        self.region = Some(region.into());
        self
    }

    /// Skips the first `n` matching calls.
    pub fn skip(mut self, n: u64) -> Match {
        self.skip = n;
        self
    }

    /// Fires at most `n` times.
    pub fn times(mut self, n: u64) -> Match {
        self.times = Some(n);
        self
    }

    fn needs_region(&self) -> bool {
        self.table.is_some() || self.region.is_some()
    }
}

/// What happens to a matching call.
#[derive(Debug, Clone)]
pub enum Reaction {
    /// Serve the call after a delay.
    Delay(Duration),
    /// Answer with this exception instead of serving.
    Exception(RemoteException),
    /// Close the client's connection (every call pending on it is lost).
    CloseConnection,
    /// Never answer the call (the connection stays open).
    Stall,
    /// Never answer the call, and stop reading the connection from now on (it stays open, so
    /// the client's writes pile up in the socket buffers until they are full).
    StopReading,
    /// Never answer the call, and let the connection go silent both ways without closing it, as
    /// when the peer's host vanishes (a half-open connection).
    HalfOpen,
    /// Serve the call, and from now on read the connection at most this many bytes per second.
    SlowReader {
        /// Read rate of the connection.
        bytes_per_second: u64,
    },
}

/// A rule as installed.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The condition.
    pub when: Match,
    /// The reaction.
    pub then: Reaction,
}

impl Rule {
    /// A rule from a condition and a reaction.
    pub fn new(when: Match, then: Reaction) -> Rule {
        Rule { when, then }
    }
}

/// Handle of an installed rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleId(u64);

#[derive(Debug)]
struct Installed {
    id: RuleId,
    rule: Rule,
    matched: u64,
    fired: u64,
}

/// Where a call is, for matching.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallSite<'a> {
    pub(crate) server: ServerId,
    pub(crate) service: &'a str,
    pub(crate) method: &'a str,
    /// `Some` once the region is resolved.
    pub(crate) region: Option<(&'a TableName, &'a [u8])>,
}

/// The rules of one cluster.
#[derive(Debug, Default)]
pub struct Faults {
    rules: Mutex<Vec<Installed>>,
    /// Servers whose new connections are accepted and then never read nor answered.
    unresponsive: Mutex<Vec<ServerId>>,
    /// Paused servers: every call to them waits for `resumed`.
    paused: Mutex<Vec<ServerId>>,
    resumed: tokio::sync::Notify,
    next_id: AtomicU64,
    fired_total: AtomicU64,
}

impl Faults {
    /// Installs a rule; rules are checked in installation order and the first that fires wins.
    pub fn add(&self, rule: Rule) -> RuleId {
        let id = RuleId(self.next_id.fetch_add(1, Ordering::Relaxed));
        self.lock().push(Installed {
            id,
            rule,
            matched: 0,
            fired: 0,
        });
        id
    }

    /// Removes a rule. Returns whether it was installed.
    pub fn remove(&self, id: RuleId) -> bool {
        let mut rules = self.lock();
        let before = rules.len();
        rules.retain(|r| r.id != id);
        rules.len() != before
    }

    /// Replaces a rule's reaction while it stays installed.
    pub fn set_reaction(&self, id: RuleId, then: Reaction) -> bool {
        match self.lock().iter_mut().find(|r| r.id == id) {
            Some(installed) => {
                installed.rule.then = then;
                true
            }
            None => false,
        }
    }

    /// Removes every rule (unresponsive servers stay so until [`Faults::set_unresponsive`]).
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// Makes `server` accept new connections and then never read nor answer them (connections
    /// already open are not affected), or ends that.
    pub fn set_unresponsive(&self, server: ServerId, unresponsive: bool) {
        let mut servers = self.unresponsive.lock().unwrap_or_else(|e| e.into_inner());
        servers.retain(|s| *s != server);
        if unresponsive {
            servers.push(server);
        }
    }

    /// Pauses `server` (every call to it waits before being served, on connections old and
    /// new) or resumes it (the waiting calls are served).
    pub fn pause(&self, server: ServerId, paused: bool) {
        let mut servers = self.paused.lock().unwrap_or_else(|e| e.into_inner());
        servers.retain(|s| *s != server);
        if paused {
            servers.push(server);
        }
        drop(servers);
        if !paused {
            self.resumed.notify_waiters();
        }
    }

    /// Resumes every paused server.
    pub(crate) fn resume_all(&self) {
        self.paused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.resumed.notify_waiters();
    }

    /// Waits while `server` is paused.
    pub(crate) async fn wait_while_paused(&self, server: ServerId) {
        loop {
            let resumed = self.resumed.notified();
            tokio::pin!(resumed);
            // Registered before the check, so a resume between the two is not missed.
            resumed.as_mut().enable();
            let paused = self
                .paused
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(&server);
            if !paused {
                return;
            }
            resumed.await;
        }
    }

    /// Whether new connections to `server` are ignored.
    pub(crate) fn is_unresponsive(&self, server: ServerId) -> bool {
        self.unresponsive
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&server)
    }

    /// How many times a rule has fired.
    pub fn fired(&self, id: RuleId) -> u64 {
        self.lock()
            .iter()
            .find(|r| r.id == id)
            .map_or(0, |r| r.fired)
    }

    /// How many times any rule has fired since the cluster started.
    pub fn fired_total(&self) -> u64 {
        self.fired_total.load(Ordering::Relaxed)
    }

    /// The reaction for a call, if a rule fires. With `site.region` unset only rules without a
    /// table or region condition are considered; with it set, only rules with one.
    pub(crate) fn check(&self, site: CallSite<'_>) -> Option<Reaction> {
        let mut rules = self.lock();
        if rules.is_empty() {
            return None;
        }
        for installed in rules.iter_mut() {
            if !matches(&installed.rule.when, &site) {
                continue;
            }
            installed.matched += 1;
            let when = &installed.rule.when;
            if installed.matched <= when.skip {
                continue;
            }
            if when.times.is_some_and(|t| installed.fired >= t) {
                continue;
            }
            installed.fired += 1;
            self.fired_total.fetch_add(1, Ordering::Relaxed);
            return Some(installed.rule.then.clone());
        }
        None
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Installed>> {
        self.rules.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn matches(when: &Match, site: &CallSite<'_>) -> bool {
    if when.needs_region() != site.region.is_some() {
        return false;
    }
    if when.server.is_some_and(|s| s != site.server)
        || when.service.as_deref().is_some_and(|s| s != site.service)
        || when.method.as_deref().is_some_and(|m| m != site.method)
    {
        return false;
    }
    if let Some((table, region)) = site.region {
        if when.table.as_ref().is_some_and(|t| t != table)
            || when.region.as_ref().is_some_and(|r| &r[..] != region)
        {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exception::class;

    fn site<'a>(method: &'a str, region: Option<(&'a TableName, &'a [u8])>) -> CallSite<'a> {
        CallSite {
            server: ServerId::RegionServer(1),
            service: hbclient_proto::services::CLIENT_SERVICE,
            method,
            region,
        }
    }

    #[test]
    fn skip_and_times() {
        let faults = Faults::default();
        let id = faults.add(Rule::new(
            Match::method("Get").skip(1).times(2),
            Reaction::Stall,
        ));
        let fired: Vec<bool> = (0..5)
            .map(|_| faults.check(site("Get", None)).is_some())
            .collect();
        assert_eq!(fired, [false, true, true, false, false]);
        assert_eq!(faults.fired(id), 2);
        assert!(faults.check(site("Mutate", None)).is_none());
    }

    #[test]
    fn region_rules_fire_only_with_a_region() {
        let faults = Faults::default();
        let t = TableName::parse("t").unwrap();
        let other = TableName::parse("u").unwrap();
        faults.add(Rule::new(
            Match::any().table(t.clone()),
            Reaction::Exception(RemoteException::new(class::REGION_TOO_BUSY, "busy")),
        ));
        assert!(faults.check(site("Get", None)).is_none());
        assert!(faults.check(site("Get", Some((&other, b"r")))).is_none());
        assert!(faults.check(site("Get", Some((&t, b"r")))).is_some());
    }

    #[test]
    fn rules_change_while_installed() {
        let faults = Faults::default();
        let id = faults.add(Rule::new(
            Match::any().on(ServerId::RegionServer(1)),
            Reaction::Stall,
        ));
        assert!(matches!(
            faults.check(site("Get", None)),
            Some(Reaction::Stall)
        ));
        faults.set_reaction(id, Reaction::CloseConnection);
        assert!(matches!(
            faults.check(site("Get", None)),
            Some(Reaction::CloseConnection)
        ));
        assert!(faults.remove(id));
        assert!(faults.check(site("Get", None)).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn paused_servers_hold_calls_until_resumed() {
        let faults = std::sync::Arc::new(Faults::default());
        let rs = ServerId::RegionServer(1);
        // Not paused: no wait.
        faults.wait_while_paused(rs).await;
        faults.pause(rs, true);
        let waiting = tokio::spawn({
            let faults = faults.clone();
            async move { faults.wait_while_paused(rs).await }
        });
        // Another server is not held.
        faults.wait_while_paused(ServerId::RegionServer(2)).await;
        tokio::time::sleep(std::time::Duration::from_secs(60)).await;
        assert!(!waiting.is_finished(), "served while paused");
        faults.pause(rs, false);
        tokio::time::timeout(std::time::Duration::from_secs(1), waiting)
            .await
            .expect("served once resumed")
            .unwrap();
        faults.pause(rs, true);
        faults.resume_all();
        faults.wait_while_paused(rs).await;
    }
}
