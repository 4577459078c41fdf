//! Tests of `state` (kept beside it so the module itself stays readable).
use super::*;
use hbclient_proto::cell::CellType;

fn cell(row: &str, value: &str) -> Cell {
    Cell {
        row: Bytes::copy_from_slice(row.as_bytes()),
        family: Bytes::from_static(b"f"),
        qualifier: Bytes::from_static(b"q"),
        timestamp: 1,
        cell_type: CellType::Put,
        value: Bytes::copy_from_slice(value.as_bytes()),
    }
}

/// An answer as the server sends it with a codec: counts in the message, cells in the block.
fn answer(results: &[(&[Cell], bool)]) -> (pb::ScanResponse, Bytes) {
    let mut block = Vec::new();
    let mut response = pb::ScanResponse::default();
    for (cells, partial) in results {
        for c in *cells {
            c.encode(&mut block);
        }
        response.cells_per_result.push(cells.len() as u32);
        response.partial_flag_per_result.push(*partial);
    }
    (response, Bytes::from(block))
}

fn inside(part: &Bytes, whole: &Bytes) -> bool {
    let (start, end) = (
        whole.as_ptr() as usize,
        whole.as_ptr() as usize + whole.len(),
    );
    let p = part.as_ptr() as usize;
    part.is_empty() || (p >= start && p + part.len() <= end)
}

/// Rows reach the caller as slices of the received cellblock: every key part and value of
/// every cell points into the answer's buffer, even for a row stitched from two answers.
#[test]
fn rows_are_slices_of_the_cellblock() {
    let mut rows = Assembly::new(&Scan::new());
    let (a, b) = (cell("r1", "one"), cell("r2", "two-a"));
    let (first, block1) = answer(&[(&[a], false), (&[b], true)]);
    let got1 = rows
        .take(scan_results(&first, block1.clone()).unwrap())
        .unwrap();
    let mut c = cell("r2", "two-b");
    c.qualifier = Bytes::from_static(b"r");
    let (second, block2) = answer(&[(&[c], false)]);
    let got2 = rows
        .take(scan_results(&second, block2.clone()).unwrap())
        .unwrap();
    assert_eq!(got1.len(), 1);
    assert_eq!(got2.len(), 1);
    assert_eq!(got2[0].len(), 2, "the partial row is stitched");
    let check = |cell: &Cell, block: &Bytes| {
        for part in [&cell.row, &cell.family, &cell.qualifier, &cell.value] {
            assert!(
                inside(part, block),
                "{part:?} was copied out of the cellblock"
            );
        }
    };
    check(&got1[0].cells()[0], &block1);
    check(&got2[0].cells()[0], &block1);
    check(&got2[0].cells()[1], &block2);
    assert!(inside(got2[0].row(), &block1));
}

/// A whole row keeps the vector its cells were decoded into: no second allocation per row,
/// none larger than the row (a scan holds up to a max result size of these per answer).
#[test]
fn whole_rows_keep_their_decoded_cells_without_reallocating() {
    let mut rows = Assembly::new(&Scan::new());
    let (one, two) = (cell("r1", "one"), cell("r2", "two"));
    let (answer1, block) = answer(&[(&[one], false), (&[two.clone(), two], false)]);
    let got = rows.take(scan_results(&answer1, block).unwrap()).unwrap();
    assert_eq!(got.len(), 2);
    for row in &got {
        assert_eq!(
            row.cells.capacity(),
            row.cells.len(),
            "row {:?} holds room for more cells than it has",
            row.row()
        );
    }
    assert!(got.capacity() <= 2, "room for the rows of this answer only");
}

#[test]
fn a_cursor_moves_the_resume_point_forward_only() {
    let scan = Scan::new();
    let mut rows = Assembly::new(&scan);
    rows.advance_to_cursor(&Bytes::from_static(b"m"), false);
    assert_eq!(
        (&rows.resume.row[..], rows.resume.inclusive),
        (&b"m"[..], true)
    );
    rows.advance_to_cursor(&Bytes::from_static(b"c"), false);
    assert_eq!(&rows.resume.row[..], b"m", "never backwards");
    rows.take(vec![(vec![cell("p", "v")], false)]).unwrap();
    assert_eq!(
        (&rows.resume.row[..], rows.resume.inclusive),
        (&b"p"[..], false)
    );
    // Half a row received: a reopen must restart that row, whatever the cursor says.
    rows.take(vec![(vec![cell("r", "v")], true)]).unwrap();
    rows.advance_to_cursor(&Bytes::from_static(b"t"), false);
    assert_eq!(&rows.resume.row[..], b"p");
    // Reversed scans move towards smaller rows.
    let mut back = Assembly::new(&Scan::new().reversed());
    back.advance_to_cursor(&Bytes::from_static(b"m"), true);
    back.advance_to_cursor(&Bytes::from_static(b"x"), true);
    assert_eq!(
        (&back.resume.row[..], back.resume.inclusive),
        (&b"m"[..], true)
    );
}

fn keys(rows: &[RowResult]) -> Vec<&[u8]> {
    rows.iter().map(|r| &r.row()[..]).collect()
}

