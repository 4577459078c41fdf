//! Property test: [`RegionStore`] against a brute-force model that keeps every write and
//! evaluates HBase's rules directly on each read.

use std::cmp::Reverse;

use bytes::Bytes;
use hbclient_proto::cell::{Cell, CellType, LATEST_TIMESTAMP};
use proptest::prelude::*;

use super::{FamilySpec, ReadQuery, RegionStore};

const ROWS: [&str; 3] = ["r0", "r1", "r2"];
const QUALIFIERS: [&str; 3] = ["", "q", "z"];

/// `a`: 2 versions; `b`: 1 version; `c`: 3 versions, 1 s TTL.
fn families() -> Vec<FamilySpec> {
    vec![
        FamilySpec::new("a").with_max_versions(2),
        FamilySpec::new("b"),
        FamilySpec::new("c").with_max_versions(3).with_ttl_secs(1),
    ]
}

/// Every write ever made, with resolved timestamps, in order.
struct Model {
    families: Vec<FamilySpec>,
    writes: Vec<Cell>,
}

impl Model {
    fn spec(&self, family: &[u8]) -> &FamilySpec {
        self.families.iter().find(|f| f.name == family).unwrap()
    }

    fn masked(&self, put: &Cell) -> bool {
        self.writes.iter().any(|m| {
            m.row == put.row
                && m.family == put.family
                && match m.cell_type {
                    CellType::DeleteFamily => put.timestamp <= m.timestamp,
                    CellType::DeleteFamilyVersion => put.timestamp == m.timestamp,
                    CellType::DeleteColumn => {
                        m.qualifier == put.qualifier && put.timestamp <= m.timestamp
                    }
                    CellType::Delete => {
                        m.qualifier == put.qualifier && put.timestamp == m.timestamp
                    }
                    _ => false,
                }
        })
    }

    /// Unmasked puts of one column, newest first, the last write winning per timestamp.
    fn column(&self, row: &[u8], family: &[u8], qualifier: &[u8]) -> Vec<Cell> {
        let mut puts: Vec<Cell> = Vec::new();
        for w in &self.writes {
            let here = w.row == row && w.family == family && w.qualifier == qualifier;
            if here && w.cell_type == CellType::Put {
                puts.retain(|p| p.timestamp != w.timestamp);
                puts.push(w.clone());
            }
        }
        puts.retain(|p| !self.masked(p));
        puts.sort_by_key(|c| Reverse(c.timestamp));
        puts
    }

    fn visible(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        range: (u64, u64),
        versions: u32,
        now: u64,
    ) -> Vec<Cell> {
        let spec = self.spec(family);
        let oldest = spec.ttl_secs.map_or(0, |t| now.saturating_sub(t * 1000));
        let limit = versions.max(1).min(spec.max_versions.max(1)) as usize;
        self.column(row, family, qualifier)
            .into_iter()
            .filter(|c| c.timestamp >= oldest && c.timestamp >= range.0 && c.timestamp < range.1)
            .take(limit)
            .collect()
    }

    fn get(&self, row: &[u8], query: &ReadQuery, now: u64) -> Vec<Cell> {
        let mut out = Vec::new();
        for spec in &self.families {
            let wanted: Option<Vec<&Bytes>> = if query.columns.is_empty() {
                None
            } else {
                match query.columns.iter().find(|(f, _)| *f == spec.name) {
                    None => continue,
                    Some((_, qs)) if qs.is_empty() => None,
                    Some((_, qs)) => Some(qs.iter().collect()),
                }
            };
            let mut qualifiers: Vec<Bytes> = self
                .writes
                .iter()
                .filter(|w| w.row == row && w.family == spec.name && w.cell_type == CellType::Put)
                .filter(|w| wanted.as_ref().is_none_or(|qs| qs.contains(&&w.qualifier)))
                .map(|w| w.qualifier.clone())
                .collect();
            qualifiers.sort();
            qualifiers.dedup();
            for q in qualifiers {
                out.extend(self.visible(
                    row,
                    &spec.name,
                    &q,
                    query.time_range,
                    query.max_versions,
                    now,
                ));
            }
        }
        out
    }

    fn apply(&mut self, cells: &[Cell], now: u64) -> Vec<Cell> {
        let mut seen: Vec<(Bytes, Bytes, Bytes)> = Vec::new();
        let resolved: Vec<Cell> = cells
            .iter()
            .map(|c| {
                let mut c = c.clone();
                if c.timestamp == LATEST_TIMESTAMP {
                    c.timestamp = if c.cell_type == CellType::Delete {
                        let key = (c.row.clone(), c.family.clone(), c.qualifier.clone());
                        seen.push(key.clone());
                        let nth = seen.iter().filter(|k| **k == key).count();
                        let versions = self.visible(
                            &c.row,
                            &c.family,
                            &c.qualifier,
                            (0, u64::MAX),
                            nth as u32,
                            now,
                        );
                        versions.get(nth - 1).map_or(now, |v| v.timestamp)
                    } else {
                        now
                    };
                }
                c
            })
            .collect();
        self.writes.extend(resolved.iter().cloned());
        resolved
    }

