/*
 * libhbclient v2 from C: a filtered, reversed prefix scan; the same rows read asynchronously in
 * batches (hb_scanner_next_async, each callback asking for the next batch); an append; atomic
 * row mutations under a check (blocking and async); a per-call timeout; cancelling a future; a
 * namespace with a pre-split table, described (families, regions); the mutator's failure list;
 * a metric; and an orderly shutdown (hb_connection_close waits for the I/O to stop,
 * hb_library_shutdown joins the library's threads).
 *   v2_features BOOTSTRAP_SERVERS|zk:QUORUM [TABLE]     (TABLE needs family "f")
 */
#include <hbclient.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* An async scan read by callbacks: each one takes its batch and asks for the next, until the
 * empty batch that ends the scan (or an error). Callbacks run on libhbclient's completion
 * threads, one at a time here since each request follows the previous one. */
struct async_scan {
    hb_scanner *scanner;
    int rows;
    hb_status status;
    int done;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

static void finish(struct async_scan *s, hb_status st) {
    pthread_mutex_lock(&s->lock);
    s->status = st;
    s->done = 1;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

static void on_batch(hb_future *f, void *userdata) {
    struct async_scan *s = userdata;
    hb_batch_result *batch = NULL;
    hb_status st = hb_future_take_batch_result(f, &batch);
    hb_future_free(f); /* allowed in its own callback; main does not free it */
    if (st != HB_OK) {
        finish(s, st);
        return;
    }
    size_t n = hb_batch_result_count(batch);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *key = NULL;
        size_t len = 0;
        hb_result_row(hb_batch_result_get(batch, i), &key, &len);
        printf(" %.*s", (int)len, (const char *)key);
    }
    hb_batch_result_free(batch);
    if (n == 0) {
        finish(s, HB_OK);
        return;
    }
    s->rows += (int)n;
    hb_future *next = hb_scanner_next_async(s->scanner, 3);
    if ((st = hb_future_set_callback(next, on_batch, s)) != HB_OK) {
        hb_future_free(next);
        finish(s, st);
    }
}

static int fail(const char *what, hb_status st, hb_error *err) {
    fprintf(stderr, "%s: %s (%s)\n", what, hb_status_str(st), err ? hb_error_message(err) : "");
    hb_error_free(err);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s BOOTSTRAP_SERVERS|zk:QUORUM [TABLE]\n", argv[0]);
        return 2;
    }
    hb_error *err = NULL;
    hb_status st;
    hb_config *cfg = NULL;
    hb_config_new(&cfg);
    int zk = strncmp(argv[1], "zk:", 3) == 0;
    st = hb_config_set_err(cfg, zk ? "hbase.zookeeper.quorum" : "hbase.client.bootstrap.servers",
                           zk ? argv[1] + 3 : argv[1], &err);
    if (st != HB_OK) return fail("config", st, err);
    hb_config_set(cfg, "hbase.client.write.buffer", "2MB"); /* sizes as in hbase-site.xml */
    hb_connection *conn = NULL;
    if ((st = hb_connection_open(cfg, &conn, &err)) != HB_OK) return fail("connect", st, err);
    hb_config_free(cfg);
    hb_table *table = NULL;
    if ((st = hb_table_open(conn, argc > 2 ? argv[2] : "t", &table, &err)) != HB_OK)
        return fail("open", st, err);

    /* Rows v2-0..v2-9, then the ones >= "v2-5", highest first. */
    char row[16];
    for (int i = 0; i < 10; i++) {
        int n = snprintf(row, sizeof row, "v2-%d", i);
        hb_put *put = NULL;
        hb_put_new(row, (size_t)n, &put);
        hb_put_add(put, "f", 1, "q", 1, row, (size_t)n, HB_LATEST_TIMESTAMP);
        if ((st = hb_table_put(table, put, &err)) != HB_OK) return fail("put", st, err);
        hb_put_free(put);
    }
    hb_scan *scan = NULL;
    hb_scan_new(&scan);
    hb_scan_set_start_row(scan, "v2-9", 4);
    hb_scan_set_stop_row(scan, "v2-", 3);
    hb_scan_set_reversed(scan);
    hb_filter *from5 = NULL;
    hb_filter_row_new(HB_COMPARE_GREATER_OR_EQUAL, "v2-5", 4, &from5);
    hb_scan_set_filter(scan, from5);
    hb_filter_free(from5); /* the scan keeps a copy */
    hb_scanner *scanner = NULL;
    if ((st = hb_table_scanner(table, scan, &scanner, &err)) != HB_OK) return fail("scan", st, err);
    printf("scan:");
    for (;;) {
        hb_result *r = NULL;
        /* An error is never mistaken for the end: it has its own status, every time. */
        if ((st = hb_scanner_next(scanner, &r, &err)) != HB_OK) return fail("next", st, err);
        if (r == NULL) break;
        const uint8_t *key = NULL;
        size_t len = 0;
        hb_result_row(r, &key, &len);
        printf(" %.*s", (int)len, (const char *)key);
        hb_result_free(r);
    }
    printf("\n");
    hb_scanner_free(scanner);
    hb_scan_free(scan);