fn whole(rows: &[&str]) -> Vec<(Vec<Cell>, bool)> {
    rows.iter().map(|r| (vec![cell(r, "v")], false)).collect()
}

#[test]
fn rows_at_or_behind_the_resume_point_are_dropped_as_duplicates() {
    let mut rows = Assembly::new(&Scan::new());
    assert_eq!(keys(&rows.take(whole(&["a", "b"])).unwrap()), [b"a", b"b"]);
    // A reopened scanner restarted the region: what the caller has comes again.
    let got = rows.take(whole(&["a", "b", "c"])).unwrap();
    assert_eq!(keys(&got), [b"c"]);
    // Reversed scans resume below the last row.
    let mut back = Assembly::new(&Scan::new().reversed());
    assert_eq!(keys(&back.take(whole(&["z", "y"])).unwrap()), [b"z", b"y"]);
    assert_eq!(keys(&back.take(whole(&["z", "y", "x"])).unwrap()), [b"x"]);
    // A cursor resumes at its row, inclusive.
    let mut rows = Assembly::new(&Scan::new());
    rows.advance_to_cursor(&Bytes::from_static(b"m"), false);
    assert_eq!(
        keys(&rows.take(whole(&["l", "m", "n"])).unwrap()),
        [b"m", b"n"]
    );
}

#[test]
fn rows_out_of_order_within_an_answer_are_a_protocol_error() {
    let e = Assembly::new(&Scan::new())
        .take(whole(&["a", "c", "b"]))
        .unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::Protocol);
    assert!(e.message().contains("ascending"), "{e}");
    // The same row twice, whole both times.
    assert!(Assembly::new(&Scan::new())
        .take(whole(&["a", "a"]))
        .is_err());
    let e = Assembly::new(&Scan::new().reversed())
        .take(whole(&["b", "c"]))
        .unwrap_err();
    assert!(e.message().contains("descending"), "{e}");
    assert!(Assembly::new(&Scan::new().reversed())
        .take(whole(&["c", "b", "a"]))
        .is_ok());
}

#[test]
fn pieces_resume_after_the_last_cell_the_caller_has() {
    let mut rows = Assembly::new(&Scan::new().allow_partial_results());
    let q = |row: &str, q: &'static str| {
        let mut c = cell(row, q);
        c.qualifier = Bytes::from_static(q.as_bytes());
        c
    };
    let got = rows
        .take(vec![(vec![q("r", "1"), q("r", "2")], true)])
        .unwrap();
    assert_eq!(got[0].len(), 2);
    // The scanner is lost; its replacement sends the row from its first cell.
    rows.drop_partial();
    let got = rows
        .take(vec![(vec![q("r", "1"), q("r", "2"), q("r", "3")], false)])
        .unwrap();
    assert_eq!(got.len(), 1);
    let cells: Vec<_> = got[0].cells().iter().map(|c| &c.qualifier[..]).collect();
    assert_eq!(cells, [b"3"], "only the cell the caller did not have");
}

#[test]
fn limit_and_resume_follow_complete_rows() {
    let mut rows = Assembly::new(&Scan::new().limit(2));
    let (a, b, c) = (cell("a", "1"), cell("b", "2"), cell("c", "3"));
    let (response, block) = answer(&[(&[a], false), (&[b], false), (&[c], false)]);
    let got = rows.take(scan_results(&response, block).unwrap()).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(rows.rows_left, Some(0));
    assert_eq!(&rows.resume.row[..], b"b");
    assert!(!rows.resume.inclusive);
}

#[test]
fn a_partial_row_followed_by_another_row_was_complete() {
    // Seen on HBase 2.6 scanning hbase:meta: a row's last piece flagged partial, the next
    // result another row.
    let mut rows = Assembly::new(&Scan::new());
    let (a, b, c) = (cell("a", "1"), cell("b", "2"), cell("c", "3"));
    let (response, block) = answer(&[(&[a], true), (&[b], true)]);
    let got = rows.take(scan_results(&response, block).unwrap()).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(&got[0].row()[..], b"a");
    // Across answers too, and a limit counts the completed row.
    let (response, block) = answer(&[(&[c], false)]);
    let got = rows.take(scan_results(&response, block).unwrap()).unwrap();
    let keys: Vec<_> = got.iter().map(|r| r.row().clone()).collect();
    assert_eq!(
        keys,
        vec![Bytes::from_static(b"b"), Bytes::from_static(b"c")]
    );
    // With a limit of one, the completed row fills it and the rest is not taken.
    let mut rows = Assembly::new(&Scan::new().limit(1));
    let (a, b) = (cell("a", "1"), cell("b", "2"));
    let (response, block) = answer(&[(&[a], true), (&[b], false)]);
    let got = rows.take(scan_results(&response, block).unwrap()).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(rows.rows_left, Some(0));
    // A pending row completes when no more of it comes.
    let mut rows = Assembly::new(&Scan::new());
    let (response, block) = answer(&[(&[cell("z", "1")], true)]);
    assert!(rows
        .take(scan_results(&response, block).unwrap())
        .unwrap()
        .is_empty());
    let last = rows.complete_pending().expect("the pending row");
    assert_eq!(&last.row()[..], b"z");
    assert!(rows.complete_pending().is_none());
}
