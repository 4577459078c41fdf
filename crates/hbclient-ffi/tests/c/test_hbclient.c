/*
 * C tests of libhbclient: every function (NULL and invalid arguments included), binary rows and
 * values with NUL bytes, a 10,000-item batch, callbacks from 8 threads x 500 async puts, and a
 * scan over many rows. Built with -Wall -Wextra -Werror and AddressSanitizer by
 * scripts/ffi-test.sh, which starts mini-hbase (table `t`, families f and g, split at "m") and
 * passes its address in HBCLIENT_FFI_BOOTSTRAP (or a ZooKeeper quorum in HBCLIENT_FFI_ZK).
 */
#define _GNU_SOURCE /* usleep, pthread_getname_np */
#include <hbclient.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static const uint8_t F[] = "f";
static const uint8_t Q[] = "q";

static hb_connection *connect_cluster(void) {
    hb_config *cfg = NULL;
    CHECK_STATUS(hb_config_new(&cfg), HB_OK);
    const char *bootstrap = getenv("HBCLIENT_FFI_BOOTSTRAP");
    const char *zk = getenv("HBCLIENT_FFI_ZK");
    if (bootstrap && *bootstrap) {
        CHECK_STATUS(hb_config_set(cfg, "hbase.client.bootstrap.servers", bootstrap), HB_OK);
    } else if (zk && *zk) {
        CHECK_STATUS(hb_config_set(cfg, "hbase.zookeeper.quorum", zk), HB_OK);
    } else {
        fprintf(stderr, "set HBCLIENT_FFI_BOOTSTRAP or HBCLIENT_FFI_ZK\n");
        exit(2);
    }
    CHECK_STATUS(hb_config_set(cfg, "hbase.client.pause", "20"), HB_OK);
    hb_connection *conn = NULL;
    hb_error *err = NULL;
    hb_status st = hb_connection_open(cfg, &conn, &err);
    if (st != HB_OK) {
        fprintf(stderr, "connect: %s\n", hb_error_message(err));
        exit(2);
    }
    hb_config_free(cfg);
    return conn;
}

static hb_table *open_table(hb_connection *conn, const char *name) {
    hb_table *table = NULL;
    CHECK_STATUS(hb_table_open(conn, name, &table, NULL), HB_OK);
    return table;
}

static hb_put *make_put(const void *row, size_t row_len, const void *value, size_t value_len) {
    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new(row, row_len, &put), HB_OK);
    CHECK_STATUS(hb_put_add(put, F, 1, Q, 1, value, value_len, HB_LATEST_TIMESTAMP), HB_OK);
    return put;
}

static hb_get *make_get(const void *row, size_t row_len) {
    hb_get *get = NULL;
    CHECK_STATUS(hb_get_new(row, row_len, &get), HB_OK);
    return get;
}

/* ---- version, status text, errors -------------------------------------------------------- */

static void test_version_and_status(void) {
    CHECK(strcmp(hb_version(), HB_VERSION_STRING) == 0);
    CHECK(HB_VERSION_NUMBER == HB_VERSION_MAJOR * 10000 + HB_VERSION_MINOR * 100 + HB_VERSION_PATCH);
    CHECK(strcmp(hb_status_str(HB_OK), "ok") == 0);
    CHECK(strcmp(hb_status_str(HB_ERR_INVALID_ARGUMENT), "invalid argument") == 0);
    CHECK(strcmp(hb_status_str(HB_ERR_TABLE_NOT_FOUND), "table not found") == 0);
    CHECK(strcmp(hb_status_str(7777), "unknown status") == 0);
    CHECK(HB_ERR_UNKNOWN == 99 && HB_ERR_PANIC == 13 && HB_ERR_NOT_READY == 10);
    CHECK(hb_error_status(NULL) == HB_ERR_INVALID_ARGUMENT);
    CHECK(hb_error_message(NULL) == NULL);
    CHECK(hb_error_exception_class(NULL) == NULL);
    CHECK(!hb_error_is_retriable(NULL));
    hb_error_free(NULL);
}

/* ---- NULL and invalid arguments everywhere ------------------------------------------------ */

