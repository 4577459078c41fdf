/*
 * The checks every C test of libhbclient counts with: CHECK(cond) and CHECK_STATUS(expr, want)
 * count passes and print each failure with file and line; main() reports `passed` and `failed`.
 * One copy, included by each test program (each is its own executable, so the counters are
 * per program).
 */
#ifndef HBCLIENT_TEST_CHECK_H
#define HBCLIENT_TEST_CHECK_H

#include <hbclient.h>
#include <stdio.h>

static int passed, failed;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (cond) {                                                                   \
            passed++;                                                                 \
        } else {                                                                      \
            failed++;                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
        }                                                                             \
    } while (0)

#define CHECK_STATUS(expr, want)                                                      \
    do {                                                                              \
        hb_status got_ = (expr);                                                      \
        if (got_ == (want)) {                                                         \
            passed++;                                                                 \
        } else {                                                                      \
            failed++;                                                                 \
            fprintf(stderr, "%s:%d: %s returned %u (%s), wanted %s\n", __FILE__,      \
                    __LINE__, #expr, (unsigned)got_, hb_status_str(got_), #want);     \
        }                                                                             \
    } while (0)

#endif
