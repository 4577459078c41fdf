// Client-side helper for the pseudo-distributed cluster that scripts/hbase/cluster.sh runs (one ZooKeeper, one
// HMaster, N HRegionServer JVMs on 127.0.0.1). Compiled by cluster.sh with javac against the server classpath.
//
//   ClusterCheck ready <N> <timeoutSec>      wait until the master lists N live region servers and a table round
//                                            trip (create, put, get, drop) works; exits 3 if a watched JVM dies
//   ClusterCheck shutdown                    Admin.shutdown() + stopRegionServer on every live server
//   ClusterCheck verify-wal [rsK] [rows]     WAL recovery: write acknowledged rows to a region on rsK, SIGKILL rsK,
//                                            wait until the master reassigns the region, read every row back
//   ClusterCheck verify-pause [rsK] [rows]   SIGSTOP rsK until the master declares it dead, check its regions come
//                                            back elsewhere with every row, SIGCONT it and watch it abort; also
//                                            reports what became of a put a stale client sent during the pause
//   ClusterCheck regions [TABLE]             one line per region: table, encoded name, start/end key, server, rsK
//   ClusterCheck move ENCODED [rsK]          move a region (to rsK, or wherever the master picks)
//   ClusterCheck split TABLE|ENCODED [ROW]   split a table / region (at ROW, or where HBase picks)
//   ClusterCheck merge ENCODED ENCODED       merge two adjacent regions
//   ClusterCheck balance                     run the balancer once; prints whether it ran
//   ClusterCheck create TABLE [SPLITKEY...]  create a table with family "f" (pre-split at the given keys)
//   ClusterCheck drop TABLE                  disable and delete a table
//
// System properties: cluster.zk.port, cluster.rs = "rs1:16220:pid,rs2:16230:pid,..." (name:port:pid; pid 0 = none),
// cluster.watch.pids = "pid,pid,..." (ready gives up when one of them exits).
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

public class ClusterCheck {
  static final String HOST = "127.0.0.1";
  static final int ZK_PORT = Integer.getInteger("cluster.zk.port", 2381);
  static final byte[] FAMILY = Bytes.toBytes("f");
  static final byte[] QUALIFIER = Bytes.toBytes("q");
  /** Written by the stale client in verify-pause; sorts after every "row..." key and is skipped by checkRows. */
  static final byte[] STALE_ROW = Bytes.toBytes("stale-client-row");

  /** One region-server slot of the cluster: rsK, its RPC port, and the pid cluster.sh recorded (0 if none). */
  static final class Slot {
    final String name;
    final int port;
    final long pid;

    Slot(String name, int port, long pid) {
      this.name = name;
      this.port = port;
      this.pid = pid;
    }
  }

  static final Map<String, Slot> SLOTS = parseSlots(System.getProperty("cluster.rs", ""));

  static Map<String, Slot> parseSlots(String spec) {
    Map<String, Slot> m = new LinkedHashMap<>();
    for (String e : spec.split(",")) {
      if (e.isBlank()) continue;
      String[] p = e.split(":");
      m.put(p[0], new Slot(p[0], Integer.parseInt(p[1]), p.length > 2 ? Long.parseLong(p[2]) : 0));
    }
    return m;
  }

  static String slotName(ServerName sn) {
    for (Slot s : SLOTS.values()) {
      if (s.port == sn.getPort()) return s.name;
    }
    return "?";
  }

