//! `Admin::slow_log`: a region server's online slow/large-log ring buffer (Java's
//! `Admin.getLogEntries(.., "SLOW_LOG" | "LARGE_LOG", ..)`), read with `AdminService.GetLogEntries`.
//!
//! A region server keeps the buffer when `hbase.regionserver.slowlog.buffer.enabled` is true
//! (default false: every read is then empty). A call is logged when it ran longer than
//! `hbase.ipc.warn.response.time` (10 s) — a slow-log entry — or its response was larger than
//! `hbase.ipc.warn.response.size` (100 MiB) — a large-log entry. From HBase 2.6 an entry holds
//! the call's request attributes and its connection's attributes, which makes the buffer a way
//! to see, without a coprocessor, what a client's headers carried.

use bytes::Bytes;
use hbclient_proto::pb;
use prost::Message;

use crate::admin::{parse_table, Admin};
use crate::attributes::Attributes;
use crate::error::{Error, Result};
use crate::rpc::meta::CallMeta;
use crate::rpc::Service;

/// `LogRequest.log_class_name` of a slow-log query: the server loads this class by name.
const REQUEST_CLASS: &str =
    "org.apache.hadoop.hbase.shaded.protobuf.generated.AdminProtos$SlowLogResponseRequest";
/// What the server names the answer's message (`SlowLogResponses`).
const RESPONSE_CLASS_SUFFIX: &str = "SlowLogResponses";

/// Which of the buffer's entries to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlowLogKind {
    /// Calls slower than `hbase.ipc.warn.response.time` (Java's `"SLOW_LOG"`).
    Slow,
    /// Calls whose response was larger than `hbase.ipc.warn.response.size` (`"LARGE_LOG"`).
    Large,
}

/// One logged call (`SlowLogPayload`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowLogEntry {
    /// When the call started, ms since the epoch.
    pub start_time_ms: i64,
    /// Time the handler worked on it, ms.
    pub processing_time_ms: i32,
    /// Time it waited in the call queue, ms.
    pub queue_time_ms: i32,
    /// Bytes of the response (message and cellblock).
    pub response_size: i64,
    /// `host:port` of the client.
    pub client_address: String,
    /// The RPC method, e.g. `Get`.
    pub method: String,
    /// Method and parameter class, as the server writes them.
    pub call_details: String,
    /// A short text form of the parameters.
    pub param: String,
    /// The caller's user name.
    pub user: String,
    /// The region, when the call named one.
    pub region: Option<String>,
    /// Whether it was logged as slow, as large, or both.
    pub slow: bool,
    /// See `slow`.
    pub large: bool,
    /// The call's request attributes (HBase 2.6+).
    pub request_attributes: Attributes,
    /// The attributes of the connection it came on (HBase 2.6+).
    pub connection_attributes: Attributes,
}

impl SlowLogEntry {
    fn from_pb(p: pb::SlowLogPayload) -> SlowLogEntry {
        use pb::slow_log_payload::Type;
        let kind = p.r#type();
        let attributes = |list: Vec<pb::NameBytesPair>| -> Attributes {
            list.into_iter()
                .map(|a| (a.name, a.value.unwrap_or_default()))
                .collect()
        };
        SlowLogEntry {
            start_time_ms: p.start_time,
            processing_time_ms: p.processing_time,
            queue_time_ms: p.queue_time,
            response_size: p.response_size,
            client_address: p.client_address,
            method: p.method_name,
            call_details: p.call_details,
            param: p.param.unwrap_or_default(),
            user: p.user_name,
            region: p.region_name.filter(|r| !r.is_empty()),
            slow: matches!(kind, Type::SlowLog | Type::All),
            large: matches!(kind, Type::LargeLog | Type::All),
            request_attributes: attributes(p.request_attribute),
            connection_attributes: attributes(p.connection_attribute),
        }
    }
}

