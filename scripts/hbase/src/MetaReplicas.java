// hbase:meta replicas on the pseudo-distributed cluster (hbase.sh start --region-servers N --meta-replicas R).
// Compiled by hbase.sh fetch with the probe tools; run by `hbase.sh meta-replicas wait|report`.
//
//   MetaReplicas wait R TIMEOUT_SEC   wait until ZooKeeper holds R meta replica locations on R different servers and
//                                     every replica region answers a TIMELINE scan on its server (used by start)
//   MetaReplicas report               what the server does, printed as key=value lines (META-REPLICAS-FACTS.md):
//                                     znodes, ClientMetaService.GetMetaRegionLocations on every server, raw scans of
//                                     the replica regions (stale flag, STRONG vs TIMELINE, wrong server), how long a
//                                     new table's meta row and a region move take to show on each replica, and what
//                                     the Java client's LoadBalance locator answers right after a create
//
// Raw scans go through the Java client's internal ClientService stub (ClusterConnection.getClient), so the
// ScanResponse protobuf (stale, cells_per_result, partial_flag_per_result) is seen as it came off the wire.
// System properties: meta.zk.port (2381), meta.ports = "16200,16220,16230,16240" (master first, then the RS ports).
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellScanner;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.ClusterConnection;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Consistency;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.RegionReplicaUtil;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.ipc.HBaseRpcController;
import org.apache.hadoop.hbase.ipc.RpcClient;
import org.apache.hadoop.hbase.ipc.RpcClientFactory;
import org.apache.hadoop.hbase.ipc.RpcControllerFactory;
import org.apache.hadoop.hbase.master.RegionState;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.zookeeper.ZKMetadata;
import org.apache.zookeeper.ZooKeeper;

import org.apache.hbase.thirdparty.com.google.protobuf.TextFormat;

import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.RequestConverter;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ClientService;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ScanRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.ScanResponse;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RegistryProtos;

