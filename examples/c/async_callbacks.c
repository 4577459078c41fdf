/*
 * Asynchronous use of libhbclient: 4 threads each submit 250 puts; a callback (run on one of
 * the library's callback threads, `hbclient-cb`, sized by hb_library_init) counts completions,
 * makes a blocking get (allowed in callbacks) and frees each future. Then an async get, waited
 * on, and hb_library_shutdown for a clean exit.
 *   async_callbacks BOOTSTRAP_SERVERS|zk:QUORUM [TABLE]
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <hbclient.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define THREADS 4
#define PUTS 250

static atomic_int done, failed;
static hb_table *table;

static void on_done(hb_future *f, void *userdata) {
    (void)userdata;
    if (hb_future_wait(f) != HB_OK) {
        fprintf(stderr, "put failed: %s\n", hb_error_message(hb_future_error(f)));
        atomic_fetch_add(&failed, 1);
    }
    hb_future_free(f);
    /* A blocking call inside a callback: fine, the I/O runs on other threads. */
    hb_get *get = NULL;
    hb_result *r = NULL;
    if (hb_get_new("ex-async-0-000", 14, &get) != HB_OK || hb_table_get(table, get, &r, NULL) != HB_OK) {
        atomic_fetch_add(&failed, 1);
    }
    hb_result_free(r);
    hb_get_free(get);
    atomic_fetch_add(&done, 1);
}

static void *submit(void *arg) {
    int id = (int)(intptr_t)arg;
    char row[32];
    for (int i = 0; i < PUTS; i++) {
        int n = snprintf(row, sizeof row, "ex-async-%d-%03d", id, i);
        hb_put *put = NULL;
        hb_put_new(row, (size_t)n, &put);
        hb_put_add(put, "f", 1, "q", 1, row, (size_t)n, HB_LATEST_TIMESTAMP);
        hb_future *f = hb_table_put_async(table, put);
        hb_put_free(put); /* copied by the call: free it right away */
        hb_future_set_callback(f, on_done, NULL);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s BOOTSTRAP_SERVERS|zk:QUORUM [TABLE]\n", argv[0]);
        return 2;
    }
    /* Optional, before the first connection: 2 I/O threads per connection, 4 callback threads. */
    if (hb_library_init(2, 4, NULL) != HB_OK) return 1;
    hb_config *cfg = NULL;
    hb_config_new(&cfg);
    if (strncmp(argv[1], "zk:", 3) == 0) {
        hb_config_set(cfg, "hbase.zookeeper.quorum", argv[1] + 3);
    } else {
        hb_config_set(cfg, "hbase.client.bootstrap.servers", argv[1]);
    }
    hb_connection *conn = NULL;
    hb_error *err = NULL;
    if (hb_connection_open(cfg, &conn, &err) != HB_OK) {
        fprintf(stderr, "connect: %s\n", hb_error_message(err));
        hb_error_free(err);
        hb_config_free(cfg);
        return 1;
    }
    hb_config_free(cfg);
    hb_table_open(conn, argc > 2 ? argv[2] : "t", &table, NULL);

    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, submit, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    struct timespec pause = {0, 5 * 1000 * 1000};
    for (int i = 0; i < 12000 && atomic_load(&done) < THREADS * PUTS; i++) nanosleep(&pause, NULL);
    printf("async puts: %d done, %d failed\n", atomic_load(&done), atomic_load(&failed));

    hb_get *get = NULL;
    hb_get_new("ex-async-3-249", 14, &get);
    hb_future *f = hb_table_get_async(table, get);
    hb_get_free(get);
    hb_result *result = NULL;
    int ok = hb_future_wait(f) == HB_OK && hb_future_take_result(f, &result) == HB_OK &&
             hb_result_cell_count(result) == 1;
    printf("async get: %s\n", ok ? "found" : "missing");
    hb_result_free(result);
    hb_future_free(f);

    hb_table_free(table);
    hb_connection_close(conn); /* returns once the connection's I/O threads have stopped */
    /* Joins every library thread: nothing left running at exit (clean under valgrind). */
    if (hb_library_shutdown(10000, NULL) != HB_OK) ok = 0;
    return ok && atomic_load(&done) == THREADS * PUTS && atomic_load(&failed) == 0 ? 0 : 1;
}
