/*
 * Blocking use of libhbclient: put, get, batch and scan.
 *   blocking BOOTSTRAP_SERVERS [TABLE]       (TABLE needs family "f"; default "t")
 *   blocking zk:QUORUM [TABLE]               (ZooKeeper discovery, e.g. against a real HBase)
 * Build: cc blocking.c $(pkg-config --cflags --libs hbclient)
 */
#include <hbclient.h>

#include <stdio.h>
#include <string.h>

static int fail(const char *what, hb_status status, hb_error *err) {
    fprintf(stderr, "%s failed: %s: %s\n", what, hb_status_str(status),
            err ? hb_error_message(err) : "");
    hb_error_free(err);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s BOOTSTRAP_SERVERS|zk:QUORUM|conf:HBASE_CONF_DIR [TABLE]\n",
                argv[0]);
        return 2;
    }
    const char *table_name = argc > 2 ? argv[2] : "t";
    hb_config *cfg = NULL;
    hb_config_new(&cfg);
    hb_connection *conn = NULL;
    hb_error *err = NULL;
    hb_status st = HB_OK;
    if (strncmp(argv[1], "zk:", 3) == 0) {
        hb_config_set(cfg, "hbase.zookeeper.quorum", argv[1] + 3);
    } else if (strncmp(argv[1], "conf:", 5) == 0) {
        /* A cluster's client configuration directory (hbase-site.xml with Kerberos or TLS
         * settings, as Java clients use it). */
        if ((st = hb_config_load_dir(cfg, argv[1] + 5, &err)) != HB_OK) {
            hb_config_free(cfg);
            return fail("load configuration", st, err);
        }
    } else {
        hb_config_set(cfg, "hbase.client.bootstrap.servers", argv[1]);
    }
    st = hb_connection_open(cfg, &conn, &err);
    hb_config_free(cfg);
    if (st != HB_OK) return fail("connect", st, err);
    hb_table *table = NULL;
    if ((st = hb_table_open(conn, table_name, &table, &err)) != HB_OK) return fail("open", st, err);

    /* Put a row whose key and value contain NUL bytes. */
    static const char row[] = "ex\0ample";
    static const char value[] = "hello\0world";
    hb_put *put = NULL;
    hb_put_new(row, sizeof row - 1, &put);
    hb_put_add(put, "f", 1, "greeting", 8, value, sizeof value - 1, HB_LATEST_TIMESTAMP);
    st = hb_table_put(table, put, &err);
    hb_put_free(put);
    if (st != HB_OK) return fail("put", st, err);

    /* Get it back. */
    hb_get *get = NULL;
    hb_get_new(row, sizeof row - 1, &get);
    hb_result *result = NULL;
    st = hb_table_get(table, get, &result, &err);
    hb_get_free(get);
    if (st != HB_OK) return fail("get", st, err);
    const uint8_t *v = NULL;
    size_t len = 0;
    if (hb_result_value(result, "f", 1, "greeting", 8, &v, &len) != HB_OK ||
        len != sizeof value - 1 || memcmp(v, value, len) != 0) {
        fprintf(stderr, "get returned the wrong value\n");
        return 1;
    }
    printf("get: %zu cells, value of %zu bytes\n", hb_result_cell_count(result), len);
    hb_result_free(result);

    /* A batch of 100 puts and one get. */
    hb_batch *batch = NULL;
    hb_batch_new(&batch);
    char key[32];
    for (int i = 0; i < 100; i++) {
        int n = snprintf(key, sizeof key, "ex-batch-%03d", i);
        hb_put_new(key, (size_t)n, &put);
        hb_put_add(put, "f", 1, "n", 1, key, (size_t)n, HB_LATEST_TIMESTAMP);
        hb_batch_add_put(batch, put);
        hb_put_free(put);
    }
    hb_get_new(row, sizeof row - 1, &get);
    hb_batch_add_get(batch, get);
    hb_get_free(get);
    hb_batch_result *br = NULL;
    st = hb_table_batch(table, batch, &br, &err);
    hb_batch_free(batch);
    if (st != HB_OK) return fail("batch", st, err);
    size_t ok = 0;
    for (size_t i = 0; i < hb_batch_result_count(br); i++) {
        const hb_error *item = NULL;
        if (hb_batch_result_status(br, i, &item) == HB_OK) {
            ok++;
        } else {
            fprintf(stderr, "item %zu: %s\n", i, hb_error_message(item));
        }
    }
    printf("batch: %zu of %zu items ok; get item empty: %d\n", ok, hb_batch_result_count(br),
           hb_result_is_empty(hb_batch_result_get(br, 100)));
    hb_batch_result_free(br);
    if (ok != 101) return 1;

    /* Scan the batch's rows. */
    hb_scan *scan = NULL;
    hb_scan_new(&scan);
    hb_scan_set_start_row(scan, "ex-batch-", 9);
    hb_scan_set_stop_row(scan, "ex-batch.", 9);
    hb_scanner *scanner = NULL;
    st = hb_table_scanner(table, scan, &scanner, &err);
    hb_scan_free(scan);
    if (st != HB_OK) return fail("scan", st, err);
    int rows = 0;
    for (;;) {
        hb_result *r = NULL;
        if ((st = hb_scanner_next(scanner, &r, &err)) != HB_OK) return fail("scan next", st, err);
        if (r == NULL) break;
        rows++;
        hb_result_free(r);
    }
    hb_scanner_free(scanner);
    printf("scan: %d rows\n", rows);

    hb_table_free(table);
    hb_connection_close(conn);
    return rows == 100 ? 0 : 1;
}
