/*
 * Lifecycle tests of libhbclient: hb_library_init sizes the threads; hb_connection_close returns
 * only once the connection's I/O threads are gone; operations in flight at close complete with
 * HB_ERR_CLOSED and their callbacks run; hb_library_shutdown refuses to run inside a callback,
 * joins every library thread, and the library works again afterwards; and the lifecycle matrix:
 * every order of closing/freeing a connection, a table, a mutator holding a buffered mutation and
 * a scanner with a server-side scanner open (with a get and a scanner request in flight), with
 * the connection open and after the library shut its runtimes down, each ending with a clear
 * status. A hang fails the test (SIGALRM) instead of blocking forever. scripts/ffi-test.sh runs
 * it under ASan/UBSan and under valgrind (leak check, no suppressions), against mini-hbase.
 */
#define _GNU_SOURCE
#include <hbclient.h>

#include <dirent.h>
#include <signal.h>
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


/* What the matrix is doing now, for the hang report. */
static char step[160] = "start";
static unsigned hang_limit_s = 120;

static void on_hang(int sig) {
    (void)sig;
    static const char msg[] = "lifecycle: HANG (no progress within the alarm) during: ";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    ignored = write(2, step, strnlen(step, sizeof step));
    ignored = write(2, "\n", 1);
    (void)ignored;
    _exit(124);
}

enum { H_CONN, H_TABLE, H_MUTATOR, H_SCANNER, H_COUNT };
static const char *const handle_names[H_COUNT] = {"connection", "table", "mutator", "scanner"};

struct fail_state {
    atomic_int calls;
    atomic_int closed;
};

static void on_mutation_failed(const uint8_t *row, size_t row_len, const hb_error *error,
                               void *userdata) {
    struct fail_state *st = userdata;
    if (row_len == 6 && memcmp(row, "matrix", 6) == 0 && hb_error_status(error) == HB_ERR_CLOSED)
        atomic_fetch_add(&st->closed, 1);
    atomic_fetch_add(&st->calls, 1);
}

/* One order: open all four handles (the mutator holds one buffered put, the scanner has fetched
 * a row so its server-side scanner is open, a get and a scanner request are in flight), stop the
 * runtimes first when `stop_first` (hb_library_shutdown), then close/free in `order`. */
