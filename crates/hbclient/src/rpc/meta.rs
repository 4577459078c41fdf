//! What a call says about itself besides its parameters (the header fields of one RPC): its
//! QoS priority and request attributes ([`Attributes`](crate::attributes::Attributes)).
//!
//! The priority (`RequestHeader.priority`) picks the server's handler pool: at or above
//! `priority::HIGH` a call goes to the priority handlers that also serve `hbase:meta`, so it
//! is not queued behind ordinary traffic.

use std::sync::Arc;

use hbclient_proto::pb;

use crate::attributes::Attributes;

/// QoS levels HBase defines (`HConstants`), for [`Get::priority`](crate::Get::priority) and
/// the other operations' `priority`.
pub mod priority {
    /// Ordinary calls (`NORMAL_QOS`); what the server assumes for a user table when none is sent.
    pub const NORMAL: u32 = 0;
    /// Administrative calls (`ADMIN_QOS`).
    pub const ADMIN: u32 = 100;
    /// The priority handler pool (`HIGH_QOS`).
    pub const HIGH: u32 = 200;
    /// What the Java client sends for system tables such as `hbase:meta` (`SYSTEMTABLE_QOS`).
    pub const SYSTEM_TABLE: u32 = HIGH;
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
    use bytes::Bytes;

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
