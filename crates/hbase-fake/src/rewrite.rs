//! Server addresses in answers, rewritten from the upstream servers' ports to the proxy's:
//! registry answers (`ServerName`s), `hbase:meta` rows (`info:server*` = `host:port`,
//! `info:sn*` = `host,port,startcode`) and `RegionMovedException`'s host and port.

use std::collections::HashMap;
use std::net::SocketAddr;

use bytes::Bytes;
use hbclient_proto::cell::{encode_cellblock, Cell, CellBlockReader};
use hbclient_proto::pb;
use prost::Message;

use crate::Answer;

/// Upstream port to proxy port.
pub(crate) struct Ports {
    map: HashMap<u16, u16>,
}

impl Ports {
    pub(crate) fn new(fronts: &[(SocketAddr, SocketAddr)]) -> Ports {
        Ports {
            map: fronts
                .iter()
                .map(|(up, front)| (up.port(), front.port()))
                .collect(),
        }
    }

    fn port(&self, port: u16) -> Option<u16> {
        self.map.get(&port).copied()
    }

    fn server_name(&self, sn: &mut pb::ServerName) -> bool {
        match sn
            .port
            .and_then(|p| u16::try_from(p).ok())
            .and_then(|p| self.port(p))
        {
            Some(front) => {
                sn.port = Some(u32::from(front));
                true
            }
            None => false,
        }
    }

    /// Rewrites the addresses in `answer`; true when something changed.
    pub(crate) fn rewrite(&self, answer: &mut Answer) -> bool {
        if let Some(e) = &mut answer.header.exception {
            let moved = e
                .port
                .and_then(|p| u16::try_from(p).ok())
                .and_then(|p| self.port(p));
            if let Some(front) = moved {
                e.port = Some(i32::from(front));
                return true;
            }
            return false;
        }
        match answer.method.as_str() {
            "GetMetaRegionLocations" => {
                self.edit(answer, |r: &mut pb::GetMetaRegionLocationsResponse, p| {
                    let mut changed = false;
                    for loc in &mut r.meta_locations {
                        if let Some(sn) = &mut loc.server_name {
                            changed |= p.server_name(sn);
                        }
                    }
                    changed
                })
            }
            "GetActiveMaster" => self.edit(answer, |r: &mut pb::GetActiveMasterResponse, p| {
                r.server_name.as_mut().is_some_and(|sn| p.server_name(sn))
            }),
            "GetBootstrapNodes" => self.edit(answer, |r: &mut pb::GetBootstrapNodesResponse, p| {
                r.server_name
                    .iter_mut()
                    .fold(false, |c, sn| p.server_name(sn) | c)
            }),
            "GetMasters" => self.edit(answer, |r: &mut pb::GetMastersResponse, p| {
                r.master_servers
                    .iter_mut()
                    .fold(false, |c, m| p.server_name(&mut m.server_name) | c)
            }),
            "Scan" => self.scan(answer),
            _ => false,
        }
    }

    fn edit<M: Message + Default>(
        &self,
        answer: &mut Answer,
        change: impl FnOnce(&mut M, &Ports) -> bool,
    ) -> bool {
        let Some(mut body) = answer.body::<M>() else {
            return false;
        };
        if !change(&mut body, self) {
            return false;
        }
        answer.set_body(&body);
        true
    }

    /// Meta rows: cell values that name an upstream server.
    fn scan(&self, answer: &mut Answer) -> bool {
        let Some(mut response) = answer.body::<pb::ScanResponse>() else {
            return false;
        };
        let mut changed = false;
        for result in &mut response.results {
            for cell in &mut result.cell {
                if let (Some(q), Some(v)) = (&cell.qualifier, &mut cell.value) {
                    if let Some(new) = self.value(q, v) {
                        *v = new;
                        changed = true;
                    }
                }
            }
        }
        if changed {
            answer.set_body(&response);
        }
        if answer.cellblock.is_empty() {
            return changed;
        }
        let mut cells: Vec<Cell> = Vec::new();
        for cell in CellBlockReader::new(answer.cellblock.clone()) {
            match cell {
                Ok(cell) => cells.push(cell),
                // Compressed or broken: not ours to touch.
                Err(_) => return changed,
            }
        }
        let mut block_changed = false;
        for cell in &mut cells {
            if let Some(new) = self.value(&cell.qualifier, &cell.value) {
                cell.value = new;
                block_changed = true;
            }
        }
        if block_changed {
            answer.cellblock = encode_cellblock(&cells);
        }
        changed || block_changed
    }

    /// The new value of a meta cell that names a server, if it names an upstream one.
    fn value(&self, qualifier: &[u8], value: &[u8]) -> Option<Bytes> {
        let text = std::str::from_utf8(value).ok()?;
        if qualifier.starts_with(b"server") && !qualifier.starts_with(b"serverstartcode") {
            let (host, port) = text.rsplit_once(':')?;
            let front = self.port(port.parse().ok()?)?;
            return Some(format!("{host}:{front}").into());
        }
        if qualifier.starts_with(b"sn") {
            let mut parts = text.splitn(3, ',');
            let (host, port, rest) = (parts.next()?, parts.next()?, parts.next()?);
            let front = self.port(port.parse().ok()?)?;
            return Some(format!("{host},{front},{rest}").into());
        }
        None
    }
}
