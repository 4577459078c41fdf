//! Turns answers into normalized text (so two servers can be compared line by line) and prints
//! line diffs.

use std::fmt::Write;

use bytes::Bytes;
use hbclient_proto::cell::{Cell, CellBlockReader};
use hbclient_proto::frame::ResponseFrame;
use hbclient_proto::{meta, pb};

/// What differs between two servers by nature and is replaced before comparing.
#[derive(Debug, Default, Clone)]
pub(crate) struct Norm {
    /// Region names (full and encoded) with their stable labels.
    pub regions: Vec<(Bytes, String)>,
    /// Ports of this server's master and region servers.
    pub ports: Vec<u16>,
    /// The cluster id.
    pub cluster_id: String,
}

impl Norm {
    /// Applies every replacement to a rendered answer.
    pub(crate) fn apply(&self, text: &str) -> String {
        let mut s = text.to_string();
        for (name, label) in &self.regions {
            let enc = meta::encoded_region_name(name);
            s = s.replace(&escape(name), &format!("<{label}>"));
            s = s.replace(&enc, &format!("<{label}.enc>"));
        }
        if !self.cluster_id.is_empty() {
            s = s.replace(&self.cluster_id, "<cluster-id>");
        }
        s = numbers(&s, &self.ports);
        for field in ["scanner_id", "mvcc_read_point", "proc_id", "ttl", "nonce"] {
            s = field_value(&s, field);
        }
        s = stack_traces(&s);
        s
    }
}

/// Bytes as `Bytes`' Debug writes them (without the `b"` and `"`).
pub(crate) fn escape(b: &[u8]) -> String {
    let d = format!("{:?}", Bytes::copy_from_slice(b));
    d[2..d.len() - 1].to_string()
}

