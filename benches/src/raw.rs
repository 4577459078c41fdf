//! raw-limit: the ceiling any client could reach against this server on this machine.
//!
//! One Get frame for one existing row is encoded once. Its call id is a 5-byte varint at a known
//! offset (ids stay in `[2^28, 2^32)`, where every varint is 5 bytes), so each send copies the
//! template into the output buffer and patches the id in place. One plain TCP connection
//! (preamble, then a ConnectionHeader for ClientService with KeyValueCodec) carries `in_flight`
//! calls; as answers arrive, their slots are re-sent, all frames of one read going out in one
//! write. No region lookup, no retries, no response decoding beyond the response header.
//!
//! Where the frames go (the region of row 0 and its server) is found before the phase through
//! hbclient's public region listing (`Admin::table_regions`): aiming the ceiling is not part of
//! what it measures, so it need not bypass the client, and the bench keeps no second meta
//! reader to drift from the client's.

use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use hbclient_proto::frame::{self, ResponseFrame};
use hbclient_proto::pb;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::error::{ctx, BenchResult};
use crate::keys::{row_key, Rng};
use crate::measure::{Outcome, Phase, Plan, Totals};
use crate::report::PhaseReport;

/// Smallest call id used: from here on every `uint32` varint is 5 bytes long.
const ID_BASE: u32 = 1 << 28;
/// Ids cycle within `[ID_BASE, ID_BASE + ID_SPAN)`.
const ID_SPAN: u32 = 1 << 27;

/// What to pipeline, and where.
#[derive(Debug, Clone)]
pub(crate) struct RawSpec {
    /// `host:port` of the region server.
    pub(crate) server: String,
    /// Full region name of the rows' region.
    pub(crate) region: Bytes,
    /// The rows to get, each picked at random per call (they must exist). The same keys the
    /// measured client reads, so both make the server do the same work: reading one hot row
    /// instead flatters the ceiling (on mini-hbase by up to 1.6x at 64 in flight).
    pub(crate) rows: Vec<Bytes>,
    /// Calls in flight.
    pub(crate) in_flight: usize,
}

/// The pre-encoded frame and where its call id sits.
#[derive(Debug, Clone)]
pub(crate) struct Template {
    pub(crate) frame: Bytes,
    pub(crate) id_at: usize,
}

/// The 5-byte varint of an id in `[2^28, 2^32)`.
fn varint5(id: u32) -> [u8; 5] {
    debug_assert!(id >= ID_BASE);
    [
        (id as u8 & 0x7f) | 0x80,
        ((id >> 7) as u8 & 0x7f) | 0x80,
        ((id >> 14) as u8 & 0x7f) | 0x80,
        ((id >> 21) as u8 & 0x7f) | 0x80,
        (id >> 28) as u8,
    ]
}

impl Template {
    /// Encodes the Get frame once, exactly as hbclient would send it.
    pub(crate) fn get(region: &Bytes, row: &Bytes) -> BenchResult<Template> {
        let header = pb::RequestHeader {
            call_id: Some(ID_BASE),
            method_name: Some("Get".into()),
            timeout: Some(60_000),
            ..Default::default()
        };
        let request = pb::GetRequest {
            region: pb::RegionSpecifier {
                r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
                value: region.clone(),
            },
            get: pb::Get {
                row: row.clone(),
                max_versions: Some(1),
                ..Default::default()
            },
        };
        let frame = frame::encode_request(header, &request, &[]);
        // Frame: u32 length, varint header length, then the header, whose first field is
        // call_id (field 1, varint: tag 0x08).
        let header_len = prost::decode_length_delimiter(&frame[4..])
            .map_err(ctx("raw-limit: encoded header"))?;
        let id_at = 4 + prost::length_delimiter_len(header_len) + 1;
        if frame.get(id_at - 1) != Some(&0x08)
            || frame.get(id_at..id_at + 5) != Some(&varint5(ID_BASE)[..])
        {
            return Err("raw-limit: the call id is not where expected in the encoded frame".into());
        }
        Ok(Template { frame, id_at })
    }

    /// Appends the frame with `id` patched in.
    pub(crate) fn push(&self, out: &mut BytesMut, id: u32) {
        let at = out.len() + self.id_at;
        out.put_slice(&self.frame);
        out[at..at + 5].copy_from_slice(&varint5(id));
    }
}