    /* Rows v2-0..v2-9 forward, in batches of at most 3 rows, without blocking a thread. */
    struct async_scan as = {.status = HB_OK};
    pthread_mutex_init(&as.lock, NULL);
    pthread_cond_init(&as.cond, NULL);
    hb_scan_new(&scan);
    hb_scan_set_start_row(scan, "v2-0", 4);
    hb_scan_set_stop_row(scan, "v2-:", 4); /* ':' sorts right after '9' */
    hb_scan_set_caching(scan, 4);
    if ((st = hb_table_scanner(table, scan, &as.scanner, &err)) != HB_OK) return fail("scan", st, err);
    hb_scan_free(scan);
    printf("async scan:");
    fflush(stdout);
    hb_future *first = hb_scanner_next_async(as.scanner, 3);
    /* From here on_batch owns `first` (it frees each future it is given). */
    if ((st = hb_future_set_callback(first, on_batch, &as)) != HB_OK) return fail("callback", st, NULL);
    pthread_mutex_lock(&as.lock);
    while (!as.done) pthread_cond_wait(&as.cond, &as.lock);
    pthread_mutex_unlock(&as.lock);
    printf(" (%d rows, %s)\n", as.rows, hb_status_str(as.status));
    hb_scanner_free(as.scanner);
    pthread_cond_destroy(&as.cond);
    pthread_mutex_destroy(&as.lock);
    if (as.status != HB_OK) return fail("async scan", as.status, NULL);

    /* Append, then: if "state" is absent, set it and drop the log, atomically (async). */
    hb_append *app = NULL;
    hb_append_new("v2-log", 6, &app);
    hb_append_add(app, "f", 1, "log", 3, "a;", 2);
    hb_result *appended = NULL;
    if ((st = hb_table_append(table, app, &appended, &err)) != HB_OK) return fail("append", st, err);
    const uint8_t *value = NULL;
    size_t value_len = 0;
    hb_result_value(appended, "f", 1, "log", 3, &value, &value_len);
    printf("append: %.*s\n", (int)value_len, (const char *)value);
    hb_result_free(appended);
    hb_append_free(app);
    hb_row_mutations *rm = NULL;
    hb_row_mutations_new("v2-log", 6, &rm);
    hb_put *state = NULL;
    hb_put_new("v2-log", 6, &state);
    hb_put_add(state, "f", 1, "state", 5, "done", 4, HB_LATEST_TIMESTAMP);
    hb_row_mutations_add_put(rm, state);
    hb_check *check = NULL;
    hb_check_new("v2-log", 6, &check);
    hb_check_column(check, "f", 1, "state", 5, HB_COMPARE_EQUAL, NULL, 0); /* absent */
    hb_future *cf = hb_table_check_and_mutate_async(table, check, rm);
    bool applied = false;
    if ((st = hb_future_wait(cf)) != HB_OK) return fail("check_and_mutate", st, NULL);
    hb_future_take_bool(cf, &applied);
    printf("check_and_mutate: %s\n", applied ? "applied" : "not applied (state was set)");
    hb_future_free(cf);
    hb_check_free(check);
    hb_row_mutations_free(rm);
    hb_put_free(state);

    /* A per-call timeout, and a cancelled future. */
    hb_table *bounded = NULL;
    hb_table_with_timeout(table, 5000, &bounded);
    hb_get *get = NULL;
    hb_get_new("v2-log", 6, &get);
    bool exists = false;
    if ((st = hb_table_exists(bounded, get, &exists, &err)) != HB_OK) return fail("exists", st, err);
    printf("exists: %d\n", exists);
    hb_future *gf = hb_table_get_async(table, get);
    st = hb_future_cancel(gf); /* HB_OK, or HB_ERR_INVALID_STATE if it already completed */
    printf("cancel: %s, then %s\n", hb_status_str(st), hb_status_str(hb_future_wait(gf)));
    hb_future_free(gf);
    hb_get_free(get);
    hb_table_free(bounded);

