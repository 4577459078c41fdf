//! `hbase-diff`: runs raw-protocol scenarios against a real HBase 2.6 and against a mini-hbase it
//! starts itself, normalizes both answers and prints every difference as a line diff.
//!
//! ```text
//! HBCLIENT_DIFF_TARGET=master=127.0.0.1:16000,rs=127.0.0.1:16020 cargo run -p hbase-diff [FILTER]
//! cargo run -p hbase-diff -- --list          # scenario names and count, no server needed
//! ```
//!
//! Requests are built with `hbclient-proto` only, so no client logic can hide a difference.
//! Differences listed in `known-gaps.txt` (scenario name, then the reason) are reported but do
//! not fail the run; any other difference does (exit 1). `HBCLIENT_DIFF_OUT=DIR` keeps both
//! sides' normalized answers per scenario.

mod render;
mod scenarios;
mod wire;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use hbclient_proto::meta::{self, TableName};
use hbclient_proto::pb;
use prost::Message;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use render::Norm;
use wire::{Conn, ConnOpts};

/// The service a call goes to (and so which server: master or region server).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Svc {
    /// ClientService on the region server.
    Client,
    /// AdminService on the region server.
    Admin,
    /// MasterService on the master.
    Master,
    /// ClientMetaService on the region server.
    Meta,
    /// ClientMetaService on the master.
    MasterMeta,
}

impl Svc {
    fn name(self) -> &'static str {
        match self {
            Svc::Client => "ClientService",
            Svc::Admin => "AdminService",
            Svc::Master => "MasterService",
            Svc::Meta | Svc::MasterMeta => "ClientMetaService",
        }
    }
}

/// One call, ready to send.
pub(crate) struct Call {
    /// Where it goes.
    pub svc: Svc,
    /// `RequestHeader.method_name`.
    pub method: &'static str,
    /// The encoded request message.
    pub param: Bytes,
    /// A cellblock beside it.
    pub cells: Vec<u8>,
}

/// What a scenario step knows about the server it runs on.
pub(crate) struct Ctx {
    /// Regions of the scenario table: (start key, region name), by start key.
    pub regions: Vec<(Bytes, Bytes)>,
    /// The scanner id of the last Scan answer that had one.
    pub scanner: Option<u64>,
}

impl Ctx {
    /// The region holding `row`.
    pub(crate) fn region_for(&self, row: &[u8]) -> pb::RegionSpecifier {
        let name = self
            .regions
            .iter()
            .rev()
            .find(|(start, _)| start.as_ref() <= row)
            .map(|(_, n)| n.clone())
            .unwrap_or_default();
        region_spec(name)
    }
}

/// A `RegionSpecifier` by full region name.
pub(crate) fn region_spec(name: Bytes) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: name,
    }
}

/// A builder of one call from what the server knows.
pub(crate) type Build = Box<dyn Fn(&Ctx) -> Call>;

/// One step of a scenario.
pub(crate) enum Step {
    /// A call on a connection of the scenario.
    Call(Build),
    /// Raw bytes on a fresh connection; everything the server answers until it closes (or 3 s).
    Raw {
        /// Bytes to send.
        bytes: Vec<u8>,
        /// To the master (else the region server).
        master: bool,
    },
    /// Wait (lease expiry).
    Sleep(Duration),
}

/// A named sequence of steps on connections opened with `opts`.
pub(crate) struct Scenario {
    /// Unique name.
    pub name: String,
    /// How the scenario's connections introduce themselves.
    pub opts: ConnOpts,
    /// Compare the first line of exception messages too.
    pub messages: bool,
    /// The steps.
    pub steps: Vec<Step>,
}

/// The table every scenario uses.
pub(crate) const TABLE: &str = "hbdiff";
/// Its split point.
pub(crate) const SPLIT: &[u8] = b"m";

