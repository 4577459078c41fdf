//! mini-hbase's request handling: arbitrary frames sent to each service of a live in-process
//! cluster must be answered with a response or an exception, never crash the server.
#![no_main]

use std::sync::OnceLock;

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use mini_hbase::{ClusterConfig, MiniCluster, ServerId};

struct Fixture {
    runtime: tokio::runtime::Runtime,
    cluster: MiniCluster,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let cluster = runtime.block_on(async {
            let cluster = MiniCluster::start(ClusterConfig {
                region_servers: 1,
                ..ClusterConfig::default()
            })
            .await
            .unwrap();
            cluster.create_table("t", &["f"], &[b"m"]).unwrap();
            cluster
        });
        Fixture { runtime, cluster }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let (server, service) = match selector % 5 {
        0 => (ServerId::RegionServer(0), "ClientService"),
        1 => (ServerId::RegionServer(0), "AdminService"),
        2 => (ServerId::Master, "MasterService"),
        3 => (ServerId::Master, "ClientMetaService"),
        _ => (ServerId::RegionServer(0), "ClientMetaService"),
    };
    let f = fixture();
    let answer = f.runtime.block_on(f.cluster.serve_raw_frame(
        server,
        service,
        selector & 0x80 != 0,
        Bytes::copy_from_slice(body),
    ));
    if let Some(frame) = answer {
        hbclient_proto::frame::ResponseFrame::decode(frame.slice(4..))
            .expect("mini-hbase answers with well-formed frames");
    }
});
