//! Tracing spans: the contract.
//!
//! Every table operation opens one span, named `hbase` and shaped by OpenTelemetry's conventions
//! for HBase client calls (<https://opentelemetry.io/docs/specs/semconv/db/hbase/>), so a
//! `tracing-opentelemetry` layer exports it as a database CLIENT span without any mapping of its
//! own.
//!
//! **Level: DEBUG.** With `RUST_LOG=info` (or any filter below DEBUG for `hbclient`) no span
//! appears, by design: with no subscriber interested, creating one costs a relaxed atomic load
//! and none of its fields are formatted. To see them, enable DEBUG for this crate, e.g.
//! `RUST_LOG=info,hbclient=debug` with `tracing_subscriber::EnvFilter`, or a
//! `tracing-opentelemetry` layer with a filter that passes DEBUG spans of target `hbclient`.
//! `cargo run -p hbclient --example tracing_spans` prints them for a put, a get, a scan, a
//! parallel scan and a mutator flush against an embedded mini-hbase.
//!
//! | operation | `db.operation.name` | span |
//! | --- | --- | --- |
//! | `get`, `exists` | `GET` | one per call |
//! | `put`, `delete`, `increment`, `append` | `PUT`, `DELETE`, `INCREMENT`, `APPEND` | one per call |
//! | `mutate_row`, `batch`, `get_many`, `put_many` | `BATCH` | one per call |
//! | `check_and_mutate` | `CHECK_AND_MUTATE` | one per call |
//! | `scan` | `SCAN` | one per scan, however many RPCs and regions |
//! | `parallel_scan` | `SCAN` | one for the whole scan; each region piece's own `SCAN` span is its child |
//! | `BufferedMutator` flush | `BATCH` (with `hbclient.mutator.flush = true`) | one per flush |
//!
//! Attributes of every operation span: `otel.name` (`OPERATION namespace:table`, e.g.
//! `PUT default:users`), `otel.kind` = `client`, `db.system.name` = `hbase`, `db.namespace`,
//! `db.collection.name` (the table), `db.operation.name`, `server.address` / `server.port` (once
//! the region's server is known; the last one for a scan). On failure: `otel.status_code` =
//! `ERROR` and `error.type`, the server's exception class when the server sent one (e.g.
//! `org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException`), else the error kind in
//! snake case (`timeout`, `connection`, `closed`, ...). A batch or a flush is failed only when
//! every action in it failed (OpenTelemetry's rule for batches).
//!
//! Attributes by kind, recorded when the operation ends:
//! - batches: `db.operation.batch.size` (actions);
//! - scans: `db.response.returned_rows` (rows handed to the caller) and `hbclient.rpc_calls`
//!   (Scan RPCs answered), recorded when the stream ends, fails or is dropped;
//! - flushes: `db.operation.batch.size` (mutations) and `hbclient.mutator.bytes` when the flush
//!   is cut; `hbclient.mutator.written` and `hbclient.mutator.failed` when it completes.
//!
//! Each RPC an operation sends is a child span `attempt` (DEBUG) with `table`, `region`, `server`
//! and `attempt` (the retry number), so retries and region hops show as siblings.
//!
//! With the `opentelemetry` feature, each request header also carries the caller's trace
//! context (`RequestHeader.trace_info.headers`, W3C `traceparent`), taken from the current
//! span through a `tracing-opentelemetry` layer, so an HBase 2.5+ server with tracing on
//! continues the caller's trace.

use std::future::Future;

use futures::FutureExt;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;
use tracing::field::Empty;
use tracing::{Instrument, Span};

use crate::error::{Error, ErrorKind, Result};

/// The span of one table operation.
pub(crate) fn operation_span(table: &TableName, operation: &'static str) -> Span {
    tracing::debug_span!(
        "hbase",
        otel.name = %format_args!("{operation} {table}"),
        otel.kind = "client",
        otel.status_code = Empty,
        db.system.name = "hbase",
        db.namespace = %String::from_utf8_lossy(table.namespace()),
        db.collection.name = %table,
        db.operation.name = operation,
        db.operation.batch.size = Empty,
        server.address = Empty,
        server.port = Empty,
        error.type = Empty,
    )
}