/// One server under test.
struct Target {
    label: &'static str,
    master: SocketAddr,
    rs: SocketAddr,
    norm: Norm,
    regions: Vec<(Bytes, Bytes)>,
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = scenarios::all();
    let mut names = std::collections::HashSet::new();
    for s in &all {
        assert!(
            names.insert(s.name.clone()),
            "duplicate scenario {}",
            s.name
        );
    }
    if args.first().map(String::as_str) == Some("--list") {
        for s in &all {
            println!("{}", s.name);
        }
        println!("{} scenarios", all.len());
        return;
    }
    let filter = args.first().cloned().unwrap_or_default();
    let Some(real) = real_target() else {
        println!(
            "SKIPPED hbase-diff: no real HBase to compare with (set HBCLIENT_DIFF_TARGET=master=HOST:PORT,rs=HOST:PORT)"
        );
        return;
    };
    let known = known_gaps();
    let cluster = mini_hbase::MiniCluster::start(mini_hbase::ClusterConfig {
        region_servers: 1,
        ..Default::default()
    })
    .await
    .expect("mini-hbase starts");
    let mini = Target {
        label: "mini-hbase",
        master: cluster.master_addr(),
        rs: cluster.region_server_addrs()[0],
        norm: Norm::default(),
        regions: Vec::new(),
    };
    let mut targets = [real, mini];
    for t in targets.iter_mut() {
        if let Err(e) = setup(t).await {
            eprintln!("setup of {} failed: {e}", t.label);
            std::process::exit(2);
        }
    }
    let out_dir = std::env::var("HBCLIENT_DIFF_OUT").ok();
    if let Some(dir) = &out_dir {
        let _ = std::fs::create_dir_all(dir);
    }
    let (mut same, mut gaps, mut differ) = (0, Vec::new(), Vec::new());
    let selected: Vec<&Scenario> = all.iter().filter(|s| s.name.contains(&filter)).collect();
    for s in &selected {
        let real_out = run(&targets[0], s).await;
        let mini_out = run(&targets[1], s).await;
        if let Some(dir) = &out_dir {
            let file = s.name.replace('/', "_");
            let _ = std::fs::write(format!("{dir}/{file}.real"), &real_out);
            let _ = std::fs::write(format!("{dir}/{file}.mini"), &mini_out);
        }
        match render::diff(&real_out, &mini_out) {
            None => same += 1,
            Some(d) => {
                if let Some(reason) = known.get(&s.name) {
                    println!("KNOWN GAP {}: {reason}", s.name);
                    gaps.push(s.name.clone());
                } else {
                    println!("DIFF {} (- HBase 2.6, + mini-hbase)\n{d}", s.name);
                    differ.push(s.name.clone());
                }
            }
        }
    }
    for name in known.keys() {
        if !all.iter().any(|s| &s.name == name) {
            println!("known-gaps.txt names an unknown scenario: {name}");
            differ.push(name.clone());
        }
    }
    cluster.shutdown();
    println!(
        "hbase-diff: {} scenarios run ({} defined): {} identical, {} known gaps, {} unexplained differences",
        selected.len(),
        all.len(),
        same,
        gaps.len(),
        differ.len()
    );
    if !differ.is_empty() {
        println!("unexplained: {}", differ.join(", "));
        std::process::exit(1);
    }
}

/// `HBCLIENT_DIFF_TARGET=master=HOST:PORT,rs=HOST:PORT`.
fn real_target() -> Option<Target> {
    let spec = std::env::var("HBCLIENT_DIFF_TARGET").ok()?;
    let mut master = None;
    let mut rs = None;
    for part in spec.split(',') {
        match part.split_once('=') {
            Some(("master", a)) => master = a.parse().ok(),
            Some(("rs", a)) => rs = a.parse().ok(),
            _ => {}
        }
    }
    match (master, rs) {
        (Some(master), Some(rs)) => Some(Target {
            label: "HBase",
            master,
            rs,
            norm: Norm::default(),
            regions: Vec::new(),
        }),
        _ => {
            eprintln!("HBCLIENT_DIFF_TARGET must be master=HOST:PORT,rs=HOST:PORT, got {spec:?}");
            std::process::exit(2);
        }
    }
}

