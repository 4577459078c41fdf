//! Serves hbclient's metrics in Prometheus text format while a small workload runs.
//!
//! hbclient's `metrics` feature sends its counters and histograms to the `metrics` crate's global
//! recorder; here that recorder is `metrics-exporter-prometheus`, rendered on `GET /metrics` by a
//! few lines of tokio (any exporter for the `metrics` facade works the same way).
//!
//! ```sh
//! cargo run -p hbclient --features metrics --example prometheus_metrics            # mini-hbase
//! cargo run -p hbclient --features metrics --example prometheus_metrics -- hbase+zk://127.0.0.1:2181
//! curl -s 127.0.0.1:9464/metrics      # while it runs (METRICS_ADDR to change the address)
//! ```
//! With `--once` it prints one rendering after the workload instead of serving.

use std::time::Duration;

use hbclient::{Config, Connection, Get, Put, TableDescriptor};
use metrics_exporter_prometheus::PrometheusBuilder;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let once = args.iter().any(|a| a == "--once");
    let uri = args.iter().find(|a| a.starts_with("hbase+")).cloned();

    let recorder = PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder)?;

    let (config, _embedded) = match uri {
        Some(uri) => (Config::from_uri(&uri)?, None),
        None => {
            let mini = mini_hbase::MiniCluster::start(Default::default()).await?;
            let config = Config::bootstrap(&mini.master_addr().to_string());
            (config, Some(mini))
        }
    };
    let conn = Connection::connect(config).await?;
    let admin = conn.admin();
    let name = "prometheus_metrics_example";
    if !admin.table_exists(name).await? {
        admin
            .create_table(&TableDescriptor::new(name, &["f"])?, &[])
            .await?;
    }
    let table = conn.table(name)?;
    let workload = async {
        for i in 0u64.. {
            let row = format!("row{:04}", i % 1000);
            table
                .put(Put::new(row.clone()).add("f", "q", i.to_string()))
                .await?;
            table.get(Get::new(row)).await?;
            if once && i == 199 {
                break;
            }
        }
        Ok::<(), hbclient::Error>(())
    };
    if once {
        workload.await?;
        print!("{}", handle.render());
        return Ok(());
    }

    let addr = std::env::var("METRICS_ADDR").unwrap_or_else(|_| "127.0.0.1:9464".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("serving http://{addr}/metrics; Ctrl-C to stop");
    let serve = async {
        loop {
            let (mut socket, _) = listener.accept().await?;
            let mut request = [0u8; 1024];
            let _ = tokio::time::timeout(Duration::from_secs(1), socket.read(&mut request)).await;
            let body = handle.render();
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\n\
                 content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(body.as_bytes()).await?;
        }
        #[allow(unreachable_code)]
        Ok::<(), std::io::Error>(())
    };
    tokio::select! {
        r = workload => r?,
        r = serve => r?,
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(())
}
