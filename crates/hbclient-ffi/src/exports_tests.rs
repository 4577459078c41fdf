//! Calls every export of libhbclient directly, as C would: through raw pointers, including NULL
//! and invalid arguments, against an in-process mini-hbase.
// This file plays the C caller, reading the library's pointer views itself.
#![allow(clippy::disallowed_methods)]

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::hb_status::*;
use crate::*;

/// The cluster, started once for the whole test binary on its own runtime.
fn master() -> &'static str {
    &started().0
}

/// The cluster's controls (what it received), beside its master address.
fn cluster() -> &'static mini_hbase::MiniCluster {
    &started().1
}

fn started() -> &'static (String, std::sync::Arc<mini_hbase::MiniCluster>) {
    static STARTED: OnceLock<(String, std::sync::Arc<mini_hbase::MiniCluster>)> = OnceLock::new();
    STARTED.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let cluster = mini_hbase::MiniCluster::start(mini_hbase::ClusterConfig::default())
                    .await
                    .unwrap();
                cluster.create_table("t", &["f", "g"], &[b"m"]).unwrap();
                let cluster = std::sync::Arc::new(cluster);
                tx.send((cluster.master_addr().to_string(), cluster.clone()))
                    .unwrap();
                std::future::pending::<()>().await;
            });
        });
        rx.recv().unwrap()
    })
}

fn text(p: *const c_char) -> String {
    assert!(!p.is_null());
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
}

unsafe fn connect() -> *mut hb_connection {
    unsafe { connect_with(&[]) }
}

/// A connection to the test cluster with these configuration keys set too.
unsafe fn connect_with(extra: &[(&str, &str)]) -> *mut hb_connection {
    let mut cfg = null_mut();
    assert_eq!(unsafe { hb_config_new(&mut cfg) }, HB_OK);
    let key = CString::new("hbase.client.bootstrap.servers").unwrap();
    let value = CString::new(master()).unwrap();
    assert_eq!(
        unsafe { hb_config_set(cfg, key.as_ptr().cast(), value.as_ptr().cast()) },
        HB_OK
    );
    for &(k, v) in [
        ("hbase.client.pause", "20"),
        ("hbase.client.operation.timeout", "30000"),
    ]
    .iter()
    .chain(extra)
    {
        let (k, v) = (CString::new(k).unwrap(), CString::new(v).unwrap());
        assert_eq!(
            unsafe { hb_config_set(cfg, k.as_ptr().cast(), v.as_ptr().cast()) },
            HB_OK
        );
    }
    let mut conn = null_mut();
    let mut err = null_mut();
    let status = unsafe { hb_connection_open(cfg, &mut conn, &mut err) };
    assert_eq!(status, HB_OK, "{}", unsafe { text(hb_error_message(err)) });
    unsafe { hb_config_free(cfg) };
    conn
}

unsafe fn open_table(conn: *mut hb_connection, name: &str) -> *mut hb_table {
    let name = CString::new(name).unwrap();
    let mut table = null_mut();
    assert_eq!(
        unsafe { hb_table_open(conn, name.as_ptr().cast(), &mut table, null_mut()) },
        HB_OK
    );
    table
}

unsafe fn put(row: &[u8], value: &[u8]) -> *mut hb_put {
    let mut p = null_mut();
    unsafe {
        assert_eq!(hb_put_new(row.as_ptr().cast(), row.len(), &mut p), HB_OK);
        assert_eq!(
            hb_put_add(
                p,
                b"f".as_ptr().cast(),
                1,
                b"q".as_ptr().cast(),
                1,
                value.as_ptr().cast(),
                value.len(),
                HB_LATEST_TIMESTAMP
            ),
            HB_OK
        );
    }
    p
}

unsafe fn get(row: &[u8]) -> *mut hb_get {
    let mut g = null_mut();
    assert_eq!(
        unsafe { hb_get_new(row.as_ptr().cast(), row.len(), &mut g) },
        HB_OK
    );
    g
}

unsafe fn value_of(result: *const hb_result) -> Option<Vec<u8>> {
    let (mut ptr, mut len) = (null(), 0usize);
    match unsafe {
        hb_result_value(
            result,
            b"f".as_ptr().cast(),
            1,
            b"q".as_ptr().cast(),
            1,
            &mut ptr,
            &mut len,
        )
    } {
        HB_OK => Some(unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec()),
        HB_ERR_NOT_FOUND => None,
        other => panic!("hb_result_value: {other:?}"),
    }
}

#[test]
fn status_error_and_version() {
    unsafe {
        assert_eq!(text(hb_status_str(0)), "ok");
        assert_eq!(text(hb_status_str(HB_ERR_TIMEOUT as u32)), "timeout");
        assert_eq!(text(hb_status_str(12345)), "unknown status");
        assert_eq!(text(hb_version()), env!("CARGO_PKG_VERSION"));
        assert_eq!(hb_error_status(null()), HB_ERR_INVALID_ARGUMENT);
        assert!(hb_error_message(null()).is_null());
        assert!(hb_error_exception_class(null()).is_null());
        assert!(!hb_error_is_retriable(null()));
        hb_error_free(null_mut());
        // An error from a failed call.
        let mut cfg = null_mut();
        assert_eq!(hb_config_new(&mut cfg), HB_OK);
        let mut err = null_mut();
        let mut conn = null_mut();
        let status = hb_connection_open(null(), &mut conn, &mut err);
        assert_eq!(status, HB_ERR_INVALID_ARGUMENT);
        assert!(conn.is_null(), "outputs are written only on success");
        assert_eq!(hb_error_status(err), HB_ERR_INVALID_ARGUMENT);
        assert!(text(hb_error_message(err)).contains("config"));
        assert!(hb_error_exception_class(err).is_null());
        assert!(!hb_error_is_retriable(err));
        hb_error_free(err);
        hb_config_free(cfg);
    }
}