static void test_null_arguments(void) {
    hb_config *cfg = NULL;
    hb_error *err = NULL;
    CHECK_STATUS(hb_config_new(NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_config_new(&cfg), HB_OK);
    CHECK_STATUS(hb_config_set(NULL, "hbase.rpc.timeout", "1"), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_config_set(cfg, NULL, "1"), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_config_set(cfg, "hbase.rpc.timeout", NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_config_set(cfg, "hbase.rpc.timeout", "later"), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_config_set(cfg, "no.such.key", "1"), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_config_set(cfg, "hbase.rpc.timeout", "\xff\xfe"), HB_ERR_INVALID_ARGUMENT);
    hb_connection *conn = NULL;
    CHECK_STATUS(hb_connection_open(NULL, &conn, &err), HB_ERR_INVALID_ARGUMENT);
    CHECK(conn == NULL);
    CHECK(err != NULL && hb_error_status(err) == HB_ERR_INVALID_ARGUMENT);
    CHECK(err != NULL && strstr(hb_error_message(err), "config") != NULL);
    hb_error_free(err);
    CHECK_STATUS(hb_connection_open(cfg, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    hb_config_free(cfg);
    hb_config_free(NULL);
    hb_connection_close(NULL);

    hb_table *table = NULL;
    CHECK_STATUS(hb_table_open(NULL, "t", &table, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK(table == NULL);
    hb_table_free(NULL);

    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new(NULL, 0, &put), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_put_new(NULL, 4, &put), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_put_new("r", 1, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK(put == NULL);
    CHECK_STATUS(hb_put_new("r", 1, &put), HB_OK);
    CHECK_STATUS(hb_put_add(NULL, F, 1, Q, 1, "v", 1, HB_LATEST_TIMESTAMP), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_put_add(put, NULL, 0, Q, 1, "v", 1, HB_LATEST_TIMESTAMP), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_put_add(put, F, 1, NULL, 2, "v", 1, HB_LATEST_TIMESTAMP), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_put_add(put, F, 1, Q, 1, NULL, 1, HB_LATEST_TIMESTAMP), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_put_add(put, F, 1, Q, 1, "v", 1, UINT64_MAX), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_put_add(put, F, 1, NULL, 0, NULL, 0, 5), HB_OK);
    hb_put_free(put);
    hb_put_free(NULL);

    hb_get *get = NULL;
    CHECK_STATUS(hb_get_new(NULL, 0, &get), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_new("r", 1, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_new("r", 1, &get), HB_OK);
    CHECK_STATUS(hb_get_add_column(NULL, F, 1, Q, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_add_column(get, NULL, 0, Q, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_add_family(NULL, F, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_add_family(get, NULL, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_set_max_versions(NULL, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_set_max_versions(get, 0), HB_ERR_INVALID_ARGUMENT);
    hb_get_free(get);
    hb_get_free(NULL);

    hb_delete *del = NULL;
    CHECK_STATUS(hb_delete_new(NULL, 0, &del), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_delete_new("r", 1, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_delete_new("r", 1, &del), HB_OK);
    CHECK_STATUS(hb_delete_add_column(NULL, F, 1, Q, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_delete_add_column(del, NULL, 0, Q, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_delete_add_column_version(NULL, F, 1, Q, 1, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_delete_add_column_version(del, F, 1, Q, 1, UINT64_MAX), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_delete_add_family(NULL, F, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_delete_add_family(del, NULL, 0), HB_ERR_INVALID_ARGUMENT);
    hb_delete_free(del);
    hb_delete_free(NULL);

    hb_batch *batch = NULL;
    CHECK_STATUS(hb_batch_new(NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_batch_new(&batch), HB_OK);
    CHECK_STATUS(hb_batch_add_put(NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_batch_add_put(batch, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_batch_add_get(batch, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_batch_add_delete(batch, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK(hb_batch_count(batch) == 0);
    CHECK(hb_batch_count(NULL) == 0);
    hb_batch_free(batch);
    hb_batch_free(NULL);
    CHECK(hb_batch_result_count(NULL) == 0);
    CHECK_STATUS(hb_batch_result_status(NULL, 0, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK(hb_batch_result_get(NULL, 0) == NULL);
    hb_batch_result_free(NULL);

    const uint8_t *ptr = NULL;
    size_t len = 0;
    hb_cell cell;
    CHECK(hb_result_is_empty(NULL));
    CHECK(hb_result_cell_count(NULL) == 0);
    CHECK_STATUS(hb_result_row(NULL, &ptr, &len), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_result_cell(NULL, 0, &cell), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_result_value(NULL, F, 1, Q, 1, &ptr, &len), HB_ERR_INVALID_ARGUMENT);
    hb_result_free(NULL);

    hb_scan *scan = NULL;
    CHECK_STATUS(hb_scan_new(NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    CHECK_STATUS(hb_scan_set_start_row(NULL, "a", 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scan_set_start_row(scan, NULL, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scan_set_stop_row(NULL, "a", 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scan_add_family(NULL, F, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scan_add_family(scan, NULL, 0), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scan_set_limit(NULL, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scan_set_caching(NULL, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scan_set_caching(scan, 0), HB_ERR_INVALID_ARGUMENT);
    hb_scanner *scanner = NULL;
    CHECK_STATUS(hb_table_scanner(NULL, scan, &scanner, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scanner_next(NULL, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    hb_scanner_free(NULL);
    hb_scan_free(scan);
    hb_scan_free(NULL);

    CHECK_STATUS(hb_table_put(NULL, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_get(NULL, NULL, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_delete(NULL, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_batch(NULL, NULL, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    int64_t counter = 0;
    bool applied = false;
    CHECK_STATUS(hb_table_increment(NULL, "r", 1, F, 1, Q, 1, 1, &counter, NULL),
                 HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_check_and_put(NULL, F, 1, Q, 1, NULL, 0, NULL, &applied, NULL),
                 HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_check_and_delete(NULL, F, 1, Q, 1, NULL, 0, NULL, &applied, NULL),
                 HB_ERR_INVALID_ARGUMENT);

    CHECK_STATUS(hb_future_wait(NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_future_wait_timeout(NULL, 10), HB_ERR_INVALID_ARGUMENT);
    CHECK(!hb_future_is_ready(NULL));
    CHECK_STATUS(hb_future_set_callback(NULL, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_future_take_result(NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_future_take_batch_result(NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK(hb_future_error(NULL) == NULL);
    hb_future_free(NULL);
    hb_future *futures[4] = {
        hb_table_put_async(NULL, NULL),
        hb_table_get_async(NULL, NULL),
        hb_table_delete_async(NULL, NULL),
        hb_table_batch_async(NULL, NULL),
    };
    for (int i = 0; i < 4; i++) {
        CHECK(futures[i] != NULL);
        CHECK(hb_future_is_ready(futures[i]));
        CHECK_STATUS(hb_future_wait(futures[i]), HB_ERR_INVALID_ARGUMENT);
        CHECK(hb_error_status(hb_future_error(futures[i])) == HB_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(hb_future_set_callback(futures[i], NULL, NULL), HB_ERR_INVALID_ARGUMENT);
        hb_future_free(futures[i]);
    }

    hb_mutator *mutator = NULL;
    CHECK_STATUS(hb_mutator_open(NULL, "t", &mutator, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK(mutator == NULL);
    CHECK_STATUS(hb_mutator_put(NULL, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_mutator_delete(NULL, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_mutator_flush(NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_mutator_close(NULL, NULL), HB_ERR_INVALID_ARGUMENT);
}

/* ---- counters and conditional writes ------------------------------------------------------ */

static void test_atomic(hb_connection *conn) {
    hb_table *table = open_table(conn, "t");
    static const uint8_t row[] = {'c', 0, 'n', 0xff};
    static const uint8_t N[] = "n";
    int64_t value = 0;
    hb_error *err = NULL;
    CHECK_STATUS(hb_table_increment(table, row, sizeof row, F, 1, N, 1, 7, &value, &err), HB_OK);
    CHECK(value == 7);
    CHECK_STATUS(hb_table_increment(table, row, sizeof row, F, 1, N, 1, -10, &value, &err), HB_OK);
    CHECK(value == -3);
    CHECK_STATUS(hb_table_increment(table, row, sizeof row, F, 1, N, 1, 3, NULL, &err), HB_OK);
    CHECK_STATUS(hb_table_increment(table, NULL, 0, F, 1, N, 1, 1, &value, NULL),
                 HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_increment(table, row, sizeof row, NULL, 0, N, 1, 1, &value, NULL),
                 HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_increment(table, row, sizeof row, F, 1, NULL, 2, 1, &value, NULL),
                 HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_increment(table, row, sizeof row, (const uint8_t *)"x", 1, N, 1, 1, &value, &err),
                 HB_ERR_NO_SUCH_COLUMN_FAMILY);
    CHECK(err != NULL && hb_error_exception_class(err) != NULL);
    hb_error_free(err);
    err = NULL;

    /* check-and-put: absent, then equal; check-and-delete: equal only. */
    bool applied = false;
    hb_put *first = make_put("cas", 3, "one", 3);
    hb_put *second = make_put("cas", 3, "two", 3);
    CHECK_STATUS(hb_table_check_and_put(table, F, 1, Q, 1, NULL, 0, first, &applied, &err), HB_OK);
    CHECK(applied);
    CHECK_STATUS(hb_table_check_and_put(table, F, 1, Q, 1, NULL, 0, second, &applied, &err), HB_OK);
    CHECK(!applied);
    CHECK_STATUS(hb_table_check_and_put(table, F, 1, Q, 1, "one", 3, second, &applied, &err), HB_OK);
    CHECK(applied);
    /* `applied` may be NULL. */
    CHECK_STATUS(hb_table_check_and_put(table, F, 1, Q, 1, NULL, 0, second, NULL, NULL), HB_OK);
    CHECK_STATUS(hb_table_check_and_put(table, F, 1, Q, 1, NULL, 5, second, &applied, NULL),
                 HB_ERR_INVALID_ARGUMENT);
    hb_delete *del = NULL;
    CHECK_STATUS(hb_delete_new("cas", 3, &del), HB_OK);
    CHECK_STATUS(hb_table_check_and_delete(table, F, 1, Q, 1, "one", 3, del, &applied, &err), HB_OK);
    CHECK(!applied);
    CHECK_STATUS(hb_table_check_and_delete(table, F, 1, Q, 1, "two", 3, del, &applied, &err), HB_OK);
    CHECK(applied);
    hb_get *get = make_get("cas", 3);
    hb_result *result = NULL;
    CHECK_STATUS(hb_table_get(table, get, &result, &err), HB_OK);
    CHECK(hb_result_is_empty(result));
    hb_result_free(result);
    hb_get_free(get);
    hb_delete_free(del);
    hb_put_free(first);
    hb_put_free(second);
    hb_table_free(table);
}

/* ---- v2 rules: err always set, rejections explained, sizes, empty vs absent, scanner errors */

static void test_v2_rules(hb_connection *conn) {
    /* Config rejections carry a message; Hadoop-style sizes are accepted. */
    hb_config *cfg = NULL;
    hb_error *err = NULL;
    CHECK_STATUS(hb_config_new(&cfg), HB_OK);
    CHECK_STATUS(hb_config_set_err(cfg, "no.such.key", "1", &err), HB_ERR_INVALID_ARGUMENT);
    CHECK(err != NULL && strstr(hb_error_message(err), "no.such.key") != NULL);
    hb_error_free(err);
    err = NULL;
    CHECK_STATUS(hb_config_set_err(cfg, "hbase.rpc.timeout", "soon", &err), HB_ERR_INVALID_ARGUMENT);
    CHECK(err != NULL && strlen(hb_error_message(err)) > 0);
    hb_error_free(err);
    err = NULL;
    CHECK_STATUS(hb_config_set_err(cfg, "hbase.client.write.buffer", "2MB", &err), HB_OK);
    CHECK(err == NULL);
    CHECK_STATUS(hb_config_set(cfg, "hbase.client.scanner.max.result.size", "64k"), HB_OK);
    CHECK_STATUS(hb_config_set(cfg, "hbase.client.write.buffer", "2XB"), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_config_set_err(NULL, "k", "v", &err), HB_ERR_INVALID_ARGUMENT);
    CHECK(err != NULL && hb_error_status(err) == HB_ERR_INVALID_ARGUMENT); /* argument errors too */
    hb_error_free(err);
    err = NULL;
    hb_config_free(cfg);

    /* Empty value vs absent column, in results and in conditional writes. */
    hb_table *table = open_table(conn, "t");
    hb_put *empty = make_put("v2-empty", 8, "", 0);
    hb_put *full = make_put("v2-empty", 8, "x", 1);
    bool applied = true;
    /* expected != NULL with length 0: "present and empty" -- the column is absent: no. */
    CHECK_STATUS(hb_table_check_and_put(table, F, 1, Q, 1, "", 0, full, &applied, &err), HB_OK);
    CHECK(!applied);
    CHECK_STATUS(hb_table_put(table, empty, &err), HB_OK);
    hb_get *get = make_get("v2-empty", 8);
    hb_result *r = NULL;
    CHECK_STATUS(hb_table_get(table, get, &r, &err), HB_OK);
    const uint8_t *value = NULL;
    size_t value_len = 99;
    CHECK_STATUS(hb_result_value(r, F, 1, Q, 1, &value, &value_len), HB_OK); /* present, empty */
    CHECK(value_len == 0);
    CHECK_STATUS(hb_result_value(r, F, 1, (const uint8_t *)"zz", 2, &value, &value_len),
                 HB_ERR_NOT_FOUND); /* absent */
    hb_result_free(r);
    /* Now present and empty: the strict empty check holds. */
    CHECK_STATUS(hb_table_check_and_put(table, F, 1, Q, 1, "", 0, full, &applied, &err), HB_OK);
    CHECK(applied);
    /* Holds "x" now: neither empty nor absent. */
    CHECK_STATUS(hb_table_check_and_put(table, F, 1, Q, 1, "", 0, empty, &applied, &err), HB_OK);
    CHECK(!applied);
    CHECK_STATUS(hb_table_check_and_put(table, F, 1, Q, 1, NULL, 0, empty, &applied, &err), HB_OK);
    CHECK(!applied);
    hb_get_free(get);
    hb_put_free(empty);
    hb_put_free(full);

    /* A scanner error is reported again on the next call, never as the end. */
    hb_table *missing = open_table(conn, "v2_no_such_table");
    hb_scan *scan = NULL;
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    hb_scanner *scanner = NULL;
    CHECK_STATUS(hb_table_scanner(missing, scan, &scanner, NULL), HB_OK);
    for (int i = 0; i < 2; i++) {
        r = (hb_result *)&err; /* untouched on error */
        CHECK_STATUS(hb_scanner_next(scanner, &r, &err), HB_ERR_TABLE_NOT_FOUND);
        CHECK(r == (hb_result *)&err);
        CHECK(err != NULL && hb_error_status(err) == HB_ERR_TABLE_NOT_FOUND);
        hb_error_free(err);
        err = NULL;
    }
    hb_scanner_free(scanner);
    /* The end is sticky too: HB_OK with NULL, again. */
    CHECK_STATUS(hb_scan_set_start_row(scan, "v2-none", 7), HB_OK);
    CHECK_STATUS(hb_scan_set_stop_row(scan, "v2-none~", 8), HB_OK);
    CHECK_STATUS(hb_table_scanner(table, scan, &scanner, NULL), HB_OK);
    for (int i = 0; i < 2; i++) {
        r = (hb_result *)&err;
        CHECK_STATUS(hb_scanner_next(scanner, &r, &err), HB_OK);
        CHECK(r == NULL);
    }
    hb_scanner_free(scanner);
    hb_scan_free(scan);
    hb_table_free(missing);
    hb_table_free(table);
}

/* ---- blocking data path with binary data -------------------------------------------------- */

static void test_binary_roundtrip(hb_connection *conn) {
    hb_table *table = open_table(conn, "t");
    static const uint8_t row[] = {'b', 0, 'i', 0, 'n', 0xff};
    static const uint8_t value[] = {0, 1, 0, 2, 0, 0};
    static const uint8_t qual[] = {'q', 0, 'x'};
    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new(row, sizeof row, &put), HB_OK);
    CHECK_STATUS(hb_put_add(put, F, 1, qual, sizeof qual, value, sizeof value, 1000), HB_OK);
    CHECK_STATUS(hb_put_add(put, F, 1, Q, 1, "old", 3, 500), HB_OK);
    hb_error *err = NULL;
    CHECK_STATUS(hb_table_put(table, put, &err), HB_OK);
    CHECK(err == NULL);
    hb_put_free(put);

    hb_get *get = make_get(row, sizeof row);
    CHECK_STATUS(hb_get_add_family(get, F, 1), HB_OK);
    CHECK_STATUS(hb_get_set_max_versions(get, 5), HB_OK);
    hb_result *result = NULL;
    CHECK_STATUS(hb_table_get(table, get, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_get(table, get, &result, &err), HB_OK);
    CHECK(!hb_result_is_empty(result));
    CHECK(hb_result_cell_count(result) == 2);
    const uint8_t *ptr = NULL;
    size_t len = 0;
    CHECK_STATUS(hb_result_row(result, &ptr, &len), HB_OK);
    CHECK(len == sizeof row && memcmp(ptr, row, len) == 0);
    CHECK_STATUS(hb_result_row(result, NULL, &len), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_result_value(result, F, 1, qual, sizeof qual, &ptr, &len), HB_OK);
    CHECK(len == sizeof value && memcmp(ptr, value, len) == 0);
    CHECK_STATUS(hb_result_value(result, F, 1, "zz", 2, &ptr, &len), HB_ERR_NOT_FOUND);
    CHECK_STATUS(hb_result_value(result, F, 1, qual, sizeof qual, NULL, &len), HB_ERR_INVALID_ARGUMENT);
    hb_cell cell;
    /* Cells are sorted by qualifier: "q" before "q\0x". */
    CHECK_STATUS(hb_result_cell(result, 0, &cell), HB_OK);
    CHECK(cell.timestamp == 500 && cell.value_len == 3 && memcmp(cell.value, "old", 3) == 0);
    CHECK(cell.row_len == sizeof row && memcmp(cell.row, row, sizeof row) == 0);
    CHECK(cell.family_len == 1 && cell.family[0] == 'f');
    CHECK_STATUS(hb_result_cell(result, 1, &cell), HB_OK);
    CHECK(cell.timestamp == 1000 && cell.value_len == sizeof value);
    CHECK(cell.value_len == sizeof value && memcmp(cell.value, value, sizeof value) == 0);
    CHECK(cell.qualifier_len == sizeof qual && memcmp(cell.qualifier, qual, sizeof qual) == 0);
    CHECK_STATUS(hb_result_cell(result, 2, &cell), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_result_cell(result, 0, NULL), HB_ERR_INVALID_ARGUMENT);
    hb_result_free(result);

    /* hb_get_add_column selects one column. */
    hb_get *one = make_get(row, sizeof row);
    CHECK_STATUS(hb_get_add_column(one, F, 1, qual, sizeof qual), HB_OK);
    CHECK_STATUS(hb_table_get(table, one, &result, &err), HB_OK);
    CHECK(hb_result_cell_count(result) == 1);
    hb_result_free(result);
    hb_get_free(one);

    /* Delete the newest version, then the family; the row disappears. */
    hb_delete *del = NULL;
    CHECK_STATUS(hb_delete_new(row, sizeof row, &del), HB_OK);
    CHECK_STATUS(hb_delete_add_column_version(del, F, 1, qual, sizeof qual, 1000), HB_OK);
    CHECK_STATUS(hb_table_delete(table, del, &err), HB_OK);
    hb_delete_free(del);
    CHECK_STATUS(hb_table_get(table, get, &result, &err), HB_OK);
    CHECK(hb_result_cell_count(result) == 1);
    hb_result_free(result);
    CHECK_STATUS(hb_delete_new(row, sizeof row, &del), HB_OK);
    CHECK_STATUS(hb_delete_add_family(del, F, 1), HB_OK);
    CHECK_STATUS(hb_delete_add_column(del, (const uint8_t *)"g", 1, Q, 1), HB_OK);
    CHECK_STATUS(hb_table_delete(table, del, &err), HB_OK);
    hb_delete_free(del);
    CHECK_STATUS(hb_table_get(table, get, &result, &err), HB_OK);
    CHECK(hb_result_is_empty(result));
    CHECK_STATUS(hb_result_row(result, &ptr, &len), HB_OK);
    CHECK(len == 0 && ptr != NULL);
    hb_result_free(result);
    hb_get_free(get);

    /* Families filter; hb_get_add_family. */
    put = make_put("fam", 3, "1", 1);
    CHECK_STATUS(hb_put_add(put, (const uint8_t *)"g", 1, Q, 1, "2", 1, HB_LATEST_TIMESTAMP), HB_OK);
    CHECK_STATUS(hb_table_put(table, put, NULL), HB_OK);
    hb_put_free(put);
    get = make_get("fam", 3);
    CHECK_STATUS(hb_get_add_family(get, (const uint8_t *)"g", 1), HB_OK);
    CHECK_STATUS(hb_table_get(table, get, &result, NULL), HB_OK);
    CHECK(hb_result_cell_count(result) == 1);
    CHECK_STATUS(hb_result_value(result, (const uint8_t *)"g", 1, Q, 1, &ptr, &len), HB_OK);
    CHECK(len == 1 && ptr[0] == '2');
    hb_result_free(result);
    hb_get_free(get);
    hb_table_free(table);
}

static void test_errors(hb_connection *conn) {
    hb_table *table = open_table(conn, "t");
    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new("r", 1, &put), HB_OK);
    CHECK_STATUS(hb_put_add(put, (const uint8_t *)"nofam", 5, Q, 1, "v", 1, HB_LATEST_TIMESTAMP), HB_OK);
    hb_error *err = NULL;
    CHECK_STATUS(hb_table_put(table, put, &err), HB_ERR_NO_SUCH_COLUMN_FAMILY);
    CHECK(err != NULL);
    CHECK(hb_error_status(err) == HB_ERR_NO_SUCH_COLUMN_FAMILY);
    CHECK(strstr(hb_error_exception_class(err), "NoSuchColumnFamilyException") != NULL);
    CHECK(strlen(hb_error_message(err)) > 0);
    CHECK(!hb_error_is_retriable(err));
    hb_error_free(err);
    hb_put_free(put);

    hb_table *missing = open_table(conn, "no_such_table");
    hb_get *get = make_get("r", 1);
    hb_result *result = NULL;
    err = NULL;
    CHECK_STATUS(hb_table_get(missing, get, &result, &err), HB_ERR_TABLE_NOT_FOUND);
    CHECK(result == NULL);
    CHECK(err != NULL && strstr(hb_error_exception_class(err), "TableNotFoundException") != NULL);
    hb_error_free(err);
    hb_get_free(get);
    hb_table_free(missing);

    hb_table *bad = NULL;
    err = NULL;
    CHECK_STATUS(hb_table_open(conn, "bad name!", &bad, &err), HB_ERR_INVALID_ARGUMENT);
    CHECK(bad == NULL && err != NULL);
    hb_error_free(err);
    CHECK_STATUS(hb_table_open(conn, NULL, &bad, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_open(conn, "t", NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    hb_table_free(table);
}

/* ---- a 10,000-item batch ------------------------------------------------------------------ */

#define BATCH_ITEMS 10000

static void test_big_batch(hb_connection *conn) {
    hb_table *table = open_table(conn, "t");
    hb_batch *batch = NULL;
    CHECK_STATUS(hb_batch_new(&batch), HB_OK);
    char row[32];
    for (int i = 0; i < BATCH_ITEMS; i++) {
        int n = snprintf(row, sizeof row, "%c%05d", i % 2 ? 'a' : 'x', i);
        uint8_t value[4] = {(uint8_t)(i >> 24), (uint8_t)(i >> 16), 0, (uint8_t)i};
        hb_put *put = make_put(row, (size_t)n, value, sizeof value);
        CHECK_STATUS(hb_batch_add_put(batch, put), HB_OK);
        hb_put_free(put);
    }
    CHECK(hb_batch_count(batch) == BATCH_ITEMS);
    hb_batch_result *br = NULL;
    CHECK_STATUS(hb_table_batch(table, batch, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_batch(table, batch, &br, NULL), HB_OK);
    CHECK(hb_batch_result_count(br) == BATCH_ITEMS);
    int ok = 0;
    for (size_t i = 0; i < hb_batch_result_count(br); i++) {
        ok += hb_batch_result_status(br, i, NULL) == HB_OK;
    }
    CHECK(ok == BATCH_ITEMS);
    CHECK_STATUS(hb_batch_result_status(br, BATCH_ITEMS, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK(hb_batch_result_get(br, 0) == NULL);
    hb_batch_result_free(br);
    hb_batch_free(batch);

    /* Read them all back in one batch of gets, plus one failing item. */
    CHECK_STATUS(hb_batch_new(&batch), HB_OK);
    for (int i = 0; i < BATCH_ITEMS; i++) {
        int n = snprintf(row, sizeof row, "%c%05d", i % 2 ? 'a' : 'x', i);
        hb_get *get = make_get(row, (size_t)n);
        CHECK_STATUS(hb_batch_add_get(batch, get), HB_OK);
        hb_get_free(get);
    }
    hb_put *bad = NULL;
    CHECK_STATUS(hb_put_new("bad", 3, &bad), HB_OK);
    CHECK_STATUS(hb_put_add(bad, (const uint8_t *)"nofam", 5, Q, 1, "v", 1, HB_LATEST_TIMESTAMP), HB_OK);
    CHECK_STATUS(hb_batch_add_put(batch, bad), HB_OK);
    hb_put_free(bad);
    hb_delete *del = NULL;
    CHECK_STATUS(hb_delete_new("x00000", 6, &del), HB_OK);
    CHECK_STATUS(hb_batch_add_delete(batch, del), HB_OK);
    hb_delete_free(del);

    hb_future *f = hb_table_batch_async(table, batch);
    hb_batch_free(batch); /* inputs were copied */
    CHECK_STATUS(hb_future_wait(f), HB_OK);
    hb_result *wrong = NULL;
    CHECK_STATUS(hb_future_take_result(f, &wrong), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_future_take_batch_result(f, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_future_take_batch_result(f, &br), HB_OK);
    CHECK_STATUS(hb_future_take_batch_result(f, &br), HB_ERR_INVALID_STATE);
    hb_future_free(f);
    CHECK(hb_batch_result_count(br) == BATCH_ITEMS + 2);
    int matched = 0;
    for (int i = 0; i < BATCH_ITEMS; i++) {
        const hb_result *r = hb_batch_result_get(br, (size_t)i);
        const uint8_t *v = NULL;
        size_t len = 0;
        if (r && hb_result_value(r, F, 1, Q, 1, &v, &len) == HB_OK && len == 4 &&
            v[3] == (uint8_t)i && v[2] == 0) {
            matched++;
        }
    }
    CHECK(matched == BATCH_ITEMS);
    const hb_error *item_err = NULL;
    CHECK_STATUS(hb_batch_result_status(br, BATCH_ITEMS, &item_err), HB_ERR_NO_SUCH_COLUMN_FAMILY);
    CHECK(item_err != NULL && hb_error_status(item_err) == HB_ERR_NO_SUCH_COLUMN_FAMILY);
    CHECK(hb_batch_result_get(br, BATCH_ITEMS) == NULL);
    CHECK_STATUS(hb_batch_result_status(br, BATCH_ITEMS + 1, NULL), HB_OK);
    hb_batch_result_free(br);
    hb_table_free(table);
}

/* ---- async: 8 threads x 500 puts with callbacks ------------------------------------------- */

#define THREADS 8
#define PER_THREAD 500

struct submitter {
    hb_table *table;
    int id;
    pthread_t thread;
};

static atomic_int callbacks_run;
static atomic_int callbacks_failed;
static atomic_int callbacks_on_submitter;
static atomic_int callbacks_off_worker;
static _Thread_local int is_submitter;

static void on_put_done(hb_future *future, void *userdata) {
    int id = (int)(intptr_t)userdata;
    char name[32] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    if (is_submitter || id < 0 || id >= THREADS) {
        atomic_fetch_add(&callbacks_on_submitter, 1);
    }
    if (strcmp(name, "hbclient-cb") != 0) {
        atomic_fetch_add(&callbacks_off_worker, 1);
    }
    if (!hb_future_is_ready(future) || hb_future_wait(future) != HB_OK) {
        atomic_fetch_add(&callbacks_failed, 1);
    }
    hb_future_free(future); /* freeing from the callback is allowed */
    atomic_fetch_add(&callbacks_run, 1);
}

static void *submit_puts(void *arg) {
    struct submitter *s = arg;
    is_submitter = 1;
    char row[32];
    for (int i = 0; i < PER_THREAD; i++) {
        int n = snprintf(row, sizeof row, "async-%d-%04d", s->id, i);
        hb_put *put = make_put(row, (size_t)n, row, (size_t)n);
        hb_future *f = hb_table_put_async(s->table, put);
        hb_put_free(put); /* the operation copied it */
        if (hb_future_set_callback(f, on_put_done, (void *)(intptr_t)s->id) != HB_OK) {
            atomic_fetch_add(&callbacks_failed, 1);
        }
    }
    return NULL;
}

static void test_concurrent_async(hb_connection *conn) {
    hb_table *table = open_table(conn, "t");
    struct submitter subs[THREADS];
    atomic_store(&callbacks_run, 0);
    for (int t = 0; t < THREADS; t++) {
        subs[t].table = table;
        subs[t].id = t;
        pthread_create(&subs[t].thread, NULL, submit_puts, &subs[t]);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(subs[t].thread, NULL);
    }
    for (int spins = 0; spins < 6000 && atomic_load(&callbacks_run) < THREADS * PER_THREAD; spins++) {
        usleep(10 * 1000);
    }
    CHECK(atomic_load(&callbacks_run) == THREADS * PER_THREAD);
    CHECK(atomic_load(&callbacks_failed) == 0);
    CHECK(atomic_load(&callbacks_on_submitter) == 0);
    CHECK(atomic_load(&callbacks_off_worker) == 0);

    /* Every row is there. */
    hb_scan *scan = NULL;
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    CHECK_STATUS(hb_scan_set_start_row(scan, "async-", 6), HB_OK);
    CHECK_STATUS(hb_scan_set_stop_row(scan, "async.", 6), HB_OK);
    hb_scanner *scanner = NULL;
    CHECK_STATUS(hb_table_scanner(table, scan, &scanner, NULL), HB_OK);
    int rows = 0;
    for (;;) {
        hb_result *r = NULL;
        if (hb_scanner_next(scanner, &r, NULL) != HB_OK || r == NULL) break;
        rows++;
        hb_result_free(r);
    }
    CHECK(rows == THREADS * PER_THREAD);
    hb_scanner_free(scanner);
    hb_scan_free(scan);
    hb_table_free(table);
}

/* ---- futures: get, wait_timeout, late callbacks, blocking calls inside callbacks ---------- */

struct late_state {
    atomic_int ran;
    hb_table *table;
    hb_status nested;
};

static void on_get_done(hb_future *future, void *userdata) {
    struct late_state *st = userdata;
    hb_result *r = NULL;
    if (hb_future_take_result(future, &r) == HB_OK) {
        hb_result_free(r);
    }
    /* A blocking call from inside a callback (runs on a runtime worker). */
    hb_get *get = make_get("fut", 3);
    hb_result *again = NULL;
    st->nested = hb_table_get(st->table, get, &again, NULL);
    hb_result_free(again);
    hb_get_free(get);
    atomic_store(&st->ran, 1);
}

static void test_futures(hb_connection *conn) {
    hb_table *table = open_table(conn, "t");
    hb_put *put = make_put("fut", 3, "v", 1);
    hb_future *pf = hb_table_put_async(table, put);
    hb_put_free(put);
    CHECK_STATUS(hb_future_wait_timeout(pf, 30000), HB_OK);
    CHECK(hb_future_error(pf) == NULL);
    hb_result *none = NULL;
    CHECK_STATUS(hb_future_take_result(pf, &none), HB_ERR_INVALID_ARGUMENT);
    hb_future_free(pf);

    hb_get *get = make_get("fut", 3);
    hb_future *gf = hb_table_get_async(table, get);
    hb_get_free(get);
    hb_status polled = hb_future_wait_timeout(gf, 0);
    CHECK(polled == HB_OK || polled == HB_ERR_NOT_READY);
    CHECK_STATUS(hb_future_wait(gf), HB_OK);
    CHECK(hb_future_is_ready(gf));
    /* A callback set after completion still runs, on a runtime thread. */
    struct late_state st = {0, table, HB_ERR_UNKNOWN};
    CHECK_STATUS(hb_future_set_callback(gf, on_get_done, &st), HB_OK);
    CHECK_STATUS(hb_future_set_callback(gf, on_get_done, &st), HB_ERR_INVALID_STATE);
    for (int i = 0; i < 3000 && !atomic_load(&st.ran); i++) usleep(1000);
    CHECK(atomic_load(&st.ran));
    CHECK(st.nested == HB_OK);
    hb_result *r = NULL;
    CHECK_STATUS(hb_future_take_result(gf, &r), HB_ERR_INVALID_STATE);
    hb_future_free(gf);

    hb_delete *del = NULL;
    CHECK_STATUS(hb_delete_new("fut", 3, &del), HB_OK);
    hb_future *df = hb_table_delete_async(table, del);
    hb_delete_free(del);
    CHECK_STATUS(hb_future_wait(df), HB_OK);
    hb_future_free(df);

    /* A failed future keeps its error until freed. */
    hb_table *missing = open_table(conn, "no_such_table");
    get = make_get("r", 1);
    hb_future *ef = hb_table_get_async(missing, get);
    hb_get_free(get);
    CHECK_STATUS(hb_future_wait(ef), HB_ERR_TABLE_NOT_FOUND);
    const hb_error *e = hb_future_error(ef);
    CHECK(e != NULL && hb_error_status(e) == HB_ERR_TABLE_NOT_FOUND);
    CHECK(e != NULL && strstr(hb_error_exception_class(e), "TableNotFound") != NULL);
    r = NULL;
    CHECK_STATUS(hb_future_take_result(ef, &r), HB_ERR_TABLE_NOT_FOUND);
    CHECK(r == NULL);
    hb_future_free(ef);
    hb_table_free(missing);
    hb_table_free(table);
}

/* ---- scan over many rows across regions --------------------------------------------------- */

#define SCAN_ROWS 5000

static void test_scan(hb_connection *conn) {
    hb_table *table = open_table(conn, "t");
    hb_batch *batch = NULL;
    CHECK_STATUS(hb_batch_new(&batch), HB_OK);
    char row[32];
    for (int i = 0; i < SCAN_ROWS; i++) {
        /* "k..." rows lie before the split at "m", "s..." after it. */
        int n = snprintf(row, sizeof row, "%s%05d", i < SCAN_ROWS / 2 ? "k" : "s", i);
        hb_put *put = make_put(row, (size_t)n, "\0x", 2);
        CHECK_STATUS(hb_batch_add_put(batch, put), HB_OK);
        hb_put_free(put);
    }
    hb_batch_result *br = NULL;
    CHECK_STATUS(hb_table_batch(table, batch, &br, NULL), HB_OK);
    hb_batch_result_free(br);
    hb_batch_free(batch);

    hb_scan *scan = NULL;
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    CHECK_STATUS(hb_scan_set_start_row(scan, "k", 1), HB_OK);
    CHECK_STATUS(hb_scan_set_stop_row(scan, "t", 1), HB_OK);
    CHECK_STATUS(hb_scan_add_family(scan, F, 1), HB_OK);
    CHECK_STATUS(hb_scan_set_caching(scan, 97), HB_OK);
    hb_scanner *scanner = NULL;
    CHECK_STATUS(hb_table_scanner(table, scan, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_scanner(table, scan, &scanner, NULL), HB_OK);
    int rows = 0, ordered = 1, values_ok = 1;
    char previous[32] = "";
    for (;;) {
        hb_result *r = NULL;
        hb_error *err = NULL;
        hb_status st = hb_scanner_next(scanner, &r, &err);
        if (st != HB_OK) {
            fprintf(stderr, "scan: %s\n", hb_error_message(err));
            hb_error_free(err);
            break;
        }
        if (r == NULL) break;
        const uint8_t *p = NULL;
        size_t len = 0;
        hb_result_row(r, &p, &len);
        char current[32] = "";
        memcpy(current, p, len < 31 ? len : 31);
        if (strcmp(current, previous) <= 0) ordered = 0;
        strcpy(previous, current);
        if (hb_result_value(r, F, 1, Q, 1, &p, &len) != HB_OK || len != 2 || p[0] != 0) values_ok = 0;
        rows++;
        hb_result_free(r);
    }
    CHECK(rows == SCAN_ROWS);
    CHECK(ordered);
    CHECK(values_ok);
    hb_result *end = (hb_result *)&rows; /* not NULL: must be overwritten with NULL at the end */
    CHECK_STATUS(hb_scanner_next(scanner, &end, NULL), HB_OK);
    CHECK(end == NULL);
    CHECK_STATUS(hb_scanner_next(scanner, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    hb_scanner_free(scanner);

    /* A limit; a scanner freed before its end. */
    CHECK_STATUS(hb_scan_set_limit(scan, 10), HB_OK);
    CHECK_STATUS(hb_table_scanner(table, scan, &scanner, NULL), HB_OK);
    rows = 0;
    for (;;) {
        hb_result *r = NULL;
        if (hb_scanner_next(scanner, &r, NULL) != HB_OK || r == NULL) break;
        rows++;
        hb_result_free(r);
    }
    CHECK(rows == 10);
    hb_scanner_free(scanner);
    CHECK_STATUS(hb_scan_set_limit(scan, 0), HB_OK);
    CHECK_STATUS(hb_table_scanner(table, scan, &scanner, NULL), HB_OK);
    hb_result *first = NULL;
    CHECK_STATUS(hb_scanner_next(scanner, &first, NULL), HB_OK);
    CHECK(first != NULL);
    hb_result_free(first);
    hb_scanner_free(scanner);
    hb_scan_free(scan);
    hb_table_free(table);
}

/* ---- buffered mutator --------------------------------------------------------------------- */

static void test_mutator(hb_connection *conn) {
    hb_mutator *m = NULL;
    hb_error *err = NULL;
    CHECK_STATUS(hb_mutator_open(conn, NULL, &m, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_mutator_open(conn, "t", NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_mutator_open(conn, "t", &m, &err), HB_OK);
    CHECK_STATUS(hb_mutator_put(m, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_mutator_delete(m, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    char row[32];
    for (int i = 0; i < 2000; i++) {
        int n = snprintf(row, sizeof row, "wmut%05d", i);
        hb_put *put = make_put(row, (size_t)n, "m\0v", 3);
        CHECK_STATUS(hb_mutator_put(m, put, NULL), HB_OK);
        hb_put_free(put);
    }
    hb_delete *del = NULL;
    CHECK_STATUS(hb_delete_new("wmut00000", 9, &del), HB_OK);
    CHECK_STATUS(hb_mutator_delete(m, del, NULL), HB_OK);
    hb_delete_free(del);
    CHECK_STATUS(hb_mutator_flush(m, &err), HB_OK);

    hb_table *table = open_table(conn, "t");
    hb_get *get = make_get("wmut01999", 9);
    hb_result *r = NULL;
    CHECK_STATUS(hb_table_get(table, get, &r, NULL), HB_OK);
    const uint8_t *v = NULL;
    size_t len = 0;
    CHECK_STATUS(hb_result_value(r, F, 1, Q, 1, &v, &len), HB_OK);
    CHECK(len == 3 && memcmp(v, "m\0v", 3) == 0);
    hb_result_free(r);
    hb_get_free(get);

    /* A failing mutation is reported by flush (or close). */
    hb_put *bad = NULL;
    CHECK_STATUS(hb_put_new("wmutbad", 7, &bad), HB_OK);
    CHECK_STATUS(hb_put_add(bad, (const uint8_t *)"nofam", 5, Q, 1, "v", 1, HB_LATEST_TIMESTAMP), HB_OK);
    hb_status st = hb_mutator_put(m, bad, NULL);
    hb_put_free(bad);
    if (st == HB_OK) {
        err = NULL;
        st = hb_mutator_flush(m, &err);
    }
    CHECK(st != HB_OK);
    CHECK(err == NULL || hb_error_status(err) == st);
    hb_error_free(err);
    err = NULL;
    CHECK_STATUS(hb_mutator_close(m, &err), HB_OK);
    hb_error_free(err);
    hb_table_free(table);
}

/* ---- a closed connection ------------------------------------------------------------------ */

static void test_closed(void) {
    hb_connection *conn = connect_cluster();
    hb_table *table = open_table(conn, "t");
    hb_connection_close(conn);
    hb_put *put = make_put("closed", 6, "v", 1);
    hb_error *err = NULL;
    CHECK_STATUS(hb_table_put(table, put, &err), HB_ERR_CLOSED);
    hb_error_free(err);
    hb_future *f = hb_table_put_async(table, put);
    CHECK_STATUS(hb_future_wait(f), HB_ERR_CLOSED);
    hb_future_free(f);
    hb_put_free(put);
    hb_table_free(table);
}

int main(void) {
    test_version_and_status();
    test_null_arguments();
    hb_connection *conn = connect_cluster();
    test_binary_roundtrip(conn);
    test_errors(conn);
    test_atomic(conn);
    test_v2_rules(conn);
    test_big_batch(conn);
    test_concurrent_async(conn);
    test_futures(conn);
    test_scan(conn);
    test_mutator(conn);
    hb_connection_close(conn);
    test_closed();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
