/*
 * hb_config_set accepts every key documented in hbclient.h (the list below is checked against
 * the header and against the Rust client's keys by crates/hbclient-ffi/tests/header.rs), and
 * every rejection carries a message naming the key and saying why. Needs no cluster; with
 * HBCLIENT_FFI_BOOTSTRAP set it also connects with read/write timeouts and sizes in units.
 * Built with -Wall -Wextra -Werror under ASan/UBSan by scripts/ffi-test.sh.
 */
#include <hbclient.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Every key hb_config_set documents, with a valid value. */
static const char *const KEYS[][2] = {
    {"hbase.zookeeper.quorum", "zk1,zk2:2182"},
    {"hbase.zookeeper.property.clientPort", "2181"},
    {"zookeeper.znode.parent", "/hbase"},
    {"hbase.client.bootstrap.servers", "127.0.0.1:16000"},
    {"hbase.masters", "127.0.0.1:16000"},
    {"hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry"},
    {"hbase.client.retries.number", "5"},
    {"hbase.client.pause", "50"},
    {"hbase.client.pause.server.overloaded", "500"},
    {"hbase.client.pause.cqtbe", "500"},
    {"hbase.rpc.timeout", "30000"},
    {"hbase.rpc.read.timeout", "20000"},
    {"hbase.rpc.write.timeout", "25000"},
    {"hbase.client.operation.timeout", "60000"},
    {"hbase.client.meta.operation.timeout", "60000"},
    {"hbase.client.meta.read.rpc.timeout", "10000"},
    {"hbase.ipc.client.socket.timeout.connect", "5000"},
    {"hbase.ipc.client.socket.timeout.read", "20000"},
    {"hbase.ipc.client.socket.timeout.write", "60000"},
    {"hbclient.rpc.max.consecutive.timeouts", "3"},
    {"hbclient.rpc.connection.max.inflight.bytes", "64MB"},
    {"hbclient.rpc.max.inflight.bytes", "256m"},
    {"hbclient.metrics.per.server", "false"},
    {"hbase.client.ipc.pool.size", "2"},
    {"hbase.client.scanner.caching", "100"},
    {"hbase.client.scanner.max.result.size", "2MB"},
    {"hbase.client.scanner.timeout.period", "60000"},
    {"hbase.client.meta.scanner.timeout.period", "30000"},
    {"hbase.client.primaryCallTimeout.get", "10000"},
    {"hbase.client.replicaCallTimeout.scan", "1000000"},
    {"hbase.locator.meta.replicas.mode", "LoadBalance"},
    {"hbase.meta.replicas.use", "true"},
    {"hbase.client.meta.replica.scan.timeout", "1000000"},
    {"hbclient.scanner.prefetch.depth", "2"},
    {"hbclient.blocking.io.threads", "1"},
    {"hbase.client.write.buffer", "2MB"},
    {"hbase.client.write.buffer.periodicflush.timeout.ms", "1000"},
    {"hbase.client.write.buffer.maxinflight", "16mb"},
    {"hbase.client.write.buffer.maxmutations", "1000"},
    {"hbase.client.max.perrequest.rows", "2048"},
    {"hbase.client.max.perrequest.heapsize", "4m"},
    {"hbase.client.max.perserver.tasks", "2"},
    {"hbase.client.keyvalue.maxsize", "10485760"},
    {"hbase.client.user", "alice"},
    {"hbase.client.rpc.compressor", "org.apache.hadoop.io.compress.SnappyCodec"},
    {"hbclient.connection.attribute.app", "billing"},
    {"hbase.client.netty.tls.enabled", "false"},
    {"hbase.client.netty.tls.verify.server.hostname", "true"},
    {"hbase.client.netty.tls.handshaketimeout", "10000"},
    {"hbase.rpc.tls.protocol", "TLSv1.3"},
    {"hbase.rpc.tls.enabledProtocols", "TLSv1.2,TLSv1.3"},
    {"hbase.rpc.tls.ciphersuites", "TLS_AES_128_GCM_SHA256"},
    {"hbase.rpc.tls.truststore.location", "/etc/hbase/ca.pem"},
    {"hbase.rpc.tls.truststore.type", "PEM"},
    {"hbase.rpc.tls.truststore.password", "secret"},
    {"hbase.rpc.tls.keystore.location", "/etc/hbase/client.pem"},
    {"hbase.rpc.tls.keystore.type", "PEM"},
    {"hbase.rpc.tls.keystore.password", "secret"},
    {"hbase.security.authentication", "simple"},
    {"hadoop.security.authentication", "simple"},
    {"hbase.rpc.protection", "privacy,integrity"},
    {"hadoop.rpc.protection", "authentication"},
    {"hbase.master.kerberos.principal", "hbase/_HOST@EXAMPLE.COM"},
    {"hbase.regionserver.kerberos.principal", "hbase/_HOST@EXAMPLE.COM"},
    {"hbase.client.keytab.file", "/etc/security/client.keytab"},
    {"hbase.client.keytab.principal", "alice@EXAMPLE.COM"},
    {"hbase.client.kerberos.principal", "alice@EXAMPLE.COM"},
    {"hbase.ipc.client.fallback-to-simple-auth-allowed", "false"},
    {"hbase.unsafe.client.kerberos.hostname.disable.reversedns", "true"},
    {"hbase.rpc.crypto.encryption.aes.enabled", "false"},
};

