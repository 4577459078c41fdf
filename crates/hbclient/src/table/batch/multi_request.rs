//! The `MultiRequest` of one Multi, encoded straight from the batch's actions: byte for byte
//! what prost writes for the `pb::MultiRequest` built from them, without building it (for a
//! buffered flush that was a `MutationProto`, a row clone and a drop per mutation).

use bytes::{Buf, BufMut};
use hbclient_proto::pb;
use hbclient_proto::pb::mutation_proto::MutationType;
use prost::encoding::{
    encode_key, encode_varint, encoded_len_varint, key_len, message, uint32, uint64, DecodeContext,
    WireType,
};

use std::sync::Arc;

use super::{Action, Prepared};
use crate::locate::RegionLocation;
use crate::table::ops::{delimited_len, put_delimited_field, MutationCore};

/// A Multi's request as a borrowed view of its actions; a `prost::Message` so the RPC layer
/// sends it like any other request.
pub(super) struct MultiRequestView<'a> {
    actions: &'a [Action],
    prepared: &'a [Prepared],
    /// The actions by region, as positions in `prepared` (a `ServerWork` piece).
    work: &'a [(Arc<RegionLocation>, Vec<usize>)],
    /// Set when an action carries a nonce, as the built request did.
    nonce_group: Option<u64>,
    /// The gets' messages, in the order they are sent (built once: they are rare in Multis
    /// and carry nested messages of their own).
    gets: Vec<pb::Get>,
    /// Each `RegionAction`'s encoded length, in `work` order.
    region_lens: Vec<usize>,
}

/// What one action carries besides its index.
enum Body<'a> {
    /// A get, as the `nth` of the view's gets.
    Get(usize),
    /// A mutation's header (its cells go in the cellblock).
    Mutation(&'a MutationCore, MutationType, Option<u64>),
}

impl<'a> MultiRequestView<'a> {
    /// The request for `work`, the positions of `actions` (through `prepared`) by region.
    pub(super) fn new(
        actions: &'a [Action],
        prepared: &'a [Prepared],
        work: &'a [(Arc<RegionLocation>, Vec<usize>)],
        nonce_group: u64,
    ) -> MultiRequestView<'a> {
        let mut view = MultiRequestView {
            actions,
            prepared,
            work,
            nonce_group: None,
            gets: Vec::new(),
            region_lens: Vec::with_capacity(work.len()),
        };
        for (_, positions) in work {
            for &pos in positions {
                let p = &prepared[pos];
                match &actions[p.index] {
                    Action::Get(g) => view.gets.push(g.to_pb()),
                    _ if p.nonce.is_some() => view.nonce_group = Some(nonce_group),
                    _ => {}
                }
            }
        }
        let mut nth_get = 0;
        for (loc, positions) in work {
            let actions_len: usize = positions
                .iter()
                .map(|&pos| {
                    let body = view.body(pos, &mut nth_get);
                    delimited_len(3, view.action_len(pos, &body))
                })
                .sum();
            view.region_lens
                .push(delimited_len(1, specifier_len(&loc.name)) + actions_len);
        }
        view
    }

    /// What the action at `pos` carries; `nth_get` counts the gets met so far.
    fn body(&self, pos: usize, nth_get: &mut usize) -> Body<'a> {
        let p = &self.prepared[pos];
        match &self.actions[p.index] {
            Action::Get(_) => {
                *nth_get += 1;
                Body::Get(*nth_get - 1)
            }
            Action::Put(m) => Body::Mutation(&m.core, MutationType::Put, p.nonce),
            Action::Delete(m) => Body::Mutation(&m.core, MutationType::Delete, p.nonce),
            Action::Increment(m) => Body::Mutation(&m.core, MutationType::Increment, p.nonce),
            Action::Append(m) => Body::Mutation(&m.core, MutationType::Append, p.nonce),
        }
    }

    /// Encoded length of the `Action` at `pos` carrying `body` (without its key and length).
    fn action_len(&self, pos: usize, body: &Body<'_>) -> usize {
        let body = match *body {
            Body::Get(n) => message::encoded_len(3, &self.gets[n]),
            Body::Mutation(core, kind, nonce) => delimited_len(2, core.header_len(kind, nonce)),
        };
        uint32::encoded_len(1, &(pos as u32)) + body
    }
}

/// Encoded length of a `RegionSpecifier` naming a region by its full name.
fn specifier_len(name: &[u8]) -> usize {
    key_len(1) + encoded_len_varint(REGION_NAME as u64) + delimited_len(2, name.len())
}

const REGION_NAME: i32 = pb::region_specifier::RegionSpecifierType::RegionName as i32;

