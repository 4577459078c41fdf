/*
 * C tests of libhbclient v2 features: filters, scan and get options, exists, append (blocking and
 * async), cancelling a future, per-call timeouts, error copies, metrics, table admin, namespaces,
 * describe, async scans, scan metrics, and priorities and attributes. Built with -Wall -Wextra -Werror under ASan/UBSan by
 * scripts/ffi-test.sh, against mini-hbase (table `t`, families f and g) or a real cluster
 * (HBCLIENT_FFI_BOOTSTRAP).
 */
#define _GNU_SOURCE
#include <hbclient.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static hb_connection *connect_cluster(void) {
    hb_config *cfg = NULL;
    CHECK_STATUS(hb_config_new(&cfg), HB_OK);
    CHECK_STATUS(hb_config_set(cfg, "hbase.client.bootstrap.servers", getenv("HBCLIENT_FFI_BOOTSTRAP")),
                 HB_OK);
    hb_connection *conn = NULL;
    hb_error *err = NULL;
    if (hb_connection_open(cfg, &conn, &err) != HB_OK) {
        fprintf(stderr, "connect: %s\n", hb_error_message(err));
        exit(2);
    }
    hb_config_free(cfg);
    return conn;
}

static void put_cell(hb_table *t, const char *row, const char *fam, const char *q, const char *v,
                     uint64_t ts) {
    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new(row, strlen(row), &put), HB_OK);
    CHECK_STATUS(hb_put_add(put, fam, strlen(fam), q, strlen(q), v, strlen(v), ts), HB_OK);
    CHECK_STATUS(hb_table_put(t, put, NULL), HB_OK);
    hb_put_free(put);
}

/* Rows of a scan, first row key copied into `first` (when given). */
static int scan_count(hb_table *t, hb_scan *scan, char *first, size_t first_size) {
    hb_scanner *scanner = NULL;
    CHECK_STATUS(hb_table_scanner(t, scan, &scanner, NULL), HB_OK);
    int rows = 0;
    for (;;) {
        hb_result *r = NULL;
        hb_error *err = NULL;
        hb_status st = hb_scanner_next(scanner, &r, &err);
        if (st != HB_OK) {
            fprintf(stderr, "scan: %s\n", hb_error_message(err));
            hb_error_free(err);
            CHECK(0);
            break;
        }
        if (r == NULL) break;
        if (rows == 0 && first) {
            const uint8_t *key = NULL;
            size_t len = 0;
            hb_result_row(r, &key, &len);
            snprintf(first, first_size, "%.*s", (int)len, (const char *)key);
        }
        rows++;
        hb_result_free(r);
    }
    hb_scanner_free(scanner);
    return rows;
}

static hb_scan *prefix_scan(const char *prefix) {
    hb_scan *scan = NULL;
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    CHECK_STATUS(hb_scan_set_prefix(scan, prefix, strlen(prefix)), HB_OK);
    return scan;
}

static void test_scan_options_and_filters(hb_table *t) {
    char row[32];
    for (int i = 0; i < 5; i++) {
        snprintf(row, sizeof row, "feat-r-a%d", i);
        put_cell(t, row, "f", "q", i % 2 ? "odd" : "even", HB_LATEST_TIMESTAMP);
        snprintf(row, sizeof row, "feat-r-b%d", i);
        put_cell(t, row, "f", "q", "b", HB_LATEST_TIMESTAMP);
    }
    char first[32] = "";
    hb_scan *scan = prefix_scan("feat-r-a");
    CHECK(scan_count(t, scan, first, sizeof first) == 5);
    CHECK(strcmp(first, "feat-r-a0") == 0);
    hb_scan_free(scan);

    /* Reversed: highest key first. */
    scan = NULL;
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    CHECK_STATUS(hb_scan_set_start_row(scan, "feat-r-a9", 9), HB_OK);
    CHECK_STATUS(hb_scan_set_stop_row(scan, "feat-r-a", 8), HB_OK);
    CHECK_STATUS(hb_scan_set_reversed(scan), HB_OK);
    CHECK(scan_count(t, scan, first, sizeof first) == 5);
    CHECK(strcmp(first, "feat-r-a4") == 0);
    hb_scan_free(scan);

    /* Filters: prefix, value (EQUAL "odd"), a list (OR), key-only, page, column value. */
    scan = NULL;
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    hb_filter *prefix = NULL, *odd = NULL, *list = NULL, *b = NULL;
    CHECK_STATUS(hb_filter_prefix_new("feat-r-b", 8, &prefix), HB_OK);
    CHECK_STATUS(hb_scan_set_filter(scan, prefix), HB_OK);
    CHECK(scan_count(t, scan, first, sizeof first) == 5);
    CHECK(strcmp(first, "feat-r-b0") == 0);
    hb_scan_free(scan);

    scan = prefix_scan("feat-r-");
    CHECK_STATUS(hb_filter_value_new(HB_COMPARE_EQUAL, "odd", 3, &odd), HB_OK);
    CHECK_STATUS(hb_scan_set_filter(scan, odd), HB_OK);
    CHECK(scan_count(t, scan, NULL, 0) == 2);
    CHECK_STATUS(hb_filter_list_new(HB_FILTER_MUST_PASS_ONE, &list), HB_OK);
    CHECK_STATUS(hb_filter_list_add(list, odd), HB_OK);
    CHECK_STATUS(hb_filter_value_new(HB_COMPARE_EQUAL, "b", 1, &b), HB_OK);
    CHECK_STATUS(hb_filter_list_add(list, b), HB_OK);
    CHECK_STATUS(hb_filter_list_add(odd, b), HB_ERR_INVALID_ARGUMENT); /* not a list */
    CHECK_STATUS(hb_scan_set_filter(scan, list), HB_OK);
    CHECK(scan_count(t, scan, NULL, 0) == 7);
    hb_scan_free(scan);
    CHECK_STATUS(hb_filter_value_new(42, "b", 1, &b), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_filter_list_new(7, &b), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_filter_page_new(0, &b), HB_ERR_INVALID_ARGUMENT);
    hb_filter_free(prefix);
    hb_filter_free(odd);
    hb_filter_free(list);
    hb_filter_free(b);
    hb_filter_free(NULL);

    scan = prefix_scan("feat-r-a");
    hb_filter *column = NULL;
    CHECK_STATUS(hb_filter_column_value_new("f", 1, "q", 1, HB_COMPARE_EQUAL, "even", 4, true, &column),
                 HB_OK);
    CHECK_STATUS(hb_scan_set_filter(scan, column), HB_OK);
    CHECK(scan_count(t, scan, NULL, 0) == 3);
    hb_filter_free(column);
    hb_scan_free(scan);

    /* Key-only: the value comes back empty. */
    hb_filter *keys = NULL;
    CHECK_STATUS(hb_filter_key_only_new(&keys), HB_OK);
    hb_get *get = NULL;
    CHECK_STATUS(hb_get_new("feat-r-a1", 9, &get), HB_OK);
    CHECK_STATUS(hb_get_set_filter(get, keys), HB_OK);
    hb_result *r = NULL;
    CHECK_STATUS(hb_table_get(t, get, &r, NULL), HB_OK);
    const uint8_t *value = NULL;
    size_t value_len = 99;
    CHECK_STATUS(hb_result_value(r, "f", 1, "q", 1, &value, &value_len), HB_OK);
    CHECK(value_len == 0);
    hb_result_free(r);
    hb_get_free(get);
    hb_filter_free(keys);

    /* Batch: a row of 3 columns comes back as 3 results; max result size accepted. */
    put_cell(t, "feat-wide", "f", "1", "x", HB_LATEST_TIMESTAMP);
    put_cell(t, "feat-wide", "f", "2", "x", HB_LATEST_TIMESTAMP);
    put_cell(t, "feat-wide", "f", "3", "x", HB_LATEST_TIMESTAMP);
    scan = prefix_scan("feat-wide");
    CHECK_STATUS(hb_scan_set_batch(scan, 1), HB_OK);
    CHECK_STATUS(hb_scan_set_max_result_size(scan, 1 << 20), HB_OK);
    CHECK(scan_count(t, scan, NULL, 0) == 3);
    CHECK_STATUS(hb_scan_set_batch(scan, 0), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scan_set_max_result_size(scan, 0), HB_ERR_INVALID_ARGUMENT);
    hb_scan_free(scan);
}

