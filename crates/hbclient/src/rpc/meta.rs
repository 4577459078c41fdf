//! What a call says about itself besides its parameters (the header fields of one RPC): named
//! attributes and a QoS priority.
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

use std::sync::Arc;

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

/// What one RPC carries in its request header besides id, method and timeout. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub(crate) struct CallMeta {
    /// `RequestHeader.priority`; `None` lets the server choose (it picks by method and region,
    /// which for a user table is [`priority::NORMAL`]).
    pub(crate) priority: Option<u32>,
    /// `RequestHeader.attribute`: the table handle's request attributes.
    pub(crate) attributes: Option<Arc<Attributes>>,
}

impl CallMeta {
    /// Nothing beyond the defaults: admin, registry and master calls.
    pub(crate) const NONE: CallMeta = CallMeta {
        priority: None,
        attributes: None,
    };

    /// The header fields (`priority`, `attribute`).
    pub(crate) fn header_fields(&self) -> (Option<u32>, Vec<pb::NameBytesPair>) {
        (
            self.priority,
            self.attributes
                .as_deref()
                .map(Attributes::to_pb)
                .unwrap_or_default(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_a_name_again_replaces_it_in_place() {
        let mut a = Attributes::new();
        a.set("x", "1");
        a.set("y", "2");
        a.set("x", "3");
        let pairs: Vec<_> = a.iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
        assert_eq!(
            pairs,
            vec![
                ("x".into(), Bytes::from("3")),
                ("y".into(), Bytes::from("2"))
            ]
        );
        assert!(a.remove("x"));
        assert!(!a.remove("x"));
        assert_eq!(a.len(), 1);
        assert_eq!(a.get("y"), Some(&Bytes::from("2")));
    }

    #[test]
    fn wire_form_keeps_names_values_and_order() {
        let a: Attributes = [("b", Bytes::from_static(b"\x00\xff")), ("a", Bytes::new())]
            .into_iter()
            .collect();
        let pb = a.to_pb();
        assert_eq!(pb.len(), 2);
        assert_eq!(pb[0].name, "b");
        assert_eq!(pb[0].value.as_deref(), Some(&b"\x00\xff"[..]));
        // An empty value is still sent (HBase keeps empty byte arrays).
        assert_eq!(pb[1].value.as_deref(), Some(&b""[..]));
    }
}