/// Long numbers (timestamps, start codes, region ids, random ids) become `<n>`; ports `<port>`.
fn numbers(s: &str, ports: &[u16]) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'\\'))
        {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let tok = &s[i..j];
            if j - i >= 12 {
                out.push_str("<n>");
            } else if tok.parse::<u16>().is_ok_and(|p| ports.contains(&p)) {
                out.push_str("<port>");
            } else {
                out.push_str(tok);
            }
            i = j;
        } else {
            let c = s[i..].chars().next().expect("in bounds");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// `field: Some(N)` becomes `field: Some(<set>)`.
fn field_value(s: &str, field: &str) -> String {
    let pat = format!("{field}: Some(");
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find(&pat) {
        out.push_str(&rest[..at + pat.len()]);
        rest = &rest[at + pat.len()..];
        let end = rest.find(')').unwrap_or(rest.len());
        out.push_str("<set>");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Stringified exceptions inside bytes (`b"org.apache...X: message\n\tat ..."`) are cut to the
/// class name: messages and stack traces differ by nature.
fn stack_traces(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    loop {
        let next = ["b\"org.apache.", "b\"java."]
            .iter()
            .filter_map(|p| rest.find(p))
            .min();
        let Some(at) = next else { break };
        out.push_str(&rest[..at + 2]);
        rest = &rest[at + 2..];
        let bytes = rest.as_bytes();
        let mut end = 0;
        while end < bytes.len() && !(bytes[end] == b'"' && (end == 0 || bytes[end - 1] != b'\\')) {
            end += 1;
        }
        let body = &rest[..end];
        let class = body.split([':', '\\']).next().unwrap_or(body);
        out.push_str(class);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// One cell, with the hbase:meta values that hold ids decoded or hidden.
pub(crate) fn cell_line(c: &Cell) -> String {
    let value = match (c.family.as_ref(), c.qualifier.as_ref()) {
        (meta::CATALOG_FAMILY, meta::REGIONINFO_QUALIFIER) => {
            match meta::decode_pb_value::<pb::RegionInfo>("regioninfo", &c.value) {
                Ok(ri) => format!("PBUF {ri:?}"),
                Err(e) => format!("undecodable regioninfo: {e}"),
            }
        }
        (meta::CATALOG_FAMILY, meta::STARTCODE_QUALIFIER | meta::SEQNUM_QUALIFIER)
            if c.value.len() == 8 =>
        {
            "<8-byte long>".into()
        }
        _ => format!("{:?}", c.value),
    };
    format!(
        "{:?}/{:?}:{:?}/{}/{:?} = {}",
        c.row, c.family, c.qualifier, c.timestamp, c.cell_type, value
    )
}

fn pb_cell(c: &pb::Cell) -> Cell {
    Cell {
        row: c.row.clone().unwrap_or_default(),
        family: c.family.clone().unwrap_or_default(),
        qualifier: c.qualifier.clone().unwrap_or_default(),
        timestamp: c.timestamp.unwrap_or(u64::MAX),
        cell_type: c
            .cell_type
            .and_then(|t| u8::try_from(t).ok())
            .and_then(hbclient_proto::cell::CellType::from_code)
            .unwrap_or(hbclient_proto::cell::CellType::Put),
        value: c.value.clone().unwrap_or_default(),
    }
}

/// A `Result`: flags, then its cells (inline ones and those it takes from the cellblock).
pub(crate) fn result(out: &mut String, indent: &str, r: &pb::Result, block: &mut CellBlockReader) {
    let _ = writeln!(
        out,
        "{indent}Result exists={:?} stale={:?} partial={:?} associated_cell_count={:?} metrics={:?}",
        r.exists, r.stale, r.partial, r.associated_cell_count, r.metrics
    );
    for c in &r.cell {
        let _ = writeln!(out, "{indent}  inline {}", cell_line(&pb_cell(c)));
    }
    let n = r.associated_cell_count.unwrap_or(0).max(0) as usize;
    match block.next_cells(n) {
        Ok(cells) => {
            for c in cells {
                let _ = writeln!(out, "{indent}  block  {}", cell_line(&c));
            }
        }
        Err(e) => {
            let _ = writeln!(out, "{indent}  cellblock error: {e}");
        }
    }
}

/// An exception header: class and flags (the message only when asked for).
pub(crate) fn exception(out: &mut String, e: &pb::ExceptionResponse, with_message: bool) {
    let _ = writeln!(
        out,
        "EXCEPTION {} do_not_retry={:?} server_overloaded={:?} hostname={:?} port={:?}",
        e.exception_class_name.as_deref().unwrap_or("?"),
        e.do_not_retry,
        e.server_overloaded,
        e.hostname.is_some(),
        e.port.is_some()
    );
    if with_message {
        let first = e
            .stack_trace
            .as_deref()
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("");
        let _ = writeln!(out, "  message: {first}");
    }
}

/// Renders the answer to `method` (a `<Method>Response`, or the exception).
pub(crate) fn answer(method: &str, frame: &ResponseFrame, with_message: bool) -> String {
    let mut out = String::new();
    if let Some(e) = &frame.header.exception {
        exception(&mut out, e, with_message);
        return out;
    }
    let _ = writeln!(
        out,
        "cellblock: {}",
        if frame.cellblock.is_empty() {
            "none"
        } else {
            "present"
        }
    );
    let mut block = CellBlockReader::new(frame.cellblock.clone());
    macro_rules! generic {
        ($t:ty) => {
            match frame.body::<$t>("response") {
                Ok(m) => {
                    let _ = writeln!(out, "{m:#?}");
                }
                Err(e) => {
                    let _ = writeln!(out, "undecodable {}: {e}", stringify!($t));
                }
            }
        };
    }
    match method {
        "Get" => match frame.body::<pb::GetResponse>("GetResponse") {
            Ok(r) => match &r.result {
                Some(res) => result(&mut out, "", res, &mut block),
                None => out.push_str("no result\n"),
            },
            Err(e) => {
                let _ = writeln!(out, "undecodable: {e}");
            }
        },
        "Mutate" => match frame.body::<pb::MutateResponse>("MutateResponse") {
            Ok(r) => {
                let _ = writeln!(out, "processed={:?} metrics={:?}", r.processed, r.metrics);
                if let Some(res) = &r.result {
                    result(&mut out, "", res, &mut block);
                }
            }
            Err(e) => {
                let _ = writeln!(out, "undecodable: {e}");
            }
        },
        "Scan" => match frame.body::<pb::ScanResponse>("ScanResponse") {
            Ok(r) => {
                let _ = writeln!(
                    out,
                    "scanner_id={} more_results={:?} more_results_in_region={:?} ttl={} stale={:?} heartbeat={:?} mvcc_read_point={} cursor={:?}",
                    if r.scanner_id.is_some() { "set" } else { "none" },
                    r.more_results,
                    r.more_results_in_region,
                    if r.ttl.is_some() { "set" } else { "none" },
                    r.stale,
                    r.heartbeat_message,
                    if r.mvcc_read_point.is_some() { "set" } else { "none" },
                    r.cursor
                );
                let _ = writeln!(
                    out,
                    "cells_per_result={:?} partial_flag_per_result={:?} query_metrics={}",
                    r.cells_per_result,
                    r.partial_flag_per_result,
                    r.query_metrics.len()
                );
                if let Some(m) = &r.scan_metrics {
                    let names: Vec<_> = m
                        .metrics
                        .iter()
                        .map(|p| p.name.clone().unwrap_or_default())
                        .collect();
                    let _ = writeln!(out, "scan_metrics names={names:?}");
                }
                for res in &r.results {
                    result(&mut out, "", res, &mut block);
                }
                for n in &r.cells_per_result {
                    match block.next_cells(*n as usize) {
                        Ok(cells) => {
                            let _ = writeln!(out, "Result (cellblock, {n} cells)");
                            for c in cells {
                                let _ = writeln!(out, "  block  {}", cell_line(&c));
                            }
                        }
                        Err(e) => {
                            let _ = writeln!(out, "cellblock error: {e}");
                        }
                    }
                }
            }
            Err(e) => {
                let _ = writeln!(out, "undecodable: {e}");
            }
        },
        "Multi" => match frame.body::<pb::MultiResponse>("MultiResponse") {
            Ok(r) => {
                let _ = writeln!(
                    out,
                    "processed={:?} stats={:?}",
                    r.processed,
                    r.region_statistics
                        .as_ref()
                        .map(|st| (st.region.len(), st.stat.len()))
                );
                for (i, rar) in r.region_action_result.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "RegionActionResult[{i}] processed={:?} exception={:?}",
                        rar.processed,
                        rar.exception.as_ref().map(|e| e.name.clone())
                    );
                    for roe in &rar.result_or_exception {
                        let _ = writeln!(
                            out,
                            "  index={:?} exception={:?} has_result={}",
                            roe.index,
                            roe.exception.as_ref().map(|e| e.name.clone()),
                            roe.result.is_some()
                        );
                        if let Some(res) = &roe.result {
                            result(&mut out, "    ", res, &mut block);
                        }
                    }
                }
            }
            Err(e) => {
                let _ = writeln!(out, "undecodable: {e}");
            }
        },
        "GetTableNames" => generic!(pb::GetTableNamesResponse),
        "GetTableDescriptors" => generic!(pb::GetTableDescriptorsResponse),
        "GetTableState" => generic!(pb::GetTableStateResponse),
        "IsMasterRunning" => generic!(pb::IsMasterRunningResponse),
        "ListNamespaces" => generic!(pb::ListNamespacesResponse),
        "ListNamespaceDescriptors" => generic!(pb::ListNamespaceDescriptorsResponse),
        "GetNamespaceDescriptor" => generic!(pb::GetNamespaceDescriptorResponse),
        "ListTableNamesByNamespace" => generic!(pb::ListTableNamesByNamespaceResponse),
        "ListTableDescriptorsByNamespace" => generic!(pb::ListTableDescriptorsByNamespaceResponse),
        "CreateTable" => generic!(pb::CreateTableResponse),
        "DeleteTable" => generic!(pb::DeleteTableResponse),
        "EnableTable" => generic!(pb::EnableTableResponse),
        "DisableTable" => generic!(pb::DisableTableResponse),
        "CreateNamespace" => generic!(pb::CreateNamespaceResponse),
        "DeleteNamespace" => generic!(pb::DeleteNamespaceResponse),
        "getProcedureResult" => generic!(pb::GetProcedureResultResponse),
        "GetClusterId" => generic!(pb::GetClusterIdResponse),
        "GetActiveMaster" => generic!(pb::GetActiveMasterResponse),
        "GetMasters" => generic!(pb::GetMastersResponse),
        "GetMetaRegionLocations" => generic!(pb::GetMetaRegionLocationsResponse),
        _ => {
            let _ = writeln!(out, "body: {} bytes", frame.body.len());
        }
    }
    if block.remaining() > 0 {
        let _ = writeln!(out, "cellblock: {} bytes left over", block.remaining());
    }
    out
}

/// A line diff (longest common subsequence); `-` lines are HBase's, `+` lines mini-hbase's.
pub(crate) fn diff(real: &str, mini: &str) -> Option<String> {
    if real == mini {
        return None;
    }
    let a: Vec<&str> = real.lines().collect();
    let b: Vec<&str> = mini.lines().collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            let _ = writeln!(out, "   {}", a[i]);
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            let _ = writeln!(out, "  +{}", b[j]);
            j += 1;
        } else {
            let _ = writeln!(out, "  -{}", a[i]);
            i += 1;
        }
    }
    Some(out)
}
