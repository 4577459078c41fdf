/*
 * libhbclient read throughput with N callers (issue #20): `blocking` runs N threads, each making
 * one blocking hb_table_get after another; `async` keeps N hb_table_get_async calls in flight from
 * completion callbacks. Prints one tab-separated line: mode, callers, ops, seconds, ops/s, p50 us,
 * p99 us, client CPU us/op (getrusage of this process; the server is another process).
 *
 *   blocking_get MODE CALLERS SECONDS ROWS      (env HBCLIENT_FFI_BOOTSTRAP=host:port, table t, family f)
 *
 * MODE `load` writes rows row00000000 .. ROWS-1 (1,000-byte values in f:q) with CALLERS threads
 * and exits.
 *
 * Run by benches/ffi/run.sh, which builds the library, starts mini-hbase with a fixed service
 * time and loads the rows.
 */
#define _GNU_SOURCE
#include <hbclient.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 200000 /* latency histogram: 1 us buckets up to 200 ms, then clamped */

static hb_table *table;
static long rows;
static atomic_int stop;
static atomic_long ops;
static atomic_long failures;
static atomic_long hist[BUCKETS];

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_s(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static void record(double began) {
    long us = (long)((now_s() - began) * 1e6);
    if (us >= BUCKETS) us = BUCKETS - 1;
    atomic_fetch_add_explicit(&hist[us], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&ops, 1, memory_order_relaxed);
}

static long percentile(double p) {
    long total = 0, seen = 0;
    for (long i = 0; i < BUCKETS; i++) total += hist[i];
    for (long i = 0; i < BUCKETS; i++) {
        seen += hist[i];
        if (seen > 0 && (double)seen >= p * (double)total) return i;
    }
    return BUCKETS - 1;
}

static hb_get *random_get(unsigned *seed) {
    char key[32];
    int n = snprintf(key, sizeof key, "row%08ld", (long)(rand_r(seed) % rows));
    hb_get *get = NULL;
    hb_get_new(key, (size_t)n, &get);
    return get;
}

static void *blocking_caller(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        hb_get *get = random_get(&seed);
        hb_result *row = NULL;
        double began = now_s();
        if (hb_table_get(table, get, &row, NULL) == HB_OK) {
            record(began);
        } else {
            atomic_fetch_add(&failures, 1);
        }
        hb_result_free(row);
        hb_get_free(get);
    }
    return NULL;
}

static atomic_long next_row;

static void *loader(void *arg) {
    (void)arg;
    static char value[1000];
    memset(value, 'v', sizeof value);
    for (long i; (i = atomic_fetch_add(&next_row, 1)) < rows;) {
        char key[32];
        int n = snprintf(key, sizeof key, "row%08ld", i);
        hb_put *put = NULL;
        hb_put_new(key, (size_t)n, &put);
        hb_put_add(put, "f", 1, "q", 1, value, sizeof value, HB_LATEST_TIMESTAMP);
        if (hb_table_put(table, put, NULL) != HB_OK) atomic_fetch_add(&failures, 1);
        hb_put_free(put);
    }
    return NULL;
}

/* One async chain: each completion records and starts the next get. */
struct chain {
    unsigned seed;
    double began;
};

static void start(struct chain *c);

static void on_done(hb_future *future, void *userdata) {
    struct chain *c = userdata;
    hb_result *row = NULL;
    if (hb_future_take_result(future, &row) == HB_OK) {
        record(c->began);
    } else {
        atomic_fetch_add(&failures, 1);
    }
    hb_result_free(row);
    hb_future_free(future);
    start(c);
}

static atomic_long chains_done;

static void start(struct chain *c) {
    if (atomic_load_explicit(&stop, memory_order_relaxed)) {
        atomic_fetch_add(&chains_done, 1);
        return;
    }
    hb_get *get = random_get(&c->seed);
    c->began = now_s();
    hb_future *f = hb_table_get_async(table, get);
    hb_get_free(get);
    if (hb_future_set_callback(f, on_done, c) != HB_OK) {
        hb_future_free(f);
        atomic_fetch_add(&failures, 1);
        atomic_fetch_add(&chains_done, 1);
    }
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s blocking|async CALLERS SECONDS ROWS\n", argv[0]);
        return 2;
    }
    int blocking = strcmp(argv[1], "blocking") == 0;
    long callers = strtol(argv[2], NULL, 10);
    double seconds = strtod(argv[3], NULL);
    rows = strtol(argv[4], NULL, 10);
    const char *bootstrap = getenv("HBCLIENT_FFI_BOOTSTRAP");
    if (!bootstrap || !*bootstrap || callers < 1 || rows < 1) {
        fprintf(stderr, "set HBCLIENT_FFI_BOOTSTRAP; CALLERS and ROWS must be positive\n");
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

    pthread_t *threads = calloc((size_t)callers, sizeof *threads);
    if (strcmp(argv[1], "load") == 0) {
        for (long i = 0; i < callers; i++) pthread_create(&threads[i], NULL, loader, NULL);
        for (long i = 0; i < callers; i++) pthread_join(threads[i], NULL);
        printf("loaded %ld rows, %ld failures\n", rows, atomic_load(&failures));
        free(threads);
        hb_table_free(table);
        hb_connection_close(conn);
        return atomic_load(&failures) == 0 ? 0 : 1;
    }
    /* Warm-up (one second, not measured), then the measured phase. */
    struct chain *chains = calloc((size_t)callers, sizeof *chains);
    for (int phase = 0; phase < 2; phase++) {
        atomic_store(&stop, 0);
        atomic_store(&chains_done, 0);
        memset(hist, 0, sizeof hist);
        atomic_store(&ops, 0);
        double t0 = now_s(), c0 = cpu_s();
        for (long i = 0; i < callers; i++) {
            if (blocking) {
                pthread_create(&threads[i], NULL, blocking_caller, (void *)(uintptr_t)(i * 7919 + 1));
            } else {
                chains[i].seed = (unsigned)(i * 7919 + 1);
                start(&chains[i]);
            }
        }
        usleep((useconds_t)((phase == 0 ? 1.0 : seconds) * 1e6));
        atomic_store(&stop, 1);
        long n = atomic_load(&ops);
        double t1 = now_s(), c1 = cpu_s();
        if (blocking) {
            for (long i = 0; i < callers; i++) pthread_join(threads[i], NULL);
        } else {
            while (atomic_load(&chains_done) < callers) usleep(1000);
        }
        if (phase == 1) {
            printf("%s\t%ld\t%ld\t%.2f\t%.0f\t%ld\t%ld\t%.2f\t%ld\n", argv[1], callers, n, t1 - t0,
                   (double)n / (t1 - t0), percentile(0.50), percentile(0.99),
                   n ? (c1 - c0) * 1e6 / (double)n : 0.0, atomic_load(&failures));
        }
    }
    free(threads);
    free(chains);
    hb_table_free(table);
    hb_connection_close(conn);
    return atomic_load(&failures) == 0 ? 0 : 1;
}