/// The span of one scan (`SCAN`): the operation span's attributes plus the rows handed to the
/// caller (`db.response.returned_rows`) and the Scan RPCs answered (`hbclient.rpc_calls`),
/// recorded when the scan ends ([`finish_scan`]). Each RPC of the scan is a child `attempt` span.
pub(crate) fn scan_span(table: &TableName) -> Span {
    tracing::debug_span!(
        "hbase",
        otel.name = %format_args!("SCAN {table}"),
        otel.kind = "client",
        otel.status_code = Empty,
        db.system.name = "hbase",
        db.namespace = %String::from_utf8_lossy(table.namespace()),
        db.collection.name = %table,
        db.operation.name = "SCAN",
        db.response.returned_rows = Empty,
        hbclient.rpc_calls = Empty,
        server.address = Empty,
        server.port = Empty,
        error.type = Empty,
    )
}

/// Records how a scan ended on its span: rows, RPCs and, if it failed, `error.type`.
pub(crate) fn finish_scan(span: &Span, rows: u64, rpc_calls: u64, error: Option<&Error>) {
    if span.is_disabled() {
        return;
    }
    span.record("db.response.returned_rows", rows);
    span.record("hbclient.rpc_calls", rpc_calls);
    if let Some(e) = error {
        record_error(span, e);
    }
}

/// The span of one `BufferedMutator` flush (`db.operation.name` BATCH, as the flush is sent as
/// one batch): mutations (`db.operation.batch.size`) and their bytes (`hbclient.mutator.bytes`)
/// when cut; written and failed mutations when it completes ([`finish_flush`]).
pub(crate) fn flush_span(table: &TableName, mutations: usize, bytes: usize) -> Span {
    tracing::debug_span!(
        "hbase",
        otel.name = %format_args!("BATCH {table}"),
        otel.kind = "client",
        otel.status_code = Empty,
        db.system.name = "hbase",
        db.namespace = %String::from_utf8_lossy(table.namespace()),
        db.collection.name = %table,
        db.operation.name = "BATCH",
        db.operation.batch.size = mutations,
        hbclient.mutator.flush = true,
        hbclient.mutator.bytes = bytes,
        hbclient.mutator.written = Empty,
        hbclient.mutator.failed = Empty,
        error.type = Empty,
    )
}

/// Records a completed flush: written and failed mutations; `error.type` only when every
/// mutation failed (OpenTelemetry's rule for batches, as [`AsyncTable::batch`](crate::AsyncTable::batch)).
pub(crate) fn finish_flush(span: &Span, written: u64, failed: usize, first_error: Option<&Error>) {
    if span.is_disabled() {
        return;
    }
    span.record("hbclient.mutator.written", written);
    span.record("hbclient.mutator.failed", failed as u64);
    if let (0, Some(e)) = (written, first_error) {
        record_error(span, e);
    }
}

/// Runs `operation` (the table operation `name` on `table`) inside `span`, recording
/// `error.type` when it fails and, with the `metrics` feature, its duration. Not an `async fn`:
/// that would keep the operation's future twice (as its argument and where it is awaited).
pub(crate) fn traced<'a, T>(
    table: &'a TableName,
    name: &'static str,
    span: Span,
    operation: impl Future<Output = Result<T>> + 'a,
) -> impl Future<Output = Result<T>> + 'a {
    #[cfg(feature = "metrics")]
    let started = std::time::Instant::now();
    in_span(span.clone(), operation).map(move |outcome| {
        if let Err(e) = &outcome {
            record_error(&span, e);
        }
        #[cfg(feature = "metrics")]
        crate::metrics::operation_finished(
            name,
            table,
            outcome.as_ref().err().map(error_type_of).as_deref(),
            started.elapsed(),
        );
        #[cfg(not(feature = "metrics"))]
        let _ = (table, name);
        outcome
    })
}