public class MetaReplicas {
  static final String HOST = "127.0.0.1";
  static final int ZK_PORT = Integer.getInteger("meta.zk.port", 2381);
  static final byte[] INFO = HConstants.CATALOG_FAMILY;

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "";
    int rc;
    switch (mode) {
      case "wait": rc = waitReplicas(Integer.parseInt(args[1]), Integer.parseInt(args[2])); break;
      case "report": rc = report(); break;
      default:
        System.err.println("usage: MetaReplicas wait R TIMEOUT_SEC | report");
        rc = 2;
    }
    System.exit(rc);
  }

  static Configuration conf() {
    Configuration c = HBaseConfiguration.create();
    c.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.ZKConnectionRegistry");
    c.set("hbase.zookeeper.quorum", HOST);
    c.setInt("hbase.zookeeper.property.clientPort", ZK_PORT);
    c.setInt("hbase.client.retries.number", 3);
    c.setInt("hbase.client.pause", 100);
    c.setInt("hbase.rpc.timeout", 5000);
    c.setInt("hbase.client.operation.timeout", 30000);
    return c;
  }

  static String oneLine(Throwable e) {
    if (e == null) return "none";
    String m = String.valueOf(e.getMessage()).replace('\n', ' ');
    if (m.length() > 240) m = m.substring(0, 240) + "...";
    return e.getClass().getName() + ": " + m;
  }

  static byte[] replicaRegionName(int replicaId) {
    return RegionReplicaUtil.getRegionInfoForReplica(RegionInfoBuilder.FIRST_META_REGIONINFO, replicaId)
        .getRegionName();
  }

  // ---------------------------------------------------------------- ZooKeeper

  /** replica id -> RegionState, from every /hbase/meta-region-server[-N] znode. */
  static Map<Integer, RegionState> zkMetaStates(boolean print) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(HOST + ":" + ZK_PORT, 10000, e -> {
      if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) connected.countDown();
    });
    try {
      if (!connected.await(10, TimeUnit.SECONDS)) throw new IOException("ZooKeeper did not connect");
      Map<Integer, RegionState> out = new TreeMap<>();
      List<String> children = new ArrayList<>(zk.getChildren("/hbase", false));
      Collections.sort(children);
      for (String c : children) {
        if (!c.startsWith("meta-region-server")) continue;
        int replicaId = c.equals("meta-region-server") ? 0 : Integer.parseInt(c.substring(c.lastIndexOf('-') + 1));
        byte[] data = zk.getData("/hbase/" + c, false, null);
        // 0xff + int32 id length + id (the writer's ZKMetadata), then "PBUF" + MetaRegionServer
        RegionState st = ProtobufUtil.parseMetaRegionStateFrom(ZKMetadata.removeMetaData(data), replicaId);
        out.put(replicaId, st);
        if (print) {
          System.out.printf("znode=/hbase/%s bytes=%d replica_id=%d server=%s state=%s region=%s encoded=%s%n", c,
              data.length, replicaId, st.getServerName(), st.getState(),
              st.getRegion().getRegionNameAsString(), st.getRegion().getEncodedName());
        }
      }
      return out;
    } finally {
      zk.close();
    }
  }

  // ---------------------------------------------------------------- raw scans

  static final class Raw {
    ScanResponse resp;
    List<Cell> cells = new ArrayList<>();
    Throwable error;
  }

  /** One open+close scan RPC of up to `rows` rows on `regionName` at `sn`, with the given consistency. */
  static Raw rawScan(ClusterConnection conn, RpcControllerFactory rcf, ServerName sn, byte[] regionName,
      byte[] startRow, Consistency consistency, int rows) {
    Raw r = new Raw();
    try {
      Scan scan = new Scan().withStartRow(startRow).setConsistency(consistency).setCaching(rows);
      ScanRequest req = RequestConverter.buildScanRequest(regionName, scan, rows, true);
      HBaseRpcController c = rcf.newController();
      ClientService.BlockingInterface stub = conn.getClient(sn);
      r.resp = stub.scan(c, req);
      CellScanner cs = c.cellScanner();
      if (cs != null) {
        while (cs.advance()) r.cells.add(cs.current());
      }
    } catch (Throwable e) {
      Throwable t = e;
      if (t instanceof org.apache.hbase.thirdparty.com.google.protobuf.ServiceException && t.getCause() != null) {
        t = t.getCause();
      }
      if (t instanceof org.apache.hadoop.ipc.RemoteException) {
        t = ((org.apache.hadoop.ipc.RemoteException) t).unwrapRemoteException();
      }
      r.error = t;
    }
    return r;
  }

  /** Summary of the meta row(s) of `table` in a raw scan: "absent" or "server=... state=... sn=...". */
  static String rowState(Raw r, String table) {
    if (r.error != null) return "error " + oneLine(r.error);
    String prefix = table + ",";
    Map<String, String> cols = new TreeMap<>();
    String row = null;
    for (Cell cell : r.cells) {
      String rk = Bytes.toStringBinary(CellUtil.cloneRow(cell));
      if (!rk.startsWith(prefix)) continue;
      row = rk;
      String q = Bytes.toString(CellUtil.cloneQualifier(cell));
      if (q.equals("server") || q.equals("state") || q.equals("sn")) {
        cols.put(q, Bytes.toString(CellUtil.cloneValue(cell)));
      } else {
        cols.putIfAbsent(q, "");
      }
    }
    if (row == null) return "absent";
    StringBuilder sb = new StringBuilder("present");
    for (Map.Entry<String, String> e : cols.entrySet()) {
      sb.append(' ').append(e.getKey());
      if (!e.getValue().isEmpty()) sb.append('=').append(e.getValue());
    }
    return sb.toString();
  }

  static String respSummary(Raw r) {
    if (r.error != null) return "error=" + oneLine(r.error);
    ScanResponse p = r.resp;
    return String.format("ok stale=%s(has=%s) results_in_cellblock=%d cells_per_result=%s partial_flag_per_result=%s"
        + " pb_results=%d more_results=%s more_results_in_region=%s first_row=%s", p.getStale(), p.hasStale(),
        p.getCellsPerResultCount(), p.getCellsPerResultList().size() > 5
            ? p.getCellsPerResultList().subList(0, 5) + "..." : p.getCellsPerResultList(),
        p.getPartialFlagPerResultList().size() > 5
            ? p.getPartialFlagPerResultList().subList(0, 5) + "..." : p.getPartialFlagPerResultList(),
        p.getResultsCount(), p.getMoreResults(), p.getMoreResultsInRegion(),
        r.cells.isEmpty() ? "-" : Bytes.toStringBinary(CellUtil.cloneRow(r.cells.get(0))));
  }

  // ---------------------------------------------------------------- wait

  static int waitReplicas(int want, int timeoutSec) throws Exception {
    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSec);
    String last = "";
    RpcControllerFactory rcf = RpcControllerFactory.instantiate(conf());
    try (Connection conn = ConnectionFactory.createConnection(conf())) {
      while (System.nanoTime() < deadline) {
        String why;
        try {
          Map<Integer, RegionState> st = zkMetaStates(false);
          List<ServerName> servers = new ArrayList<>();
          why = null;
          for (int id = 0; id < want && why == null; id++) {
            RegionState s = st.get(id);
            if (s == null) why = "no znode for replica " + id;
            else if (s.getState() != RegionState.State.OPEN) why = "replica " + id + " is " + s.getState();
            else if (servers.contains(s.getServerName())) why = "replica " + id + " shares " + s.getServerName();
            else servers.add(s.getServerName());
          }
          for (int id = 1; id < want && why == null; id++) {
            Raw r = rawScan((ClusterConnection) conn, rcf, servers.get(id), replicaRegionName(id),
                HConstants.EMPTY_START_ROW, Consistency.TIMELINE, 1);
            if (r.error != null) why = "replica " + id + " scan: " + oneLine(r.error);
          }
          if (why == null) {
            List<String> out = new ArrayList<>();
            for (int id = 0; id < want; id++) out.add(id + "=" + servers.get(id).getAddress());
            System.err.printf("meta-replicas: %d replicas open on distinct servers after %.1f s: %s%n", want,
                (System.nanoTime() - t0) / 1e9, String.join(" ", out));
            return 0;
          }
        } catch (Exception e) {
          why = oneLine(e);
        }
        if (!why.equals(last)) {
          System.err.printf("meta-replicas: %.1f s: waiting: %s%n", (System.nanoTime() - t0) / 1e9, why);
          last = why;
        }
        Thread.sleep(500);
      }
    }
    System.err.println("meta-replicas: gave up after " + timeoutSec + " s: " + last);
    return 1;
  }

  // ---------------------------------------------------------------- report

  static int report() throws Exception {
    Configuration conf = conf();
    RpcControllerFactory rcf = RpcControllerFactory.instantiate(conf);
    List<Integer> ports = new ArrayList<>();
    for (String p : System.getProperty("meta.ports", "16200,16220,16230,16240").split(",")) {
      if (!p.isBlank()) ports.add(Integer.parseInt(p.trim()));
    }
    System.out.println("# znodes (ZooKeeper 127.0.0.1:" + ZK_PORT + ")");
    Map<Integer, RegionState> zk = zkMetaStates(true);
    for (int id = 0; id < 3; id++) {
      System.out.printf("replica_region_name[%d]=%s encoded=%s%n", id, Bytes.toStringBinary(replicaRegionName(id)),
          RegionInfo.encodeRegionName(replicaRegionName(id)));
    }

    System.out.println("# ClientMetaService.GetMetaRegionLocations on every server (raw protobuf)");
    try (RpcClient rpc = RpcClientFactory.createClient(conf, HConstants.CLUSTER_ID_DEFAULT)) {
      for (int port : ports) {
        try {
          RegistryProtos.ClientMetaService.BlockingInterface stub = RegistryProtos.ClientMetaService
              .newBlockingStub(rpc.createBlockingRpcChannel(ServerName.valueOf(HOST, port, 0L), User.getCurrent(),
                  5000));
          RegistryProtos.GetMetaRegionLocationsResponse resp =
              stub.getMetaRegionLocations(null, RegistryProtos.GetMetaRegionLocationsRequest.getDefaultInstance());
          System.out.printf("get_meta_region_locations port=%d count=%d%n", port, resp.getMetaLocationsCount());
          for (var loc : resp.getMetaLocationsList()) {
            System.out.printf("  port=%d %s%n", port, TextFormat.shortDebugString(loc));
          }
        } catch (Exception e) {
          System.out.printf("get_meta_region_locations port=%d error=%s%n", port, oneLine(e));
        }
      }
    }

    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      ClusterConnection cc = (ClusterConnection) conn;
      List<ServerName> live = new ArrayList<>(admin.getClusterMetrics().getLiveServerMetrics().keySet());
      Collections.sort(live);
      System.out.println("# raw scans of the meta replica regions (first 3 rows)");
      for (int id = 0; id < 3 && zk.containsKey(id); id++) {
        ServerName host = zk.get(id).getServerName();
        byte[] rn = replicaRegionName(id);
        for (Consistency cons : new Consistency[] { Consistency.TIMELINE, Consistency.STRONG }) {
          Raw r = rawScan(cc, rcf, host, rn, HConstants.EMPTY_START_ROW, cons, 3);
          System.out.printf("scan replica=%d region=%s at=%s (hosts it) consistency=%s -> %s%n", id,
              Bytes.toStringBinary(rn), host.getAddress(), cons, respSummary(r));
        }
        for (ServerName other : live) {
          if (other.equals(host)) continue;
          Raw r = rawScan(cc, rcf, other, rn, HConstants.EMPTY_START_ROW, Consistency.TIMELINE, 3);
          System.out.printf("scan replica=%d region=%s at=%s (does not host it) -> %s%n", id,
              Bytes.toStringBinary(rn), other.getAddress(), respSummary(r));
        }
      }
      // Replica 1 region name with an encoded-name specifier (the other RegionSpecifier form).
      if (zk.containsKey(1)) {
        ServerName host = zk.get(1).getServerName();
        String enc = RegionInfo.encodeRegionName(replicaRegionName(1));
        try {
          Scan scan = new Scan().setConsistency(Consistency.TIMELINE).setCaching(1);
          ScanRequest req = RequestConverter.buildScanRequest(replicaRegionName(1), scan, 1, true).toBuilder()
              .setRegion(RequestConverter.buildRegionSpecifier(
                  org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos.RegionSpecifier.RegionSpecifierType
                      .ENCODED_REGION_NAME, Bytes.toBytes(enc)))
              .build();
          ScanResponse resp = cc.getClient(host).scan(rcf.newController(), req);
          System.out.printf("scan replica=1 by ENCODED_REGION_NAME=%s at=%s -> ok stale=%s cells_per_result=%s%n", enc,
              host.getAddress(), resp.getStale(), resp.getCellsPerResultList());
        } catch (Exception e) {
          System.out.printf("scan replica=1 by ENCODED_REGION_NAME=%s -> error=%s%n", enc, oneLine(e));
        }
      }

      lagAndMove(conf, cc, rcf, admin, zk, live);
    }
    return 0;
  }

  /** Polls every replica's meta row for a new table from before createTable until it shows an OPEN location on all
   *  replicas; then moves the region and watches info:server change on each replica. */
  static void lagAndMove(Configuration conf, ClusterConnection cc, RpcControllerFactory rcf, Admin admin,
      Map<Integer, RegionState> zk, List<ServerName> live) throws Exception {
    String table = "hbclient_meta_replicas_" + System.currentTimeMillis();
    TableName tn = TableName.valueOf(table);
    // "table,," (as ClientMetaTableAccessor.getTableStartRowForMeta): under hbase:meta's row comparator a bare
    // "table," sorts after the table's region rows, and a scan from it finds none.
    byte[] start = Bytes.toBytes(table + ",,");
    System.out.println("# lag: table " + table + " (times in ms from the createTable call)");
    Map<Integer, List<String>> seen = new ConcurrentHashMap<>();
    Map<Integer, String> latest = new ConcurrentHashMap<>();
    AtomicBoolean stop = new AtomicBoolean();
    long[] t0 = { System.nanoTime() };
    List<Thread> pollers = new ArrayList<>();
    for (int id : zk.keySet()) {
      ServerName host = zk.get(id).getServerName();
      byte[] rn = replicaRegionName(id);
      List<String> log = Collections.synchronizedList(new ArrayList<>());
      seen.put(id, log);
      Thread th = new Thread(() -> {
        String prev = null;
        int polls = 0;
        while (!stop.get()) {
          Raw r = rawScan(cc, rcf, host, rn, start, Consistency.TIMELINE, 2);
          polls++;
          String s = rowState(r, table) + (r.resp != null ? " stale=" + r.resp.getStale() : "");
          latest.put(id, s);
          if (!s.equals(prev)) {
            log.add(String.format("+%d ms: %s", (System.nanoTime() - t0[0]) / 1_000_000, s));
            prev = s;
          }
          try { Thread.sleep(10); } catch (InterruptedException e) { return; }
        }
        log.add("polls=" + polls);
      });
      th.setDaemon(true);
      pollers.add(th);
    }
    t0[0] = System.nanoTime();
    for (Thread th : pollers) th.start();
    admin.createTable(TableDescriptorBuilder.newBuilder(tn)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build());
    long created = (System.nanoTime() - t0[0]) / 1_000_000;
    // Right after the create: the Java client's locators in each meta replica mode, one locate each.
    for (String mode : new String[] { "LoadBalance", "HedgedRead" }) {
      Configuration c = new Configuration(conf);
      c.set("hbase.locator.meta.replicas.mode", mode);
      long t1 = System.nanoTime();
      try (AsyncConnection ac = ConnectionFactory.createAsyncConnection(c).get()) {
        HRegionLocation loc = ac.getRegionLocator(tn).getRegionLocation(Bytes.toBytes("r"), true).get();
        System.out.printf("java_locator mode=%s at +%d ms -> %s in %d ms%n", mode,
            (t1 - t0[0]) / 1_000_000, loc, (System.nanoTime() - t1) / 1_000_000);
      } catch (Exception e) {
        System.out.printf("java_locator mode=%s at +%d ms -> error %s%n", mode, (t1 - t0[0]) / 1_000_000,
            oneLine(e.getCause() != null ? e.getCause() : e));
      }
    }
    long createSeen = awaitAll(latest, zk.size(), "state=OPEN ", 30);
    System.out.println("create_table_returned=+" + created + " ms; every replica shows it OPEN at +"
        + (createSeen < 0 ? "never (30 s)" : (createSeen - t0[0]) / 1_000_000 + " ms"));
    List<HRegionLocation> locs = cc.getRegionLocator(tn).getAllRegionLocations();
    ServerName from = locs.get(0).getServerName();
    ServerName to = null;
    for (ServerName sn : live) if (!sn.equals(from)) { to = sn; break; }
    String enc = locs.get(0).getRegion().getEncodedName();
    long moveAt = (System.nanoTime() - t0[0]) / 1_000_000;
    admin.move(Bytes.toBytes(enc), to);
    long moved = (System.nanoTime() - t0[0]) / 1_000_000;
    long moveSeen = awaitAll(latest, zk.size(), "server=" + to.getAddress() + " ", 30);
    System.out.println("every replica shows the new server at +"
        + (moveSeen < 0 ? "never (30 s)" : (moveSeen - t0[0]) / 1_000_000 + " ms"));
    stop.set(true);
    for (Thread th : pollers) th.join(5000);
    System.out.printf("move region=%s from=%s to=%s called=+%d ms returned=+%d ms%n", enc, from.getAddress(),
        to.getAddress(), moveAt, moved);
    for (Map.Entry<Integer, List<String>> e : new TreeMap<>(seen).entrySet()) {
      for (String line : e.getValue()) System.out.printf("replica=%d %s%n", e.getKey(), line);
    }
    admin.disableTable(tn);
    admin.deleteTable(tn);
  }

  /** Waits until the latest poll of each of `n` replicas contains `needle`; returns System.nanoTime() or -1. */
  static long awaitAll(Map<Integer, String> latest, int n, String needle, int timeoutSec)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSec);
    while (System.nanoTime() < deadline) {
      int ok = 0;
      for (int id = 0; id < n; id++) {
        String s = latest.get(id);
        if (s != null && (s + " ").contains(needle)) ok++;
      }
      if (ok == n) return System.nanoTime();
      Thread.sleep(5);
    }
    return -1;
  }
}