    fn append(
        &mut self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        suffix: &[u8],
        now: u64,
    ) -> Cell {
        let current = self.visible(row, family, qualifier, (0, u64::MAX), 1, now);
        let (mut value, ts) = match current.first() {
            Some(c) => (c.value.to_vec(), (c.timestamp + 1).max(now)),
            None => (Vec::new(), now),
        };
        value.extend_from_slice(suffix);
        let cell = Cell::put(
            Bytes::copy_from_slice(row),
            Bytes::copy_from_slice(family),
            Bytes::copy_from_slice(qualifier),
            ts,
            value,
        );
        self.writes.push(cell.clone());
        cell
    }

    fn rows_with_puts(&self) -> Vec<Bytes> {
        let mut rows: Vec<Bytes> = self
            .writes
            .iter()
            .filter(|w| w.cell_type == CellType::Put && !self.masked(w))
            .map(|w| w.row.clone())
            .collect();
        rows.sort();
        rows.dedup();
        rows
    }
}

#[derive(Debug, Clone)]
enum Op {
    /// One mutation of several cells.
    Mutate(Vec<Cell>),
    /// An append of one byte to one column.
    Append(Cell),
}

/// A cell with the timestamp still relative: `timestamp` is an offset back from "now", or
/// `LATEST_TIMESTAMP`.
fn any_cell() -> impl Strategy<Value = Cell> {
    let kind = prop::sample::select(vec![
        CellType::Put,
        CellType::Put,
        CellType::Put,
        CellType::Put,
        CellType::Delete,
        CellType::Delete,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
        CellType::DeleteFamilyVersion,
    ]);
    let offset = prop::sample::select(vec![
        LATEST_TIMESTAMP,
        LATEST_TIMESTAMP,
        0,
        1,
        2,
        3,
        5,
        8,
        999,
        1000,
        1001,
    ]);
    (
        0..ROWS.len(),
        0..3usize,
        0..QUALIFIERS.len(),
        kind,
        offset,
        any::<u8>(),
    )
        .prop_map(|(row, family, qualifier, kind, offset, value)| Cell {
            row: Bytes::from_static(ROWS[row].as_bytes()),
            family: Bytes::copy_from_slice(&[b'a' + family as u8]),
            qualifier: Bytes::from_static(QUALIFIERS[qualifier].as_bytes()),
            timestamp: offset,
            cell_type: kind,
            value: if kind == CellType::Put {
                Bytes::copy_from_slice(&[value])
            } else {
                Bytes::new()
            },
        })
}

fn any_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => prop::collection::vec(any_cell(), 1..4).prop_map(Op::Mutate),
        1 => any_cell().prop_map(|c| Op::Append(Cell { cell_type: CellType::Put, ..c })),
    ]
}

fn any_query() -> impl Strategy<Value = ReadQuery> {
    let columns = prop_oneof![
        Just(vec![]),
        (0..3u8).prop_map(|f| vec![(Bytes::copy_from_slice(&[b'a' + f]), vec![])]),
        (0..3u8, prop::sample::subsequence(QUALIFIERS.to_vec(), 1..3)).prop_map(|(f, qs)| {
            let qs = qs
                .into_iter()
                .map(|q| Bytes::from_static(q.as_bytes()))
                .collect();
            vec![(Bytes::copy_from_slice(&[b'a' + f]), qs)]
        }),
    ];
    let range = prop_oneof![
        Just((0, u64::MAX)),
        (0..3000u64, 0..3000u64).prop_map(|(a, b)| (a.min(b), a.max(b))),
    ];
    (columns, range, 1..4u32).prop_map(|(columns, time_range, max_versions)| ReadQuery {
        columns,
        time_range,
        max_versions,
    })
}

/// Turns a relative timestamp into an absolute one.
fn at(mut cell: Cell, now: u64) -> Cell {
    if cell.timestamp != LATEST_TIMESTAMP {
        cell.timestamp = now - cell.timestamp;
    }
    cell
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn store_matches_the_model(
        ops in prop::collection::vec((any_op(), 0..40u64), 1..30),
        queries in prop::collection::vec((any_query(), 0..1500u64), 1..6),
    ) {
        let mut store = RegionStore::new(families());
        let mut model = Model { families: families(), writes: Vec::new() };
        let mut now = 2000;
        for (op, step) in ops {
            now += step;
            match op {
                Op::Mutate(cells) => {
                    let cells: Vec<Cell> = cells.into_iter().map(|c| at(c, now)).collect();
                    let stored = store.apply(&cells, now).unwrap();
                    prop_assert_eq!(stored, model.apply(&cells, now));
                }
                Op::Append(c) => {
                    let part = [(c.family.clone(), c.qualifier.clone(), c.value.clone())];
                    let new = store.append(&c.row, &part, now).unwrap();
                    let expected = model.append(&c.row, &c.family, &c.qualifier, &c.value, now);
                    prop_assert_eq!(new, vec![expected]);
                }
            }
        }
        for (query, later) in queries {
            for row in ROWS {
                let got = store.get(row.as_bytes(), &query, now + later);
                let expected = model.get(row.as_bytes(), &query, now + later);
                prop_assert_eq!(got, expected, "row {} query {:?}", row, query);
            }
        }
        let listed: Vec<Bytes> = store
            .row_keys((std::ops::Bound::Unbounded, std::ops::Bound::Unbounded), false)
            .cloned()
            .collect();
        prop_assert_eq!(listed, model.rows_with_puts());
    }
}
