//! Named attributes of operations, requests and connections (a leaf type: config, the RPC
//! layer and the operations all carry it).
//!
//! HBase has three kinds of attributes, all `name → bytes`:
//! - **operation attributes**, inside one Get, Scan or mutation message (`attribute` of
//!   `Get`/`Scan`/`MutationProto`); Java's `OperationWithAttributes.setAttribute`. Coprocessors
//!   read them; some names mean something to HBase features (visibility labels, ACLs).
//! - **request attributes**, in the header of every RPC a table handle makes
//!   (`RequestHeader.attribute`, HBase 2.6+); Java's `TableBuilder.setRequestAttribute`.
//! - **connection attributes**, sent once per connection (`ConnectionHeader.attribute`, HBase
//!   2.6+); Java's `ConnectionFactory.createConnection(conf, .., connectionAttributes)`.
//!
//! The server keeps request and connection attributes for coprocessors and quotas and shows
//! them in its slow-log entries; servers older than 2.6 skip the unknown header fields.
//!
//! The priority (`RequestHeader.priority`) picks the server's handler pool: at or above
//! `priority::HIGH` a call goes to the priority handlers that also serve `hbase:meta`, so it
//! is not queued behind ordinary traffic.

use bytes::Bytes;
use hbclient_proto::pb;

/// Named byte values with unique names, in the order they were first set (Java's
/// `Map<String, byte[]>` of attributes). Setting a name again replaces its value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attributes(Vec<(String, Bytes)>);

impl Attributes {
    /// No attributes.
    pub fn new() -> Attributes {
        Attributes::default()
    }

    /// Sets `name` to `value`, replacing an earlier value of the same name.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<Bytes>) {
        let (name, value) = (name.into(), value.into());
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name, value)),
        }
    }

    /// Removes `name`; true if it was set.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.0.len();
        self.0.retain(|(n, _)| n != name);
        self.0.len() != before
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&Bytes> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// True when none is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many are set.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Name and value of each, in the order they were first set.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Bytes)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// The wire form (`repeated NameBytesPair attribute`).
    pub(crate) fn to_pb(&self) -> Vec<pb::NameBytesPair> {
        self.0
            .iter()
            .map(|(name, value)| pb::NameBytesPair {
                name: name.clone(),
                value: Some(value.clone()),
            })
            .collect()
    }
}

impl<N: Into<String>, V: Into<Bytes>> FromIterator<(N, V)> for Attributes {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(pairs: I) -> Attributes {
        let mut attributes = Attributes::new();
        for (name, value) in pairs {
            attributes.set(name, value);
        }
        attributes
    }
}
