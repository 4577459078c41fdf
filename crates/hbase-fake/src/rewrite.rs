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

#[cfg(test)]
mod tests {
    use super::*;

    fn ports() -> Ports {
        let up: SocketAddr = "127.0.0.1:16020".parse().unwrap();
        let front: SocketAddr = "127.0.0.1:40001".parse().unwrap();
        Ports::new(&[(up, front)])
    }

    #[test]
    fn meta_cells_naming_an_upstream_server_name_the_proxy() {
        let p = ports();
        assert_eq!(
            p.value(b"server", b"127.0.0.1:16020").as_deref(),
            Some(&b"127.0.0.1:40001"[..])
        );
        assert_eq!(
            p.value(b"server_0001", b"localhost:16020").as_deref(),
            Some(&b"localhost:40001"[..])
        );
        assert_eq!(
            p.value(b"sn", b"127.0.0.1,16020,17").as_deref(),
            Some(&b"127.0.0.1,40001,17"[..])
        );
        // Other servers, other columns and start codes stay as they are.
        assert_eq!(p.value(b"server", b"127.0.0.1:9"), None);
        assert_eq!(p.value(b"serverstartcode", b"127.0.0.1:16020"), None);
        assert_eq!(p.value(b"regioninfo", b"127.0.0.1:16020"), None);
    }

    #[test]
    fn registry_answers_and_moved_exceptions_name_the_proxy() {
        let p = ports();
        let mut answer = Answer {
            method: "GetActiveMaster".into(),
            header: pb::ResponseHeader::default(),
            body: pb::GetActiveMasterResponse {
                server_name: Some(pb::ServerName {
                    host_name: "127.0.0.1".into(),
                    port: Some(16020),
                    start_code: Some(1),
                }),
            }
            .encode_to_vec()
            .into(),
            cellblock: Bytes::new(),
        };
        assert!(p.rewrite(&mut answer));
        let r: pb::GetActiveMasterResponse = answer.body().unwrap();
        assert_eq!(r.server_name.unwrap().port, Some(40001));
        answer.set_exception(
            "org.apache.hadoop.hbase.exceptions.RegionMovedException",
            "moved",
        );
        answer.header.exception.as_mut().unwrap().port = Some(16020);
        assert!(p.rewrite(&mut answer));
        assert_eq!(answer.header.exception.unwrap().port, Some(40001));
    }
}