#[test]
fn config_directories_and_security_keys() {
    unsafe {
        let mut cfg = null_mut();
        assert_eq!(hb_config_new(&mut cfg), HB_OK);
        let mut err = null_mut();
        assert_eq!(
            hb_config_load_dir(cfg, c"/nonexistent-hbclient".as_ptr().cast(), &mut err),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(text(hb_error_message(err)).contains("/nonexistent-hbclient"));
        hb_error_free(err);
        let dir = std::env::temp_dir().join(format!("hbclient-ffi-conf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("hbase-site.xml"),
            "<configuration><property><name>hbase.client.bootstrap.servers</name>\
             <value>127.0.0.1:1</value></property><property><name>dfs.replication</name>\
             <value>3</value></property><property><name>hbase.client.netty.tls.enabled</name>\
             <value>true</value></property><property>\
             <name>hbase.rpc.tls.truststore.location</name><value>/x/ts.jks</value></property>\
             </configuration>",
        )
        .unwrap();
        let path = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
        let mut err = null_mut();
        assert_eq!(hb_config_load_dir(cfg, path.as_ptr(), &mut err), HB_OK);
        // The directory's JKS trust store is refused at connect, with the conversion hint.
        let mut conn = null_mut();
        assert_eq!(
            hb_connection_open(cfg, &mut conn, &mut err),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(text(hb_error_message(err)).contains("keytool"));
        hb_error_free(err);
        for (k, v) in [
            (c"hbase.security.authentication", c"kerberos"),
            (c"hbase.rpc.protection", c"privacy"),
            (
                c"hbase.regionserver.kerberos.principal",
                c"hbase/_HOST@EX.COM",
            ),
            (c"hbase.client.keytab.file", c"/k/client.keytab"),
            (c"hbase.rpc.tls.truststore.location", c"/x/ca.pem"),
        ] {
            assert_eq!(
                hb_config_set(cfg, k.as_ptr().cast(), v.as_ptr().cast()),
                HB_OK
            );
        }
        hb_config_free(cfg);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(text(hb_status_str(14)), "authentication failed");
    }
}

/// `hbase.client.rpc.compressor` through the key/value path: each codec writes and reads a
/// compressible value through compressed cellblocks; an unknown codec is refused with a reason.
#[test]
fn compressed_cellblocks_through_the_config_key() {
    unsafe {
        let value = b"compressible ".repeat(200);
        for codec in ["org.apache.hadoop.io.compress.GzipCodec", "snappy", "LZ4"] {
            let conn = connect_with(&[("hbase.client.rpc.compressor", codec)]);
            let table = open_table(conn, "t");
            let row = format!("compressed-{codec}");
            let p = put(row.as_bytes(), &value);
            assert_eq!(hb_table_put(table, p, null_mut()), HB_OK, "{codec}");
            hb_put_free(p);
            let g = get(row.as_bytes());
            let mut result = null_mut();
            assert_eq!(hb_table_get(table, g, &mut result, null_mut()), HB_OK);
            assert_eq!(value_of(result).as_deref(), Some(&value[..]), "{codec}");
            hb_result_free(result);
            hb_get_free(g);
            hb_table_free(table);
            hb_connection_close(conn);
        }
        let mut cfg = null_mut();
        assert_eq!(hb_config_new(&mut cfg), HB_OK);
        let mut err = null_mut();
        assert_eq!(
            hb_config_set_err(
                cfg,
                c"hbase.client.rpc.compressor".as_ptr().cast(),
                c"zstd".as_ptr().cast(),
                &mut err
            ),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(text(hb_error_message(err)).contains("unknown cellblock compressor"));
        hb_error_free(err);
        hb_config_free(cfg);
    }
}

#[test]
fn config_arguments() {
    unsafe {
        assert_eq!(hb_config_new(null_mut()), HB_ERR_INVALID_ARGUMENT);
        let mut cfg = null_mut();
        assert_eq!(hb_config_new(&mut cfg), HB_OK);
        let key = c"hbase.rpc.timeout";
        assert_eq!(
            hb_config_set(null_mut(), key.as_ptr().cast(), c"1".as_ptr().cast()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_config_set(cfg, null(), c"1".as_ptr().cast()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_config_set(cfg, key.as_ptr().cast(), null()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_config_set(cfg, key.as_ptr().cast(), c"soon".as_ptr().cast()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_config_set(cfg, c"no.such.key".as_ptr().cast(), c"1".as_ptr().cast()),
            HB_ERR_INVALID_ARGUMENT
        );
        let bad_utf8 = [0xffu8, 0];
        assert_eq!(
            hb_config_set(cfg, bad_utf8.as_ptr().cast(), c"1".as_ptr().cast()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_config_set(cfg, key.as_ptr().cast(), c"1500".as_ptr().cast()),
            HB_OK
        );
        hb_config_free(cfg);
        hb_config_free(null_mut());
        // A cluster that is not there: a connection error, reported with details.
        let mut cfg = null_mut();
        assert_eq!(hb_config_new(&mut cfg), HB_OK);
        for (k, v) in [
            (c"hbase.client.bootstrap.servers", c"127.0.0.1:1"),
            (c"hbase.client.retries.number", c"0"),
            (c"hbase.rpc.timeout", c"500"),
            (c"hbase.client.operation.timeout", c"1000"),
        ] {
            assert_eq!(
                hb_config_set(cfg, k.as_ptr().cast(), v.as_ptr().cast()),
                HB_OK
            );
        }
        let (mut conn, mut err) = (null_mut(), null_mut());
        let status = hb_connection_open(cfg, &mut conn, &mut err);
        assert_ne!(status, HB_OK);
        assert!(conn.is_null());
        assert_eq!(hb_error_status(err), status);
        hb_error_free(err);
        assert_eq!(
            hb_connection_open(cfg, null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_config_free(cfg);
        hb_connection_close(null_mut());
    }
}

#[test]
fn builders_reject_bad_arguments() {
    unsafe {
        let mut p = null_mut();
        assert_eq!(
            hb_put_new(null(), 0, &mut p),
            HB_ERR_INVALID_ARGUMENT,
            "empty row"
        );
        assert_eq!(
            hb_put_new(null(), 3, &mut p),
            HB_ERR_INVALID_ARGUMENT,
            "NULL with length"
        );
        assert_eq!(
            hb_put_new(b"r".as_ptr().cast(), 1, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(p.is_null());
        assert_eq!(hb_put_new(b"r".as_ptr().cast(), 1, &mut p), HB_OK);
        assert_eq!(
            hb_put_add(null_mut(), b"f".as_ptr().cast(), 1, null(), 0, null(), 0, 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_put_add(p, null(), 0, null(), 0, null(), 0, 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_put_add(p, b"f".as_ptr().cast(), 1, null(), 0, null(), 5, 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_put_add(p, b"f".as_ptr().cast(), 1, null(), 0, null(), 0, u64::MAX),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_put_add(p, b"f".as_ptr().cast(), 1, null(), 0, null(), 0, 1),
            HB_OK,
            "empty qualifier and value"
        );
        hb_put_free(p);
        hb_put_free(null_mut());

        let mut g = null_mut();
        assert_eq!(hb_get_new(null(), 0, &mut g), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_get_new(b"r".as_ptr().cast(), 1, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_get_new(b"r".as_ptr().cast(), 1, &mut g), HB_OK);
        assert_eq!(
            hb_get_add_column(null_mut(), b"f".as_ptr().cast(), 1, null(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_get_add_column(g, null(), 0, null(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_get_add_column(g, b"f".as_ptr().cast(), 1, b"q".as_ptr().cast(), 1),
            HB_OK
        );
        assert_eq!(
            hb_get_add_family(null_mut(), b"f".as_ptr().cast(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_get_add_family(g, null(), 0), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_get_add_family(g, b"g".as_ptr().cast(), 1), HB_OK);
        assert_eq!(
            hb_get_set_max_versions(null_mut(), 2),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_get_set_max_versions(g, 0), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_get_set_max_versions(g, 3), HB_OK);
        hb_get_free(g);
        hb_get_free(null_mut());

        let mut d = null_mut();
        assert_eq!(hb_delete_new(null(), 0, &mut d), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_delete_new(b"r".as_ptr().cast(), 1, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_delete_new(b"r".as_ptr().cast(), 1, &mut d), HB_OK);
        assert_eq!(
            hb_delete_add_column(null_mut(), b"f".as_ptr().cast(), 1, null(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_delete_add_column(d, null(), 0, null(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_delete_add_column(d, b"f".as_ptr().cast(), 1, b"q".as_ptr().cast(), 1),
            HB_OK
        );
        assert_eq!(
            hb_delete_add_column_version(null_mut(), b"f".as_ptr().cast(), 1, null(), 0, 5),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_delete_add_column_version(d, b"f".as_ptr().cast(), 1, null(), 0, u64::MAX),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_delete_add_column_version(d, b"f".as_ptr().cast(), 1, b"q".as_ptr().cast(), 1, 5),
            HB_OK
        );
        assert_eq!(
            hb_delete_add_family(null_mut(), b"f".as_ptr().cast(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_delete_add_family(d, null(), 0), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_delete_add_family(d, b"g".as_ptr().cast(), 1), HB_OK);
        hb_delete_free(d);
        hb_delete_free(null_mut());

        let mut s = null_mut();
        assert_eq!(hb_scan_new(null_mut()), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_scan_new(&mut s), HB_OK);
        assert_eq!(
            hb_scan_set_start_row(null_mut(), b"a".as_ptr().cast(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_scan_set_start_row(s, null(), 1), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_scan_set_stop_row(null_mut(), b"a".as_ptr().cast(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_scan_add_family(null_mut(), b"f".as_ptr().cast(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_scan_add_family(s, null(), 0), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_scan_set_limit(null_mut(), 1), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_scan_set_caching(null_mut(), 1), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_scan_set_caching(s, 0), HB_ERR_INVALID_ARGUMENT);
        hb_scan_free(s);
        hb_scan_free(null_mut());

        let mut b = null_mut();
        assert_eq!(hb_batch_new(null_mut()), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_batch_new(&mut b), HB_OK);
        assert_eq!(hb_batch_add_put(b, null()), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_batch_add_get(b, null()), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(hb_batch_add_delete(b, null()), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_batch_add_put(null_mut(), null()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_batch_count(b), 0);
        assert_eq!(hb_batch_count(null()), 0);
        hb_batch_free(b);
        hb_batch_free(null_mut());

        // Results and batch results: NULL handles.
        assert!(hb_result_is_empty(null()));
        assert_eq!(hb_result_cell_count(null()), 0);
        let (mut ptr, mut len) = (null(), 0usize);
        assert_eq!(
            hb_result_row(null(), &mut ptr, &mut len),
            HB_ERR_INVALID_ARGUMENT
        );
        let mut cell = std::mem::MaybeUninit::<hb_cell>::uninit();
        assert_eq!(
            hb_result_cell(null(), 0, cell.as_mut_ptr()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_result_value(
                null(),
                b"f".as_ptr().cast(),
                1,
                null(),
                0,
                &mut ptr,
                &mut len
            ),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_result_free(null_mut());
        assert_eq!(hb_batch_result_count(null()), 0);
        assert_eq!(
            hb_batch_result_status(null(), 0, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(hb_batch_result_get(null(), 0).is_null());
        hb_batch_result_free(null_mut());

        // Futures: NULL handles.
        assert_eq!(hb_future_wait(null_mut()), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_future_wait_timeout(null_mut(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(!hb_future_is_ready(null()));
        assert_eq!(
            hb_future_set_callback(null_mut(), Some(count_callback), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_future_take_result(null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_future_take_batch_result(null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(hb_future_error(null()).is_null());
        hb_future_free(null_mut());

        // Table calls: NULL handles.
        let mut err = null_mut();
        assert_eq!(
            hb_table_open(null(), c"t".as_ptr().cast(), &mut null_mut(), &mut err),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_error_free(err);
        assert_eq!(
            hb_table_put(null(), null(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_table_get(null(), null(), null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_table_delete(null(), null(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_table_batch(null(), null(), null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_table_scanner(null(), null(), null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_scanner_next(null_mut(), null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_scanner_free(null_mut());
        hb_table_free(null_mut());
        // Async calls with NULL arguments give an already failed future.
        for f in [
            hb_table_put_async(null(), null()),
            hb_table_get_async(null(), null()),
            hb_table_delete_async(null(), null()),
            hb_table_batch_async(null(), null()),
        ] {
            assert!(!f.is_null());
            assert!(hb_future_is_ready(f));
            assert_eq!(hb_future_wait(f), HB_ERR_INVALID_ARGUMENT);
            assert_eq!(hb_error_status(hb_future_error(f)), HB_ERR_INVALID_ARGUMENT);
            hb_future_free(f);
        }
    }
}

static CALLS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_callback(future: *mut hb_future, userdata: *mut c_void) {
    let name = std::thread::current().name().map(str::to_string);
    assert_eq!(name.as_deref(), Some("hbclient-cb"));
    assert!(unsafe { hb_future_is_ready(future) });
    CALLS.fetch_add(1, Ordering::SeqCst);
    if !userdata.is_null() {
        unsafe { &*(userdata as *const AtomicUsize) }.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn blocking_data_path() {
    unsafe {
        let conn = connect();
        let table = open_table(conn, "t");
        // Binary row and value with NUL bytes.
        let row = b"bin\0row\xff";
        let value = b"v\0al\0ue";
        let p = put(row, value);
        let mut err = null_mut();
        assert_eq!(hb_table_put(table, p, &mut err), HB_OK);
        assert_eq!(
            hb_table_put(table, null(), &mut err),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_error_free(err);
        hb_put_free(p);

        let g = get(row);
        let mut result = null_mut();
        assert_eq!(
            hb_table_get(table, g, null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_table_get(table, g, &mut result, null_mut()), HB_OK);
        assert!(!hb_result_is_empty(result));
        assert_eq!(hb_result_cell_count(result), 1);
        let (mut ptr, mut len) = (null(), 0usize);
        assert_eq!(hb_result_row(result, &mut ptr, &mut len), HB_OK);
        assert_eq!(std::slice::from_raw_parts(ptr, len), row);
        assert_eq!(
            hb_result_row(result, null_mut(), &mut len),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(value_of(result).as_deref(), Some(&value[..]));
        let mut cell = std::mem::MaybeUninit::<hb_cell>::uninit();
        assert_eq!(hb_result_cell(result, 0, cell.as_mut_ptr()), HB_OK);
        let cell = cell.assume_init();
        assert_eq!(
            std::slice::from_raw_parts(cell.value, cell.value_len),
            value
        );
        assert_eq!(
            std::slice::from_raw_parts(cell.family, cell.family_len),
            b"f"
        );
        assert!(cell.timestamp > 0 && cell.timestamp < HB_LATEST_TIMESTAMP);
        let mut cell2 = std::mem::MaybeUninit::<hb_cell>::uninit();
        assert_eq!(
            hb_result_cell(result, 1, cell2.as_mut_ptr()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_result_cell(result, 0, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_result_value(
                result,
                b"f".as_ptr().cast(),
                1,
                b"zz".as_ptr().cast(),
                2,
                &mut ptr,
                &mut len
            ),
            HB_ERR_NOT_FOUND
        );
        hb_result_free(result);

        // Delete, then the row is empty.
        let mut d = null_mut();
        assert_eq!(hb_delete_new(row.as_ptr().cast(), row.len(), &mut d), HB_OK);
        assert_eq!(hb_table_delete(table, d, null_mut()), HB_OK);
        hb_delete_free(d);
        let mut result = null_mut();
        assert_eq!(hb_table_get(table, g, &mut result, null_mut()), HB_OK);
        assert!(hb_result_is_empty(result));
        assert_eq!(hb_result_row(result, &mut ptr, &mut len), HB_OK);
        assert_eq!(len, 0);
        assert!(!ptr.is_null());
        hb_result_free(result);
        hb_get_free(g);

        // A missing family: a server error with its exception class.
        let mut p = null_mut();
        assert_eq!(hb_put_new(b"r".as_ptr().cast(), 1, &mut p), HB_OK);
        assert_eq!(
            hb_put_add(
                p,
                b"nope".as_ptr().cast(),
                4,
                b"q".as_ptr().cast(),
                1,
                b"v".as_ptr().cast(),
                1,
                HB_LATEST_TIMESTAMP
            ),
            HB_OK
        );
        let mut err = null_mut();
        let status = hb_table_put(table, p, &mut err);
        assert_eq!(
            status,
            HB_ERR_NO_SUCH_COLUMN_FAMILY,
            "{}",
            text(hb_error_message(err))
        );
        assert!(text(hb_error_exception_class(err)).ends_with("NoSuchColumnFamilyException"));
        hb_error_free(err);
        hb_put_free(p);

        // A missing table.
        let missing = open_table(conn, "no_such_table");
        let g = get(b"r");
        let mut err = null_mut();
        let mut result = null_mut();
        assert_eq!(
            hb_table_get(missing, g, &mut result, &mut err),
            HB_ERR_TABLE_NOT_FOUND
        );
        assert!(result.is_null());
        hb_error_free(err);
        hb_get_free(g);
        hb_table_free(missing);

        let mut err = null_mut();
        let mut bad = null_mut();
        assert_eq!(
            hb_table_open(conn, c"bad name!".as_ptr().cast(), &mut bad, &mut err),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_error_free(err);
        assert_eq!(
            hb_table_open(conn, null(), &mut bad, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(bad.is_null());

        hb_table_free(table);
        hb_connection_close(conn);
    }
}

#[test]
fn batches() {
    unsafe {
        let conn = connect();
        let table = open_table(conn, "t");
        let mut b = null_mut();
        assert_eq!(hb_batch_new(&mut b), HB_OK);
        for i in 0..1000u32 {
            let p = put(format!("batch{i:05}").as_bytes(), &i.to_be_bytes());
            assert_eq!(hb_batch_add_put(b, p), HB_OK);
            hb_put_free(p);
        }
        let mut br = null_mut();
        assert_eq!(
            hb_table_batch(table, b, null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_table_batch(table, b, &mut br, null_mut()), HB_OK);
        assert_eq!(hb_batch_result_count(br), 1000);
        for i in 0..1000 {
            assert_eq!(hb_batch_result_status(br, i, null_mut()), HB_OK);
            assert!(hb_batch_result_get(br, i).is_null());
        }
        assert_eq!(
            hb_batch_result_status(br, 1000, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_batch_result_free(br);
        hb_batch_free(b);

        // Gets, a delete and a failing put in one batch.
        assert_eq!(hb_batch_new(&mut b), HB_OK);
        let g = get(b"batch00007");
        assert_eq!(hb_batch_add_get(b, g), HB_OK);
        hb_get_free(g);
        let mut d = null_mut();
        assert_eq!(
            hb_delete_new(b"batch00008".as_ptr().cast(), 10, &mut d),
            HB_OK
        );
        assert_eq!(hb_batch_add_delete(b, d), HB_OK);
        hb_delete_free(d);
        let mut p = null_mut();
        assert_eq!(hb_put_new(b"x".as_ptr().cast(), 1, &mut p), HB_OK);
        assert_eq!(
            hb_put_add(
                p,
                b"nope".as_ptr().cast(),
                4,
                null(),
                0,
                null(),
                0,
                HB_LATEST_TIMESTAMP
            ),
            HB_OK
        );
        assert_eq!(hb_batch_add_put(b, p), HB_OK);
        hb_put_free(p);
        assert_eq!(hb_batch_count(b), 3);
        let f = hb_table_batch_async(table, b);
        hb_batch_free(b); // inputs are copied: freeing now is fine
        assert_eq!(hb_future_wait(f), HB_OK);
        let mut row = null_mut();
        assert_eq!(
            hb_future_take_result(f, &mut row),
            HB_ERR_INVALID_ARGUMENT,
            "not a get future"
        );
        assert_eq!(
            hb_future_take_batch_result(f, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_future_take_batch_result(f, &mut br), HB_OK);
        assert_eq!(
            hb_future_take_batch_result(f, &mut br),
            HB_ERR_INVALID_STATE
        );
        hb_future_free(f);
        assert_eq!(hb_batch_result_count(br), 3);
        assert_eq!(hb_batch_result_status(br, 0, null_mut()), HB_OK);
        let got = hb_batch_result_get(br, 0);
        assert_eq!(value_of(got).as_deref(), Some(&7u32.to_be_bytes()[..]));
        assert_eq!(hb_batch_result_status(br, 1, null_mut()), HB_OK);
        let mut item_err = null();
        let status = hb_batch_result_status(br, 2, &mut item_err);
        assert_eq!(status, HB_ERR_NO_SUCH_COLUMN_FAMILY);
        assert_eq!(hb_error_status(item_err), status);
        assert!(hb_batch_result_get(br, 2).is_null());
        hb_batch_result_free(br);
        hb_table_free(table);
        hb_connection_close(conn);
    }
}

#[test]
fn futures_and_callbacks() {
    unsafe {
        let conn = connect();
        let table = open_table(conn, "t");
        let done = AtomicUsize::new(0);
        let mut futures = Vec::new();
        for i in 0..200u32 {
            let p = put(format!("async{i:04}").as_bytes(), b"v");
            let f = hb_table_put_async(table, p);
            hb_put_free(p);
            assert_eq!(
                hb_future_set_callback(
                    f,
                    Some(count_callback),
                    &done as *const AtomicUsize as *mut c_void
                ),
                HB_OK
            );
            assert_eq!(
                hb_future_set_callback(f, Some(count_callback), null_mut()),
                HB_ERR_INVALID_STATE
            );
            assert_eq!(
                hb_future_set_callback(f, None, null_mut()),
                HB_ERR_INVALID_ARGUMENT
            );
            futures.push(f);
        }
        for f in futures {
            assert_eq!(hb_future_wait(f), HB_OK);
            assert!(hb_future_error(f).is_null());
            hb_future_free(f);
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while done.load(Ordering::SeqCst) < 200 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(done.load(Ordering::SeqCst), 200);

        // A get future; a callback set after completion still runs, on a worker thread.
        let g = get(b"async0003");
        let f = hb_table_get_async(table, g);
        hb_get_free(g);
        assert_eq!(hb_future_wait_timeout(f, 30_000), HB_OK);
        assert!(hb_future_is_ready(f));
        let late = AtomicUsize::new(0);
        assert_eq!(
            hb_future_set_callback(
                f,
                Some(count_callback),
                &late as *const AtomicUsize as *mut c_void
            ),
            HB_OK
        );
        let mut br = null_mut();
        assert_eq!(
            hb_future_take_batch_result(f, &mut br),
            HB_ERR_INVALID_ARGUMENT
        );
        let mut r = null_mut();
        assert_eq!(hb_future_take_result(f, &mut r), HB_OK);
        assert_eq!(value_of(r).as_deref(), Some(&b"v"[..]));
        hb_result_free(r);
        assert_eq!(hb_future_take_result(f, &mut r), HB_ERR_INVALID_STATE);
        while late.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        hb_future_free(f);

        // Delete future; wait_timeout(0) polls.
        let mut d = null_mut();
        assert_eq!(
            hb_delete_new(b"async0003".as_ptr().cast(), 9, &mut d),
            HB_OK
        );
        let f = hb_table_delete_async(table, d);
        hb_delete_free(d);
        let polled = hb_future_wait_timeout(f, 0);
        assert!(polled == HB_OK || polled == HB_ERR_NOT_READY);
        assert_eq!(hb_future_wait(f), HB_OK);
        hb_future_free(f);

        // A failed future keeps its error until freed.
        let missing = open_table(conn, "no_such_table");
        let g = get(b"r");
        let f = hb_table_get_async(missing, g);
        hb_get_free(g);
        assert_eq!(hb_future_wait(f), HB_ERR_TABLE_NOT_FOUND);
        let e = hb_future_error(f);
        assert_eq!(hb_error_status(e), HB_ERR_TABLE_NOT_FOUND);
        assert!(text(hb_error_exception_class(e)).ends_with("TableNotFoundException"));
        let mut r = null_mut();
        assert_eq!(hb_future_take_result(f, &mut r), HB_ERR_TABLE_NOT_FOUND);
        assert!(r.is_null());
        hb_future_free(f);
        hb_table_free(missing);

        hb_table_free(table);
        hb_connection_close(conn);
    }
}

#[test]
fn scans() {
    unsafe {
        let conn = connect();
        let table = open_table(conn, "t");
        let mut b = null_mut();
        assert_eq!(hb_batch_new(&mut b), HB_OK);
        for i in 0..300u32 {
            // Rows on both sides of the split point "m".
            let p = put(format!("s{i:04}").as_bytes(), b"x");
            assert_eq!(hb_batch_add_put(b, p), HB_OK);
            hb_put_free(p);
            let p = put(format!("z{i:04}").as_bytes(), b"x");
            assert_eq!(hb_batch_add_put(b, p), HB_OK);
            hb_put_free(p);
        }
        let mut br = null_mut();
        assert_eq!(hb_table_batch(table, b, &mut br, null_mut()), HB_OK);
        hb_batch_result_free(br);
        hb_batch_free(b);

        let mut s = null_mut();
        assert_eq!(hb_scan_new(&mut s), HB_OK);
        assert_eq!(hb_scan_set_start_row(s, b"s".as_ptr().cast(), 1), HB_OK);
        assert_eq!(hb_scan_set_stop_row(s, b"zz".as_ptr().cast(), 2), HB_OK);
        assert_eq!(hb_scan_add_family(s, b"f".as_ptr().cast(), 1), HB_OK);
        assert_eq!(hb_scan_set_caching(s, 7), HB_OK);
        assert_eq!(hb_scan_set_limit(s, 0), HB_OK);
        let mut scanner = null_mut();
        assert_eq!(
            hb_table_scanner(table, s, null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_table_scanner(table, s, &mut scanner, null_mut()), HB_OK);
        let mut rows = 0;
        let mut previous = Vec::new();
        loop {
            let mut r = null_mut();
            assert_eq!(hb_scanner_next(scanner, &mut r, null_mut()), HB_OK);
            if r.is_null() {
                break;
            }
            let (mut ptr, mut len) = (null(), 0usize);
            assert_eq!(hb_result_row(r, &mut ptr, &mut len), HB_OK);
            let row = std::slice::from_raw_parts(ptr, len).to_vec();
            assert!(row > previous);
            previous = row;
            rows += 1;
            hb_result_free(r);
        }
        assert_eq!(rows, 600);
        assert_eq!(
            hb_scanner_next(scanner, null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_scanner_free(scanner);

        // A limit, and a scanner freed before its end.
        assert_eq!(hb_scan_set_limit(s, 10), HB_OK);
        assert_eq!(hb_table_scanner(table, s, &mut scanner, null_mut()), HB_OK);
        let mut r = null_mut();
        assert_eq!(hb_scanner_next(scanner, &mut r, null_mut()), HB_OK);
        assert!(!r.is_null());
        hb_result_free(r);
        hb_scanner_free(scanner);
        hb_scan_free(s);
        hb_table_free(table);
        hb_connection_close(conn);
    }
}

#[test]
fn counters_and_conditional_writes() {
    unsafe {
        let conn = connect();
        let table = open_table(conn, "t");
        let (f, n) = (
            b"f".as_ptr().cast::<c_void>(),
            b"n".as_ptr().cast::<c_void>(),
        );
        let row = b"counter\0row";
        let inc = |delta: i64, out: *mut i64, err: *mut *mut hb_error| {
            hb_table_increment(
                table,
                row.as_ptr().cast(),
                row.len(),
                f,
                1,
                n,
                1,
                delta,
                out,
                err,
            )
        };
        let mut value = 0i64;
        assert_eq!(inc(5, &mut value, null_mut()), HB_OK);
        assert_eq!(value, 5, "a missing counter starts at 0");
        assert_eq!(inc(-7, &mut value, null_mut()), HB_OK);
        assert_eq!(value, -2);
        assert_eq!(
            inc(1, null_mut(), null_mut()),
            HB_OK,
            "new_value may be NULL"
        );
        let g = get(row);
        let mut result = null_mut();
        assert_eq!(hb_table_get(table, g, &mut result, null_mut()), HB_OK);
        let mut cell = std::mem::MaybeUninit::<hb_cell>::uninit();
        assert_eq!(hb_result_cell(result, 0, cell.as_mut_ptr()), HB_OK);
        let cell = cell.assume_init();
        assert_eq!(
            std::slice::from_raw_parts(cell.value, cell.value_len),
            (-1i64).to_be_bytes(),
            "stored as an 8-byte big-endian counter"
        );
        hb_result_free(result);
        hb_get_free(g);
        // Bad arguments: NULL table, empty row, empty family, NULL with a length.
        let mut err = null_mut();
        assert_eq!(
            hb_table_increment(
                null(),
                row.as_ptr().cast(),
                row.len(),
                f,
                1,
                n,
                1,
                1,
                null_mut(),
                &mut err
            ),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_error_free(err);
        assert_eq!(
            hb_table_increment(table, null(), 0, f, 1, n, 1, 1, null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_table_increment(
                table,
                row.as_ptr().cast(),
                row.len(),
                null(),
                0,
                n,
                1,
                1,
                null_mut(),
                null_mut()
            ),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_table_increment(
                table,
                row.as_ptr().cast(),
                row.len(),
                f,
                1,
                null(),
                3,
                1,
                null_mut(),
                null_mut()
            ),
            HB_ERR_INVALID_ARGUMENT
        );
        // A cell that is not a counter: the server refuses, the error says so.
        let text_row = b"not-a-counter";
        let p = put(text_row, b"abc");
        assert_eq!(hb_table_put(table, p, null_mut()), HB_OK);
        hb_put_free(p);
        let q = b"q".as_ptr().cast::<c_void>();
        let mut err = null_mut();
        assert_eq!(
            hb_table_increment(
                table,
                text_row.as_ptr().cast(),
                text_row.len(),
                f,
                1,
                q,
                1,
                1,
                null_mut(),
                &mut err
            ),
            HB_ERR_REMOTE
        );
        assert!(!err.is_null());
        hb_error_free(err);
        // An unknown family is the server's NoSuchColumnFamily.
        let mut err = null_mut();
        assert_eq!(
            hb_table_increment(
                table,
                row.as_ptr().cast(),
                row.len(),
                b"nope".as_ptr().cast(),
                4,
                n,
                1,
                1,
                null_mut(),
                &mut err
            ),
            HB_ERR_NO_SUCH_COLUMN_FAMILY
        );
        hb_error_free(err);

        // check-and-put: absent -> applied; same check again -> not applied; equals -> applied.
        let cas_row = b"cas";
        let first = put(cas_row, b"one");
        let mut applied = false;
        assert_eq!(
            hb_table_check_and_put(
                table,
                f,
                1,
                q,
                1,
                null(),
                0,
                first,
                &mut applied,
                null_mut()
            ),
            HB_OK
        );
        assert!(applied, "the column was absent");
        assert_eq!(
            hb_table_check_and_put(
                table,
                f,
                1,
                q,
                1,
                null(),
                0,
                first,
                &mut applied,
                null_mut()
            ),
            HB_OK
        );
        assert!(!applied, "the column exists now");
        let second = put(cas_row, b"two");
        assert_eq!(
            hb_table_check_and_put(
                table,
                f,
                1,
                q,
                1,
                b"zzz".as_ptr().cast(),
                3,
                second,
                &mut applied,
                null_mut()
            ),
            HB_OK
        );
        assert!(!applied, "wrong expected value");
        assert_eq!(
            hb_table_check_and_put(
                table,
                f,
                1,
                q,
                1,
                b"one".as_ptr().cast(),
                3,
                second,
                &mut applied,
                null_mut()
            ),
            HB_OK
        );
        assert!(applied);
        let g = get(cas_row);
        let mut result = null_mut();
        assert_eq!(hb_table_get(table, g, &mut result, null_mut()), HB_OK);
        assert_eq!(value_of(result).as_deref(), Some(&b"two"[..]));
        hb_result_free(result);
        assert_eq!(
            hb_table_check_and_put(table, f, 1, q, 1, null(), 0, second, null_mut(), null_mut()),
            HB_OK,
            "applied may be NULL"
        );
        assert_eq!(
            hb_table_check_and_put(
                table,
                f,
                1,
                q,
                1,
                null(),
                0,
                null(),
                &mut applied,
                null_mut()
            ),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_table_check_and_put(
                table,
                null(),
                0,
                q,
                1,
                null(),
                0,
                second,
                &mut applied,
                null_mut()
            ),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_put_free(first);
        hb_put_free(second);

        // check-and-delete: only when the value matches.
        let mut d = null_mut();
        assert_eq!(
            hb_delete_new(cas_row.as_ptr().cast(), cas_row.len(), &mut d),
            HB_OK
        );
        assert_eq!(
            hb_table_check_and_delete(
                table,
                f,
                1,
                q,
                1,
                b"one".as_ptr().cast(),
                3,
                d,
                &mut applied,
                null_mut()
            ),
            HB_OK
        );
        assert!(!applied);
        assert_eq!(
            hb_table_check_and_delete(
                table,
                f,
                1,
                q,
                1,
                b"two".as_ptr().cast(),
                3,
                d,
                &mut applied,
                null_mut()
            ),
            HB_OK
        );
        assert!(applied);
        let mut result = null_mut();
        assert_eq!(hb_table_get(table, g, &mut result, null_mut()), HB_OK);
        assert!(hb_result_is_empty(result), "the row was deleted");
        hb_result_free(result);
        assert_eq!(
            hb_table_check_and_delete(
                table,
                f,
                1,
                q,
                1,
                null(),
                0,
                null(),
                &mut applied,
                null_mut()
            ),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_delete_free(d);
        hb_get_free(g);
        hb_table_free(table);
        hb_connection_close(conn);
    }
}

#[test]
fn closed_connection_fails_cleanly() {
    unsafe {
        let conn = connect();
        let table = open_table(conn, "t");
        hb_connection_close(conn);
        let p = put(b"closed", b"v");
        let mut err = null_mut();
        assert_eq!(hb_table_put(table, p, &mut err), HB_ERR_CLOSED);
        hb_error_free(err);
        let f = hb_table_put_async(table, p);
        assert_eq!(hb_future_wait(f), HB_ERR_CLOSED);
        hb_future_free(f);
        hb_put_free(p);
        hb_table_free(table);
    }
}

#[test]
fn mutator() {
    unsafe {
        let conn = connect();
        let mut m = null_mut();
        let mut err = null_mut();
        assert_eq!(
            hb_mutator_open(null(), c"t".as_ptr(), &mut m, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_mutator_open(conn, null(), &mut m, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_mutator_open(conn, c"t".as_ptr(), null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_mutator_open(conn, c"t".as_ptr(), &mut m, &mut err),
            HB_OK
        );
        assert_eq!(
            hb_mutator_put(m, null(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_mutator_put(null_mut(), null(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_mutator_delete(m, null(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_mutator_delete(null_mut(), null(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_mutator_flush(null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_mutator_close(null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        for i in 0..500u32 {
            let p = put(format!("mut{i:04}").as_bytes(), b"m");
            assert_eq!(hb_mutator_put(m, p, null_mut()), HB_OK);
            hb_put_free(p);
        }
        let mut d = null_mut();
        assert_eq!(hb_delete_new(b"mut0000".as_ptr().cast(), 7, &mut d), HB_OK);
        assert_eq!(hb_mutator_delete(m, d, null_mut()), HB_OK);
        hb_delete_free(d);
        assert_eq!(hb_mutator_flush(m, &mut err), HB_OK);
        let table = open_table(conn, "t");
        let g = get(b"mut0499");
        let mut r = null_mut();
        assert_eq!(hb_table_get(table, g, &mut r, null_mut()), HB_OK);
        assert_eq!(value_of(r).as_deref(), Some(&b"m"[..]));
        hb_result_free(r);
        hb_get_free(g);
        // A failing mutation is reported by close (which frees the mutator either way).
        let mut p = null_mut();
        assert_eq!(hb_put_new(b"mutbad".as_ptr().cast(), 6, &mut p), HB_OK);
        assert_eq!(
            hb_put_add(
                p,
                b"nope".as_ptr().cast(),
                4,
                null(),
                0,
                null(),
                0,
                HB_LATEST_TIMESTAMP
            ),
            HB_OK
        );
        assert_eq!(hb_mutator_put(m, p, null_mut()), HB_OK);
        hb_put_free(p);
        let mut err = null_mut();
        let status = hb_mutator_close(m, &mut err);
        assert_eq!(status, HB_ERR_NO_SUCH_COLUMN_FAMILY);
        assert!(text(hb_error_message(err)).contains("1 buffered mutation(s) failed"));
        hb_error_free(err);
        hb_table_free(table);
        hb_connection_close(conn);
    }
}

/// Rows of a batch result (each entry must be `HB_OK` with a row).
unsafe fn batch_rows(batch: *const hb_batch_result) -> Vec<Vec<u8>> {
    let mut rows = Vec::new();
    for i in 0..unsafe { hb_batch_result_count(batch) } {
        assert_eq!(
            unsafe { hb_batch_result_status(batch, i, null_mut()) },
            HB_OK
        );
        let r = unsafe { hb_batch_result_get(batch, i) };
        let (mut ptr, mut len) = (null(), 0usize);
        assert_eq!(unsafe { hb_result_row(r, &mut ptr, &mut len) }, HB_OK);
        rows.push(unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec());
    }
    rows
}

unsafe fn scan_prefix(table: *mut hb_table, prefix: &[u8], caching: u32) -> *mut hb_scanner {
    let mut s = null_mut();
    assert_eq!(unsafe { hb_scan_new(&mut s) }, HB_OK);
    assert_eq!(
        unsafe { hb_scan_set_prefix(s, prefix.as_ptr().cast(), prefix.len()) },
        HB_OK
    );
    assert_eq!(unsafe { hb_scan_set_caching(s, caching) }, HB_OK);
    let mut scanner = null_mut();
    assert_eq!(
        unsafe { hb_table_scanner(table, s, &mut scanner, null_mut()) },
        HB_OK
    );
    unsafe { hb_scan_free(s) };
    scanner
}

struct ScanByCallback {
    scanner: *mut hb_scanner,
    rows: std::sync::Mutex<Vec<Vec<u8>>>,
    done: std::sync::Mutex<Option<hb_status>>,
    ready: std::sync::Condvar,
}

/// Reads a scan to its end with callbacks: each callback takes its batch and asks for the next.
unsafe extern "C" fn next_batch_callback(future: *mut hb_future, userdata: *mut c_void) {
    let state = unsafe { &*(userdata as *const ScanByCallback) };
    let mut batch = null_mut();
    let status = unsafe { hb_future_take_batch_result(future, &mut batch) };
    unsafe { hb_future_free(future) };
    let finish = |status| {
        *state.done.lock().unwrap() = Some(status);
        state.ready.notify_all();
    };
    if status != HB_OK {
        return finish(status);
    }
    let rows = unsafe { batch_rows(batch) };
    unsafe { hb_batch_result_free(batch) };
    if rows.is_empty() {
        return finish(HB_OK);
    }
    state.rows.lock().unwrap().extend(rows);
    let next = unsafe { hb_scanner_next_async(state.scanner, 5) };
    assert_eq!(
        unsafe { hb_future_set_callback(next, Some(next_batch_callback), userdata) },
        HB_OK
    );
}

#[test]
fn async_scans() {
    unsafe {
        let conn = connect();
        let table = open_table(conn, "t");
        let mut b = null_mut();
        assert_eq!(hb_batch_new(&mut b), HB_OK);
        let want: Vec<Vec<u8>> = (0..40u32)
            .map(|i| format!("as{i:03}").into_bytes())
            .collect();
        for row in &want {
            let p = put(row, b"x");
            assert_eq!(hb_batch_add_put(b, p), HB_OK);
            hb_put_free(p);
        }
        let mut br = null_mut();
        assert_eq!(hb_table_batch(table, b, &mut br, null_mut()), HB_OK);
        hb_batch_result_free(br);
        hb_batch_free(b);

        // Futures waited on: batches of at most 8, an empty batch at the end, then again.
        let scanner = scan_prefix(table, b"as", 6);
        let mut got = Vec::new();
        loop {
            let f = hb_scanner_next_async(scanner, 8);
            assert_eq!(hb_future_wait(f), HB_OK);
            let mut batch = null_mut();
            assert_eq!(hb_future_take_batch_result(f, &mut batch), HB_OK);
            hb_future_free(f);
            let rows = batch_rows(batch);
            hb_batch_result_free(batch);
            assert!(rows.len() <= 8);
            if rows.is_empty() {
                break;
            }
            got.extend(rows);
        }
        assert_eq!(got, want);
        let f = hb_scanner_next_async(scanner, 8);
        assert_eq!(hb_future_wait(f), HB_OK);
        let mut batch = null_mut();
        assert_eq!(hb_future_take_batch_result(f, &mut batch), HB_OK);
        assert_eq!(hb_batch_result_count(batch), 0);
        hb_batch_result_free(batch);
        hb_future_free(f);
        let mut r = null_mut();
        assert_eq!(hb_scanner_next(scanner, &mut r, null_mut()), HB_OK);
        assert!(r.is_null());
        hb_scanner_free(scanner);

        // Many requests in flight, mixed with blocking calls: rows in order, none twice.
        let scanner = scan_prefix(table, b"as", 3);
        let futures: Vec<*mut hb_future> =
            (0..30).map(|_| hb_scanner_next_async(scanner, 1)).collect();
        let mut r = null_mut();
        assert_eq!(hb_scanner_next(scanner, &mut r, null_mut()), HB_OK);
        let mut got = Vec::new();
        for f in &futures {
            assert_eq!(hb_future_wait(*f), HB_OK);
            let mut batch = null_mut();
            assert_eq!(hb_future_take_batch_result(*f, &mut batch), HB_OK);
            got.extend(batch_rows(batch));
            hb_batch_result_free(batch);
            hb_future_free(*f);
        }
        let (mut ptr, mut len) = (null(), 0usize);
        assert_eq!(hb_result_row(r, &mut ptr, &mut len), HB_OK);
        got.push(std::slice::from_raw_parts(ptr, len).to_vec());
        hb_result_free(r);
        assert_eq!(got, want[..31]);
        // A cancelled request loses no row.
        let f = hb_scanner_next_async(scanner, 2);
        let _ = hb_future_cancel(f);
        let status = hb_future_wait(f);
        hb_future_free(f);
        let f = hb_scanner_next_async(scanner, 100);
        assert_eq!(hb_future_wait(f), HB_OK);
        let mut batch = null_mut();
        assert_eq!(hb_future_take_batch_result(f, &mut batch), HB_OK);
        let rest = batch_rows(batch);
        hb_batch_result_free(batch);
        hb_future_free(f);
        if status == HB_ERR_CANCELLED {
            assert_eq!(rest.first(), Some(&want[31]), "{rest:?}");
        } else {
            assert_eq!(status, HB_OK);
        }
        // Freed with a request in flight: the request still completes.
        let f = hb_scanner_next_async(scanner, 1);
        hb_scanner_free(scanner);
        let status = hb_future_wait(f);
        assert!(status == HB_OK, "{status:?}");
        hb_future_free(f);

        // Callbacks that chain the next request read the whole scan.
        let state = Box::new(ScanByCallback {
            scanner: scan_prefix(table, b"as", 4),
            rows: Default::default(),
            done: Default::default(),
            ready: Default::default(),
        });
        let userdata = &*state as *const ScanByCallback as *mut c_void;
        let first = hb_scanner_next_async(state.scanner, 5);
        assert_eq!(
            hb_future_set_callback(first, Some(next_batch_callback), userdata),
            HB_OK
        );
        let mut done = state.done.lock().unwrap();
        while done.is_none() {
            done = state.ready.wait(done).unwrap();
        }
        assert_eq!(*done, Some(HB_OK));
        drop(done);
        assert_eq!(*state.rows.lock().unwrap(), want);
        hb_scanner_free(state.scanner);

        // A NULL scanner: a failed future, never NULL.
        let f = hb_scanner_next_async(null_mut(), 1);
        assert!(!f.is_null());
        assert_eq!(hb_future_wait(f), HB_ERR_INVALID_ARGUMENT);
        hb_future_free(f);

        // A scan of a missing table fails, and keeps failing (never an end).
        let missing = open_table(conn, "no_such_table_async");
        let scanner = scan_prefix(missing, b"a", 1);
        for _ in 0..2 {
            let f = hb_scanner_next_async(scanner, 4);
            assert_eq!(hb_future_wait(f), HB_ERR_TABLE_NOT_FOUND);
            hb_future_free(f);
        }
        let mut r = null_mut();
        assert_eq!(
            hb_scanner_next(scanner, &mut r, null_mut()),
            HB_ERR_TABLE_NOT_FOUND
        );
        hb_scanner_free(scanner);
        hb_table_free(missing);

        // After close: scanners cannot open; a request on an older scanner fails.
        let scanner = scan_prefix(table, b"as", 4);
        hb_table_free(table);
        hb_connection_close(conn);
        let f = hb_scanner_next_async(scanner, 4);
        assert_eq!(hb_future_wait(f), HB_ERR_CLOSED);
        hb_future_free(f);
        hb_scanner_free(scanner);
    }
}

unsafe fn names(list: *const hb_table_names) -> Vec<String> {
    (0..unsafe { hb_table_names_count(list) })
        .map(|i| text(unsafe { hb_table_names_get(list, i) }))
        .collect()
}

#[test]
fn namespaces_and_describe() {
    unsafe {
        let conn = connect();
        let mut err = null_mut();
        let mut list = null_mut();
        assert_eq!(hb_admin_list_namespaces(conn, &mut list, null_mut()), HB_OK);
        let before = names(list);
        hb_table_names_free(list);
        assert!(before.contains(&"default".to_string()), "{before:?}");
        assert!(before.contains(&"hbase".to_string()), "{before:?}");

        assert_eq!(
            hb_admin_create_namespace(conn, c"ffi_ns".as_ptr(), null_mut()),
            HB_OK
        );
        assert_eq!(
            hb_admin_create_namespace(conn, c"ffi_ns".as_ptr(), &mut err),
            HB_ERR_REMOTE
        );
        assert!(text(hb_error_exception_class(err)).ends_with("NamespaceExistException"));
        hb_error_free(err);
        err = null_mut();
        assert_eq!(
            hb_admin_create_namespace(conn, c"bad-name".as_ptr(), &mut err),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(text(hb_error_message(err)).contains("bad-name"));
        hb_error_free(err);
        err = null_mut();
        assert_eq!(
            hb_admin_create_namespace(conn, null(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_admin_list_namespaces(conn, &mut list, null_mut()), HB_OK);
        assert!(names(list).contains(&"ffi_ns".to_string()));
        hb_table_names_free(list);
        assert_eq!(
            hb_admin_list_namespaces(conn, null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );

        let families = [c"f".as_ptr(), c"g".as_ptr()];
        let splits: [*const c_void; 2] = [b"d".as_ptr().cast(), b"q\0x".as_ptr().cast()];
        let split_lens = [1usize, 3];
        assert_eq!(
            hb_admin_create_table(
                conn,
                c"ffi_ns:described".as_ptr(),
                families.as_ptr(),
                2,
                splits.as_ptr(),
                split_lens.as_ptr(),
                2,
                null_mut()
            ),
            HB_OK
        );
        // A namespace holding a table cannot go.
        assert_eq!(
            hb_admin_delete_namespace(conn, c"ffi_ns".as_ptr(), &mut err),
            HB_ERR_REMOTE
        );
        assert!(text(hb_error_exception_class(err)).ends_with("ConstraintException"));
        hb_error_free(err);
        err = null_mut();

        let mut d = null_mut();
        assert_eq!(
            hb_admin_describe_table(conn, c"ffi_ns:described".as_ptr(), &mut d, null_mut()),
            HB_OK
        );
        assert_eq!(text(hb_table_descriptor_name(d)), "ffi_ns:described");
        assert!(hb_table_descriptor_is_enabled(d));
        assert_eq!(hb_table_descriptor_family_count(d), 2);
        let mut family_names = Vec::new();
        for i in 0..2 {
            let f = hb_table_descriptor_family(d, i);
            assert!(!f.is_null());
            let (mut ptr, mut len) = (null(), 0usize);
            assert_eq!(hb_family_descriptor_name(f, &mut ptr, &mut len), HB_OK);
            family_names.push(std::slice::from_raw_parts(ptr, len).to_vec());
            assert_eq!(hb_family_descriptor_max_versions(f), 1);
            assert_eq!(hb_family_descriptor_ttl_secs(f), 0);
            assert_eq!(text(hb_family_descriptor_compression(f)), "NONE");
            assert_eq!(text(hb_family_descriptor_bloom_filter(f)), "ROW");
        }
        family_names.sort();
        assert_eq!(family_names, [b"f".to_vec(), b"g".to_vec()]);
        assert!(hb_table_descriptor_family(d, 2).is_null());
        assert_eq!(hb_table_descriptor_region_count(d), 3);
        let mut keys = Vec::new();
        for i in 0..2 {
            let (mut ptr, mut len) = (null(), 0usize);
            assert_eq!(
                hb_table_descriptor_split_key(d, i, &mut ptr, &mut len),
                HB_OK
            );
            keys.push(std::slice::from_raw_parts(ptr, len).to_vec());
        }
        assert_eq!(keys, [b"d".to_vec(), b"q\0x".to_vec()]);
        let (mut ptr, mut len) = (null(), 0usize);
        assert_eq!(
            hb_table_descriptor_split_key(d, 2, &mut ptr, &mut len),
            HB_ERR_NOT_FOUND
        );
        assert_eq!(
            hb_table_descriptor_split_key(d, 0, null_mut(), &mut len),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_table_descriptor_free(d);
        // NULL handles read as empty.
        assert!(hb_table_descriptor_name(null()).is_null());
        assert_eq!(hb_table_descriptor_family_count(null()), 0);
        assert_eq!(hb_table_descriptor_region_count(null()), 0);
        assert!(hb_family_descriptor_compression(null()).is_null());
        hb_table_descriptor_free(null_mut());

        assert_eq!(
            hb_admin_describe_table(conn, c"ffi_ns:nothing".as_ptr(), &mut d, &mut err),
            HB_ERR_TABLE_NOT_FOUND
        );
        hb_error_free(err);
        err = null_mut();
        assert_eq!(
            hb_admin_describe_table(conn, c"t".as_ptr(), null_mut(), null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );

        assert_eq!(
            hb_admin_disable_table(conn, c"ffi_ns:described".as_ptr(), null_mut()),
            HB_OK
        );
        assert_eq!(
            hb_admin_describe_table(conn, c"ffi_ns:described".as_ptr(), &mut d, null_mut()),
            HB_OK
        );
        assert!(!hb_table_descriptor_is_enabled(d));
        hb_table_descriptor_free(d);
        assert_eq!(
            hb_admin_delete_table(conn, c"ffi_ns:described".as_ptr(), null_mut()),
            HB_OK
        );
        assert_eq!(
            hb_admin_delete_namespace(conn, c"ffi_ns".as_ptr(), null_mut()),
            HB_OK
        );
        assert_eq!(
            hb_admin_delete_namespace(conn, c"ffi_ns".as_ptr(), &mut err),
            HB_ERR_REMOTE
        );
        assert!(text(hb_error_exception_class(err)).ends_with("NamespaceNotFoundException"));
        hb_error_free(err);
        hb_connection_close(conn);
    }
}

/// Priorities, operation attributes, request attributes (a table handle's) and connection
/// attributes (a configuration key) set through the C API all reach the server.
#[test]
fn priorities_and_attributes_reach_the_server() {
    unsafe {
        let mut cfg = null_mut();
        assert_eq!(hb_config_new(&mut cfg), HB_OK);
        for (k, v) in [
            ("hbase.client.bootstrap.servers", master()),
            ("hbase.client.pause", "20"),
            ("hbclient.connection.attribute.app", "c-test"),
        ] {
            let (k, v) = (CString::new(k).unwrap(), CString::new(v).unwrap());
            assert_eq!(hb_config_set(cfg, k.as_ptr(), v.as_ptr()), HB_OK);
        }
        let mut conn = null_mut();
        assert_eq!(hb_connection_open(cfg, &mut conn, null_mut()), HB_OK);
        hb_config_free(cfg);
        let plain = open_table(conn, "t");
        let name = CString::new("ffi.op").unwrap();
        let tag = format!("ffi-{}", std::process::id());
        let mut table = null_mut();
        assert_eq!(
            hb_table_with_request_attribute(
                plain,
                name.as_ptr(),
                tag.as_ptr().cast(),
                tag.len(),
                &mut table
            ),
            HB_OK
        );
        let k = CString::new("k").unwrap();

        let p = put(b"attr-row", b"v");
        assert_eq!(hb_put_set_priority(p, 200), HB_OK);
        assert_eq!(
            hb_put_set_attribute(p, k.as_ptr(), b"p".as_ptr().cast(), 1),
            HB_OK
        );
        assert_eq!(hb_table_put(table, p, null_mut()), HB_OK);
        hb_put_free(p);

        let g = get(b"attr-row");
        assert_eq!(hb_get_set_priority(g, 7), HB_OK);
        assert_eq!(
            hb_get_set_attribute(g, k.as_ptr(), b"g".as_ptr().cast(), 1),
            HB_OK
        );
        let mut result = null_mut();
        assert_eq!(hb_table_get(table, g, &mut result, null_mut()), HB_OK);
        assert!(!hb_result_is_empty(result));
        hb_result_free(result);
        hb_get_free(g);

        let mut a = null_mut();
        assert_eq!(hb_append_new(b"attr-row".as_ptr().cast(), 8, &mut a), HB_OK);
        let (f, q) = (b"f", b"s");
        assert_eq!(
            hb_append_add(
                a,
                f.as_ptr().cast(),
                1,
                q.as_ptr().cast(),
                1,
                b"x".as_ptr().cast(),
                1
            ),
            HB_OK
        );
        assert_eq!(hb_append_set_priority(a, 9), HB_OK);
        assert_eq!(hb_append_set_attribute(a, k.as_ptr(), null(), 0), HB_OK);
        let mut result = null_mut();
        assert_eq!(hb_table_append(table, a, &mut result, null_mut()), HB_OK);
        hb_result_free(result);
        hb_append_free(a);

        let mut s = null_mut();
        assert_eq!(hb_scan_new(&mut s), HB_OK);
        assert_eq!(hb_scan_set_prefix(s, b"attr-".as_ptr().cast(), 5), HB_OK);
        assert_eq!(hb_scan_set_priority(s, 201), HB_OK);
        assert_eq!(
            hb_scan_set_attribute(s, k.as_ptr(), b"s".as_ptr().cast(), 1),
            HB_OK
        );
        let mut scanner = null_mut();
        assert_eq!(hb_table_scanner(table, s, &mut scanner, null_mut()), HB_OK);
        let mut rows = 0;
        loop {
            let mut row = null_mut();
            assert_eq!(hb_scanner_next(scanner, &mut row, null_mut()), HB_OK);
            if row.is_null() {
                break;
            }
            rows += 1;
            hb_result_free(row);
        }
        assert_eq!(rows, 1);
        hb_scanner_free(scanner);
        hb_scan_free(s);

        let mut d = null_mut();
        assert_eq!(hb_delete_new(b"attr-row".as_ptr().cast(), 8, &mut d), HB_OK);
        assert_eq!(hb_delete_set_priority(d, 3), HB_OK);
        assert_eq!(
            hb_delete_set_attribute(d, k.as_ptr(), b"d".as_ptr().cast(), 1),
            HB_OK
        );
        assert_eq!(hb_table_delete(table, d, null_mut()), HB_OK);
        hb_delete_free(d);

        let ours: Vec<_> = cluster()
            .received_requests()
            .into_iter()
            .filter(|r| {
                r.request_attributes
                    .iter()
                    .any(|(n, v)| n == "ffi.op" && v[..] == *tag.as_bytes())
            })
            .collect();
        let seen: Vec<(&str, Option<u32>, Vec<mini_hbase::ReceivedAttributes>)> = ours
            .iter()
            .map(|r| {
                (
                    r.method.as_str(),
                    r.priority,
                    r.operation_attributes.clone(),
                )
            })
            .collect();
        let op = |v: &'static [u8]| vec![vec![("k".to_string(), bytes::Bytes::from_static(v))]];
        assert_eq!(seen[0], ("Mutate", Some(200), op(b"p")), "{ours:#?}");
        assert_eq!(seen[1], ("Get", Some(7), op(b"g")));
        assert_eq!(seen[2], ("Mutate", Some(9), op(b"")));
        assert_eq!(seen[3], ("Scan", Some(201), op(b"s")));
        assert_eq!(seen.last().unwrap(), &("Mutate", Some(3), op(b"d")));
        assert!(ours.iter().all(|r| r.connection_attributes
            == vec![("app".to_string(), bytes::Bytes::from_static(b"c-test"))]));

        // Bad arguments: typed errors, nothing changed.
        let g = get(b"r");
        assert_eq!(hb_get_set_priority(null_mut(), 1), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_get_set_attribute(g, null(), b"v".as_ptr().cast(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_get_set_attribute(g, k.as_ptr(), null(), 3),
            HB_ERR_INVALID_ARGUMENT
        );
        let bad_utf8 = [0xffu8, 0];
        assert_eq!(
            hb_get_set_attribute(g, bad_utf8.as_ptr().cast(), null(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_get_free(g);
        assert_eq!(hb_put_set_priority(null_mut(), 1), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_delete_set_priority(null_mut(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_append_set_priority(null_mut(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(hb_scan_set_priority(null_mut(), 1), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_put_set_attribute(null_mut(), k.as_ptr(), null(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_delete_set_attribute(null_mut(), k.as_ptr(), null(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_append_set_attribute(null_mut(), k.as_ptr(), null(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_scan_set_attribute(null_mut(), k.as_ptr(), null(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        let mut out = null_mut();
        assert_eq!(
            hb_table_with_request_attribute(null(), k.as_ptr(), null(), 0, &mut out),
            HB_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            hb_table_with_request_attribute(plain, k.as_ptr(), null(), 0, null_mut()),
            HB_ERR_INVALID_ARGUMENT
        );
        assert!(out.is_null());

        hb_table_free(table);
        hb_table_free(plain);
        hb_connection_close(conn);
    }
}

#[test]
fn consistency_setters_and_stale_results() {
    // A replicated table whose primary is slow for gets (a fault rule on its region only, so
    // the other tests sharing the cluster are not affected): TIMELINE is answered stale by a
    // secondary, STRONG waits for the primary.
    let mini = cluster();
    mini.create_replicated_table("rt_ffi", &["f"], &[], 3)
        .unwrap();
    let primary = mini.region_of("rt_ffi", b"r").unwrap();
    unsafe {
        let conn = connect();
        let table = open_table(conn, "rt_ffi");
        let p = put(b"r", b"v");
        assert_eq!(hb_table_put(table, p, null_mut()), HB_OK);
        hb_put_free(p);
        let slow = mini.faults().add(mini_hbase::Rule::new(
            mini_hbase::Match::method("Get").region(primary.name.clone()),
            mini_hbase::Reaction::Delay(std::time::Duration::from_millis(400)),
        ));

        let g = get(b"r");
        assert_eq!(
            hb_get_set_consistency(g, hb_consistency::HB_CONSISTENCY_TIMELINE as u32),
            HB_OK
        );
        let mut result = null_mut();
        assert_eq!(hb_table_get(table, g, &mut result, null_mut()), HB_OK);
        assert!(hb_result_is_stale(result), "a secondary answered");
        assert_eq!(value_of(result).as_deref(), Some(&b"v"[..]));
        hb_result_free(result);
        hb_get_free(g);

        let g = get(b"r");
        assert_eq!(
            hb_get_set_consistency(g, hb_consistency::HB_CONSISTENCY_STRONG as u32),
            HB_OK
        );
        let mut result = null_mut();
        assert_eq!(hb_table_get(table, g, &mut result, null_mut()), HB_OK);
        assert!(
            !hb_result_is_stale(result),
            "only the primary answers STRONG"
        );
        hb_result_free(result);
        assert_eq!(hb_get_set_consistency(g, 2), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_get_set_consistency(null_mut(), 0),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_get_free(g);
        mini.faults().remove(slow);

        let mut scan = null_mut();
        assert_eq!(hb_scan_new(&mut scan), HB_OK);
        assert_eq!(
            hb_scan_set_consistency(scan, hb_consistency::HB_CONSISTENCY_TIMELINE as u32),
            HB_OK
        );
        assert_eq!(hb_scan_set_consistency(scan, 7), HB_ERR_INVALID_ARGUMENT);
        assert_eq!(
            hb_scan_set_consistency(null_mut(), 1),
            HB_ERR_INVALID_ARGUMENT
        );
        hb_scan_free(scan);
        assert!(!hb_result_is_stale(null()));
        hb_table_free(table);
        hb_connection_close(conn);
    }
}
