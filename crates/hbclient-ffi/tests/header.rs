//! Header drift test: include/hbclient.h must equal a fresh cbindgen generation, so the checked-in
//! header always documents the library it ships with.

#[path = "../gen/header.rs"]
mod header;

#[test]
fn checked_in_header_is_current() {
    let fresh = header::generate();
    let path = header::header_path();
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "{} is out of date: run `cargo run -p hbclient-ffi --example gen_header` and commit it",
        path.display()
    );
}

#[test]
fn every_export_is_documented() {
    // Each function and type declared at the top level is preceded by a doc comment.
    let fresh = header::generate();
    let lines: Vec<&str> = fresh.lines().collect();
    let mut functions = 0;
    for (i, line) in lines.iter().enumerate() {
        let top_level = !line.starts_with([' ', '#', '*', '/', '}']);
        let function = top_level && line.contains(" hb_") && line.contains('(');
        let function = function || (top_level && line.contains(" *hb_") && line.contains('('));
        let opaque = line.starts_with("typedef struct hb_");
        if !(function || opaque) {
            continue;
        }
        functions += usize::from(function);
        let previous = lines[..i].iter().rev().find(|l| !l.trim().is_empty());
        assert!(
            previous.is_some_and(|p| p.trim_end().ends_with("*/")),
            "undocumented declaration in hbclient.h: {line}"
        );
    }
    assert!(
        functions >= 70,
        "found only {functions} function declarations"
    );
}

#[test]
fn checked_in_abi_list_is_current() {
    // abi/hbclient.abi lists every declaration of the header, one a line: a removed or changed
    // function, constant or enum value shows as a diff in review.
    let fresh = header::abi_list(&header::generate());
    let checked_in = std::fs::read_to_string(header::abi_path()).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "{} is out of date: run `cargo run -p hbclient-ffi --example gen_header`, review the \
         diff (a removed or changed line breaks the ABI) and commit it",
        header::abi_path().display()
    );
    assert!(fresh
        .lines()
        .any(|l| l.starts_with("hb_status hb_connection_open(")));
    assert!(fresh.contains("HB_ERR_AUTHENTICATION = 14"));
}

/// The configuration keys the Rust client accepts, from its settings table.
fn rust_config_keys() -> Vec<String> {
    hbcore::Config::keys()
        .iter()
        .flat_map(|k| std::iter::once(k.key).chain(k.aliases.iter().copied()))
        .map(String::from)
        .collect()
}

#[test]
fn config_set_documents_every_rust_key_and_the_c_test_sets_each() {
    let header = header::generate();
    let doc_end = header
        .find("hb_status hb_config_set(")
        .expect("hb_config_set in the header");
    let doc_start = header[..doc_end].rfind("/**").expect("hb_config_set's doc");
    let doc = &header[doc_start..doc_end];
    let c_test = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/test_config.c"),
    )
    .expect("read tests/c/test_config.c");
    let keys = rust_config_keys();
    assert!(keys.len() >= 50, "found only {} keys", keys.len());
    for key in &keys {
        assert!(
            doc.contains(&format!("`{key}`")),
            "hb_config_set's doc does not list {key}"
        );
        assert!(
            c_test.contains(&format!("{{\"{key}\", ")),
            "tests/c/test_config.c does not set {key}"
        );
    }
    assert!(keys.iter().any(|k| k == "hbase.rpc.read.timeout"));
    assert!(keys.iter().any(|k| k == "hbase.rpc.write.timeout"));
}