/// `known-gaps.txt`: `scenario-name: reason` lines (`#` comments).
fn known_gaps() -> HashMap<String, String> {
    include_str!("../known-gaps.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_once(": "))
        .map(|(n, r)| (n.trim().to_string(), r.trim().to_string()))
        .collect()
}

async fn call_on(
    conn: &mut Conn,
    method: &str,
    param: &impl Message,
) -> Result<hbclient_proto::frame::ResponseFrame, String> {
    let answer = conn
        .call(method, &Bytes::from(param.encode_to_vec()), &[])
        .await?;
    if let Some(e) = &answer.header.exception {
        return Err(format!("{method}: {:?}", e.exception_class_name));
    }
    Ok(answer)
}

fn table() -> TableName {
    TableName::parse(TABLE).expect("valid")
}

/// Drops and recreates the scenario table, learns its regions, and writes the seed rows.
async fn setup(t: &mut Target) -> Result<(), String> {
    let mut master = Conn::open(t.master, "MasterService", ConnOpts::PLAIN)
        .await
        .map_err(|e| e.to_string())?;
    let mut client = Conn::open(t.rs, "ClientService", ConnOpts::PLAIN)
        .await
        .map_err(|e| e.to_string())?;
    let name = table().to_pb();
    // Drop a leftover from an earlier run (errors: it was not there).
    let _ = call_on(
        &mut master,
        "DisableTable",
        &pb::DisableTableRequest {
            table_name: name.clone(),
            ..Default::default()
        },
    )
    .await;
    wait_state(&mut master, pb::table_state::State::Disabled).await;
    let _ = call_on(
        &mut master,
        "DeleteTable",
        &pb::DeleteTableRequest {
            table_name: name.clone(),
            ..Default::default()
        },
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = call_on(
            &mut master,
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: scenarios::schema(TABLE),
                split_keys: vec![Bytes::from_static(SPLIT)],
                ..Default::default()
            },
        )
        .await;
        match r {
            Ok(_) => break,
            Err(e) if Instant::now() < deadline => {
                eprintln!("{}: create table: {e}; retrying", t.label);
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => return Err(e),
        }
    }
    wait_state(&mut master, pb::table_state::State::Enabled).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let regions = meta_regions(&mut client).await?;
        if regions.len() == 2 {
            t.regions = regions;
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("table regions never came online: {regions:?}"));
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    t.norm.regions = t
        .regions
        .iter()
        .enumerate()
        .map(|(i, (_, n))| (n.clone(), format!("region{i}")))
        .collect();
    t.norm.ports = vec![t.master.port(), t.rs.port()];
    let mut m = Conn::open(t.rs, "ClientMetaService", ConnOpts::PLAIN)
        .await
        .map_err(|e| e.to_string())?;
    let id: pb::GetClusterIdResponse = call_on(&mut m, "GetClusterId", &pb::GetClusterIdRequest {})
        .await?
        .body("id")
        .map_err(|e| e.to_string())?;
    t.norm.cluster_id = id.cluster_id.unwrap_or_default();
    let ctx = Ctx {
        regions: t.regions.clone(),
        scanner: None,
    };
    for m in scenarios::seed() {
        let row = m.row.clone().unwrap_or_default();
        call_on(
            &mut client,
            "Mutate",
            &pb::MutateRequest {
                region: ctx.region_for(&row),
                mutation: m,
                ..Default::default()
            },
        )
        .await?;
    }
    Ok(())
}

async fn wait_state(master: &mut Conn, want: pb::table_state::State) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let r = call_on(
            master,
            "GetTableState",
            &pb::GetTableStateRequest {
                table_name: table().to_pb(),
            },
        )
        .await;
        match r.and_then(|a| {
            a.body::<pb::GetTableStateResponse>("s")
                .map_err(|e| e.to_string())
        }) {
            Ok(s) if s.table_state.state == want as i32 => return,
            Err(e) if e.contains("TableNotFound") => return,
            _ => tokio::time::sleep(Duration::from_millis(300)).await,
        }
    }
}

/// The scenario table's open regions, read from hbase:meta.
async fn meta_regions(client: &mut Conn) -> Result<Vec<(Bytes, Bytes)>, String> {
    let t = table();
    let answer = call_on(
        client,
        "Scan",
        &pb::ScanRequest {
            region: Some(region_spec(Bytes::from_static(meta::META_REGION_NAME))),
            scan: Some(pb::Scan {
                start_row: Some(Bytes::from(format!("{t},,"))),
                stop_row: Some(Bytes::from(format!("{t},zzzz,"))),
                ..Default::default()
            }),
            number_of_rows: Some(100),
            ..Default::default()
        },
    )
    .await?;
    let mut r: pb::ScanResponse = answer.body("scan").map_err(|e| e.to_string())?;
    if std::env::var("HBCLIENT_DIFF_DEBUG").is_ok() {
        eprintln!("meta scan: {r:?}");
    }
    // HBase may answer in several pages; read until the region is done, then close.
    let mut results = std::mem::take(&mut r.results);
    while let Some(id) = r.scanner_id {
        let more = r.more_results_in_region.unwrap_or(false)
            || !results.is_empty()
                && r.more_results == Some(true)
                && r.more_results_in_region.is_none();
        let next = call_on(
            client,
            "Scan",
            &pb::ScanRequest {
                scanner_id: Some(id),
                close_scanner: Some(!more),
                number_of_rows: Some(if more { 100 } else { 0 }),
                ..Default::default()
            },
        )
        .await;
        if !more {
            break;
        }
        let next = next?;
        r = next.body("scan").map_err(|e| e.to_string())?;
        results.append(&mut r.results);
    }
    let r = pb::ScanResponse {
        results,
        ..Default::default()
    };
    let mut out = Vec::new();
    for res in &r.results {
        let mut info = None;
        let mut open = false;
        for c in &res.cell {
            match c.qualifier.as_deref() {
                Some(q) if q == meta::REGIONINFO_QUALIFIER => {
                    info = meta::decode_pb_value::<pb::RegionInfo>(
                        "ri",
                        c.value.as_deref().unwrap_or_default(),
                    )
                    .ok()
                }
                Some(q) if q == meta::STATE_QUALIFIER => open = c.value.as_deref() == Some(b"OPEN"),
                _ => {}
            }
        }
        if let (Some(info), true) = (info, open) {
            let row = res.cell[0].row.clone().unwrap_or_default();
            out.push((info.start_key.unwrap_or_default(), row));
        }
    }
    out.sort();
    Ok(out)
}