static void one_order(const int order[H_COUNT], int stop_first, int with_callback) {
    snprintf(step, sizeof step, "%s%s%s, %s, %s, %s: open", stop_first ? "after shutdown: " : "",
             with_callback ? "callback mutator: " : "", handle_names[order[0]],
             handle_names[order[1]], handle_names[order[2]], handle_names[order[3]]);
    size_t prefix = strlen(step) - strlen("open");
    alarm(hang_limit_s);
    hb_connection *conn = connect_cluster();
    hb_table *table = NULL;
    CHECK_STATUS(hb_table_open(conn, "t", &table, NULL), HB_OK);
    struct fail_state fs = {0, 0};
    hb_mutator *mutator = NULL;
    if (with_callback) {
        CHECK_STATUS(hb_mutator_open_with_callback(conn, "t", on_mutation_failed, &fs, &mutator,
                                                   NULL),
                     HB_OK);
    } else {
        CHECK_STATUS(hb_mutator_open(conn, "t", &mutator, NULL), HB_OK);
    }
    hb_put *put = NULL;
    CHECK_STATUS(hb_put_new("matrix", 6, &put), HB_OK);
    CHECK_STATUS(hb_put_add(put, "f", 1, "q", 1, "v", 1, HB_LATEST_TIMESTAMP), HB_OK);
    /* Stays buffered: far below the write buffer size. */
    CHECK_STATUS(hb_mutator_put(mutator, put, NULL), HB_OK);
    hb_put_free(put);
    hb_scan *scan = NULL;
    CHECK_STATUS(hb_scan_new(&scan), HB_OK);
    CHECK_STATUS(hb_scan_set_caching(scan, 1), HB_OK);
    hb_scanner *scanner = NULL;
    CHECK_STATUS(hb_table_scanner(table, scan, &scanner, NULL), HB_OK);
    hb_scan_free(scan);
    hb_result *row = NULL;
    CHECK_STATUS(hb_scanner_next(scanner, &row, NULL), HB_OK);
    CHECK(row != NULL);
    hb_result_free(row);
    hb_get *get = NULL;
    CHECK_STATUS(hb_get_new("life", 4, &get), HB_OK);
    hb_future *in_flight_get = hb_table_get_async(table, get);
    hb_get_free(get);
    hb_future *in_flight_next = hb_scanner_next_async(scanner, 1);

    int stopped = 0;
    if (stop_first) {
        snprintf(step + prefix, sizeof step - prefix, "hb_library_shutdown");
        CHECK_STATUS(hb_library_shutdown(10000, NULL), HB_OK);
        stopped = 1;
    }
    for (int i = 0; i < H_COUNT; i++) {
        snprintf(step + prefix, sizeof step - prefix, "closing the %s", handle_names[order[i]]);
        switch (order[i]) {
        case H_CONN:
            hb_connection_close(conn);
            stopped = 1;
            break;
        case H_TABLE:
            if (stopped) {
                /* A closed connection's table refuses at once. */
                hb_get *late = NULL;
                CHECK_STATUS(hb_get_new("life", 4, &late), HB_OK);
                hb_result *r = NULL;
                CHECK_STATUS(hb_table_get(table, late, &r, NULL), HB_ERR_CLOSED);
                hb_get_free(late);
            }
            hb_table_free(table);
            break;
        case H_MUTATOR: {
            hb_error *err = NULL;
            hb_status st = hb_mutator_close(mutator, &err);
            if (stopped && with_callback) {
                /* The callback got the unsent put (HB_ERR_CLOSED) before close returned. */
                CHECK_STATUS(st, HB_OK);
                CHECK(atomic_load(&fs.calls) == 1 && atomic_load(&fs.closed) == 1);
            } else if (stopped) {
                /* The buffered put could not be sent: reported, not lost. */
                CHECK_STATUS(st, HB_ERR_CLOSED);
                CHECK(err != NULL && strstr(hb_error_message(err), "not written") != NULL);
            } else {
                CHECK_STATUS(st, HB_OK);
                CHECK(atomic_load(&fs.calls) == 0);
            }
            hb_error_free(err);
            break;
        }
        case H_SCANNER:
            hb_scanner_free(scanner);
            break;
        }
    }
    /* Requests in flight end either way: done, or HB_ERR_CLOSED. */
    snprintf(step + prefix, sizeof step - prefix, "waiting for the requests in flight");
    hb_status got = hb_future_wait(in_flight_get);
    CHECK(got == HB_OK || got == HB_ERR_CLOSED);
    got = hb_future_wait(in_flight_next);
    CHECK(got == HB_OK || got == HB_ERR_CLOSED);
    hb_future_free(in_flight_get);
    hb_future_free(in_flight_next);
    alarm(0);
}

/* Every permutation of the four handles (Heap's algorithm), both with the connection open and
 * after the runtimes stopped; and the callback mutator in the orders that matter to it. */
static void lifecycle_matrix(void) {
    int order[H_COUNT] = {H_CONN, H_TABLE, H_MUTATOR, H_SCANNER};
    int c[H_COUNT] = {0};
    int orders = 0;
    for (int stop_first = 0; stop_first < 2; stop_first++) {
        one_order(order, stop_first, 0);
        orders++;
        for (int i = 1; i < H_COUNT;) {
            if (c[i] < i) {
                int j = (i % 2 == 0) ? 0 : c[i];
                int t = order[j];
                order[j] = order[i];
                order[i] = t;
                one_order(order, stop_first, 0);
                orders++;
                c[i]++;
                i = 1;
            } else {
                c[i] = 0;
                i++;
            }
        }
    }
    CHECK(orders == 48);
    const int conn_first[H_COUNT] = {H_CONN, H_MUTATOR, H_TABLE, H_SCANNER};
    const int mutator_first[H_COUNT] = {H_MUTATOR, H_CONN, H_TABLE, H_SCANNER};
    one_order(conn_first, 0, 1);
    one_order(mutator_first, 0, 1);
    one_order(mutator_first, 1, 1);
    snprintf(step, sizeof step, "matrix done");
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
    /* Close stopped the I/O threads (a thread that signalled its end may still be leaving the
     * kernel's task list on a loaded machine: wait for that, bounded). */
    for (int i = 0; i < 5000 && threads_named("hbclient-io") > 0; i++) usleep(1000);
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

    /* The lifecycle matrix: every order of closing, before and after the runtimes stop. */
    signal(SIGALRM, on_hang);
    if (getenv("HBCLIENT_LIFECYCLE_HANG_S")) hang_limit_s = (unsigned)atoi(getenv("HBCLIENT_LIFECYCLE_HANG_S"));
    CHECK_STATUS(hb_library_init(0, 0, NULL), HB_OK);
    lifecycle_matrix();
    CHECK_STATUS(hb_library_shutdown(10000, NULL), HB_OK);
    CHECK(threads_named("hbclient") == 0);

    printf("lifecycle: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