  static Slot slot(String name) {
    Slot s = SLOTS.get(name);
    if (s == null) throw new IllegalArgumentException("unknown region server " + name + "; have " + SLOTS.keySet());
    return s;
  }

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "";
    String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
    int rc;
    try {
      switch (mode) {
        case "ready": rc = ready(Integer.parseInt(rest[0]), Integer.parseInt(rest[1])); break;
        case "shutdown": rc = shutdown(); break;
        case "verify-wal": rc = verify(false, rest); break;
        case "verify-pause": rc = verify(true, rest); break;
        case "regions": rc = regions(rest.length > 0 ? rest[0] : null); break;
        case "move": rc = move(rest); break;
        case "split": rc = split(rest); break;
        case "merge": rc = merge(rest); break;
        case "balance": rc = balance(); break;
        case "create": rc = create(rest); break;
        case "drop": rc = drop(rest); break;
        default:
          System.err.println("unknown mode '" + mode + "'");
          rc = 2;
      }
    } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
      System.err.println("cluster-check: " + oneLine(e));
      rc = 2;
    }
    System.exit(rc);
  }

  static Configuration conf() {
    Configuration c = HBaseConfiguration.create();
    c.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.ZKConnectionRegistry");
    c.set("hbase.zookeeper.quorum", HOST);
    c.setInt("hbase.zookeeper.property.clientPort", ZK_PORT);
    // Short, bounded client timeouts: the checks poll themselves and want each attempt to fail fast.
    c.setInt("hbase.client.retries.number", 3);
    c.setInt("hbase.client.pause", 200);
    c.setInt("hbase.rpc.timeout", 5000);
    c.setInt("hbase.client.operation.timeout", 15000);
    c.setInt("hbase.client.meta.operation.timeout", 15000);
    c.setInt("zookeeper.recovery.retry", 1);
    c.setInt("zookeeper.session.timeout", 30000);
    return c;
  }

  static String oneLine(Throwable e) {
    if (e == null) return "none";
    String s = (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' ');
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }

  static double secs(long fromNanos) {
    return (System.nanoTime() - fromNanos) / 1e9;
  }

  static boolean alive(long pid) {
    return pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  // ---------------------------------------------------------------- ready / shutdown

  static int ready(int n, int timeoutSec) throws InterruptedException {
    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSec);
    List<Long> watch = new ArrayList<>();
    for (String p : System.getProperty("cluster.watch.pids", "").split(",")) {
      if (!p.isBlank()) watch.add(Long.parseLong(p.trim()));
    }
    Exception last = null;
    int attempt = 0;
    int lastLive = -1;
    while (System.nanoTime() < deadline) {
      for (long pid : watch) {
        if (!alive(pid)) {
          System.err.println("cluster-check: process " + pid + " exited during start-up");
          return 3;
        }
      }
      attempt++;
      try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin()) {
        while (System.nanoTime() < deadline) {
          int live = admin.getClusterMetrics().getLiveServerMetrics().size();
          if (live != lastLive) {
            System.err.printf("cluster-check: %.1f s: master sees %d of %d region servers%n", secs(t0), live, n);
            lastLive = live;
          }
          if (live >= n) break;
          for (long pid : watch) {
            if (!alive(pid)) throw new IOException("process " + pid + " exited");
          }
          Thread.sleep(500);
        }
        roundTrip(conn, admin);
        System.err.printf("cluster-check: ready after %.1f s (%d connection attempts)%n", secs(t0), attempt);
        return 0;
      } catch (Exception e) {
        last = e;
        if (attempt % 10 == 1) System.err.println("cluster-check: not ready yet: " + oneLine(e));
        Thread.sleep(1000);
      }
    }
    System.err.println("cluster-check: timed out after " + timeoutSec + " s; last error: " + oneLine(last));
    return 1;
  }

  static void roundTrip(Connection conn, Admin admin) throws IOException {
    long t0 = System.nanoTime();
    TableName tn = TableName.valueOf("hbclient_cluster_ready_" + System.currentTimeMillis());
    admin.createTable(TableDescriptorBuilder.newBuilder(tn)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
    try (Table t = conn.getTable(tn)) {
      byte[] row = Bytes.toBytes("row1");
      t.put(new Put(row).addColumn(FAMILY, QUALIFIER, Bytes.toBytes("v1")));
      Result r = t.get(new Get(row));
      if (!"v1".equals(Bytes.toString(r.getValue(FAMILY, QUALIFIER)))) {
        throw new IOException("read back mismatch: " + r);
      }
    } finally {
      admin.disableTable(tn);
      admin.deleteTable(tn);
    }
    ClusterMetrics m = admin.getClusterMetrics();
    List<String> names = new ArrayList<>();
    for (ServerName sn : m.getLiveServerMetrics().keySet()) names.add(slotName(sn) + "=" + sn);
    names.sort(null);
    System.err.printf("cluster-check: round trip ok in %.2f s: version=%s master=%s region_servers=%s%n",
        secs(t0), m.getHBaseVersion(), m.getMasterName(), names);
  }

  static int shutdown() throws IOException {
    try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin()) {
      Set<ServerName> rss = admin.getClusterMetrics().getLiveServerMetrics().keySet();
      admin.shutdown();
      // Admin.shutdown() only flags the cluster down; each region server notices on its next report. Telling them
      // directly makes them close their regions right away.
      for (ServerName sn : rss) {
        try {
          admin.stopRegionServer(sn.getAddress().toString());
        } catch (IOException e) {
          System.err.println("stopRegionServer " + sn + ": " + oneLine(e));
        }
      }
    }
    return 0;
  }

  // ---------------------------------------------------------------- WAL recovery / pause checks

  static ServerName liveServer(Admin admin, Slot s) throws IOException {
    for (ServerName sn : admin.getClusterMetrics().getLiveServerMetrics().keySet()) {
      if (sn.getPort() == s.port) return sn;
    }
    return null;
  }

  static ServerName metaServer(Connection conn) throws IOException {
    try (RegionLocator loc = conn.getRegionLocator(TableName.META_TABLE_NAME)) {
      return loc.getRegionLocation(HConstants.EMPTY_START_ROW, true).getServerName();
    }
  }

  static void signal(String sig, long pid) throws IOException, InterruptedException {
    int rc = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start().waitFor();
    if (rc != 0) throw new IOException("kill -" + sig + " " + pid + " failed (" + rc + ")");
  }

  static String rowKey(int i) {
    return String.format("row%07d", i);
  }

  static String value(int i, long nonce) {
    return "v" + i + "-" + nonce;
  }

  /** Puts rows [from, to) in batches of 50; every batch is acknowledged (SYNC_WAL) before the next is sent. */
  static void writeRows(Table t, int from, int to, long nonce) throws IOException {
    List<Put> batch = new ArrayList<>();
    for (int i = from; i < to; i++) {
      batch.add(new Put(Bytes.toBytes(rowKey(i))).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(value(i, nonce))));
      if (batch.size() == 50 || i == to - 1) {
        t.put(batch);
        batch.clear();
      }
    }
  }

  /** Scans the table and checks every row in [0, n) is there with its value; returns the number of bad rows. */
  static int checkRows(Table t, int n, long nonce) throws IOException {
    int seen = 0, bad = 0;
    try (ResultScanner rs = t.getScanner(new Scan().setCaching(500))) {
      for (Result r : rs) {
        String row = Bytes.toString(r.getRow());
        if (!row.startsWith("row")) continue;
        int i = Integer.parseInt(row.substring(3));
        String v = Bytes.toString(r.getValue(FAMILY, QUALIFIER));
        if (i >= n || !value(i, nonce).equals(v)) {
          if (bad < 5) System.out.println("  bad row " + row + " value=" + v);
          bad++;
        }
        seen++;
      }
    }
    if (seen != n) System.out.println("  scan returned " + seen + " rows, expected " + n);
    return bad + Math.abs(n - seen);
  }

  static RegionMetrics regionMetrics(Admin admin, ServerName sn, RegionInfo ri) throws IOException {
    for (RegionMetrics m : admin.getRegionMetrics(sn, ri.getTable())) {
      if (Bytes.equals(m.getRegionName(), ri.getRegionName())) return m;
    }
    return null;
  }

  /**
   * Shared body of verify-wal (SIGKILL) and verify-pause (SIGSTOP past the ZooKeeper session timeout, then SIGCONT).
   * Prints "victim=rsK" first so cluster.sh knows which region server to restart afterwards.
   */
  static int verify(boolean pause, String[] args) throws Exception {
    String target = null;
    int rows = 3000;
    for (String a : args) {
      if (a.matches("rs\\d+")) target = a;
      else rows = Integer.parseInt(a);
    }
    String what = pause ? "verify-pause" : "verify-wal";
    long nonce = System.nanoTime();
    TableName tn = TableName.valueOf("hbclient_" + what.replace('-', '_') + "_" + System.currentTimeMillis());
    Configuration conf = conf();
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      ServerName meta = metaServer(conn);
      // Victim: the named rsK, else the first live region server that does not carry hbase:meta (so the
      // measurement is the user region's recovery, not meta's first).
      Slot victim = null;
      ServerName victimSn = null;
      for (Slot s : SLOTS.values()) {
        if (target != null && !s.name.equals(target)) continue;
        ServerName sn = liveServer(admin, s);
        if (sn == null || !alive(s.pid)) continue;
        if (target == null && sn.equals(meta)) continue;
        victim = s;
        victimSn = sn;
        break;
      }
      if (victim == null) {
        System.out.println("result=FAIL no live region server to use" + (target != null ? " (" + target + ")" : ""));
        return 1;
      }
      System.out.println("victim=" + victim.name);
      System.out.println("victim_server=" + victimSn + " pid=" + victim.pid + " carries_meta=" + victimSn.equals(meta));
      admin.createTable(TableDescriptorBuilder.newBuilder(tn)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
      RegionInfo region = admin.getRegions(tn).get(0);
      admin.move(region.getEncodedNameAsBytes(), victimSn);
      try (RegionLocator loc = conn.getRegionLocator(tn); Table t = conn.getTable(tn)) {
        HRegionLocation l = loc.getRegionLocation(HConstants.EMPTY_START_ROW, true);
        if (!l.getServerName().equals(victimSn)) {
          System.out.println("result=FAIL region " + region.getEncodedName() + " is on " + l.getServerName()
              + " after the move, not on " + victimSn);
          return 1;
        }
        long tw = System.nanoTime();
        writeRows(t, 0, rows, nonce);
        System.out.printf("wrote=%d rows to region %s on %s in %.2f s (every batch acknowledged)%n", rows,
            region.getEncodedName(), victim.name, secs(tw));
        RegionMetrics before = regionMetrics(admin, victimSn, region);
        if (before != null) {
          // No store file yet: the rows exist only in the victim's memstore and its WAL.
          System.out.printf("before: store_files=%d memstore=%s (the rows are only in the memstore and the WAL)%n",
              before.getStoreFileCount(), before.getMemStoreSize());
        }

        // A second client whose cached location keeps pointing at the victim, with an RPC timeout longer than the
        // pause: the put it sends while the victim is stopped waits in the socket until SIGCONT (pause check only).
        Connection stale = null;
        Thread staleWriter = null;
        final String[] staleOutcome = { "not sent" };
        final double[] staleAckedAt = { -1 };
        if (pause) {
          Configuration sc = conf();
          sc.setInt("hbase.rpc.timeout", 300000);
          sc.setInt("hbase.client.operation.timeout", 300000);
          sc.setInt("hbase.client.retries.number", 0);
          stale = ConnectionFactory.createConnection(sc);
          stale.getTable(tn).get(new Get(Bytes.toBytes(rowKey(0))));
        }

        long t0 = System.nanoTime();
        if (pause) {
          signal("STOP", victim.pid);
          System.out.println("action=SIGSTOP " + victim.name + " pid=" + victim.pid);
          final Table st = stale.getTable(tn);
          staleWriter = new Thread(() -> {
            try {
              st.put(new Put(STALE_ROW).addColumn(FAMILY, QUALIFIER, Bytes.toBytes("stale-" + nonce)));
              staleAckedAt[0] = secs(t0);
              staleOutcome[0] = "acknowledged";
            } catch (IOException e) {
              staleOutcome[0] = "failed: " + oneLine(e);
            }
          });
          staleWriter.setDaemon(true);
          staleWriter.start();
        } else {
          signal("KILL", victim.pid);
          System.out.println("action=SIGKILL " + victim.name + " pid=" + victim.pid);
        }

        // 1. the master declares the server dead (its ZooKeeper session expired)
        double tDead = -1;
        while (secs(t0) < 180) {
          ClusterMetrics m = admin.getClusterMetrics();
          if (m.getDeadServerNames().contains(victimSn) || !m.getLiveServerMetrics().containsKey(victimSn)) {
            tDead = secs(t0);
            break;
          }
          Thread.sleep(200);
        }
        System.out.printf("declared_dead_after=%.1f s%n", tDead);
        if (tDead < 0) {
          if (pause) signal("CONT", victim.pid);
          System.out.println("result=FAIL the master did not declare " + victim.name + " dead within 180 s");
          return 1;
        }

        // 2. the region is open on another server and serves a read
        double tOpen = -1;
        ServerName newSn = null;
        Exception last = null;
        while (secs(t0) < 300) {
          try {
            HRegionLocation nl = loc.getRegionLocation(HConstants.EMPTY_START_ROW, true);
            if (nl != null && !nl.getServerName().equals(victimSn)) {
              Result r = t.get(new Get(Bytes.toBytes(rowKey(0))));
              if (!r.isEmpty()) {
                newSn = nl.getServerName();
                tOpen = secs(t0);
                break;
              }
            }
          } catch (IOException e) {
            last = e;
          }
          Thread.sleep(200);
        }
        if (tOpen < 0) {
          if (pause) signal("CONT", victim.pid);
          System.out.println("result=FAIL region not readable elsewhere within 300 s; last error: " + oneLine(last));
          return 1;
        }
        System.out.printf("reassigned_after=%.1f s to %s (%s)%n", tOpen, slotName(newSn), newSn);

        // 3. every acknowledged row is there
        int bad = checkRows(t, rows, nonce);
        RegionMetrics after = regionMetrics(admin, newSn, region);
        if (after != null) {
          System.out.printf("after: store_files=%d memstore=%s on %s%n", after.getStoreFileCount(),
              after.getMemStoreSize(), slotName(newSn));
        }
        System.out.println("read_back=" + (rows - bad) + "/" + rows + " rows");

        if (pause) {
          // 4. resume the paused JVM: it should find its ZooKeeper session expired (or be told it is dead by the
          // master) and abort, instead of serving the regions that moved away.
          long tc = System.nanoTime();
          signal("CONT", victim.pid);
          System.out.printf("action=SIGCONT %s after a %.1f s pause%n", victim.name, secs(t0));
          double tExit = -1;
          while (secs(tc) < 120) {
            if (!alive(victim.pid)) {
              tExit = secs(tc);
              break;
            }
            Thread.sleep(200);
          }
          System.out.printf("exited_after_resume=%.1f s%n", tExit);
          // Writes after the resume go to the new location and are readable too.
          writeRows(t, rows, rows + 200, nonce);
          int bad2 = checkRows(t, rows + 200, nonce);
          System.out.println("after_resume: wrote 200 more rows, read_back=" + (rows + 200 - bad2) + "/"
              + (rows + 200));
          bad += bad2;
          // The stale client's put: did the resumed zombie acknowledge it, and did it survive?
          staleWriter.join(60000);
          Result z = t.get(new Get(STALE_ROW));
          boolean readable = !z.isEmpty();
          String verdict = staleOutcome[0].equals("acknowledged") && !readable
              ? "LOST (acknowledged by the zombie after its WAL was split: WAL not fenced)"
              : staleOutcome[0].equals("acknowledged") ? "ok (acknowledged and readable)"
              : "ok (not acknowledged)";
          System.out.printf("stale_client_put: %s%s; readable_now=%s -> %s%n", staleOutcome[0],
              staleAckedAt[0] >= 0 ? String.format(" %.1f s after SIGSTOP", staleAckedAt[0]) : "", readable, verdict);
          stale.close();
          if (verdict.startsWith("LOST")) {
            System.out.println("warning=a put acknowledged by the resumed (already declared dead) server is gone;"
                + " nothing fenced the zombie's WAL (on HDFS the WAL split recovers the file lease and the zombie's"
                + " next sync fails; cluster.sh's FencedLocalFileSystem does the same unless HBASE_CLUSTER_WAL_FENCE=0)");
          }
          if (tExit < 0) {
            System.out.println("result=FAIL " + victim.name + " still runs 120 s after SIGCONT");
            return 1;
          }
        }
        System.out.println("result=" + (bad == 0 ? "OK" : "FAIL " + bad + " rows lost or wrong"));
        return bad == 0 ? 0 : 1;
      } finally {
        try {
          admin.disableTable(tn);
          admin.deleteTable(tn);
        } catch (IOException e) {
          System.err.println("cluster-check: could not drop " + tn + ": " + oneLine(e));
        }
      }
    }
  }

  // ---------------------------------------------------------------- admin operations for chaos tests

  static RegionInfo findRegion(Admin admin, String encoded) throws IOException {
    for (TableName tn : admin.listTableNames()) {
      for (RegionInfo ri : admin.getRegions(tn)) {
        if (ri.getEncodedName().equals(encoded)) return ri;
      }
    }
    for (TableName tn : new TableName[] { TableName.META_TABLE_NAME, TableName.valueOf("hbase:namespace") }) {
      try {
        for (RegionInfo ri : admin.getRegions(tn)) {
          if (ri.getEncodedName().equals(encoded)) return ri;
        }
      } catch (IOException e) {
        // hbase:namespace may not exist
      }
    }
    throw new IllegalArgumentException("no region with encoded name " + encoded);
  }

  static int regions(String table) throws IOException {
    try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin()) {
      List<TableName> tables = new ArrayList<>();
      if (table != null) {
        tables.add(TableName.valueOf(table));
      } else {
        tables.add(TableName.META_TABLE_NAME);
        tables.addAll(Arrays.asList(admin.listTableNames()));
      }
      for (TableName tn : tables) {
        try (RegionLocator loc = conn.getRegionLocator(tn)) {
          for (HRegionLocation l : loc.getAllRegionLocations()) {
            RegionInfo ri = l.getRegion();
            ServerName sn = l.getServerName();
            System.out.printf("%s %s start=%s end=%s server=%s %s%n", tn.getNameAsString(), ri.getEncodedName(),
                Bytes.toStringBinary(ri.getStartKey()), Bytes.toStringBinary(ri.getEndKey()), sn,
                sn == null ? "-" : slotName(sn));
          }
        }
      }
    }
    return 0;
  }

  static int move(String[] a) throws IOException {
    try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin()) {
      RegionInfo ri = findRegion(admin, a[0]);
      long t0 = System.nanoTime();
      if (a.length > 1) {
        ServerName sn = liveServer(admin, slot(a[1]));
        if (sn == null) throw new IllegalArgumentException(a[1] + " is not a live region server");
        admin.move(ri.getEncodedNameAsBytes(), sn);
      } else {
        admin.move(ri.getEncodedNameAsBytes());
      }
      try (RegionLocator loc = conn.getRegionLocator(ri.getTable())) {
        ServerName now = loc.getRegionLocation(ri.getStartKey(), true).getServerName();
        System.out.printf("moved %s to %s (%s) in %.2f s%n", ri.getEncodedName(), slotName(now), now, secs(t0));
      }
    }
    return 0;
  }

  static int split(String[] a) throws Exception {
    try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin()) {
      long t0 = System.nanoTime();
      byte[] at = a.length > 1 ? Bytes.toBytesBinary(a[1]) : null;
      TableName tn = TableName.valueOf(a[0]);
      int before;
      if (admin.tableExists(tn)) {
        before = admin.getRegions(tn).size();
        if (at != null) admin.split(tn, at);
        else admin.split(tn);
      } else {
        RegionInfo ri = findRegion(admin, a[0]);
        tn = ri.getTable();
        before = admin.getRegions(tn).size();
        admin.splitRegionAsync(ri.getRegionName(), at).get(120, TimeUnit.SECONDS);
      }
      // Admin.split(table) returns before the split happens; wait until the region count grows.
      int after = before;
      while (secs(t0) < 120 && (after = admin.getRegions(tn).size()) <= before) Thread.sleep(200);
      System.out.printf("split %s: %d -> %d regions in %.2f s%n", tn, before, after, secs(t0));
      return after > before ? 0 : 1;
    }
  }

  static int merge(String[] a) throws Exception {
    try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin()) {
      long t0 = System.nanoTime();
      RegionInfo r1 = findRegion(admin, a[0]);
      RegionInfo r2 = findRegion(admin, a[1]);
      int before = admin.getRegions(r1.getTable()).size();
      admin.mergeRegionsAsync(new byte[][] { r1.getEncodedNameAsBytes(), r2.getEncodedNameAsBytes() }, false)
          .get(120, TimeUnit.SECONDS);
      System.out.printf("merged %s + %s: %d -> %d regions in %.2f s%n", r1.getEncodedName(), r2.getEncodedName(),
          before, admin.getRegions(r1.getTable()).size(), secs(t0));
    }
    return 0;
  }

  static int balance() throws IOException {
    try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin()) {
      long t0 = System.nanoTime();
      boolean wasOn = admin.balancerSwitch(true, true);
      boolean ran = admin.balance();
      if (!wasOn) admin.balancerSwitch(false, true);
      System.out.printf("balancer ran=%s (balancer was %s) in %.2f s%n", ran, wasOn ? "on" : "off", secs(t0));
    }
    return 0;
  }

  static int create(String[] a) throws IOException {
    try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin()) {
      TableName tn = TableName.valueOf(a[0]);
      byte[][] splits = new byte[a.length - 1][];
      for (int i = 1; i < a.length; i++) splits[i - 1] = Bytes.toBytesBinary(a[i]);
      TableDescriptorBuilder td = TableDescriptorBuilder.newBuilder(tn)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY));
      if (splits.length > 0) admin.createTable(td.build(), splits);
      else admin.createTable(td.build());
      System.out.println("created " + tn + " with " + admin.getRegions(tn).size() + " regions");
    }
    return 0;
  }

  static int drop(String[] a) throws IOException {
    try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin()) {
      TableName tn = TableName.valueOf(a[0]);
      if (admin.isTableEnabled(tn)) admin.disableTable(tn);
      admin.deleteTable(tn);
      System.out.println("dropped " + tn);
    }
    return 0;
  }
}
