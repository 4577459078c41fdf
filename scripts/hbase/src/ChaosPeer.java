// The Java client beside hbclient in the cluster chaos run (crates/hbclient/tests/cluster_chaos.rs with
// HBCLIENT_CHAOS_JAVA_PEER=1; issue #13 point 3). Run through `hbase.sh peer TABLE SECS LOGFILE` against the
// pseudo-distributed cluster; compiled with the other probe tools (hbase.sh fetch) against the cluster's classpath.
//
// One blocking Connection (hbase-client from Maven Central, the same version as the cluster) runs the same
// workload shape as the Rust test, on the same (pre-split) table but on its own rows (`HH-jTASK-I`, `jcounter-N`,
// `jcas-TASK`): 8 threads putting, batching 10 puts, incrementing 4 counters, chaining checkAndMutate, reading
// back and scanning a 2-hex-digit prefix (limit 300, caching 50), and 2 threads sharing one BufferedMutator
// (flush every 200 mutations, then 200 ms pause). Client settings match the Rust test: pause 100 ms, RPC timeout
// 5 s, operation timeout 30 s, 60 retries.
//
// LOGFILE gets one line per event, times in epoch milliseconds:
//   ok KIND START END KEY        a successful single-row (or single-prefix) operation
//   err KIND AT MESSAGE          an error a caller saw (spaces in KIND become underscores)
//   meta AT LOOKUPS RPCS         every 50 ms: meta cache misses (region lookups that went to hbase:meta) and
//                                RPCs the connection sent to hbase:meta (client table metrics)
//   start AT / end AT
// At the end it scans the whole table, checks its own acknowledged writes (missing, wrong, unexpected; counters
// within [acknowledged, acknowledged + failed]; CAS rows at their acknowledged number or a later failed one)
// and prints `peer verdict ok|FAILED ...` on stdout; exit status 0 only when nothing is missing or wrong.
import java.io.BufferedWriter;
import java.io.FileWriter;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