/// `future` inside `span`; a disabled span (no subscriber wants it) is not entered and left on
/// every poll. Not an `async fn`: that would move the (large) operation future once more.
pub(crate) fn in_span<F: Future>(
    span: Span,
    future: F,
) -> futures::future::Either<F, tracing::instrument::Instrumented<F>> {
    if span.is_disabled() {
        futures::future::Either::Left(future)
    } else {
        futures::future::Either::Right(future.instrument(span))
    }
}

/// `error.type` of a failure: the server's exception class, else the error kind.
pub(crate) fn error_type_of(e: &Error) -> String {
    e.remote_class()
        .map(str::to_string)
        .unwrap_or_else(|| error_type(e.kind()).to_string())
}

/// Records a failure on `span`: the server's exception class when the server sent one, else
/// the kind of error in snake case (`timeout`, `connection`, ...).
pub(crate) fn record_error(span: &Span, e: &Error) {
    if span.is_disabled() {
        return;
    }
    span.record("otel.status_code", "ERROR");
    span.record("error.type", error_type_of(e));
}

/// Records the server an operation went to (`host:port`) on the current span, if it is an
/// operation span (other spans do not have these fields, and recording is then a no-op).
pub(crate) fn record_server(server: &str) {
    let span = Span::current();
    if span.is_disabled() {
        return;
    }
    match server.rsplit_once(':') {
        Some((host, port)) => {
            span.record(
                "server.address",
                host.trim_matches(|c| c == '[' || c == ']'),
            );
            if let Ok(port) = port.parse::<u16>() {
                span.record("server.port", port);
            }
        }
        None => {
            span.record("server.address", server);
        }
    }
}

fn error_type(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidArgument => "invalid_argument",
        ErrorKind::Connection => "connection",
        ErrorKind::Timeout => "timeout",
        ErrorKind::Remote => "remote",
        ErrorKind::TableNotFound => "table_not_found",
        ErrorKind::TableNotEnabled => "table_not_enabled",
        ErrorKind::NoSuchColumnFamily => "no_such_column_family",
        ErrorKind::Protocol => "protocol",
        ErrorKind::Closed => "closed",
        ErrorKind::BlockingInAsync => "blocking_in_async",
        ErrorKind::Authentication => "authentication",
        ErrorKind::TableExists => "table_exists",
        ErrorKind::TableNotDisabled => "table_not_disabled",
        ErrorKind::NamespaceExists => "namespace_exists",
        ErrorKind::NamespaceNotFound => "namespace_not_found",
        ErrorKind::RegionTooBusy => "region_too_busy",
        ErrorKind::ServerOverloaded => "server_overloaded",
    }
}

/// The caller's trace context for a request header: `None` without the `opentelemetry` feature
/// or when the current span belongs to no OpenTelemetry trace.
pub(crate) fn trace_info() -> Option<pb::RpctInfo> {
    #[cfg(feature = "opentelemetry")]
    {
        otel::trace_info()
    }
    #[cfg(not(feature = "opentelemetry"))]
    {
        None
    }
}

#[cfg(feature = "opentelemetry")]
mod otel {
    use std::collections::HashMap;

    use hbclient_proto::pb;
    use opentelemetry::trace::TraceContextExt;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    pub(super) fn trace_info() -> Option<pb::RpctInfo> {
        let span = tracing::Span::current();
        if span.is_disabled() {
            return None;
        }
        let context = span.context();
        let span_context = context.span().span_context().clone();
        if !span_context.is_valid() {
            return None;
        }
        let mut headers = HashMap::new();
        opentelemetry::global::get_text_map_propagator(|p| {
            p.inject_context(&context, &mut headers)
        });
        if headers.is_empty() {
            // No propagator installed: W3C trace context, which is what HBase reads by default.
            headers.insert(
                "traceparent".to_string(),
                format!(
                    "00-{}-{}-{:02x}",
                    span_context.trace_id(),
                    span_context.span_id(),
                    span_context.trace_flags().to_u8()
                ),
            );
            let state = span_context.trace_state().header();
            if !state.is_empty() {
                headers.insert("tracestate".to_string(), state);
            }
        }
        Some(pb::RpctInfo {
            headers,
            ..Default::default()
        })
    }
}