/// The connection preamble and header hbclient sends for `service`.
fn hello(service: &str) -> Bytes {
    let header = pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: std::env::var("USER").unwrap_or_else(|_| "hbclient".into()),
            real_user: None,
        }),
        service_name: Some(service.into()),
        cell_block_codec_class: Some(frame::KEY_VALUE_CODEC_CLASS.to_string()),
        cell_block_compressor_class: None,
        version_info: Some(pb::VersionInfo {
            version: "2.6.0".into(),
            url: "hbclient-bench".into(),
            revision: env!("CARGO_PKG_VERSION").into(),
            user: "hbclient".into(),
            date: String::new(),
            src_checksum: String::new(),
            version_major: Some(2),
            version_minor: Some(6),
        }),
        rpc_crypto_cipher_transformation: None,
        attribute: Vec::new(),
    };
    let mut out = BytesMut::new();
    out.put_slice(&frame::SIMPLE_PREAMBLE);
    out.put_slice(&frame::encode_connection_header(&header));
    out.freeze()
}

/// Checks one answer fully (the first): no exception, and the row came back.
fn check_first(response: &ResponseFrame) -> BenchResult<()> {
    if let Some(e) = &response.header.exception {
        return Err(format!(
            "raw-limit: the server answered {}: {}",
            e.exception_class_name.as_deref().unwrap_or("an exception"),
            e.stack_trace
                .as_deref()
                .unwrap_or("")
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    let body: pb::GetResponse = response
        .body("GetResponse")
        .map_err(ctx("raw-limit: GetResponse"))?;
    let cells = body.result.as_ref().map_or(0, |r| {
        r.cell.len() as i64 + i64::from(r.associated_cell_count.unwrap_or(0))
    });
    if cells == 0 {
        return Err("raw-limit: the row is missing (was the table loaded?)".into());
    }
    Ok(())
}

/// Runs raw-limit under `plan` and reports it like a client phase.
pub(crate) async fn run(
    spec: &RawSpec,
    plan: Plan,
    show_progress: bool,
) -> BenchResult<PhaseReport> {
    if spec.rows.is_empty() {
        return Err("raw-limit: no rows to read".into());
    }
    let templates = spec
        .rows
        .iter()
        .map(|row| Template::get(&spec.region, row))
        .collect::<BenchResult<Vec<Template>>>()?;
    let mut rng = Rng::new(0x7A57_1171);
    let count = templates.len() as u64;
    let mut pick = move || rng.below(count) as usize;
    let mut stream = TcpStream::connect(&spec.server)
        .await
        .map_err(ctx(&format!("raw-limit: connecting to {}", spec.server)))?;
    let _ = stream.set_nodelay(true);
    stream
        .write_all(&hello("ClientService"))
        .await
        .map_err(ctx("raw-limit: handshake"))?;
    let slots = spec.in_flight.max(1);
    let cycle = (ID_SPAN / slots as u32).max(1);
    let id_of = |slot: usize, round: u32| ID_BASE + (round % cycle) * slots as u32 + slot as u32;
    let mut sent_at = vec![Instant::now(); slots];
    let mut rounds = vec![0u32; slots];

    let phase = Phase::start(plan, "raw-limit", show_progress);
    let mut rec = phase.recorder();
    let largest = templates.iter().map(|t| t.frame.len()).max().unwrap_or(0);
    let mut out = BytesMut::with_capacity(largest * slots);
    let mut outstanding = 0usize;
    for (slot, at) in sent_at.iter_mut().enumerate() {
        if phase.shared.claim(&phase.plan, phase.started).is_none() {
            break;
        }
        *at = Instant::now();
        templates[pick()].push(&mut out, id_of(slot, 0));
        outstanding += 1;
    }
    stream
        .write_all(&out)
        .await
        .map_err(ctx("raw-limit: write"))?;
    out.clear();
    let mut input = BytesMut::with_capacity(256 * 1024);
    let mut checked = false;
    let timeout = Duration::from_secs(60);
    while outstanding > 0 {
        let n = tokio::time::timeout(timeout, stream.read_buf(&mut input))
            .await
            .map_err(|_| "raw-limit: no answer for 60 s".to_string())?
            .map_err(ctx("raw-limit: read"))?;
        if n == 0 {
            return Err("raw-limit: the server closed the connection".into());
        }
        while let Some(body) = frame::take_frame(&mut input, frame::DEFAULT_MAX_FRAME_LEN)
            .map_err(ctx("raw-limit: frame"))?
        {
            let response = ResponseFrame::decode(body).map_err(ctx("raw-limit: response"))?;
            if !checked {
                check_first(&response)?;
                checked = true;
            }
            let id = response.header.call_id.unwrap_or(0);
            if id < ID_BASE {
                return Err(format!("raw-limit: unexpected call id {id}"));
            }
            let slot = ((id - ID_BASE) % slots as u32) as usize;
            let outcome = match &response.header.exception {
                None => Ok(Outcome { rows: 1, misses: 0 }),
                Some(e) => Err(e.exception_class_name.clone().unwrap_or_default()),
            };
            rec.done(sent_at[slot], outcome);
            phase
                .shared
                .completed
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if phase.shared.claim(&phase.plan, phase.started).is_some() {
                rounds[slot] = rounds[slot].wrapping_add(1);
                sent_at[slot] = Instant::now();
                templates[pick()].push(&mut out, id_of(slot, rounds[slot]));
            } else {
                outstanding -= 1;
            }
        }
        if !out.is_empty() {
            stream
                .write_all(&out)
                .await
                .map_err(ctx("raw-limit: write"))?;
            out.clear();
        }
    }
    let mut totals = Totals::empty();
    totals.merge(rec.finish());
    Ok(phase.finish(totals))
}

/// Most distinct rows raw-limit pre-encodes Get frames for.
const RAW_ROWS_MAX: u64 = 1 << 17;

/// The keys of `0..rows` that `keep` accepts: all of them when there are at most
/// [`RAW_ROWS_MAX`], else that many drawn at random (as randomRead draws them), deduplicated.
pub(crate) fn rows_read_in(rows: u64, seed: u64, keep: impl Fn(&[u8]) -> bool) -> Vec<Bytes> {
    let mut picked: Vec<u64> = if rows <= RAW_ROWS_MAX {
        (0..rows).collect()
    } else {
        let mut rng = Rng::new(seed ^ 0x4A57);
        (0..RAW_ROWS_MAX).map(|_| rng.below(rows)).collect()
    };
    picked.sort_unstable();
    picked.dedup();
    picked
        .into_iter()
        .map(row_key)
        .filter(|key| keep(key))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_patch_in_place() {
        let region = Bytes::from_static(b"t,,1.abc.");
        let row = Bytes::from_static(b"00000000000000000000000000");
        let t = Template::get(&region, &row).unwrap();
        let mut out = BytesMut::new();
        t.push(&mut out, ID_BASE + 12345);
        t.push(&mut out, u32::MAX - 1);
        assert_eq!(out.len(), 2 * t.frame.len());
        for (i, want) in [(0, ID_BASE + 12345), (1, u32::MAX - 1)] {
            let mut one = BytesMut::from(&out[i * t.frame.len()..(i + 1) * t.frame.len()]);
            let body = frame::take_frame(&mut one, 1 << 20).unwrap().unwrap();
            let request = frame::RequestFrame::decode(body).unwrap();
            assert_eq!(request.header.call_id, Some(want));
            let get: pb::GetRequest = request.param("GetRequest").unwrap();
            assert_eq!(get.get.row, row);
        }
    }

    #[test]
    fn raw_limit_reads_the_clients_rows_inside_its_region() {
        let all = rows_read_in(1000, 42, |_| true);
        assert_eq!(all.len(), 1000);
        assert_eq!(all[0], row_key(0));
        let upper = row_key(500);
        let low = rows_read_in(1000, 42, |k| k < &upper[..]);
        assert_eq!(low.len(), 500, "only the rows of the region");
        let sampled = rows_read_in(10_000_000, 42, |_| true);
        assert!(sampled.len() <= RAW_ROWS_MAX as usize && sampled.len() > 100_000);
        assert!(
            sampled.windows(2).all(|w| w[0] < w[1]),
            "sorted, no repeats"
        );
    }
}