public class ChaosPeer {
  static final int TASKS = 8;
  static final int BUFFERED_TASKS = 2;
  static final int COUNTERS = 4;
  static final int MUTATIONS_PER_FLUSH = 200;
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] Q = Bytes.toBytes("q");
  static final byte[] N = Bytes.toBytes("n");

  static BufferedWriter log;
  static final ConcurrentHashMap<String, String> ackedPuts = new ConcurrentHashMap<>();
  static final ConcurrentHashMap<String, String> failedPuts = new ConcurrentHashMap<>();
  static final Set<String> bufferedFailed = ConcurrentHashMap.newKeySet();
  static final AtomicLongArray ackedInc = new AtomicLongArray(COUNTERS);
  static final AtomicLongArray failedInc = new AtomicLongArray(COUNTERS);
  static final ConcurrentHashMap<Integer, Long> casAcked = new ConcurrentHashMap<>();
  static final ConcurrentHashMap<Integer, List<Long>> casFailed = new ConcurrentHashMap<>();
  static final ConcurrentHashMap<String, AtomicLong> opsByKind = new ConcurrentHashMap<>();
  static final AtomicLong failures = new AtomicLong();
  static final AtomicLong slowestMs = new AtomicLong();
  static volatile String slowestKind = "";

  static synchronized void line(String s) {
    try {
      log.write(s);
      log.write('\n');
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  static String row(int task, long i) {
    return String.format("%02x-j%d-%d", (task * 7919L + i * 104729L) % 256, task, i);
  }

  static boolean peerRow(String key) {
    return key.startsWith("j") || (key.length() > 3 && key.charAt(2) == '-' && key.charAt(3) == 'j');
  }

  static void count(String kind, long t0) {
    long took = System.currentTimeMillis() - t0;
    opsByKind.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
    long prev;
    while (took > (prev = slowestMs.get())) {
      if (slowestMs.compareAndSet(prev, took)) {
        slowestKind = kind;
        break;
      }
    }
  }

  static void ok(String kind, long t0, String key) {
    line("ok " + kind + " " + t0 + " " + System.currentTimeMillis() + " " + key);
  }

  static void err(String kind, Throwable e) {
    String m = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' ');
    if (m.length() > 90) m = m.substring(0, 90);
    line("err " + kind.replace(' ', '_') + " " + System.currentTimeMillis() + " " + m);
  }

  static void worker(Connection conn, TableName name, int task, long until) {
    long rng = 0x9E3779B97F4A7C15L ^ (task + 101);
    long casSeq = 0;
    List<String> recent = new ArrayList<>();
    try (Table table = conn.getTable(name)) {
      long i = 0;
      while (System.currentTimeMillis() < until) {
        rng ^= rng << 13; rng ^= rng >>> 7; rng ^= rng << 17;
        int pick = (int) Long.remainderUnsigned(rng, 10);
        long t0 = System.currentTimeMillis();
        if (pick <= 3) {
          String key = row(task, i++);
          String value = "v" + Long.toUnsignedString(rng);
          try {
            table.put(new Put(Bytes.toBytes(key)).addColumn(F, Q, Bytes.toBytes(value)));
            ok("put", t0, key);
            ackedPuts.put(key, value);
            recent.add(key);
          } catch (IOException e) {
            err("put", e);
            failures.incrementAndGet();
            failedPuts.put(key, value);
          }
          count("put", t0);
        } else if (pick <= 5) {
          List<Row> actions = new ArrayList<>();
          List<String[]> kv = new ArrayList<>();
          for (int k = 0; k < 10; k++) {
            String key = row(task, i++);
            String value = "b" + Long.toUnsignedString(rng) + "-" + k;
            kv.add(new String[] {key, value});
            actions.add(new Put(Bytes.toBytes(key)).addColumn(F, Q, Bytes.toBytes(value)));
          }
          Object[] results = new Object[actions.size()];
          Throwable batchError = null;
          try {
            table.batch(actions, results);
          } catch (IOException | InterruptedException e) {
            batchError = e;
          }
          for (int k = 0; k < kv.size(); k++) {
            String key = kv.get(k)[0], value = kv.get(k)[1];
            if (results[k] instanceof Result) {
              ok("batch", t0, key);
              ackedPuts.put(key, value);
              recent.add(key);
            } else {
              err("batch", results[k] instanceof Throwable ? (Throwable) results[k]
                  : batchError != null ? batchError : new IOException("no result"));
              failures.incrementAndGet();
              failedPuts.put(key, value);
            }
          }
          count("batch", t0);
        } else if (pick == 6) {
          int counter = (int) Long.remainderUnsigned(rng >>> 8, COUNTERS);
          long delta = 1 + Long.remainderUnsigned(rng >>> 16, 5);
          String key = "jcounter-" + counter;
          try {
            table.increment(new Increment(Bytes.toBytes(key)).addColumn(F, N, delta));
            ok("increment", t0, key);
            ackedInc.addAndGet(counter, delta);
          } catch (IOException e) {
            err("increment", e);
            failures.incrementAndGet();
            failedInc.addAndGet(counter, delta);
          }
          count("increment", t0);
        } else if (pick == 7) {
          if (!recent.isEmpty()) {
            String key = recent.get((int) Long.remainderUnsigned(rng >>> 4, recent.size()));
            try {
              Result r = table.get(new Get(Bytes.toBytes(key)));
              ok("get", t0, key);
              String got = r.getValue(F, Q) == null ? null : Bytes.toString(r.getValue(F, Q));
              if (!ackedPuts.get(key).equals(got)) {
                line("violation get " + key + " read " + got + " want " + ackedPuts.get(key));
              }
            } catch (IOException e) {
              err("get", e);
            }
            count("get", t0);
          }
          if (recent.size() > 1000) recent = new ArrayList<>(recent.subList(500, recent.size()));
        } else if (pick == 8) {
          String key = "jcas-" + task;
          Long current = casAcked.get(task);
          long next = casSeq + 1;
          CheckAndMutate.Builder b = CheckAndMutate.newBuilder(Bytes.toBytes(key));
          b = current == null ? b.ifNotExists(F, Q) : b.ifEquals(F, Q, Bytes.toBytes(current.toString()));
          CheckAndMutate cam = b.build(new Put(Bytes.toBytes(key)).addColumn(F, Q, Bytes.toBytes(Long.toString(next))));
          casSeq = next;
          try {
            boolean swapped = table.checkAndMutate(cam).isSuccess();
            ok("checkAndMutate", t0, key);
            if (swapped) {
              casAcked.put(task, next);
            } else {
              Result r = table.get(new Get(Bytes.toBytes(key)));
              long seen = Long.parseLong(Bytes.toString(r.getValue(F, Q)));
              List<Long> failed = casFailed.getOrDefault(task, new ArrayList<>());
              if (!failed.contains(seen)) {
                line("violation cas " + key + " holds " + seen + " expected " + current);
              }
              casAcked.put(task, seen);
            }
          } catch (IOException e) {
            err("checkAndMutate", e);
            failures.incrementAndGet();
            casFailed.computeIfAbsent(task, k -> new ArrayList<>()).add(next);
          }
          count("checkAndMutate", t0);
        } else {
          String prefix = String.format("%02x", Long.remainderUnsigned(rng >>> 24, 256));
          byte[] start = Bytes.toBytes(prefix);
          byte[] stop = Arrays.copyOf(start, start.length);
          stop[stop.length - 1]++;
          Scan scan = new Scan().withStartRow(start).withStopRow(stop).setCaching(50).setLimit(300);
          try (ResultScanner s = table.getScanner(scan)) {
            byte[] prev = null;
            for (Result r : s) {
              if (prev != null && Bytes.compareTo(prev, r.getRow()) >= 0) {
                line("violation scan order " + Bytes.toString(prev) + " then " + Bytes.toString(r.getRow()));
              }
              prev = r.getRow();
            }
            ok("scan", t0, prefix);
          } catch (IOException | RuntimeException e) {
            err("scan", e);
          }
          count("scan", t0);
        }
      }
    } catch (IOException e) {
      err("worker", e);
    }
  }

  /**
   * Puts through the shared BufferedMutator. A row counts as acknowledged once a flush() of this thread that started
   * after its mutate() returned normally and the listener did not name it. When this thread's mutate() or flush()
   * threw (e.g. "time out before the actionsInProgress changed to zero"), the caller was told that the writes in its
   * buffer may have failed: its pending rows count as failed (they may or may not be on the server).
   */
  static void bufferedWorker(BufferedMutator mutator, int task, long until) {
    long rng = 0xB0FFE4EDL ^ (task + 101);
    List<String[]> pending = new ArrayList<>();
    boolean inDoubt = false;
    long i = 0;
    while (true) {
      boolean done = System.currentTimeMillis() >= until;
      if (!done) {
        rng ^= rng << 13; rng ^= rng >>> 7; rng ^= rng << 17;
        String key = row(task, i++);
        String value = "m" + Long.toUnsignedString(rng);
        long t0 = System.currentTimeMillis();
        // Handed over even when mutate() throws (its background flush failed): in doubt.
        pending.add(new String[] {key, value});
        try {
          mutator.mutate(new Put(Bytes.toBytes(key)).addColumn(F, Q, Bytes.toBytes(value)));
        } catch (IOException e) {
          err("buffered mutate", e);
          inDoubt = true;
        }
        count("buffered mutate", t0);
      }
      if (done || i % MUTATIONS_PER_FLUSH == 0) {
        try {
          mutator.flush();
        } catch (IOException e) {
          err("buffered flush", e);
          inDoubt = true;
        }
        // Rows the listener named failed, or all of them when this thread was told of a failure.
        for (String[] kv : pending) {
          if (inDoubt || bufferedFailed.contains(kv[0])) {
            failures.incrementAndGet();
            failedPuts.put(kv[0], kv[1]);
          } else {
            ackedPuts.put(kv[0], kv[1]);
          }
        }
        pending.clear();
        inDoubt = false;
        if (done) return;
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /**
   * Meta cache misses and RPCs to hbase:meta, through the connection's MetricsConnection (0, 0 without it). With
   * hbase.client.table.metrics.enable every RPC is timed under rpcCallDurationMs_ plus a key naming its table and
   * method; the RPCs counted are those whose key names hbase:meta.
   */
  static long[] metaCounts(Object metrics) {
    if (metrics == null) return new long[] {0, 0};
    try {
      long misses = (Long) metrics.getClass().getMethod("getMetaCacheMisses").invoke(metrics);
      long rpcs = 0;
      for (Map.Entry<String, ?> e : rpcTimers(metrics).entrySet()) {
        if (e.getKey().startsWith("rpcCallDurationMs_") && e.getKey().contains("hbase:meta")) {
          rpcs += (Long) e.getValue().getClass().getMethod("getCount").invoke(e.getValue());
        }
      }
      return new long[] {misses, rpcs};
    } catch (ReflectiveOperationException e) {
      return new long[] {-1, -1};
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, ?> rpcTimers(Object metrics) throws ReflectiveOperationException {
    return (Map<String, ?>) metrics.getClass().getMethod("getRpcTimers").invoke(metrics);
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: ChaosPeer TABLE SECS LOGFILE (-Dpeer.zk=HOST:PORT)");
      System.exit(2);
    }
    TableName name = TableName.valueOf(args[0]);
    long secs = Long.parseLong(args[1]);
    log = new BufferedWriter(new FileWriter(args[2], StandardCharsets.UTF_8), 1 << 16);
    String[] zk = System.getProperty("peer.zk", "127.0.0.1:2381").split(":");
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", zk[0]);
    conf.set("hbase.zookeeper.property.clientPort", zk[1]);
    conf.setLong("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", 5000);
    conf.setInt("hbase.client.operation.timeout", 30000);
    conf.setInt("hbase.client.meta.operation.timeout", 30000);
    conf.setInt("hbase.client.retries.number", 60);
    conf.setBoolean("hbase.client.metrics.enable", true);
    conf.setBoolean("hbase.client.table.metrics.enable", true);

    try (Connection conn = ConnectionFactory.createConnection(conf)) {
      Object metrics = null;
      try {
        Method m = conn.getClass().getDeclaredMethod("getConnectionMetrics");
        m.setAccessible(true);
        metrics = m.invoke(conn);
      } catch (ReflectiveOperationException e) {
        System.err.println("peer: no connection metrics (" + e + "); meta counts will read 0");
      }
      final Object connMetrics = metrics;
      long started = System.currentTimeMillis();
      long until = started + secs * 1000;
      line("start " + started);
      synchronized (ChaosPeer.class) {
        log.flush();
      }
      BufferedMutatorParams params = new BufferedMutatorParams(name).writeBufferSize(64 * 1024)
          .listener((RetriesExhaustedWithDetailsException e, BufferedMutator m) -> {
            for (int k = 0; k < e.getNumExceptions(); k++) {
              bufferedFailed.add(Bytes.toString(e.getRow(k).getRow()));
              err("buffered mutate", e.getCause(k));
            }
          });
      BufferedMutator mutator = conn.getBufferedMutator(params);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < TASKS; t++) {
        final int task = t;
        threads.add(new Thread(() -> worker(conn, name, task, until), "peer-" + t));
      }
      for (int t = TASKS; t < TASKS + BUFFERED_TASKS; t++) {
        final int task = t;
        threads.add(new Thread(() -> bufferedWorker(mutator, task, until), "peer-buffered-" + t));
      }
      Thread sampler = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          long[] c = metaCounts(connMetrics);
          line("meta " + System.currentTimeMillis() + " " + c[0] + " " + c[1]);
          try {
            Thread.sleep(50);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "peer-meta-sampler");
      sampler.setDaemon(true);
      sampler.start();
      for (Thread t : threads) t.start();
      for (Thread t : threads) t.join();
      mutator.close();
      sampler.interrupt();
      sampler.join();
      long[] c = metaCounts(connMetrics);
      line("meta " + System.currentTimeMillis() + " " + c[0] + " " + c[1]);
      line("end " + System.currentTimeMillis());
      log.flush();

      // The final full scan of this peer's own rows.
      Set<String> seen = new HashSet<>();
      List<String> missing = new ArrayList<>(), wrong = new ArrayList<>(), unexpected = new ArrayList<>();
      List<String> counterViolations = new ArrayList<>(), casViolations = new ArrayList<>();
      long rows = 0, failedButApplied = 0;
      try (Table table = conn.getTable(name);
          ResultScanner s = table.getScanner(new Scan().setCaching(1000))) {
        for (Result r : s) {
          String key = Bytes.toString(r.getRow());
          if (!peerRow(key)) continue;
          rows++;
          seen.add(key);
          if (key.startsWith("jcounter-")) {
            int counter = Integer.parseInt(key.substring(9));
            long value = Bytes.toLong(r.getValue(F, N));
            long acked = ackedInc.get(counter), failed = failedInc.get(counter);
            if (value < acked || value > acked + failed) {
              counterViolations.add(key + ": " + value + " outside [" + acked + ", " + (acked + failed) + "]");
            }
            continue;
          }
          String got = r.getValue(F, Q) == null ? null : Bytes.toString(r.getValue(F, Q));
          if (key.startsWith("jcas-")) {
            int task = Integer.parseInt(key.substring(5));
            Long acked = casAcked.get(task);
            List<Long> failed = casFailed.getOrDefault(task, new ArrayList<>());
            Long g = got == null ? null : Long.parseLong(got);
            boolean fine = (g != null && g.equals(acked))
                || (g != null && failed.contains(g) && (acked == null || g > acked));
            if (!fine) casViolations.add(key + ": holds " + g + ", acknowledged " + acked + ", failed " + failed);
            continue;
          }
          String want = ackedPuts.get(key), own = failedPuts.get(key);
          if (want != null) {
            if (!want.equals(got)) wrong.add(key);
          } else if (own != null) {
            if (own.equals(got)) failedButApplied++;
            else wrong.add(key);
          } else {
            unexpected.add(key);
          }
        }
      }
      for (String key : ackedPuts.keySet()) {
        if (!seen.contains(key)) missing.add(key);
      }
      for (int counter = 0; counter < COUNTERS; counter++) {
        if (ackedInc.get(counter) > 0 && !seen.contains("jcounter-" + counter)) {
          counterViolations.add("jcounter-" + counter + ": missing");
        }
      }
      for (Integer task : casAcked.keySet()) {
        if (!seen.contains("jcas-" + task)) casViolations.add("jcas-" + task + ": missing");
      }
      long ops = 0;
      Map<String, Long> byKind = new TreeMap<>();
      for (Map.Entry<String, AtomicLong> e : opsByKind.entrySet()) {
        byKind.put(e.getKey(), e.getValue().get());
        ops += e.getValue().get();
      }
      long incTotal = 0;
      for (int k = 0; k < COUNTERS; k++) incTotal += ackedInc.get(k);
      long casTotal = 0;
      for (Long v : casAcked.values()) casTotal += v;
      System.out.println("peer ops " + ops + " " + byKind);
      System.out.println("peer acknowledged " + ackedPuts.size() + " rows (+ " + incTotal + " increments, " + casTotal
          + " CAS swaps); failures reported to callers " + failures.get() + "; failed writes applied anyway "
          + failedButApplied + "; slowest op " + slowestMs.get() + " ms (" + slowestKind + "); meta cache misses "
          + c[0] + ", meta RPCs " + c[1]);
      if (connMetrics != null) {
        System.out.println("peer rpc timers: " + metaCounterNames(connMetrics));
      }
      boolean good = missing.isEmpty() && wrong.isEmpty() && unexpected.isEmpty() && counterViolations.isEmpty()
          && casViolations.isEmpty();
      System.out.println("peer verdict " + (good ? "ok" : "FAILED") + " rows " + rows + " missing " + missing.size()
          + " wrong " + wrong.size() + " unexpected " + unexpected.size() + " counters " + counterViolations
          + " cas " + casViolations + (missing.isEmpty() ? "" : " first missing "
          + missing.subList(0, Math.min(10, missing.size()))));
      log.close();
      System.exit(good ? 0 : 1);
    }
  }

  /** Every RPC timer key with its count (which keys name hbase:meta shows how meta RPCs were counted). */
  static List<String> metaCounterNames(Object metrics) {
    List<String> names = new ArrayList<>();
    try {
      for (Map.Entry<String, ?> e : new TreeMap<>(rpcTimers(metrics)).entrySet()) {
        if (e.getKey().startsWith("rpcCallDurationMs_")) {
          names.add(e.getKey().substring(18) + "=" + e.getValue().getClass().getMethod("getCount").invoke(e.getValue()));
        }
      }
    } catch (ReflectiveOperationException e) {
      names.add(e.toString());
    }
    return names;
  }
}
