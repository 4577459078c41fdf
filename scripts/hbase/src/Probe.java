// Readiness / discovery / wire-fact probe for the standalone HBase started by hbase.sh.
// Compiled by hbase.sh with javac against the same classpath as the server (HBase 2.6 and 3.0 APIs).
//
//   Probe ready <timeoutSec> [serverPid]  wait until a table can be created via ZK discovery, then check RPC discovery
//   Probe zk                              DDL + put/get round trip, ZooKeeper registry
//   Probe rpc [host:port]                 same via RpcConnectionRegistry (default bootstrap = region server)
//   Probe znodes                          hex dump + decode of /hbase/meta-region-server, /hbase/master, /hbase/hbaseid
//   Probe meta                            create a table, print its hbase:meta rows (qualifiers + value hex), drop it
//   Probe preamble                        raw socket: 6-byte preamble + ConnectionHeader + ClientMetaService calls
//   Probe sasl HOST PORT [QOP] [flags]    raw Kerberos SASL exchange, byte by byte (src/SaslWire.java)
//   Probe shutdown                        Admin.shutdown() (what hbase.sh stop uses)
//
// Ports come from system properties probe.zk.port / probe.master.port / probe.rs.port (defaults 2181/16000/16020).
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClusterIdProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ZooKeeperProtos;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hbase.thirdparty.com.google.protobuf.UnknownFieldSet;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