static void test_versions_and_time_range(hb_table *t) {
    /* A row of its own per run: cells at old timestamps would hide behind an earlier delete. */
    char ver[32];
    snprintf(ver, sizeof ver, "feat-ver-%d", (int)getpid());
    /* Families keep 1 version by default (as in HBase): two columns at two timestamps. */
    put_cell(t, ver, "f", "q1", "old", 1000);
    put_cell(t, ver, "f", "q2", "new", 2000);
    hb_get *get = NULL;
    CHECK_STATUS(hb_get_new(ver, strlen(ver), &get), HB_OK);
    CHECK_STATUS(hb_get_set_max_versions(get, 5), HB_OK);
    hb_result *r = NULL;
    CHECK_STATUS(hb_table_get(t, get, &r, NULL), HB_OK);
    CHECK(hb_result_cell_count(r) == 2);
    hb_result_free(r);
    CHECK_STATUS(hb_get_set_time_range(get, 500, 1500), HB_OK);
    CHECK_STATUS(hb_table_get(t, get, &r, NULL), HB_OK);
    const uint8_t *value = NULL;
    size_t len = 0;
    CHECK(hb_result_cell_count(r) == 1);
    CHECK_STATUS(hb_result_value(r, "f", 1, "q1", 2, &value, &len), HB_OK);
    CHECK(len == 3 && memcmp(value, "old", 3) == 0);
    hb_result_free(r);
    CHECK_STATUS(hb_get_set_time_range(get, 2000, 1000), HB_ERR_INVALID_ARGUMENT);
    hb_get_free(get);

    hb_scan *scan = prefix_scan(ver);
    CHECK_STATUS(hb_scan_set_max_versions(scan, 3), HB_OK);
    CHECK_STATUS(hb_scan_set_time_range(scan, 1500, 2500), HB_OK);
    hb_scanner *scanner = NULL;
    CHECK_STATUS(hb_table_scanner(t, scan, &scanner, NULL), HB_OK);
    r = NULL;
    CHECK_STATUS(hb_scanner_next(scanner, &r, NULL), HB_OK);
    CHECK(r != NULL && hb_result_cell_count(r) == 1);
    if (r) {
        CHECK_STATUS(hb_result_value(r, "f", 1, "q2", 2, &value, &len), HB_OK);
        CHECK(len == 3 && memcmp(value, "new", 3) == 0);
    }
    hb_result_free(r);
    hb_scanner_free(scanner);
    hb_scan_free(scan);

    /* exists */
    bool exists = false;
    CHECK_STATUS(hb_get_new(ver, strlen(ver), &get), HB_OK);
    CHECK_STATUS(hb_table_exists(t, get, &exists, NULL), HB_OK);
    CHECK(exists);
    hb_get_free(get);
    CHECK_STATUS(hb_get_new("feat-none", 9, &get), HB_OK);
    CHECK_STATUS(hb_table_exists(t, get, &exists, NULL), HB_OK);
    CHECK(!exists);
    CHECK_STATUS(hb_table_exists(t, get, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    hb_get_free(get);
}

static void test_append(hb_table *t) {
    char row[32];
    snprintf(row, sizeof row, "feat-app-%d", (int)getpid());
    hb_append *app = NULL;
    CHECK_STATUS(hb_append_new(row, strlen(row), &app), HB_OK);
    CHECK_STATUS(hb_append_add(app, "f", 1, "q", 1, "ab", 2), HB_OK);
    hb_result *r = NULL;
    CHECK_STATUS(hb_table_append(t, app, &r, NULL), HB_OK);
    const uint8_t *value = NULL;
    size_t len = 0;
    CHECK_STATUS(hb_result_value(r, "f", 1, "q", 1, &value, &len), HB_OK);
    CHECK(len == 2 && memcmp(value, "ab", 2) == 0);
    hb_result_free(r);
    CHECK_STATUS(hb_table_append(t, app, NULL, NULL), HB_OK); /* out may be NULL */
    hb_future *f = hb_table_append_async(t, app);
    CHECK_STATUS(hb_future_wait(f), HB_OK);
    r = NULL;
    CHECK_STATUS(hb_future_take_result(f, &r), HB_OK);
    CHECK_STATUS(hb_result_value(r, "f", 1, "q", 1, &value, &len), HB_OK);
    CHECK(len == 6 && memcmp(value, "ababab", 6) == 0);
    hb_result_free(r);
    hb_future_free(f);
    CHECK_STATUS(hb_append_new("", 0, &app), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_append_add(app, NULL, 0, "q", 1, "x", 1), HB_ERR_INVALID_ARGUMENT);
    hb_append_free(app);
    hb_append_free(NULL);
}

/* Priorities, operation attributes (binary values, NULL with length 0 for empty), request
 * attributes on a derived table handle and connection attributes through a config key: every
 * operation still works (what arrives is checked against mini-hbase by the Rust exports test). */
static void test_priorities_and_attributes(void) {
    hb_config *cfg = NULL;
    CHECK_STATUS(hb_config_new(&cfg), HB_OK);
    CHECK_STATUS(hb_config_set(cfg, "hbase.client.bootstrap.servers", getenv("HBCLIENT_FFI_BOOTSTRAP")),
                 HB_OK);
    CHECK_STATUS(hb_config_set(cfg, "hbclient.connection.attribute.app", "c-test"), HB_OK);
    hb_connection *conn = NULL;
    CHECK_STATUS(hb_connection_open(cfg, &conn, NULL), HB_OK);
    hb_config_free(cfg);
    if (conn == NULL) return;
    hb_table *plain = NULL, *t = NULL;
    CHECK_STATUS(hb_table_open(conn, "t", &plain, NULL), HB_OK);
    CHECK_STATUS(hb_table_with_request_attribute(plain, "tenant", "t\0x", 3, &t), HB_OK);
    char row[32];
    snprintf(row, sizeof row, "feat-attr-%d", (int)getpid());

    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new(row, strlen(row), &put), HB_OK);
    CHECK_STATUS(hb_put_add(put, "f", 1, "q", 1, "v", 1, HB_LATEST_TIMESTAMP), HB_OK);
    CHECK_STATUS(hb_put_set_priority(put, 200), HB_OK);
    CHECK_STATUS(hb_put_set_attribute(put, "k", "\0p", 2), HB_OK);
    CHECK_STATUS(hb_table_put(t, put, NULL), HB_OK);
    hb_put_free(put);

    hb_get *get = NULL;
    CHECK_STATUS(hb_get_new(row, strlen(row), &get), HB_OK);
    CHECK_STATUS(hb_get_set_priority(get, 7), HB_OK);
    CHECK_STATUS(hb_get_set_attribute(get, "k", NULL, 0), HB_OK);
    hb_result *r = NULL;
    CHECK_STATUS(hb_table_get(t, get, &r, NULL), HB_OK);
    CHECK(r != NULL && !hb_result_is_empty(r));
    hb_result_free(r);
    CHECK_STATUS(hb_get_set_attribute(get, NULL, "v", 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_set_attribute(get, "k", NULL, 1), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_set_priority(NULL, 1), HB_ERR_INVALID_ARGUMENT);
    hb_get_free(get);

    hb_append *app = NULL;
    CHECK_STATUS(hb_append_new(row, strlen(row), &app), HB_OK);
    CHECK_STATUS(hb_append_add(app, "f", 1, "a", 1, "x", 1), HB_OK);
    CHECK_STATUS(hb_append_set_priority(app, 9), HB_OK);
    CHECK_STATUS(hb_append_set_attribute(app, "k", "a", 1), HB_OK);
    CHECK_STATUS(hb_table_append(t, app, NULL, NULL), HB_OK);
    hb_append_free(app);

    hb_scan *scan = prefix_scan(row);
    CHECK_STATUS(hb_scan_set_priority(scan, 201), HB_OK);
    CHECK_STATUS(hb_scan_set_attribute(scan, "k", "s", 1), HB_OK);
    CHECK(scan_count(t, scan, NULL, 0) == 1);
    hb_scan_free(scan);

    hb_delete *del = NULL;
    CHECK_STATUS(hb_delete_new(row, strlen(row), &del), HB_OK);
    CHECK_STATUS(hb_delete_set_priority(del, 0), HB_OK);
    CHECK_STATUS(hb_delete_set_attribute(del, "k", "d", 1), HB_OK);
    CHECK_STATUS(hb_table_delete(t, del, NULL), HB_OK);
    hb_delete_free(del);

    hb_table *none = NULL;
    CHECK_STATUS(hb_table_with_request_attribute(NULL, "k", NULL, 0, &none), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_table_with_request_attribute(plain, NULL, NULL, 0, &none), HB_ERR_INVALID_ARGUMENT);
    CHECK(none == NULL);
    hb_table_free(t);
    hb_table_free(plain);
    hb_connection_close(conn);
}

static atomic_int cancelled_callbacks;

static void on_cancelled(hb_future *f, void *userdata) {
    (void)userdata;
    if (hb_future_wait(f) == HB_ERR_CANCELLED) atomic_fetch_add(&cancelled_callbacks, 1);
}

static hb_batch *big_batch(int n) {
    hb_batch *batch = NULL;
    CHECK_STATUS(hb_batch_new(&batch), HB_OK);
    char row[32];
    for (int i = 0; i < n; i++) {
        int len = snprintf(row, sizeof row, "feat-big-%06d", i);
        hb_put *put = NULL;
        hb_put_new(row, (size_t)len, &put);
        hb_put_add(put, "f", 1, "q", 1, row, (size_t)len, HB_LATEST_TIMESTAMP);
        hb_batch_add_put(batch, put);
        hb_put_free(put);
    }
    return batch;
}

static void test_cancel_and_timeouts(hb_table *t) {
    hb_batch *batch = big_batch(20000);
    hb_future *f = hb_table_batch_async(t, batch);
    CHECK_STATUS(hb_future_set_callback(f, on_cancelled, NULL), HB_OK);
    CHECK_STATUS(hb_future_cancel(f), HB_OK);
    CHECK_STATUS(hb_future_wait(f), HB_ERR_CANCELLED);
    CHECK(hb_error_status(hb_future_error(f)) == HB_ERR_CANCELLED);
    /* An error outlives its future when copied. */
    hb_error *copy = NULL;
    CHECK_STATUS(hb_error_copy(hb_future_error(f), &copy), HB_OK);
    CHECK_STATUS(hb_future_cancel(f), HB_ERR_INVALID_STATE); /* already complete */
    hb_future_free(f);
    CHECK(copy != NULL && hb_error_status(copy) == HB_ERR_CANCELLED &&
          strstr(hb_error_message(copy), "cancel") != NULL);
    hb_error_free(copy);
    CHECK_STATUS(hb_error_copy(NULL, &copy), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_future_cancel(NULL), HB_ERR_INVALID_ARGUMENT);
    for (int i = 0; i < 5000 && atomic_load(&cancelled_callbacks) == 0; i++) usleep(1000);
    CHECK(atomic_load(&cancelled_callbacks) == 1);

    /* Per-call timeouts: 1 ms is too short for 20,000 puts; 60 s is plenty. */
    hb_table *hasty = NULL, *patient = NULL;
    CHECK_STATUS(hb_table_with_timeout(t, 1, &hasty), HB_OK);
    CHECK_STATUS(hb_table_with_timeout(t, 60000, &patient), HB_OK);
    CHECK_STATUS(hb_table_with_timeout(t, 0, &patient), HB_ERR_INVALID_ARGUMENT);
    hb_batch_result *results = NULL;
    hb_error *err = NULL;
    CHECK_STATUS(hb_table_batch(hasty, batch, &results, &err), HB_ERR_TIMEOUT);
    CHECK(err != NULL && strstr(hb_error_message(err), "1 ms") != NULL);
    hb_error_free(err);
    f = hb_table_batch_async(hasty, batch);
    CHECK_STATUS(hb_future_wait(f), HB_ERR_TIMEOUT);
    hb_future_free(f);
    CHECK_STATUS(hb_table_batch(patient, batch, &results, NULL), HB_OK);
    hb_batch_result_free(results);
    hb_table_free(hasty);
    hb_table_free(patient);
    hb_batch_free(batch);
}

static void test_row_mutations_and_check(hb_table *t) {
    char row[32];
    snprintf(row, sizeof row, "feat-rm-%d", (int)getpid());
    size_t n = strlen(row);
    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new(row, n, &put), HB_OK);
    CHECK_STATUS(hb_put_add(put, "f", 1, "a", 1, "1", 1, HB_LATEST_TIMESTAMP), HB_OK);
    CHECK_STATUS(hb_put_add(put, "f", 1, "b", 1, "2", 1, HB_LATEST_TIMESTAMP), HB_OK);
    hb_delete *del = NULL;
    CHECK_STATUS(hb_delete_new(row, n, &del), HB_OK);
    CHECK_STATUS(hb_delete_add_column(del, "f", 1, "a", 1), HB_OK);
    hb_row_mutations *rm = NULL;
    CHECK_STATUS(hb_row_mutations_new(row, n, &rm), HB_OK);
    CHECK_STATUS(hb_row_mutations_add_put(rm, put), HB_OK);
    CHECK_STATUS(hb_table_mutate_row(t, rm, NULL), HB_OK);
    hb_row_mutations_free(rm);

    /* Other row: refused. */
    hb_put *other = NULL;
    CHECK_STATUS(hb_put_new("other", 5, &other), HB_OK);
    CHECK_STATUS(hb_put_add(other, "f", 1, "a", 1, "x", 1, HB_LATEST_TIMESTAMP), HB_OK);
    CHECK_STATUS(hb_row_mutations_new(row, n, &rm), HB_OK);
    CHECK_STATUS(hb_row_mutations_add_put(rm, other), HB_ERR_INVALID_ARGUMENT);

    /* If b == "2": delete a and put c, atomically. */
    hb_put *c = NULL;
    CHECK_STATUS(hb_put_new(row, n, &c), HB_OK);
    CHECK_STATUS(hb_put_add(c, "f", 1, "c", 1, "3", 1, HB_LATEST_TIMESTAMP), HB_OK);
    CHECK_STATUS(hb_row_mutations_add_delete(rm, del), HB_OK);
    CHECK_STATUS(hb_row_mutations_add_put(rm, c), HB_OK);
    hb_check *check = NULL;
    CHECK_STATUS(hb_check_new(row, n, &check), HB_OK);
    bool applied = true;
    CHECK_STATUS(hb_table_check_and_mutate(t, check, rm, &applied, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_check_column(check, "f", 1, "b", 1, HB_COMPARE_EQUAL, "9", 1), HB_OK);
    CHECK_STATUS(hb_table_check_and_mutate(t, check, rm, &applied, NULL), HB_OK);
    CHECK(!applied);
    CHECK_STATUS(hb_check_column(check, "f", 1, "b", 1, HB_COMPARE_EQUAL, "2", 1), HB_OK);
    CHECK_STATUS(hb_table_check_and_mutate(t, check, rm, &applied, NULL), HB_OK);
    CHECK(applied);
    hb_get *get = NULL;
    CHECK_STATUS(hb_get_new(row, n, &get), HB_OK);
    hb_result *r = NULL;
    CHECK_STATUS(hb_table_get(t, get, &r, NULL), HB_OK);
    const uint8_t *value = NULL;
    size_t len = 0;
    CHECK_STATUS(hb_result_value(r, "f", 1, "a", 1, &value, &len), HB_ERR_NOT_FOUND);
    CHECK_STATUS(hb_result_value(r, "f", 1, "c", 1, &value, &len), HB_OK);
    CHECK(len == 1 && value[0] == '3');
    hb_result_free(r);
    /* Absence test: "a" is absent now (applied); "zz" must use EQUAL. */
    CHECK_STATUS(hb_check_column(check, "f", 1, "a", 1, HB_COMPARE_EQUAL, NULL, 0), HB_OK);
    CHECK_STATUS(hb_table_check_and_mutate(t, check, rm, NULL, NULL), HB_OK);
    CHECK_STATUS(hb_check_column(check, "f", 1, "a", 1, HB_COMPARE_LESS, NULL, 0),
                 HB_ERR_INVALID_ARGUMENT);
    /* A filter test: b greater than "1" (stored OP given for column-value filters). */
    hb_filter *filter = NULL;
    CHECK_STATUS(hb_filter_column_value_new("f", 1, "b", 1, HB_COMPARE_GREATER, "1", 1, true, &filter),
                 HB_OK);
    CHECK_STATUS(hb_check_filter(check, filter), HB_OK);
    CHECK_STATUS(hb_check_set_time_range(check, 0, HB_LATEST_TIMESTAMP), HB_OK);
    CHECK_STATUS(hb_table_check_and_mutate(t, check, rm, &applied, NULL), HB_OK);
    CHECK(applied);
    hb_filter_free(filter);
    /* Async form: whether it applied comes from the future. */
    hb_future *af = hb_table_check_and_mutate_async(t, check, rm);
    CHECK_STATUS(hb_future_wait(af), HB_OK);
    applied = false;
    CHECK_STATUS(hb_future_take_bool(af, &applied), HB_OK);
    CHECK(applied);
    int64_t wrong_kind = 0;
    CHECK_STATUS(hb_future_take_int64(af, &wrong_kind), HB_ERR_INVALID_ARGUMENT);
    hb_future_free(af);
    /* Async increment. */
    hb_future *inc = hb_table_increment_async(t, row, n, "f", 1, "n", 1, 5);
    int64_t counter = 0;
    CHECK_STATUS(hb_future_wait(inc), HB_OK);
    CHECK_STATUS(hb_future_take_int64(inc, &counter), HB_OK);
    CHECK(counter == 5);
    CHECK_STATUS(hb_future_take_int64(inc, &counter), HB_ERR_INVALID_STATE); /* taken */
    hb_future_free(inc);
    inc = hb_table_increment_async(t, NULL, 0, "f", 1, "n", 1, 5);
    CHECK_STATUS(hb_future_wait(inc), HB_ERR_INVALID_ARGUMENT);
    hb_future_free(inc);
    /* Different rows: refused. */
    hb_check *wrong = NULL;
    CHECK_STATUS(hb_check_new("other", 5, &wrong), HB_OK);
    CHECK_STATUS(hb_check_column(wrong, "f", 1, "a", 1, HB_COMPARE_EQUAL, NULL, 0), HB_OK);
    CHECK_STATUS(hb_table_check_and_mutate(t, wrong, rm, &applied, NULL), HB_ERR_INVALID_ARGUMENT);
    hb_check_free(wrong);
    hb_check_free(check);
    hb_check_free(NULL);
    hb_get_free(get);
    hb_row_mutations_free(rm);
    hb_row_mutations_free(NULL);
    hb_put_free(put);
    hb_put_free(other);
    hb_put_free(c);
    hb_delete_free(del);
}

static atomic_int mutator_failures;

static void on_mutator_failure(const uint8_t *row, size_t row_len, const hb_error *error,
                               void *userdata) {
    (void)userdata;
    if (row_len > 0 && row[0] == 'm' && hb_error_status(error) == HB_ERR_NO_SUCH_COLUMN_FAMILY) {
        atomic_fetch_add(&mutator_failures, 1);
    }
}

static hb_put *bad_put(const char *row) {
    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new(row, strlen(row), &put), HB_OK);
    CHECK_STATUS(hb_put_add(put, "nofamily", 8, "q", 1, "v", 1, HB_LATEST_TIMESTAMP), HB_OK);
    return put;
}

static void test_mutator_failures(hb_connection *conn) {
    hb_mutator *m = NULL;
    CHECK_STATUS(hb_mutator_open(conn, "t", &m, NULL), HB_OK);
    const char *rows[] = {"mf-1", "mf-2", "mf-3"};
    for (int i = 0; i < 3; i++) {
        hb_put *put = bad_put(rows[i]);
        CHECK_STATUS(hb_mutator_put(m, put, NULL), HB_OK);
        hb_put_free(put);
    }
    hb_put *good = NULL;
    CHECK_STATUS(hb_put_new("mf-ok", 5, &good), HB_OK);
    CHECK_STATUS(hb_put_add(good, "f", 1, "q", 1, "v", 1, HB_LATEST_TIMESTAMP), HB_OK);
    CHECK_STATUS(hb_mutator_put(m, good, NULL), HB_OK);
    hb_error *err = NULL;
    CHECK(hb_mutator_flush(m, &err) != HB_OK);
    hb_error_free(err);
    /* The whole list, not only the first. */
    CHECK(hb_mutator_failure_count(m) == 3);
    int seen = 0;
    for (size_t i = 0; i < hb_mutator_failure_count(m); i++) {
        const uint8_t *row = NULL;
        size_t len = 0;
        const hb_error *e = NULL;
        CHECK_STATUS(hb_mutator_failure(m, i, &row, &len, &e), HB_OK);
        CHECK(e != NULL && hb_error_status(e) == HB_ERR_NO_SUCH_COLUMN_FAMILY);
        for (int j = 0; j < 3; j++) {
            if (len == 4 && memcmp(row, rows[j], 4) == 0) seen |= 1 << j;
        }
    }
    CHECK(seen == 7);
    CHECK_STATUS(hb_mutator_failure(m, 3, NULL, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    hb_mutator_clear_failures(m);
    CHECK(hb_mutator_failure_count(m) == 0);
    CHECK_STATUS(hb_mutator_close(m, NULL), HB_OK);

    /* With a failure callback: every failure reaches it before close returns. */
    CHECK_STATUS(hb_mutator_open_with_callback(conn, "t", NULL, NULL, &m, NULL),
                 HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_mutator_open_with_callback(conn, "t", on_mutator_failure, NULL, &m, NULL), HB_OK);
    for (int i = 0; i < 3; i++) {
        hb_put *put = bad_put(rows[i]);
        CHECK_STATUS(hb_mutator_put(m, put, NULL), HB_OK);
        hb_put_free(put);
    }
    CHECK_STATUS(hb_mutator_put(m, good, NULL), HB_OK);
    CHECK_STATUS(hb_mutator_close(m, NULL), HB_OK); /* failures went to the callback */
    CHECK(atomic_load(&mutator_failures) == 3);
    hb_put_free(good);
}

static void test_metrics(hb_connection *conn) {
    uint64_t rpcs = 0, gets = 0, value = 0;
    CHECK_STATUS(hb_connection_metric(conn, "rpcs", &rpcs), HB_OK);
    CHECK(rpcs > 0);
    CHECK_STATUS(hb_connection_metric(conn, "rpcs.Get", &gets), HB_OK);
    CHECK(gets > 0 && gets <= rpcs);
    CHECK_STATUS(hb_connection_metric(conn, "bytes_out", &value), HB_OK);
    CHECK(value > 0);
    CHECK_STATUS(hb_connection_metric(conn, "connections_opened", &value), HB_OK);
    CHECK(value >= 1);
    CHECK_STATUS(hb_connection_metric(conn, "no_such_counter", &value), HB_ERR_NOT_FOUND);
    CHECK_STATUS(hb_connection_metric(conn, "rpcs", NULL), HB_ERR_INVALID_ARGUMENT);
}

static void test_admin(hb_connection *conn) {
    const char *families[] = {"f", "g"};
    const void *splits[] = {"m"};
    const size_t split_lens[] = {1};
    hb_error *err = NULL;
    hb_admin_delete_table(conn, "feat_admin", NULL); /* leftovers of an earlier run */
    CHECK_STATUS(hb_admin_create_table(conn, "feat_admin", families, 2, splits, split_lens, 1, &err),
                 HB_OK);
    if (err) fprintf(stderr, "create: %s\n", hb_error_message(err));
    hb_error_free(err);
    err = NULL;
    bool exists = false;
    CHECK_STATUS(hb_admin_table_exists(conn, "feat_admin", &exists, NULL), HB_OK);
    CHECK(exists);
    hb_table_names *names = NULL;
    CHECK_STATUS(hb_admin_list_tables(conn, &names, NULL), HB_OK);
    int found = 0;
    for (size_t i = 0; i < hb_table_names_count(names); i++) {
        if (strcmp(hb_table_names_get(names, i), "feat_admin") == 0) found = 1;
    }
    CHECK(found);
    CHECK(hb_table_names_get(names, hb_table_names_count(names)) == NULL);
    hb_table_names_free(names);

    hb_table *t = NULL;
    CHECK_STATUS(hb_table_open(conn, "feat_admin", &t, NULL), HB_OK);
    put_cell(t, "z", "g", "q", "v", HB_LATEST_TIMESTAMP);
    CHECK_STATUS(hb_admin_disable_table(conn, "feat_admin", NULL), HB_OK);
    hb_put *put = NULL;
    hb_put_new("z", 1, &put);
    hb_put_add(put, "f", 1, "q", 1, "v", 1, HB_LATEST_TIMESTAMP);
    CHECK_STATUS(hb_table_put(t, put, NULL), HB_ERR_TABLE_NOT_ENABLED);
    CHECK_STATUS(hb_admin_enable_table(conn, "feat_admin", NULL), HB_OK);
    CHECK_STATUS(hb_table_put(t, put, NULL), HB_OK);
    hb_put_free(put);
    hb_table_free(t);
    CHECK_STATUS(hb_admin_disable_table(conn, "feat_admin", NULL), HB_OK);
    CHECK_STATUS(hb_admin_delete_table(conn, "feat_admin", NULL), HB_OK);
    CHECK_STATUS(hb_admin_table_exists(conn, "feat_admin", &exists, NULL), HB_OK);
    CHECK(!exists);
    CHECK_STATUS(hb_admin_delete_table(conn, "feat_admin", &err), HB_ERR_TABLE_NOT_FOUND);
    CHECK(err != NULL);
    hb_error_free(err);
    CHECK_STATUS(hb_admin_create_table(conn, "feat_x", NULL, 0, NULL, NULL, 0, NULL),
                 HB_ERR_INVALID_ARGUMENT); /* no family */
    CHECK_STATUS(hb_admin_create_table(conn, "feat_x", NULL, 1, NULL, NULL, 0, NULL),
                 HB_ERR_INVALID_ARGUMENT); /* NULL array with a count */
}

/* ---- namespaces and describe --------------------------------------------------------------- */

static int has_name(hb_table_names *names, const char *name) {
    for (size_t i = 0; i < hb_table_names_count(names); i++)
        if (strcmp(hb_table_names_get(names, i), name) == 0) return 1;
    return 0;
}

static void test_namespaces_and_describe(hb_connection *conn) {
    hb_error *err = NULL;
    /* Leftovers of an earlier run. */
    hb_admin_disable_table(conn, "feat_ns:d", NULL);
    hb_admin_delete_table(conn, "feat_ns:d", NULL);
    hb_admin_delete_namespace(conn, "feat_ns", NULL);

    hb_table_names *names = NULL;
    CHECK_STATUS(hb_admin_list_namespaces(conn, &names, NULL), HB_OK);
    CHECK(has_name(names, "default") && has_name(names, "hbase") && !has_name(names, "feat_ns"));
    hb_table_names_free(names);
    CHECK_STATUS(hb_admin_create_namespace(conn, "feat_ns", NULL), HB_OK);
    CHECK_STATUS(hb_admin_create_namespace(conn, "feat_ns", &err), HB_ERR_REMOTE);
    CHECK(err != NULL && strstr(hb_error_exception_class(err), "NamespaceExistException") != NULL);
    hb_error_free(err);
    err = NULL;
    CHECK_STATUS(hb_admin_create_namespace(conn, "feat-ns", &err), HB_ERR_INVALID_ARGUMENT);
    CHECK(err != NULL && strstr(hb_error_message(err), "feat-ns") != NULL);
    hb_error_free(err);
    err = NULL;
    CHECK_STATUS(hb_admin_create_namespace(NULL, "x", NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_admin_create_namespace(conn, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_admin_list_namespaces(conn, NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    names = NULL;
    CHECK_STATUS(hb_admin_list_namespaces(conn, &names, NULL), HB_OK);
    CHECK(has_name(names, "feat_ns"));
    hb_table_names_free(names);

    const char *families[] = {"f", "g"};
    const void *splits[] = {"c", "k\0z"};
    const size_t split_lens[] = {1, 3};
    CHECK_STATUS(hb_admin_create_table(conn, "feat_ns:d", families, 2, splits, split_lens, 2, NULL),
                 HB_OK);
    CHECK_STATUS(hb_admin_delete_namespace(conn, "feat_ns", &err), HB_ERR_REMOTE); /* not empty */
    CHECK(err != NULL && strstr(hb_error_exception_class(err), "ConstraintException") != NULL);
    hb_error_free(err);
    err = NULL;

    hb_table_descriptor *d = (hb_table_descriptor *)&err; /* must stay untouched on failure */
    CHECK_STATUS(hb_admin_describe_table(conn, "feat_ns:missing", &d, &err), HB_ERR_TABLE_NOT_FOUND);
    CHECK(d == (hb_table_descriptor *)&err);
    hb_error_free(err);
    err = NULL;
    CHECK_STATUS(hb_admin_describe_table(conn, "feat_ns:d", NULL, NULL), HB_ERR_INVALID_ARGUMENT);
    d = NULL;
    CHECK_STATUS(hb_admin_describe_table(conn, "feat_ns:d", &d, NULL), HB_OK);
    CHECK(strcmp(hb_table_descriptor_name(d), "feat_ns:d") == 0);
    CHECK(hb_table_descriptor_is_enabled(d));
    CHECK(hb_table_descriptor_family_count(d) == 2);
    int seen_f = 0, seen_g = 0;
    for (size_t i = 0; i < hb_table_descriptor_family_count(d); i++) {
        const hb_family_descriptor *fd = hb_table_descriptor_family(d, i);
        const uint8_t *name = NULL;
        size_t len = 0;
        CHECK_STATUS(hb_family_descriptor_name(fd, &name, &len), HB_OK);
        seen_f |= len == 1 && name[0] == 'f';
        seen_g |= len == 1 && name[0] == 'g';
        CHECK(hb_family_descriptor_max_versions(fd) == 1);
        CHECK(hb_family_descriptor_ttl_secs(fd) == 0);
        CHECK(strcmp(hb_family_descriptor_compression(fd), "NONE") == 0);
        CHECK(hb_family_descriptor_bloom_filter(fd) != NULL);
    }
    CHECK(seen_f && seen_g);
    CHECK(hb_table_descriptor_family(d, 2) == NULL);
    CHECK(hb_table_descriptor_region_count(d) == 3);
    const uint8_t *key = NULL;
    size_t key_len = 0;
    CHECK_STATUS(hb_table_descriptor_split_key(d, 0, &key, &key_len), HB_OK);
    CHECK(key_len == 1 && key[0] == 'c');
    CHECK_STATUS(hb_table_descriptor_split_key(d, 1, &key, &key_len), HB_OK);
    CHECK(key_len == 3 && memcmp(key, "k\0z", 3) == 0);
    CHECK_STATUS(hb_table_descriptor_split_key(d, 2, &key, &key_len), HB_ERR_NOT_FOUND);
    CHECK_STATUS(hb_table_descriptor_split_key(d, 0, NULL, &key_len), HB_ERR_INVALID_ARGUMENT);
    hb_table_descriptor_free(d);
    hb_table_descriptor_free(NULL);
    CHECK(hb_table_descriptor_name(NULL) == NULL);
    CHECK(hb_table_descriptor_family_count(NULL) == 0);
    CHECK(hb_family_descriptor_compression(NULL) == NULL);
    CHECK(hb_family_descriptor_max_versions(NULL) == 0);

    CHECK_STATUS(hb_admin_disable_table(conn, "feat_ns:d", NULL), HB_OK);
    d = NULL;
    CHECK_STATUS(hb_admin_describe_table(conn, "feat_ns:d", &d, NULL), HB_OK);
    CHECK(!hb_table_descriptor_is_enabled(d) && hb_table_descriptor_region_count(d) == 3);
    hb_table_descriptor_free(d);
    CHECK_STATUS(hb_admin_delete_table(conn, "feat_ns:d", NULL), HB_OK);
    CHECK_STATUS(hb_admin_delete_namespace(conn, "feat_ns", NULL), HB_OK);
    CHECK_STATUS(hb_admin_delete_namespace(conn, "feat_ns", &err), HB_ERR_REMOTE);
    CHECK(err != NULL && strstr(hb_error_exception_class(err), "NamespaceNotFoundException") != NULL);
    hb_error_free(err);
    CHECK_STATUS(hb_admin_delete_namespace(conn, "default", NULL), HB_ERR_REMOTE);
}

/* ---- async scans ---------------------------------------------------------------------------- */

struct chain {
    hb_scanner *scanner;
    atomic_int rows;
    atomic_int done; /* 1: ended, 2: failed */
};

/* Takes its batch and asks for the next one from the callback, until the empty batch. */
static void on_scan_batch(hb_future *f, void *userdata) {
    struct chain *c = userdata;
    hb_batch_result *batch = NULL;
    hb_status st = hb_future_take_batch_result(f, &batch);
    hb_future_free(f);
    if (st != HB_OK) {
        atomic_store(&c->done, 2);
        return;
    }
    size_t n = hb_batch_result_count(batch);
    for (size_t i = 0; i < n; i++)
        if (hb_batch_result_status(batch, i, NULL) != HB_OK || hb_batch_result_get(batch, i) == NULL)
            atomic_store(&c->done, 2);
    hb_batch_result_free(batch);
    if (n == 0) {
        atomic_store(&c->done, 1);
        return;
    }
    atomic_fetch_add(&c->rows, (int)n);
    hb_future *next = hb_scanner_next_async(c->scanner, 4);
    if (hb_future_set_callback(next, on_scan_batch, c) != HB_OK) atomic_store(&c->done, 2);
}

static hb_scanner *scanner_for(hb_table *t, const char *start, const char *stop) {
    hb_scan *scan = NULL;
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    hb_scan_set_start_row(scan, start, strlen(start));
    hb_scan_set_stop_row(scan, stop, strlen(stop));
    hb_scan_set_caching(scan, 5);
    hb_scanner *s = NULL;
    CHECK_STATUS(hb_table_scanner(t, scan, &s, NULL), HB_OK);
    hb_scan_free(scan);
    return s;
}

static void test_async_scans(hb_connection *conn, hb_table *t) {
    char row[32];
    for (int i = 0; i < 30; i++) {
        snprintf(row, sizeof row, "ascan%02d", i);
        put_cell(t, row, "f", "q", "v", HB_LATEST_TIMESTAMP);
    }
    /* Waited futures: batches of 1..7 rows in order, then empty batches. */
    hb_scanner *s = scanner_for(t, "ascan", "ascan~");
    int rows = 0, ordered = 1;
    char previous[16] = "";
    for (;;) {
        hb_future *f = hb_scanner_next_async(s, 7);
        CHECK_STATUS(hb_future_wait(f), HB_OK);
        hb_batch_result *b = NULL;
        CHECK_STATUS(hb_future_take_batch_result(f, &b), HB_OK);
        hb_future_free(f);
        size_t n = hb_batch_result_count(b);
        CHECK(n <= 7);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *k = NULL;
            size_t len = 0;
            hb_result_row(hb_batch_result_get(b, i), &k, &len);
            char current[16] = "";
            memcpy(current, k, len < 15 ? len : 15);
            if (strcmp(current, previous) <= 0) ordered = 0;
            strcpy(previous, current);
        }
        hb_batch_result_free(b);
        if (n == 0) break;
        rows += (int)n;
    }
    CHECK(rows == 30);
    CHECK(ordered);
    hb_future *f = hb_scanner_next_async(s, 7);
    hb_batch_result *b = NULL;
    CHECK_STATUS(hb_future_wait(f), HB_OK);
    CHECK_STATUS(hb_future_take_batch_result(f, &b), HB_OK);
    CHECK(hb_batch_result_count(b) == 0);
    hb_batch_result_free(b);
    hb_future_free(f);
    hb_scanner_free(s);

    /* Callbacks chaining the next request. */
    struct chain c = {.scanner = scanner_for(t, "ascan", "ascan~")};
    hb_future *first = hb_scanner_next_async(c.scanner, 4);
    CHECK_STATUS(hb_future_set_callback(first, on_scan_batch, &c), HB_OK); /* it frees `first` */
    for (int i = 0; i < 3000 && atomic_load(&c.done) == 0; i++) usleep(10 * 1000);
    CHECK(atomic_load(&c.done) == 1);
    CHECK(atomic_load(&c.rows) == 30);
    hb_scanner_free(c.scanner);

    /* Mixed with blocking calls, several in flight: every row exactly once. */
    s = scanner_for(t, "ascan", "ascan~");
    hb_future *many[10];
    for (int i = 0; i < 10; i++) many[i] = hb_scanner_next_async(s, 2);
    hb_result *r = NULL;
    CHECK_STATUS(hb_scanner_next(s, &r, NULL), HB_OK);
    CHECK(r != NULL);
    hb_result_free(r);
    int got = 1;
    for (int i = 0; i < 10; i++) {
        CHECK_STATUS(hb_future_wait(many[i]), HB_OK);
        b = NULL;
        CHECK_STATUS(hb_future_take_batch_result(many[i], &b), HB_OK);
        got += (int)hb_batch_result_count(b);
        hb_batch_result_free(b);
        hb_future_free(many[i]);
    }
    for (;;) {
        r = NULL;
        CHECK_STATUS(hb_scanner_next(s, &r, NULL), HB_OK);
        if (r == NULL) break;
        got++;
        hb_result_free(r);
    }
    CHECK(got == 30);
    hb_scanner_free(s);

    /* NULL scanner: a failed future, never NULL. A missing table: the same error every time. */
    f = hb_scanner_next_async(NULL, 1);
    CHECK(f != NULL);
    CHECK_STATUS(hb_future_wait(f), HB_ERR_INVALID_ARGUMENT);
    hb_future_free(f);
    hb_table *missing = NULL;
    CHECK_STATUS(hb_table_open(conn, "feat_no_such_table", &missing, NULL), HB_OK);
    s = scanner_for(missing, "a", "b");
    for (int i = 0; i < 2; i++) {
        f = hb_scanner_next_async(s, 3);
        CHECK_STATUS(hb_future_wait(f), HB_ERR_TABLE_NOT_FOUND);
        CHECK(hb_future_error(f) != NULL);
        hb_future_free(f);
    }
    hb_scanner_free(s);
    hb_table_free(missing);
}

/* Consistency: TIMELINE gets and scans on a table without replicas are the primary's answers
 * (fresh, not stale); bad values and NULL handles are argument errors. (Stale answers from a
 * secondary are covered by the Rust export tests and the real-cluster test.) */
static void test_consistency(hb_table *t) {
    char row[64];
    snprintf(row, sizeof row, "feat-cons-%d", (int)getpid());
    put_cell(t, row, "f", "q", "fresh", HB_LATEST_TIMESTAMP);

    hb_get *get = NULL;
    CHECK_STATUS(hb_get_new(row, strlen(row), &get), HB_OK);
    CHECK_STATUS(hb_get_set_consistency(get, HB_CONSISTENCY_TIMELINE), HB_OK);
    hb_result *r = NULL;
    CHECK_STATUS(hb_table_get(t, get, &r, NULL), HB_OK);
    const uint8_t *v = NULL;
    size_t n = 0;
    CHECK_STATUS(hb_result_value(r, "f", 1, "q", 1, &v, &n), HB_OK);
    CHECK(n == 5 && memcmp(v, "fresh", 5) == 0);
    CHECK(!hb_result_is_stale(r));
    hb_result_free(r);
    CHECK_STATUS(hb_get_set_consistency(get, 2), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_get_set_consistency(NULL, HB_CONSISTENCY_STRONG), HB_ERR_INVALID_ARGUMENT);
    hb_get_free(get);
    CHECK(!hb_result_is_stale(NULL));

    hb_scan *scan = NULL;
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    CHECK_STATUS(hb_scan_set_prefix(scan, row, strlen(row)), HB_OK);
    CHECK_STATUS(hb_scan_set_consistency(scan, HB_CONSISTENCY_TIMELINE), HB_OK);
    CHECK_STATUS(hb_scan_set_consistency(scan, 99), HB_ERR_INVALID_ARGUMENT);
    CHECK(scan_count(t, scan, NULL, 0) == 1);
    hb_scan_free(scan);
}

/* Scan metrics: the client's counters always, the servers' when asked for; unknown names and
 * prefetch settings are checked too. */
static void test_scan_metrics(hb_table *t) {
    char row[32];
    for (int i = 0; i < 6; i++) {
        snprintf(row, sizeof row, "feat-m-%d", i);
        put_cell(t, row, "f", "q", "v", HB_LATEST_TIMESTAMP);
    }
    hb_scan *scan = prefix_scan("feat-m-");
    CHECK_STATUS(hb_scan_set_scan_metrics(scan, true), HB_OK);
    CHECK_STATUS(hb_scan_set_prefetch(scan, 0), HB_OK);
    CHECK_STATUS(hb_scan_set_caching(scan, 2), HB_OK);
    hb_scanner *scanner = NULL;
    CHECK_STATUS(hb_table_scanner(t, scan, &scanner, NULL), HB_OK);
    int rows = 0;
    for (;;) {
        hb_result *r = NULL;
        CHECK_STATUS(hb_scanner_next(scanner, &r, NULL), HB_OK);
        if (r == NULL) break;
        rows++;
        hb_result_free(r);
    }
    CHECK(rows == 6);
    uint64_t v = 0;
    CHECK_STATUS(hb_scanner_metric(scanner, "rows", &v), HB_OK);
    CHECK(v == 6);
    CHECK_STATUS(hb_scanner_metric(scanner, "rpc_calls", &v), HB_OK);
    CHECK(v >= 3); /* 2 rows per call */
    CHECK_STATUS(hb_scanner_metric(scanner, "regions_scanned", &v), HB_OK);
    CHECK(v >= 1);
    CHECK_STATUS(hb_scanner_metric(scanner, "bytes_in_results", &v), HB_OK);
    CHECK(v > 0);
    CHECK_STATUS(hb_scanner_metric(scanner, "server.ROWS_SCANNED", &v), HB_OK);
    CHECK(v >= 6);
    CHECK_STATUS(hb_scanner_metric(scanner, "wait_time_us", &v), HB_OK);
    CHECK_STATUS(hb_scanner_metric(scanner, "server.NO_SUCH", &v), HB_ERR_NOT_FOUND);
    CHECK_STATUS(hb_scanner_metric(scanner, "nope", &v), HB_ERR_NOT_FOUND);
    CHECK_STATUS(hb_scanner_metric(scanner, "rows", NULL), HB_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(hb_scanner_metric(NULL, "rows", &v), HB_ERR_INVALID_ARGUMENT);
    hb_scanner_free(scanner);
    /* Without asking, no server counters. */
    CHECK_STATUS(hb_scan_set_scan_metrics(scan, false), HB_OK);
    CHECK_STATUS(hb_table_scanner(t, scan, &scanner, NULL), HB_OK);
    hb_result *r = NULL;
    CHECK_STATUS(hb_scanner_next(scanner, &r, NULL), HB_OK);
    CHECK(r != NULL);
    hb_result_free(r);
    CHECK_STATUS(hb_scanner_metric(scanner, "server.ROWS_SCANNED", &v), HB_ERR_NOT_FOUND);
    hb_scanner_free(scanner);
    CHECK_STATUS(hb_scan_set_prefetch(NULL, 1), HB_ERR_INVALID_ARGUMENT);
    hb_scan_free(scan);
}

int main(void) {
    if (!getenv("HBCLIENT_FFI_BOOTSTRAP")) {
        fprintf(stderr, "set HBCLIENT_FFI_BOOTSTRAP\n");
        return 2;
    }
    hb_connection *conn = connect_cluster();
    hb_table *t = NULL;
    CHECK_STATUS(hb_table_open(conn, "t", &t, NULL), HB_OK);
    test_scan_options_and_filters(t);
    test_scan_metrics(t);
    test_versions_and_time_range(t);
    test_append(t);
    test_cancel_and_timeouts(t);
    test_row_mutations_and_check(t);
    test_mutator_failures(conn);
    test_metrics(conn);
    test_admin(conn);
    test_namespaces_and_describe(conn);
    test_async_scans(conn, t);
    test_priorities_and_attributes();
    test_consistency(t);
    hb_table_free(t);
    hb_connection_close(conn);
    CHECK_STATUS(hb_library_shutdown(10000, NULL), HB_OK);
    printf("features: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
