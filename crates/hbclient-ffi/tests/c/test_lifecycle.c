/*
 * Lifecycle tests of libhbclient: hb_library_init sizes the threads; hb_connection_close returns
 * only once the connection's I/O threads are gone; operations in flight at close complete with
 * HB_ERR_CLOSED and their callbacks run; hb_library_shutdown refuses to run inside a callback,
 * joins every library thread, and the library works again afterwards. scripts/ffi-test.sh runs
 * it under ASan/UBSan and under valgrind (leak check, no suppressions), against mini-hbase.
 */
#define _GNU_SOURCE
#include <hbclient.h>

#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* Threads of this process whose name starts with `prefix` (all threads for ""). */
static int threads_named(const char *prefix) {
    DIR *dir = opendir("/proc/self/task");
    if (!dir) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[300], name[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(name, sizeof name, f) && strncmp(name, prefix, strlen(prefix)) == 0) n++;
        fclose(f);
    }
    closedir(dir);
    return n;
}

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

struct cb_state {
    atomic_int ran;
    atomic_int closed;
    hb_status shutdown_in_callback;
};

static void on_done(hb_future *future, void *userdata) {
    struct cb_state *st = userdata;
    if (hb_future_wait(future) == HB_ERR_CLOSED) atomic_fetch_add(&st->closed, 1);
    hb_error *err = NULL;
    st->shutdown_in_callback = hb_library_shutdown(1000, &err);
    hb_error_free(err);
    hb_future_free(future);
    atomic_fetch_add(&st->ran, 1);
}

static void round_trip(hb_connection *conn) {
    hb_table *table = NULL;
    CHECK_STATUS(hb_table_open(conn, "t", &table, NULL), HB_OK);
    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new("life", 4, &put), HB_OK);
    CHECK_STATUS(hb_put_add(put, "f", 1, "q", 1, "v", 1, HB_LATEST_TIMESTAMP), HB_OK);
    CHECK_STATUS(hb_table_put(table, put, NULL), HB_OK);
    hb_put_free(put);
    hb_table_free(table);
}

int main(void) {
    if (!getenv("HBCLIENT_FFI_BOOTSTRAP")) {
        fprintf(stderr, "set HBCLIENT_FFI_BOOTSTRAP\n");
        return 2;
    }
    hb_error *err = NULL;
    /* Sizing: out of range, then 3 I/O threads and 2 callback threads. */
    CHECK_STATUS(hb_library_init(100000, 0, &err), HB_ERR_INVALID_ARGUMENT);
    CHECK(err != NULL && strstr(hb_error_message(err), "io_threads") != NULL);
    hb_error_free(err);
    err = NULL;
    CHECK_STATUS(hb_library_init(3, 2, NULL), HB_OK);
    int before = threads_named("");

    hb_connection *conn = connect_cluster();
    /* 3 workers, plus up to 4 blocking-pool threads (name lookups) that carry the same name. */
    int io = threads_named("hbclient-io");
    CHECK(io >= 3 && io <= 3 + 4);
    CHECK_STATUS(hb_library_init(1, 1, &err), HB_ERR_INVALID_STATE);
    hb_error_free(err);
    err = NULL;
    round_trip(conn);

    /* Operations in flight at close complete (HB_ERR_CLOSED or done) and their callbacks run. */
    hb_table *table = NULL;
    CHECK_STATUS(hb_table_open(conn, "t", &table, NULL), HB_OK);
    struct cb_state st = {0, 0, HB_OK};
    enum { N = 200 };
    for (int i = 0; i < N; i++) {
        hb_get *get = NULL;
        hb_get_new("life", 4, &get);
        hb_future *f = hb_table_get_async(table, get);
        hb_get_free(get);
        CHECK_STATUS(hb_future_set_callback(f, on_done, &st), HB_OK);
    }
    hb_connection_close(conn);
    /* Close waited for the I/O threads. */
    CHECK(threads_named("hbclient-io") == 0);
    for (int i = 0; i < 5000 && atomic_load(&st.ran) < N; i++) usleep(1000);
    CHECK(atomic_load(&st.ran) == N);
    CHECK(st.shutdown_in_callback == HB_ERR_INVALID_STATE);
    /* After close: at once HB_ERR_CLOSED, blocking or async. */
    hb_get *get = NULL;
    hb_get_new("life", 4, &get);
    hb_result *r = NULL;
    CHECK_STATUS(hb_table_get(table, get, &r, NULL), HB_ERR_CLOSED);
    hb_future *late = hb_table_get_async(table, get);
    CHECK(hb_future_is_ready(late));
    CHECK_STATUS(hb_future_wait(late), HB_ERR_CLOSED);
    hb_future_free(late);
    hb_get_free(get);
    hb_table_free(table);

    /* Library shutdown joins the callback threads; nothing of ours is left. */
    CHECK(threads_named("hbclient-cb") == 2);
    CHECK_STATUS(hb_library_shutdown(10000, NULL), HB_OK);
    CHECK(threads_named("hbclient") == 0);
    CHECK(threads_named("") <= before);

    /* Usable again: a shutdown with a connection still open closes it. */
    CHECK_STATUS(hb_library_init(0, 0, NULL), HB_OK);
    conn = connect_cluster();
    /* The I/O threads start as the runtime comes up: on a loaded box give them up to 2 s. */
    io = threads_named("hbclient-io");
    for (int waited = 0; io < 2 && waited < 200; waited++) {
        usleep(10000);
        io = threads_named("hbclient-io");
    }
    CHECK(io >= 2 && io <= 2 + 4);
    round_trip(conn);
    CHECK_STATUS(hb_library_shutdown(10000, NULL), HB_OK);
    CHECK(threads_named("hbclient") == 0);
    hb_connection_close(conn); /* still to be freed; returns at once */

    printf("lifecycle: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