/// The `LogRequest` asking for up to `limit` entries of `kind`, of `table` when given.
fn log_request(kind: SlowLogKind, limit: u32, table: Option<&str>) -> pb::LogRequest {
    use pb::slow_log_response_request::{FilterByOperator, LogType};
    let query = pb::SlowLogResponseRequest {
        table_name: table.map(str::to_string),
        limit: Some(limit),
        filter_by_operator: Some(FilterByOperator::And as i32),
        log_type: Some(match kind {
            SlowLogKind::Slow => LogType::SlowLog,
            SlowLogKind::Large => LogType::LargeLog,
        } as i32),
        ..Default::default()
    };
    pb::LogRequest {
        log_class_name: REQUEST_CLASS.to_string(),
        log_message: Bytes::from(query.encode_to_vec()),
    }
}

/// The entries inside a `LogEntry` answer.
fn entries(answer: pb::LogEntry) -> Result<Vec<SlowLogEntry>> {
    if !answer.log_class_name.ends_with(RESPONSE_CLASS_SUFFIX) {
        return Err(Error::protocol(format!(
            "GetLogEntries answered with a {}, not SlowLogResponses",
            answer.log_class_name
        )));
    }
    let responses = pb::SlowLogResponses::decode(answer.log_message)
        .map_err(|e| Error::protocol(format!("bad SlowLogResponses: {e}")))?;
    Ok(responses
        .slow_log_payloads
        .into_iter()
        .map(SlowLogEntry::from_pb)
        .collect())
}

impl Admin {
    /// Up to `limit` of the newest entries of the slow or large log of the region server that
    /// holds `row` of `table`, only calls on `table`'s regions. Empty when the server keeps no
    /// buffer (`hbase.regionserver.slowlog.buffer.enabled` false, the default). Java:
    /// `Admin.getLogEntries(servers, "SLOW_LOG"/"LARGE_LOG", ServerType.REGION_SERVER, limit,
    /// {"tableName": table})`.
    pub async fn slow_log(
        &self,
        table: &str,
        row: &[u8],
        kind: SlowLogKind,
        limit: u32,
    ) -> Result<Vec<SlowLogEntry>> {
        let name = parse_table(table)?;
        let core = self.core();
        let loc = core.locate(&name, row, core.deadline()).await?;
        let frame = core
            .pool
            .call(
                &loc.server,
                &crate::rpc::Head {
                    service: Service::Admin,
                    method: "GetLogEntries",
                    meta: &CallMeta::NONE,
                    timeout: core.config.rpc_timeout,
                },
                &log_request(kind, limit, Some(&name.to_string())),
            )
            .await?;
        entries(frame.body("LogEntry")?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_names_the_class_the_server_loads() {
        let request = log_request(SlowLogKind::Large, 7, Some("t"));
        assert_eq!(request.log_class_name, REQUEST_CLASS);
        let query = pb::SlowLogResponseRequest::decode(request.log_message).unwrap();
        assert_eq!(query.limit, Some(7));
        assert_eq!(query.table_name.as_deref(), Some("t"));
        assert_eq!(
            query.log_type,
            Some(pb::slow_log_response_request::LogType::LargeLog as i32)
        );
    }

    #[test]
    fn answers_carry_attributes_and_kind() {
        let payload = pb::SlowLogPayload {
            method_name: "Get".into(),
            r#type: pb::slow_log_payload::Type::All as i32,
            request_attribute: vec![pb::NameBytesPair {
                name: "tenant".into(),
                value: Some(Bytes::from_static(b"a")),
            }],
            connection_attribute: vec![pb::NameBytesPair {
                name: "app".into(),
                value: None,
            }],
            ..Default::default()
        };
        let answer = pb::LogEntry {
            log_class_name:
                "org.apache.hadoop.hbase.shaded.protobuf.generated.AdminProtos$SlowLogResponses"
                    .into(),
            log_message: Bytes::from(
                pb::SlowLogResponses {
                    slow_log_payloads: vec![payload],
                }
                .encode_to_vec(),
            ),
        };
        let got = entries(answer).unwrap();
        assert_eq!(got.len(), 1);
        assert!(got[0].slow && got[0].large);
        assert_eq!(
            got[0].request_attributes.get("tenant"),
            Some(&Bytes::from_static(b"a"))
        );
        assert_eq!(got[0].connection_attributes.get("app"), Some(&Bytes::new()));
        let wrong = pb::LogEntry {
            log_class_name: "x.Other".into(),
            log_message: Bytes::new(),
        };
        assert!(entries(wrong).is_err());
    }
}