/// Runs a scenario on one server; returns its normalized answers.
async fn run(t: &Target, s: &Scenario) -> String {
    let mut conns: HashMap<Svc, Conn> = HashMap::new();
    let mut ctx = Ctx {
        regions: t.regions.clone(),
        scanner: None,
    };
    let mut out = String::new();
    for (i, step) in s.steps.iter().enumerate() {
        match step {
            Step::Sleep(d) => tokio::time::sleep(*d).await,
            Step::Raw { bytes, master } => {
                let addr = if *master { t.master } else { t.rs };
                out.push_str(&format!("## step {i}: raw {} bytes\n", bytes.len()));
                out.push_str(&raw_exchange(addr, bytes, s.messages).await);
            }
            Step::Call(build) => {
                let call = build(&ctx);
                out.push_str(&format!(
                    "## step {i}: {} {}\n",
                    call.svc.name(),
                    call.method
                ));
                let conn = match conns.entry(call.svc) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        let addr = match call.svc {
                            Svc::Master | Svc::MasterMeta => t.master,
                            _ => t.rs,
                        };
                        match Conn::open(addr, call.svc.name(), s.opts).await {
                            Ok(c) => v.insert(c),
                            Err(e) => {
                                out.push_str(&format!("connect failed: {e}\n"));
                                continue;
                            }
                        }
                    }
                };
                match conn.call(call.method, &call.param, &call.cells).await {
                    Ok(answer) => {
                        if call.method == "Scan" {
                            if let Ok(r) = answer.body::<pb::ScanResponse>("scan") {
                                if r.scanner_id.is_some() {
                                    ctx.scanner = r.scanner_id;
                                }
                            }
                        }
                        out.push_str(&render::answer(call.method, &answer, s.messages));
                    }
                    Err(e) => {
                        out.push_str(&format!("no answer: {e}\n"));
                        conns.remove(&call.svc);
                    }
                }
            }
        }
    }
    t.norm.apply(&out)
}

/// Sends raw bytes on a fresh connection and renders every frame that comes back, and whether the
/// server closed the connection.
async fn raw_exchange(addr: SocketAddr, bytes: &[u8], messages: bool) -> String {
    let mut out = String::new();
    let Ok(mut stream) = TcpStream::connect(addr).await else {
        return "connect failed\n".into();
    };
    if stream.write_all(bytes).await.is_err() {
        return "write failed\n".into();
    }
    let mut buf = BytesMut::new();
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match wire::read_frame(&mut stream, &mut buf, left).await {
            Some(frame) => {
                out.push_str(&format!("frame call_id={:?}\n", frame.header.call_id));
                if frame.header.exception.is_some() {
                    out.push_str(&render::answer("", &frame, messages));
                } else {
                    match frame.body::<pb::GetConnectionRegistryResponse>("r") {
                        Ok(r) => out.push_str(&format!("body {r:?}\n")),
                        Err(_) => out.push_str(&format!("body {} bytes\n", frame.body.len())),
                    }
                }
            }
            None => {
                // Closed, or quiet: tell which.
                let mut probe = [0u8; 1];
                let closed = matches!(
                    tokio::time::timeout(Duration::from_millis(200), stream.peek(&mut probe)).await,
                    Ok(Ok(0)) | Ok(Err(_))
                );
                if buf.is_empty() {
                    out.push_str(if closed {
                        "closed by server\n"
                    } else {
                        "open, quiet\n"
                    });
                } else {
                    out.push_str(&format!(
                        "{} unframed bytes: {:02x?}\n",
                        buf.len(),
                        &buf[..]
                    ));
                }
                break;
            }
        }
    }
    out
}