public class Probe {
  static final String HOST = "127.0.0.1";
  static final int ZK_PORT = Integer.getInteger("probe.zk.port", 2181);
  static final int MASTER_PORT = Integer.getInteger("probe.master.port", 16000);
  static final int RS_PORT = Integer.getInteger("probe.rs.port", 16020);
  static final byte[] FAMILY = Bytes.toBytes("f");

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "zk";
    switch (mode) {
      case "ready":
        System.exit(ready(args.length > 1 ? Integer.parseInt(args[1]) : 180,
            args.length > 2 ? Long.parseLong(args[2]) : -1));
        break;
      case "zk":
        roundTrip(zkConf(), "zk");
        break;
      case "rpc":
        roundTrip(rpcConf(args.length > 1 ? args[1] : HOST + ":" + RS_PORT), "rpc");
        break;
      case "znodes":
        znodes();
        break;
      case "meta":
        meta();
        break;
      case "preamble":
        preamble();
        break;
      case "get":
        // `get TABLE ROW`: one Get through ZooKeeper, cells printed as the HBase shell prints
        // them; README's start-up comparison times this JVM against the hbclient binary.
        getOnce(args[1], args[2]);
        break;
      case "sasl":
        SaslWire.run(args); // hand-made GSSAPI SASL exchange (src/SaslWire.java)
        break;
      case "shutdown":
        // Orderly cluster shutdown through the master (region servers first, then master, then the in-process ZK).
        // Admin.shutdown() alone waits for the region server to notice (~7 s); stopping it directly is immediate.
        try (Connection conn = ConnectionFactory.createConnection(zkConf()); Admin admin = conn.getAdmin()) {
          java.util.Set<org.apache.hadoop.hbase.ServerName> rss =
              admin.getClusterMetrics().getLiveServerMetrics().keySet();
          admin.shutdown();
          for (org.apache.hadoop.hbase.ServerName sn : rss) {
            try {
              admin.stopRegionServer(sn.getAddress().toString());
            } catch (IOException e) {
              System.err.println("stopRegionServer " + sn + ": " + oneLine(e));
            }
          }
        }
        break;
      default:
        System.err.println("unknown mode " + mode);
        System.exit(2);
    }
    System.exit(0);
  }

  static void getOnce(String table, String row) throws IOException {
    try (Connection conn = ConnectionFactory.createConnection(zkConf());
        Table t = conn.getTable(TableName.valueOf(table))) {
      Result r = t.get(new Get(Bytes.toBytesBinary(row)));
      for (Cell c : r.rawCells()) {
        System.out.println(Bytes.toStringBinary(CellUtil.cloneRow(c)) + " "
            + Bytes.toStringBinary(CellUtil.cloneFamily(c)) + ":"
            + Bytes.toStringBinary(CellUtil.cloneQualifier(c)) + " timestamp=" + c.getTimestamp()
            + ", value=" + Bytes.toStringBinary(CellUtil.cloneValue(c)));
      }
      System.out.println(r.isEmpty() ? "0 row(s)" : "1 row(s)");
    }
  }

  // ---------------------------------------------------------------- client configs

  static Configuration baseConf() {
    Configuration c = HBaseConfiguration.create();
    c.setInt("hbase.client.retries.number", 3);
    c.setInt("hbase.client.pause", 200);
    c.setInt("hbase.rpc.timeout", 10000);
    c.setInt("hbase.client.operation.timeout", 30000);
    c.setInt("hbase.client.meta.operation.timeout", 30000);
    c.setInt("zookeeper.recovery.retry", 1);
    c.setInt("zookeeper.session.timeout", 30000);
    ProbeSecurity.apply(c); // secured runs: the client-conf directory hbase.sh wrote (no-op otherwise)
    return c;
  }

  static Configuration zkConf() {
    Configuration c = baseConf();
    c.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.ZKConnectionRegistry");
    c.set("hbase.zookeeper.quorum", HOST);
    c.setInt("hbase.zookeeper.property.clientPort", ZK_PORT);
    return c;
  }

  /** The default instance of RegistryProtos.NAME (HBase 2.5+). */
  static Message registryMessage(String name) throws Exception {
    return (Message) Class.forName("org.apache.hadoop.hbase.shaded.protobuf.generated.RegistryProtos$" + name)
        .getMethod("getDefaultInstance").invoke(null);
  }

  /** Whether this HBase has the ZooKeeper-free RPC registry (2.5+). */
  static boolean hasRpcRegistry() {
    try {
      Class.forName("org.apache.hadoop.hbase.client.RpcConnectionRegistry");
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  static Configuration rpcConf(String bootstrap) {
    Configuration c = baseConf();
    c.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    c.set("hbase.client.bootstrap.servers", bootstrap);
    // Point ZK at a dead port: if anything in this path touched ZooKeeper it would fail.
    c.set("hbase.zookeeper.quorum", HOST);
    c.setInt("hbase.zookeeper.property.clientPort", 1);
    return c;
  }

  // ---------------------------------------------------------------- readiness

  static int ready(int timeoutSec, long pid) throws InterruptedException {
    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSec);
    Exception last = null;
    int attempt = 0;
    while (System.nanoTime() < deadline) {
      if (pid > 0 && !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        System.err.println("probe: server process " + pid + " is gone");
        return 3;
      }
      attempt++;
      try {
        roundTrip(zkConf(), "zk");
        System.err.printf("probe: ready after %.1f s (%d attempts)%n", (System.nanoTime() - t0) / 1e9, attempt);
        if (hasRpcRegistry()) {
          roundTrip(rpcConf(HOST + ":" + RS_PORT), "rpc");
        } else {
          System.err.println("probe: no RpcConnectionRegistry in this HBase (before 2.5): rpc round trip skipped");
        }
        return 0;
      } catch (Exception e) {
        last = e;
        if (attempt % 10 == 1) {
          System.err.println("probe: not ready yet: " + oneLine(e));
        }
        Thread.sleep(1000);
      }
    }
    System.err.println("probe: timed out after " + timeoutSec + " s; last error: " + oneLine(last));
    return 1;
  }

  static String oneLine(Throwable e) {
    if (e == null) return "none";
    String s = e.getClass().getSimpleName() + ": " + e.getMessage();
    s = s.replace('\n', ' ');
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }

  /** list tables, create a table, put, get, disable, delete; prints one summary line. */
  static void roundTrip(Configuration conf, String label) throws IOException {
    long t0 = System.nanoTime();
    TableName tn = TableName.valueOf("hbclient_probe_" + label + "_" + System.currentTimeMillis());
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      admin.listTableNames();
      admin.createTable(TableDescriptorBuilder.newBuilder(tn)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
      try (Table t = conn.getTable(tn)) {
        byte[] row = Bytes.toBytes("row1");
        t.put(new Put(row).addColumn(FAMILY, Bytes.toBytes("q"), Bytes.toBytes("v1")));
        Result r = t.get(new Get(row));
        if (!"v1".equals(Bytes.toString(r.getValue(FAMILY, Bytes.toBytes("q"))))) {
          throw new IOException("read back mismatch: " + r);
        }
      } finally {
        admin.disableTable(tn);
        admin.deleteTable(tn);
      }
      ClusterMetrics m = admin.getClusterMetrics();
      System.out.printf("%s: ok in %.2f s: server_version=%s client_version=%s cluster_id=%s master=%s "
          + "regionservers=%s registry=%s%s%n",
          label, (System.nanoTime() - t0) / 1e9, m.getHBaseVersion(), VersionInfo.getVersion(),
          m.getClusterId(), m.getMasterName(), m.getLiveServerMetrics().keySet(),
          conf.get("hbase.client.registry.impl")
              + (label.equals("rpc") ? " bootstrap=" + conf.get("hbase.client.bootstrap.servers") : ""),
          ProbeSecurity.enabled() ? " " + ProbeSecurity.describe(conf) : "");
    }
  }

  // ---------------------------------------------------------------- znodes

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder(b.length * 2);
    for (byte x : b) sb.append(String.format("%02x", x & 0xff));
    return sb.toString();
  }

  static String printable(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) sb.append(x >= 0x20 && x < 0x7f ? (char) x : '.');
    return sb.toString();
  }

  /** Splits 0xFF + int32 id_len + id + "PBUF" + protobuf; returns the protobuf bytes or null. */
  static byte[] pbufPayload(byte[] data, StringBuilder notes) {
    int off = 0;
    if (data.length > 5 && (data[0] & 0xff) == 0xff) {
      int idLen = Bytes.toInt(data, 1);
      notes.append("magic=0xff id_len=").append(idLen).append(" id='")
          .append(Bytes.toStringBinary(data, 5, idLen)).append("' ");
      off = 5 + idLen;
    } else {
      notes.append("no 0xff metadata prefix; ");
    }
    if (data.length >= off + 4 && new String(data, off, 4, StandardCharsets.US_ASCII).equals("PBUF")) {
      notes.append("PBUF at offset ").append(off);
      byte[] pb = new byte[data.length - off - 4];
      System.arraycopy(data, off + 4, pb, 0, pb.length);
      return pb;
    }
    notes.append("no PBUF magic");
    return null;
  }

  static void znodes() throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(HOST + ":" + ZK_PORT, 30000, ev -> {
      if (ev.getState() == Watcher.Event.KeeperState.SyncConnected) connected.countDown();
    });
    try {
      if (!connected.await(30, TimeUnit.SECONDS)) throw new IOException("zk connect timeout");
      System.out.println("/hbase children: " + zk.getChildren("/hbase", false));
      System.out.println("/hbase/rs children: " + zk.getChildren("/hbase/rs", false));
      for (String path : new String[] { "/hbase/meta-region-server", "/hbase/master", "/hbase/hbaseid",
          "/hbase/running" }) {
        byte[] data;
        try {
          data = zk.getData(path, false, null);
        } catch (Exception e) {
          System.out.println(path + ": " + oneLine(e));
          continue;
        }
        System.out.println(path + " (" + data.length + " bytes)");
        System.out.println("  hex:   " + hex(data));
        System.out.println("  ascii: " + printable(data));
        StringBuilder notes = new StringBuilder();
        byte[] pb = pbufPayload(data, notes);
        System.out.println("  frame: " + notes);
        if (pb == null) continue;
        System.out.println("  protobuf hex: " + hex(pb));
        Message msg;
        switch (path) {
          case "/hbase/meta-region-server": msg = ZooKeeperProtos.MetaRegionServer.parseFrom(pb); break;
          case "/hbase/master": msg = ZooKeeperProtos.Master.parseFrom(pb); break;
          case "/hbase/hbaseid": msg = ClusterIdProtos.ClusterId.parseFrom(pb); break;
          default: msg = null;
        }
        if (msg != null) {
          System.out.println("  decoded " + msg.getDescriptorForType().getFullName() + ": "
              + msg.toString().replace("\n", " ").trim());
        } else {
          System.out.println("  fields: " + UnknownFieldSet.parseFrom(pb).toString().replace("\n", " ").trim());
        }
      }
    } finally {
      zk.close();
    }
  }

  // ---------------------------------------------------------------- hbase:meta rows

  static void meta() throws IOException {
    TableName tn = TableName.valueOf("hbclient_probe_meta");
    try (Connection conn = ConnectionFactory.createConnection(zkConf()); Admin admin = conn.getAdmin()) {
      if (admin.tableExists(tn)) {
        admin.disableTable(tn);
        admin.deleteTable(tn);
      }
      admin.createTable(TableDescriptorBuilder.newBuilder(tn)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
      try (Table meta = conn.getTable(TableName.META_TABLE_NAME)) {
        // Row "<table>" holds table state; rows "<table>,<startkey>,<regionid>.<encoded>." hold regions.
        Scan scan = new Scan().withStartRow(Bytes.toBytes(tn.getNameAsString()), true)
            .withStopRow(Bytes.toBytes(tn.getNameAsString() + "-"), false);
        try (ResultScanner rs = meta.getScanner(scan)) {
          for (Result r : rs) {
            System.out.println("row: '" + Bytes.toStringBinary(r.getRow()) + "'  hex=" + hex(r.getRow()));
            for (Cell c : r.rawCells()) {
              byte[] v = CellUtil.cloneValue(c);
              String fam = Bytes.toString(CellUtil.cloneFamily(c));
              String q = Bytes.toStringBinary(CellUtil.cloneQualifier(c));
              System.out.println("  " + fam + ":" + q + " ts=" + c.getTimestamp() + " type=" + c.getType()
                  + " len=" + v.length + " hex=" + hex(v));
              StringBuilder notes = new StringBuilder();
              if (v.length >= 4 && new String(v, 0, 4, StandardCharsets.US_ASCII).equals("PBUF")) {
                byte[] pb = new byte[v.length - 4];
                System.arraycopy(v, 4, pb, 0, pb.length);
                Message m = q.equals("regioninfo") ? HBaseProtos.RegionInfo.parseFrom(pb)
                    : q.equals("state") && fam.equals("table") ? HBaseProtos.TableState.parseFrom(pb) : null;
                System.out.println("     PBUF-prefixed; decoded: "
                    + (m != null ? m.toString().replace("\n", " ").trim()
                        : UnknownFieldSet.parseFrom(pb).toString().replace("\n", " ").trim()));
              } else if (v.length == 8 && (q.equals("serverstartcode") || q.startsWith("seqnum"))) {
                System.out.println("     int64 big-endian = " + Bytes.toLong(v));
              } else {
                System.out.println("     ascii='" + printable(v) + "'");
              }
            }
          }
        }
      } finally {
        admin.disableTable(tn);
        admin.deleteTable(tn);
      }
    }
  }

  // ---------------------------------------------------------------- raw socket preamble

  static void writeFrame(DataOutputStream out, Message header, Message param) throws IOException {
    ByteArrayOutputStream bo = new ByteArrayOutputStream();
    header.writeDelimitedTo(bo);
    if (param != null) param.writeDelimitedTo(bo);
    byte[] body = bo.toByteArray();
    out.writeInt(body.length);
    out.write(body);
    out.flush();
    System.out.println("  sent call frame: " + hex(Bytes.toBytes(body.length)) + " " + hex(body));
  }

  static byte[] readFrame(DataInputStream in) throws IOException {
    int len = in.readInt();
    byte[] body = new byte[len];
    in.readFully(body);
    System.out.println("  recv frame: len=" + len + " hex=" + hex(body));
    return body;
  }

  /** A byte[] constant from HConstants or the RpcClient interface (read reflectively: 2.6 and 3.0 differ). */
  static byte[] staticBytes(String field) {
    for (String cls : new String[] { "org.apache.hadoop.hbase.HConstants", "org.apache.hadoop.hbase.ipc.RpcClient" }) {
      try {
        return (byte[]) Class.forName(cls).getField(field).get(null);
      } catch (ReflectiveOperationException e) {
        // try next
      }
    }
    return null;
  }

  static void preamble() throws Exception {
    for (String f : new String[] { "RPC_HEADER", "REGISTRY_PREAMBLE_HEADER", "SECURITY_PREAMBLE_HEADER" }) {
      byte[] b = staticBytes(f);
      System.out.println(f + " = " + (b == null ? "(absent)" : hex(b) + " '" + printable(b) + "'"));
    }
    for (int port : new int[] { RS_PORT, MASTER_PORT }) {
      System.out.println("== port " + port + ": preamble 'HBas' 0x00 0x50, ConnectionHeader(ClientMetaService)");
      try (Socket s = new Socket(HOST, port)) {
        s.setSoTimeout(10000);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] pre = new byte[] { 'H', 'B', 'a', 's', 0, 0x50 };
        out.write(pre);
        RPCProtos.ConnectionHeader ch = RPCProtos.ConnectionHeader.newBuilder()
            .setUserInfo(RPCProtos.UserInformation.newBuilder().setEffectiveUser("probe"))
            .setServiceName("ClientMetaService").build();
        byte[] chb = ch.toByteArray();
        out.writeInt(chb.length);
        out.write(chb);
        out.flush();
        System.out.println("  sent preamble " + hex(pre) + " + header " + hex(Bytes.toBytes(chb.length)) + " "
            + hex(chb));
        String[] methods = { "GetClusterId", "GetActiveMaster", "GetMetaRegionLocations", "GetBootstrapNodes" };
        // RegistryProtos exists from HBase 2.5 on: looked up by name so the probe compiles against 2.4.
        Message[] params = new Message[methods.length];
        Message[] protos = new Message[methods.length];
        for (int i = 0; i < methods.length; i++) {
          params[i] = registryMessage(methods[i] + "Request");
          protos[i] = registryMessage(methods[i] + "Response");
        }
        for (int i = 0; i < methods.length; i++) {
          System.out.println(" call " + (i + 1) + " " + methods[i]);
          writeFrame(out, RPCProtos.RequestHeader.newBuilder().setCallId(i + 1).setMethodName(methods[i])
              .setRequestParam(true).build(), params[i]);
          ByteArrayInputStream bi = new ByteArrayInputStream(readFrame(in));
          RPCProtos.ResponseHeader rh = RPCProtos.ResponseHeader.parseDelimitedFrom(bi);
          System.out.println("  ResponseHeader: " + rh.toString().replace("\n", " ").trim());
          if (!rh.hasException()) {
            Message resp = protos[i].getParserForType().parseDelimitedFrom(bi);
            System.out.println("  " + methods[i] + "Response: " + resp.toString().replace("\n", " ").trim());
          }
        }
      }
    }
    // What the server does with a wrong version byte / wrong auth byte.
    for (byte[] bad : new byte[][] { { 'H', 'B', 'a', 's', 1, 0x50 }, { 'H', 'B', 'a', 's', 0, 0x51 },
        { 'H', 'B', 'a', 'x', 0, 0x50 } }) {
      System.out.println("== bad preamble " + hex(bad) + " to port " + RS_PORT);
      dumpReply(bad);
    }
    byte[] reg = staticBytes("REGISTRY_PREAMBLE_HEADER");
    if (reg != null) {
      System.out.println("== registry preamble " + hex(reg) + " (GetConnectionRegistry, 2.6+) to port " + RS_PORT);
      dumpReply(reg);
    }
  }

  static void dumpReply(byte[] bytes) throws IOException {
    try (Socket s = new Socket(HOST, RS_PORT)) {
      s.setSoTimeout(5000);
      s.getOutputStream().write(bytes);
      s.getOutputStream().flush();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[4096];
      try {
        int n;
        while ((n = s.getInputStream().read(buf)) > 0) got.write(buf, 0, n);
        System.out.println("  server closed the connection");
      } catch (java.net.SocketTimeoutException e) {
        System.out.println("  (no more data within 5 s; connection still open)");
      } catch (IOException e) {
        System.out.println("  read ended: " + oneLine(e));
      }
      byte[] b = got.toByteArray();
      System.out.println("  reply " + b.length + " bytes: " + hex(b));
      System.out.println("  ascii: " + printable(b));
      if (b.length > 4) {
        try {
          ByteArrayInputStream bi = new ByteArrayInputStream(b, 4, b.length - 4);
          RPCProtos.ResponseHeader rh = RPCProtos.ResponseHeader.parseDelimitedFrom(bi);
          System.out.println("  as int32 len + delimited ResponseHeader: " + rh.toString().replace("\n", " ").trim());
          byte[] rest = bi.readAllBytes();
          if (rest.length > 0) {
            System.out.println("  remaining after header: " + hex(rest));
          }
        } catch (Exception e) {
          System.out.println("  not a ResponseHeader frame: " + oneLine(e));
        }
        try {
          System.out.println("  as int32 len + raw message fields: "
              + UnknownFieldSet.parseFrom(java.util.Arrays.copyOfRange(b, 4, b.length)).toString()
                  .replace("\n", " ").trim());
        } catch (Exception e) {
          System.out.println("  not a raw message after int32: " + oneLine(e));
        }
      }
    }
  }
}
