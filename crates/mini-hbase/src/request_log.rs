//! What clients said about their calls beyond the parameters: priority, request attributes
//! (`RequestHeader`), connection attributes (`ConnectionHeader`) and the attributes inside each
//! operation. HBase hands all of these to coprocessors and quotas and otherwise ignores them,
//! whatever their names; mini-hbase does the same and keeps a bounded log tests can read.

use std::collections::VecDeque;
use std::sync::Mutex;

use bytes::Bytes;
use hbclient_proto::pb;

/// Name and value pairs as they arrived, in order.
pub type ReceivedAttributes = Vec<(String, Bytes)>;

/// What one call carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedRequest {
    /// The RPC method, e.g. `Scan`.
    pub method: String,
    /// `RequestHeader.priority` when sent.
    pub priority: Option<u32>,
    /// `RequestHeader.attribute` (HBase 2.6 request attributes).
    pub request_attributes: ReceivedAttributes,
    /// `ConnectionHeader.attribute` of the connection the call came on.
    pub connection_attributes: ReceivedAttributes,
    /// The `attribute` list of each operation in the call: one entry for a Get, a Mutate or a
    /// Scan that opens a scanner, one per action for a Multi, none for a scanner's later calls.
    pub operation_attributes: Vec<ReceivedAttributes>,
}

/// The latest calls (up to [`RequestLog::KEEP`]) that carried a priority or any attribute,
/// oldest first. Calls without any are not logged, so a benchmark pays nothing for the log.
#[derive(Debug, Default)]
pub(crate) struct RequestLog {
    calls: Mutex<VecDeque<ReceivedRequest>>,
}

impl RequestLog {
    const KEEP: usize = 1024;

    /// Logs a call if it carried anything worth logging.
    pub(crate) fn record(
        &self,
        method: &str,
        header: &pb::RequestHeader,
        connection_attributes: &[pb::NameBytesPair],
        operations: Vec<&[pb::NameBytesPair]>,
    ) {
        if header.priority.is_none()
            && header.attribute.is_empty()
            && connection_attributes.is_empty()
            && operations.iter().all(|o| o.is_empty())
        {
            return;
        }
        let call = ReceivedRequest {
            method: method.to_string(),
            priority: header.priority,
            request_attributes: pairs(&header.attribute),
            connection_attributes: pairs(connection_attributes),
            operation_attributes: operations.into_iter().map(pairs).collect(),
        };
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        if calls.len() == Self::KEEP {
            calls.pop_front();
        }
        calls.push_back(call);
    }

    pub(crate) fn snapshot(&self) -> Vec<ReceivedRequest> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.iter().cloned().collect()
    }
}

/// A pair without a value is an empty value, as HBase's `NameBytesPair.getValue` reads it.
fn pairs(list: &[pb::NameBytesPair]) -> ReceivedAttributes {
    list.iter()
        .map(|p| (p.name.clone(), p.value.clone().unwrap_or_default()))
        .collect()
}

/// The operation attributes inside a ClientService request, one list per operation.
pub(crate) fn get_attributes(request: &pb::GetRequest) -> Vec<&[pb::NameBytesPair]> {
    vec![&request.get.attribute]
}

pub(crate) fn mutate_attributes(request: &pb::MutateRequest) -> Vec<&[pb::NameBytesPair]> {
    vec![&request.mutation.attribute]
}

pub(crate) fn scan_attributes(request: &pb::ScanRequest) -> Vec<&[pb::NameBytesPair]> {
    request
        .scan
        .iter()
        .map(|s| s.attribute.as_slice())
        .collect()
}

pub(crate) fn multi_attributes(request: &pb::MultiRequest) -> Vec<&[pb::NameBytesPair]> {
    request
        .region_action
        .iter()
        .flat_map(|ra| &ra.action)
        .map(|a| match (&a.get, &a.mutation) {
            (Some(g), _) => g.attribute.as_slice(),
            (_, Some(m)) => m.attribute.as_slice(),
            _ => &[],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(name: &str, value: &[u8]) -> pb::NameBytesPair {
        pb::NameBytesPair {
            name: name.into(),
            value: Some(Bytes::copy_from_slice(value)),
        }
    }

    #[test]
    fn calls_without_priority_or_attributes_are_not_logged() {
        let log = RequestLog::default();
        log.record("Get", &pb::RequestHeader::default(), &[], vec![&[]]);
        assert!(log.snapshot().is_empty());
        let header = pb::RequestHeader {
            priority: Some(0),
            ..Default::default()
        };
        log.record("Get", &header, &[], vec![]);
        assert_eq!(log.snapshot()[0].priority, Some(0));
    }

    #[test]
    fn each_kind_of_attribute_is_kept_apart() {
        let log = RequestLog::default();
        let header = pb::RequestHeader {
            attribute: vec![pair("r", b"1")],
            ..Default::default()
        };
        let op = [pair("o", b"2")];
        log.record(
            "Multi",
            &header,
            &[
                pair("c", b"3"),
                pb::NameBytesPair {
                    name: "empty".into(),
                    value: None,
                },
            ],
            vec![&op, &[]],
        );
        let got = &log.snapshot()[0];
        assert_eq!(got.request_attributes, vec![("r".into(), Bytes::from("1"))]);
        assert_eq!(got.connection_attributes.len(), 2);
        assert_eq!(got.connection_attributes[1], ("empty".into(), Bytes::new()));
        assert_eq!(
            got.operation_attributes,
            vec![vec![("o".into(), Bytes::from("2"))], vec![]]
        );
    }

    #[test]
    fn the_log_is_bounded() {
        let log = RequestLog::default();
        let header = pb::RequestHeader {
            priority: Some(1),
            ..Default::default()
        };
        for _ in 0..RequestLog::KEEP + 5 {
            log.record("Get", &header, &[], vec![]);
        }
        assert_eq!(log.snapshot().len(), RequestLog::KEEP);
    }
}