    /* A namespace of our own, a table in it pre-split at "k" and "s", described. */
    char ns[64], name[80];
    snprintf(ns, sizeof ns, "c_example_%lld", (long long)time(NULL));
    snprintf(name, sizeof name, "%s:t", ns);
    if ((st = hb_admin_create_namespace(conn, ns, &err)) != HB_OK) return fail("namespace", st, err);
    const char *families[] = {"f", "g"};
    const void *splits[] = {"k", "s"};
    const size_t split_lens[] = {1, 1};
    if ((st = hb_admin_create_table(conn, name, families, 2, splits, split_lens, 2, &err)) != HB_OK)
        return fail("create", st, err);
    hb_table_names *spaces = NULL;
    if ((st = hb_admin_list_namespaces(conn, &spaces, &err)) != HB_OK) return fail("namespaces", st, err);
    int listed = 0;
    for (size_t i = 0; i < hb_table_names_count(spaces); i++)
        listed |= strcmp(hb_table_names_get(spaces, i), ns) == 0;
    hb_table_names_free(spaces);
    hb_table_descriptor *desc = NULL;
    if ((st = hb_admin_describe_table(conn, name, &desc, &err)) != HB_OK) return fail("describe", st, err);
    size_t regions = hb_table_descriptor_region_count(desc);
    size_t family_count = hb_table_descriptor_family_count(desc);
    printf("describe %s (namespace listed: %d): %s, %zu families, %zu regions, split keys:",
           hb_table_descriptor_name(desc), listed,
           hb_table_descriptor_is_enabled(desc) ? "enabled" : "disabled", family_count, regions);
    for (size_t i = 0; i + 1 < regions; i++) {
        const uint8_t *key = NULL;
        size_t len = 0;
        hb_table_descriptor_split_key(desc, i, &key, &len);
        printf(" %.*s", (int)len, (const char *)key);
    }
    printf("\n");
    for (size_t i = 0; i < family_count; i++) {
        const hb_family_descriptor *fd = hb_table_descriptor_family(desc, i);
        const uint8_t *fname = NULL;
        size_t flen = 0;
        hb_family_descriptor_name(fd, &fname, &flen);
        uint64_t ttl = hb_family_descriptor_ttl_secs(fd);
        printf("  family %.*s: versions %u, ttl %s%llu, compression %s, bloom filter %s\n", (int)flen,
               (const char *)fname, hb_family_descriptor_max_versions(fd), ttl ? "" : "forever/",
               (unsigned long long)ttl, hb_family_descriptor_compression(fd),
               hb_family_descriptor_bloom_filter(fd));
    }
    hb_table_descriptor_free(desc);
    if ((st = hb_admin_disable_table(conn, name, &err)) != HB_OK) return fail("disable", st, err);
    if ((st = hb_admin_delete_table(conn, name, &err)) != HB_OK) return fail("delete", st, err);
    if ((st = hb_admin_delete_namespace(conn, ns, &err)) != HB_OK) return fail("drop namespace", st, err);

    /* A mutator keeps every failed mutation, not only the first. */
    hb_mutator *m = NULL;
    hb_mutator_open(conn, argc > 2 ? argv[2] : "t", &m, NULL);
    for (int i = 0; i < 3; i++) {
        hb_put *bad = NULL;
        hb_put_new("v2-bad", 6, &bad);
        hb_put_add(bad, "nofamily", 8, "q", 1, "v", 1, HB_LATEST_TIMESTAMP);
        hb_mutator_put(m, bad, NULL);
        hb_put_free(bad);
    }
    st = hb_mutator_flush(m, &err);
    printf("mutator: flush %s, %zu failed mutations\n", hb_status_str(st), hb_mutator_failure_count(m));
    size_t failures = hb_mutator_failure_count(m);
    hb_error_free(err);
    err = NULL;
    hb_mutator_close(m, NULL);

    uint64_t rpcs = 0;
    hb_connection_metric(conn, "rpcs", &rpcs);
    printf("rpcs sent: %llu\n", (unsigned long long)rpcs);
    hb_table_free(table);
    hb_connection_close(conn);
    if ((st = hb_library_shutdown(10000, &err)) != HB_OK) return fail("shutdown", st, err);
    return failures == 3 && exists && as.rows == 10 && listed && regions == 3 && family_count == 2 ? 0 : 1;
}
