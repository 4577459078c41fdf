//! TIMELINE reads: the primary replica first, the secondary replicas too once it is slow, the
//! first answer wins.
//!
//! HBase's client (`RpcRetryingCallerWithReadReplicas`, `ScannerCallableWithReplicas`, and the
//! async client's `timelineConsistentRead`) sends a TIMELINE read to the primary, waits
//! `hbase.client.primaryCallTimeout.get` (`hbase.client.replicaCallTimeout.scan` for scans),
//! then sends it to every secondary replica as well and takes whichever answer arrives first;
//! the calls still running are cancelled. Answers from a secondary carry `stale = true`. The race
//! itself is [`crate::hedge`]'s.

/// How consistent a read must be (`Consistency` in HBase's client).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Consistency {
    /// Only the primary replica answers: the read sees every acknowledged write.
    #[default]
    Strong,
    /// The primary first; once it has not answered within the primary call timeout
    /// ([`Config::primary_call_timeout_get`](crate::Config::primary_call_timeout_get)), the
    /// secondary replicas too, and the first answer wins. An answer from a secondary may miss
    /// recent writes and says so ([`RowResult::is_stale`](crate::RowResult::is_stale)). On a
    /// table without region replicas this is the same as `Strong`.
    Timeline,
}

impl Consistency {
    /// The protobuf value, sent only when not the default (as HBase's client does).
    pub(crate) fn to_pb(self) -> Option<i32> {
        match self {
            Consistency::Strong => None,
            Consistency::Timeline => Some(hbclient_proto::pb::Consistency::Timeline as i32),
        }
    }
}
