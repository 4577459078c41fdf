//! Operation spans carry OpenTelemetry's HBase client attributes, checked by a subscriber that
//! records every span's fields as an exporter would see them.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures::{StreamExt, TryStreamExt};
use hbclient::{Action, CheckAndMutate, Get, MutatorOptions, ParallelScan, Put, Scan};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::prelude::*;

use crate::support::TestCluster;

/// Fields of one span, by name, as text.
type Fields = BTreeMap<String, String>;

#[derive(Clone, Default)]
struct Recorder {
    spans: Arc<Mutex<Vec<(Id, Fields)>>>,
}

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_string(),
            format!("{value:?}").trim_matches('"').into(),
        );
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

impl<S: tracing::Subscriber> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        let mut fields = Fields::new();
        attrs.record(&mut Collect(&mut fields));
        if fields.get("db.system.name").map(String::as_str) == Some("hbase") {
            self.spans.lock().unwrap().push((id.clone(), fields));
        }
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.spans.lock().unwrap();
        if let Some((_, fields)) = spans.iter_mut().rev().find(|(i, _)| i == id) {
            values.record(&mut Collect(fields));
        }
    }
}

impl Recorder {
    /// Takes the operation spans recorded so far.
    fn take(&self) -> Vec<Fields> {
        std::mem::take(&mut *self.spans.lock().unwrap())
            .into_iter()
            .map(|(_, f)| f)
            .collect()
    }
}

fn field<'a>(span: &'a Fields, name: &str) -> &'a str {
    span.get(name)
        .map(String::as_str)
        .unwrap_or_else(|| panic!("span without {name}: {span:?}"))
}

/// The one span of an operation, with the attributes every operation span has.
fn only_span(recorder: &Recorder, operation: &str, table: &str) -> Fields {
    let spans = recorder.take();
    assert_eq!(spans.len(), 1, "{operation}: {spans:#?}");
    let span = spans.into_iter().next().unwrap();
    assert_eq!(field(&span, "otel.name"), format!("{operation} {table}"));
    assert_eq!(field(&span, "otel.kind"), "client");
    assert_eq!(field(&span, "db.operation.name"), operation);
    assert_eq!(field(&span, "db.namespace"), "default");
    assert_eq!(field(&span, "db.collection.name"), table);
    span
}

#[tokio::test]
async fn operation_spans_follow_the_hbase_semantic_conventions() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let table = c.conn.table(&name).unwrap();
    table
        .put(Put::new("warm").add("f", "q", "v"))
        .await
        .unwrap();
    let _one_at_a_time = crate::support::TRACING_TESTS.lock().await;
    let recorder = Recorder::default();
    let _guard = tracing_subscriber::registry()
        .with(recorder.clone())
        .set_default();
    tracing::callsite::rebuild_interest_cache();

    table.put(Put::new("r1").add("f", "q", "v1")).await.unwrap();
    let put = only_span(&recorder, "PUT", &name);
    assert!(!field(&put, "server.address").is_empty());
    let port: u16 = field(&put, "server.port").parse().unwrap();
    assert!(port > 0);
    assert!(!put.contains_key("error.type"), "{put:?}");

    table.get(Get::new("r1")).await.unwrap();
    let get = only_span(&recorder, "GET", &name);
    assert_eq!(field(&get, "server.port"), port.to_string());

    // A failure names the server's exception class and marks the span as an error.
    let err = table
        .get(Get::new("r1").column("nofamily", "q"))
        .await
        .unwrap_err();
    let failed = only_span(&recorder, "GET", &name);
    assert_eq!(field(&failed, "otel.status_code"), "ERROR");
    assert_eq!(
        field(&failed, "error.type"),
        err.remote_class().expect("a server exception")
    );
    assert!(field(&failed, "error.type").ends_with("NoSuchColumnFamilyException"));

    let outcomes = table
        .batch(vec![
            Action::Put(Put::new("b1").add("f", "q", "1")),
            Action::Put(Put::new("b2").add("f", "q", "2")),
            Action::Get(Get::new("r1")),
        ])
        .await;
    assert!(outcomes.iter().all(|o| o.is_ok()));
    let batch = only_span(&recorder, "BATCH", &name);
    assert_eq!(field(&batch, "db.operation.batch.size"), "3");
    assert!(!batch.contains_key("error.type"));

    let swapped = table
        .check_and_mutate(
            CheckAndMutate::row("r1")
                .if_equals("f", "q", "v1")
                .then_put(Put::new("r1").add("f", "q", "v2"))
                .unwrap(),
        )
        .await
        .unwrap();
    assert!(swapped);
    only_span(&recorder, "CHECK_AND_MUTATE", &name);
}