impl prost::Message for MultiRequestView<'_> {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        let mut nth_get = 0;
        for ((loc, positions), &region_len) in self.work.iter().zip(&self.region_lens) {
            // MultiRequest.region_action = 1
            encode_key(1, WireType::LengthDelimited, buf);
            encode_varint(region_len as u64, buf);
            // RegionAction.region = 1: RegionSpecifier { type = 1, value = 2 }
            encode_key(1, WireType::LengthDelimited, buf);
            encode_varint(specifier_len(&loc.name) as u64, buf);
            prost::encoding::int32::encode(1, &REGION_NAME, buf);
            put_delimited_field(2, &loc.name, buf);
            for &pos in positions {
                // RegionAction.action = 3: Action { index = 1, mutation = 2, get = 3 }
                let body = self.body(pos, &mut nth_get);
                encode_key(3, WireType::LengthDelimited, buf);
                encode_varint(self.action_len(pos, &body) as u64, buf);
                uint32::encode(1, &(pos as u32), buf);
                match body {
                    Body::Get(n) => message::encode(3, &self.gets[n], buf),
                    Body::Mutation(core, kind, nonce) => {
                        encode_key(2, WireType::LengthDelimited, buf);
                        encode_varint(core.header_len(kind, nonce) as u64, buf);
                        core.write_header(kind, nonce, buf);
                    }
                }
            }
        }
        if let Some(group) = self.nonce_group {
            uint64::encode(2, &group, buf);
        }
    }

    /// A view borrows the batch it encodes and has nowhere to keep decoded fields: decoding
    /// into it reads past them.
    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.region_lens
            .iter()
            .map(|&len| delimited_len(1, len))
            .sum::<usize>()
            + self.nonce_group.map_or(0, |g| uint64::encoded_len(2, &g))
    }

    /// Makes the view an empty request.
    fn clear(&mut self) {
        self.work = &[];
        self.nonce_group = None;
        self.gets.clear();
        self.region_lens.clear();
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use prost::Message;

    use super::*;
    use crate::table::ops::{Append, Delete, Get, Increment, Put};

    fn region(name: &[u8]) -> Arc<RegionLocation> {
        Arc::new(RegionLocation {
            table: hbclient_proto::meta::TableName::parse("t").unwrap(),
            name: Bytes::copy_from_slice(name),
            start: Bytes::new(),
            end: Bytes::new(),
            server: "s:1".into(),
            replica_id: 0,
            replicas: Vec::new(),
        })
    }

    /// The request as it was built before the view: prost structs for every action.
    fn built(actions: &[Action], prepared: &[Prepared], work: &ServerWork, group: u64) -> Vec<u8> {
        let mut request = pb::MultiRequest::default();
        for (loc, positions) in work {
            let mut region_action = pb::RegionAction {
                region: loc.specifier(),
                ..Default::default()
            };
            for &pos in positions {
                let p = &prepared[pos];
                let mut action = pb::Action {
                    index: Some(pos as u32),
                    ..Default::default()
                };
                match &actions[p.index] {
                    Action::Get(g) => action.get = Some(g.to_pb()),
                    other => {
                        let (core, kind) = other.write().unwrap();
                        action.mutation = Some(core.to_pb(kind, p.nonce));
                        if p.nonce.is_some() {
                            request.nonce_group = Some(group);
                        }
                    }
                }
                region_action.action.push(action);
            }
            request.region_action.push(region_action);
        }
        request.encode_to_vec()
    }

    fn prepared(actions: &[Action], nonces: bool) -> Vec<Prepared> {
        (0..actions.len())
            .map(|index| Prepared {
                index,
                nonce: (nonces
                    && matches!(actions[index], Action::Increment(_) | Action::Append(_)))
                .then_some(u64::MAX - index as u64),
                size: 0,
                cells: 0,
            })
            .collect()
    }

    use super::super::ServerWork;

    #[test]
    fn views_encode_as_the_built_request() {
        let long_value = vec![9u8; 300];
        let actions = vec![
            Action::Put(Put::new("r0").add("f", "q", "v")),
            Action::Get(Get::new("r1").time_range(1, 2)),
            Action::Put(
                Put::with_timestamp(vec![b'k'; 200], 42)
                    .add("f", "q", long_value.clone())
                    .attribute("a", long_value.clone()),
            ),
            Action::Delete(Delete::new("r3")),
            Action::Increment(Increment::new("r4").add("f", "n", 1)),
            Action::Append(Append::new("r5").add("f", "s", "x")),
            Action::Get(Get::new("r6")),
        ];
        let many: Vec<usize> = (0..actions.len()).collect();
        let layouts: Vec<ServerWork> = vec![
            vec![(region(b"t,,1.a."), many.clone())],
            vec![
                (region(b"t,,1.a."), vec![0, 2, 3]),
                (region(&[b'x'; 130]), vec![1, 6]),
                (region(b"t,r4,2.b."), vec![4, 5]),
            ],
            vec![(region(b"t,,1.a."), vec![5])],
            Vec::new(),
        ];
        for nonces in [false, true] {
            let prepared = prepared(&actions, nonces);
            for work in &layouts {
                let view = MultiRequestView::new(&actions, &prepared, work, 77);
                let want = built(&actions, &prepared, work, 77);
                assert_eq!(view.encode_to_vec(), want, "nonces {nonces}, work {work:?}");
                assert_eq!(view.encoded_len(), want.len());
            }
        }
        // 20,000 puts in one region: lengths past every small varint boundary.
        let puts: Vec<Action> = (0..20_000)
            .map(|i| Action::Put(Put::new(format!("row{i:08}")).add("f", "q", long_value.clone())))
            .collect();
        let prepared = prepared(&puts, false);
        let work = vec![(region(b"t,,1.a."), (0..puts.len()).collect())];
        let view = MultiRequestView::new(&puts, &prepared, &work, 1);
        assert_eq!(view.encode_to_vec(), built(&puts, &prepared, &work, 1));
    }
}