/* Rejected values: the message must name the key and contain `why`. */
static const char *const BAD[][3] = {
    {"hbase.rpc.read.timeout", "soon", "not a valid number"},
    {"hbase.rpc.write.timeout", "-5", "not a valid number"},
    {"hbase.rpc.timeout", "2MB", "not a valid number"},
    {"hbase.client.write.buffer", "2XB", "not a byte size"},
    {"hbase.client.scanner.max.result.size", "1.5m", "not a byte size"},
    {"hbase.client.keyvalue.maxsize", "99999999p", "too large"},
    {"hbase.client.rpc.compressor", "zstd", "unknown cellblock compressor"},
    {"hbase.client.netty.tls.enabled", "yes", "not true or false"},
    {"hbase.security.authentication", "digest", "not supported"},
    {"hbase.rpc.protection", "secret", "not authentication, integrity or privacy"},
    {"hbase.zookeeper.property.clientPort", "99999", "not a valid number"},
    {"hbase.client.max.perserver.tasks", "0", "must be at least 1"},
    {"hbase.no.such.key", "1", "unknown configuration key"},
    {"hbclient.connection.attribute.", "x", "needs a name"},
};

static void test_every_documented_key(void) {
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++) {
        hb_config *cfg = NULL;
        CHECK(hb_config_new(&cfg) == HB_OK);
        hb_error *err = NULL;
        hb_status st = hb_config_set_err(cfg, KEYS[i][0], KEYS[i][1], &err);
        if (st != HB_OK) {
            fprintf(stderr, "%s=%s refused: %s\n", KEYS[i][0], KEYS[i][1],
                    err ? hb_error_message(err) : "(no error)");
        }
        CHECK(st == HB_OK);
        CHECK(err == NULL);
        /* hb_config_set (no err) agrees. */
        CHECK(hb_config_set(cfg, KEYS[i][0], KEYS[i][1]) == HB_OK);
        hb_error_free(err);
        hb_config_free(cfg);
    }
}

static void test_rejections_name_key_and_reason(void) {
    hb_config *cfg = NULL;
    CHECK(hb_config_new(&cfg) == HB_OK);
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        hb_error *err = NULL;
        CHECK(hb_config_set_err(cfg, BAD[i][0], BAD[i][1], &err) == HB_ERR_INVALID_ARGUMENT);
        CHECK(hb_config_set(cfg, BAD[i][0], BAD[i][1]) == HB_ERR_INVALID_ARGUMENT);
        CHECK(err != NULL);
        if (err == NULL) continue;
        const char *msg = hb_error_message(err);
        CHECK(hb_error_status(err) == HB_ERR_INVALID_ARGUMENT);
        if (strstr(msg, BAD[i][0]) == NULL || strstr(msg, BAD[i][2]) == NULL) {
            fprintf(stderr, "%s=%s: message %s lacks the key or \"%s\"\n", BAD[i][0], BAD[i][1], msg,
                    BAD[i][2]);
            failed++;
        } else {
            passed++;
        }
        hb_error_free(err);
    }
    /* NULL arguments carry a message naming the argument too. */
    hb_error *err = NULL;
    CHECK(hb_config_set_err(cfg, NULL, "1", &err) == HB_ERR_INVALID_ARGUMENT);
    CHECK(err != NULL && strstr(hb_error_message(err), "key") != NULL);
    hb_error_free(err);
    err = NULL;
    CHECK(hb_config_set_err(cfg, "hbase.rpc.timeout", NULL, &err) == HB_ERR_INVALID_ARGUMENT);
    CHECK(err != NULL && strstr(hb_error_message(err), "value") != NULL);
    hb_error_free(err);
    hb_config_free(cfg);
}

/* A connection configured with read/write timeouts and sizes in units works. */
static void test_connect_with_units(const char *bootstrap) {
    hb_config *cfg = NULL;
    CHECK(hb_config_new(&cfg) == HB_OK);
    CHECK(hb_config_set(cfg, "hbase.client.bootstrap.servers", bootstrap) == HB_OK);
    CHECK(hb_config_set(cfg, "hbase.rpc.read.timeout", "15000") == HB_OK);
    CHECK(hb_config_set(cfg, "hbase.rpc.write.timeout", "15000") == HB_OK);
    CHECK(hb_config_set(cfg, "hbase.client.write.buffer", "1MB") == HB_OK);
    CHECK(hb_config_set(cfg, "hbase.client.scanner.max.result.size", "64k") == HB_OK);
    hb_connection *conn = NULL;
    hb_error *err = NULL;
    if (hb_connection_open(cfg, &conn, &err) != HB_OK) {
        fprintf(stderr, "connect: %s\n", hb_error_message(err));
        hb_error_free(err);
        hb_config_free(cfg);
        failed++;
        return;
    }
    hb_config_free(cfg);
    hb_table *t = NULL;
    CHECK(hb_table_open(conn, "t", &t, NULL) == HB_OK);
    hb_put *put = NULL;
    CHECK(hb_put_new("cfg-row", 7, &put) == HB_OK);
    CHECK(hb_put_add(put, "f", 1, "q", 1, "v", 1, HB_LATEST_TIMESTAMP) == HB_OK);
    CHECK(hb_table_put(t, put, NULL) == HB_OK);
    hb_put_free(put);
    hb_get *get = NULL;
    CHECK(hb_get_new("cfg-row", 7, &get) == HB_OK);
    hb_result *r = NULL;
    CHECK(hb_table_get(t, get, &r, NULL) == HB_OK);
    CHECK(!hb_result_is_empty(r));
    hb_result_free(r);
    hb_get_free(get);
    hb_table_free(t);
    hb_connection_close(conn);
}

int main(void) {
    test_every_documented_key();
    test_rejections_name_key_and_reason();
    const char *bootstrap = getenv("HBCLIENT_FFI_BOOTSTRAP");
    if (bootstrap != NULL && *bootstrap != '\0') test_connect_with_units(bootstrap);
    printf("test_config: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