/// Scans (one span for a whole multi-RPC scan, one for a parallel scan and one per piece) and
/// `BufferedMutator` flushes have operation spans, with their counts recorded when they end.
#[tokio::test]
async fn scans_and_mutator_flushes_have_operation_spans() {
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[b"m"]).await;
    let table = c.conn.table(&name).unwrap();
    for row in ["a1", "a2", "a3", "n1", "n2"] {
        table.put(Put::new(row).add("f", "q", "v")).await.unwrap();
    }
    let _one_at_a_time = crate::support::TRACING_TESTS.lock().await;
    let recorder = Recorder::default();
    let _guard = tracing_subscriber::registry()
        .with(recorder.clone())
        .set_default();
    tracing::callsite::rebuild_interest_cache();

    // One row per RPC across two regions: many RPCs, one span.
    let mut scanner = table.scan(Scan::new().caching(1));
    let mut rows = 0;
    while let Some(row) = scanner.next().await {
        row.unwrap();
        rows += 1;
    }
    assert_eq!(rows, 5);
    let rpcs = scanner.metrics().rpc_calls;
    assert!(rpcs > 2, "{rpcs} RPCs");
    let scan = only_span(&recorder, "SCAN", &name);
    assert_eq!(field(&scan, "db.response.returned_rows"), "5");
    assert_eq!(field(&scan, "hbclient.rpc_calls"), rpcs.to_string());
    assert!(!field(&scan, "server.address").is_empty());
    assert!(!scan.contains_key("error.type"), "{scan:?}");

    // A parallel scan: its own span, and one per region piece.
    let parallel: Vec<_> = table
        .parallel_scan(Scan::new(), ParallelScan::new())
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(parallel.len(), 5);
    let spans = recorder.take();
    let mut returned: Vec<&str> = spans
        .iter()
        .map(|s| {
            assert_eq!(field(s, "db.operation.name"), "SCAN");
            field(s, "db.response.returned_rows")
        })
        .collect();
    returned.sort();
    assert_eq!(returned, ["2", "3", "5"], "{spans:#?}");

    // A flush: mutations and bytes when cut, written and failed when done.
    let mutator = table.buffered_mutator_with(MutatorOptions::default().periodic_flush(None));
    mutator
        .mutate(Put::new("w1").add("f", "q", "1"))
        .await
        .unwrap();
    mutator
        .mutate(Put::new("w2").add("f", "q", "2"))
        .await
        .unwrap();
    mutator.flush().await.unwrap();
    let flush = only_span(&recorder, "BATCH", &name);
    assert_eq!(field(&flush, "hbclient.mutator.flush"), "true");
    assert_eq!(field(&flush, "db.operation.batch.size"), "2");
    assert!(
        field(&flush, "hbclient.mutator.bytes")
            .parse::<u64>()
            .unwrap()
            > 0
    );
    assert_eq!(field(&flush, "hbclient.mutator.written"), "2");
    assert_eq!(field(&flush, "hbclient.mutator.failed"), "0");
    assert!(!flush.contains_key("error.type"), "{flush:?}");
}

