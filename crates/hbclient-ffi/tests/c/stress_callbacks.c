/*
 * Callback stress test of libhbclient (issue #14): N concurrent async gets (default 100,000,
 * HBCLIENT_STRESS_OPS overrides) whose completion callbacks each wait on their own, already
 * complete future and then make one *blocking* hb_table_get. Every callback must run and every
 * nested get succeed within HBCLIENT_STRESS_DEADLINE_S seconds (default 60), and the process must
 * not grow threads without bound (at most HBCLIENT_STRESS_MAX_THREADS, default 64).
 *
 * Before libhbclient 0.2 callbacks ran on the runtime's I/O workers and a blocking call moved the
 * worker's I/O to a new thread: a few thousand such callbacks parked every thread and no I/O or
 * timeout ran again (a deadlock). Built with -Wall -Wextra -Werror by scripts/ffi-test.sh, run
 * against the mini-hbase it starts (table `t`).
 */
#define _GNU_SOURCE
#include <hbclient.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static hb_table *table;
static atomic_long callbacks_run;
static atomic_long nested_ok;
static atomic_long own_wait_ok;
static atomic_long max_threads;

static long env_long(const char *name, long fallback) {
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : fallback;
}

/* Threads of this process, from /proc/self/status. */
static long thread_count(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long n = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Threads:", 8) == 0) {
            n = strtol(line + 8, NULL, 10);
            break;
        }
    }
    fclose(f);
    return n;
}

static void note_threads(void) {
    long n = thread_count();
    long seen = atomic_load(&max_threads);
    while (n > seen && !atomic_compare_exchange_weak(&max_threads, &seen, n)) {
    }
}

static void on_done(hb_future *future, void *userdata) {
    (void)userdata;
    /* Reading a completed future is free: no thread hand-off. */
    if (hb_future_wait(future) == HB_OK) atomic_fetch_add(&own_wait_ok, 1);
    hb_result *r = NULL;
    if (hb_future_take_result(future, &r) == HB_OK) hb_result_free(r);
    hb_future_free(future);

    /* One blocking call from inside the callback. */
    hb_get *get = NULL;
    hb_result *again = NULL;
    if (hb_get_new("stress", 6, &get) == HB_OK && hb_table_get(table, get, &again, NULL) == HB_OK &&
        again != NULL && hb_result_cell_count(again) == 1) {
        atomic_fetch_add(&nested_ok, 1);
    }
    hb_result_free(again);
    hb_get_free(get);
    if ((atomic_fetch_add(&callbacks_run, 1) & 1023) == 0) note_threads();
}

int main(void) {
    long ops = env_long("HBCLIENT_STRESS_OPS", 100000);
    long deadline_s = env_long("HBCLIENT_STRESS_DEADLINE_S", 60);
    long thread_limit = env_long("HBCLIENT_STRESS_MAX_THREADS", 64);
    const char *bootstrap = getenv("HBCLIENT_FFI_BOOTSTRAP");
    if (!bootstrap || !*bootstrap) {
        fprintf(stderr, "set HBCLIENT_FFI_BOOTSTRAP\n");
        return 2;
    }
    hb_config *cfg = NULL;
    hb_connection *conn = NULL;
    hb_error *err = NULL;
    if (hb_config_new(&cfg) != HB_OK ||
        hb_config_set(cfg, "hbase.client.bootstrap.servers", bootstrap) != HB_OK ||
        hb_connection_open(cfg, &conn, &err) != HB_OK) {
        fprintf(stderr, "connect: %s\n", err ? hb_error_message(err) : "bad config");
        return 2;
    }
    hb_config_free(cfg);
    if (hb_table_open(conn, "t", &table, NULL) != HB_OK) return 2;

    hb_put *put = NULL;
    hb_put_new("stress", 6, &put);
    hb_put_add(put, "f", 1, "q", 1, "v", 1, HB_LATEST_TIMESTAMP);
    if (hb_table_put(table, put, NULL) != HB_OK) return 2;
    hb_put_free(put);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long submit_failed = 0;
    for (long i = 0; i < ops; i++) {
        hb_get *get = NULL;
        hb_get_new("stress", 6, &get);
        hb_future *f = hb_table_get_async(table, get);
        hb_get_free(get);
        if (hb_future_set_callback(f, on_done, NULL) != HB_OK) {
            submit_failed++;
            hb_future_free(f);
        }
    }
    long waited_ms = 0;
    while (atomic_load(&callbacks_run) + submit_failed < ops && waited_ms < deadline_s * 1000) {
        usleep(20 * 1000);
        waited_ms += 20;
        if (waited_ms % 1000 == 0) note_threads();
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    long run = atomic_load(&callbacks_run);
    note_threads();
    printf("stress: %ld ops, %ld callbacks ran, %ld nested blocking gets ok, %ld own waits ok, "
           "%ld submit failures, %.1f s, max %ld threads\n",
           ops, run, atomic_load(&nested_ok), atomic_load(&own_wait_ok), submit_failed, secs,
           atomic_load(&max_threads));
    int ok = run == ops && atomic_load(&nested_ok) == ops && atomic_load(&own_wait_ok) == ops &&
             submit_failed == 0 && atomic_load(&max_threads) <= thread_limit;
    if (!ok) {
        /* Callbacks may still be parked inside the library: exit without tearing it down. */
        fflush(stdout);
        fprintf(stderr, "stress: FAILED\n");
        _exit(1);
    }
    hb_table_free(table);
    hb_connection_close(conn);
    return 0;
}