/// With the `opentelemetry` feature, each request carries the caller's trace context (W3C
/// `traceparent`) in its header; mini-hbase records what it receives. Against a real HBase the
/// same calls must simply succeed with the header on (what the server does with it depends on
/// its own tracing setup).
#[cfg(feature = "opentelemetry")]
#[tokio::test]
async fn the_callers_trace_context_reaches_the_server() {
    use hbclient::Get;
    use opentelemetry::trace::{TraceContextExt, TracerProvider};
    use tracing::Instrument;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let table = c.conn.table(&name).unwrap();
    // Outside any trace: no trace context is sent.
    table
        .put(Put::new("untraced").add("f", "q", "v"))
        .await
        .unwrap();
    if c.is_mini() {
        let mini = c.mini("").unwrap();
        assert_eq!(mini.received_traces(), Vec::new());
    }

    let _one_at_a_time = crate::support::TRACING_TESTS.lock().await;
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
    let _guard = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("hbclient-suite")))
        .set_default();
    let handler = tracing::info_span!("handle request");
    let trace_id = handler.context().span().span_context().trace_id();
    assert_ne!(trace_id, opentelemetry::trace::TraceId::INVALID);
    async {
        table
            .put(Put::new("traced").add("f", "q", "v"))
            .await
            .unwrap();
        let got = table.get(Get::new("traced")).await.unwrap();
        assert!(!got.is_empty());
    }
    .instrument(handler)
    .await;

    let Some(mini) = c.mini("the_callers_trace_context_reaches_the_server") else {
        return;
    };
    let received = mini.received_traces();
    let methods: Vec<&str> = received.iter().map(|t| t.method.as_str()).collect();
    assert!(
        methods.contains(&"Mutate") && methods.contains(&"Get"),
        "{received:#?}"
    );
    for trace in &received {
        let parent = trace.headers.get("traceparent").expect("traceparent");
        let parts: Vec<&str> = parent.split('-').collect();
        assert_eq!(parts.len(), 4, "{parent}");
        assert_eq!(parts[0], "00");
        assert_eq!(parts[1], trace_id.to_string(), "{parent}");
        assert_eq!(parts[2].len(), 16);
        assert_eq!(parts[3], "01", "sampled: {parent}");
    }
}

/// With the `metrics` feature, operations and RPCs reach the `metrics` crate's global recorder
/// (here the Prometheus exporter), per table and operation, and per server when asked.
#[cfg(feature = "metrics")]
#[tokio::test]
async fn metrics_reach_the_global_recorder() {
    use hbclient::Get;
    use metrics_exporter_prometheus::PrometheusBuilder;

    let recorder = PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).expect("the only test that installs a recorder");
    let c = TestCluster::start().await;
    let name = c.table(&["f"], &[]).await;
    let conn = c
        .connect_with(|b| b.set("hbclient.metrics.per.server", "true").unwrap())
        .await;
    let table = conn.table(&name).unwrap();
    for i in 0..7 {
        table
            .put(Put::new(format!("m{i}")).add("f", "q", "v"))
            .await
            .unwrap();
    }
    table.get(Get::new("m1")).await.unwrap();
    let _ = table
        .get(Get::new("m1").column("nofamily", "q"))
        .await
        .unwrap_err();

    let text = handle.render();
    let line = |needles: &[&str]| {
        text.lines()
            .find(|l| !l.starts_with('#') && needles.iter().all(|n| l.contains(n)))
            .unwrap_or_else(|| panic!("no line with {needles:?} in\n{text}"))
            .to_string()
    };
    let collection = format!("db_collection_name=\"{name}\"");
    let puts = line(&[
        "db_client_operation_duration_count",
        "db_operation_name=\"PUT\"",
        &collection,
    ]);
    assert!(puts.ends_with(" 7"), "{puts}");
    let failed = line(&[
        "db_client_operation_duration_count",
        "db_operation_name=\"GET\"",
        &collection,
        "error_type=",
    ]);
    assert!(
        failed.contains("NoSuchColumnFamilyException") && failed.ends_with(" 1"),
        "{failed}"
    );
    let server = line(&[
        "hbase_client_rpc_calls",
        "rpc_method=\"Mutate\"",
        "server_address=",
    ]);
    let count: u64 = server.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(count >= 7, "{server}");
    line(&["hbase_client_connections_opened"]);
    line(&["hbase_client_rpc_sent_bytes"]);
}
