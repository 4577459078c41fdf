// Smoke test of the official Apache HBase Java client against any HBase-compatible cluster (mini-hbase in
// scripts/smoke-official-clients.sh; a real HBase to check the expectations themselves).
// Compiled by hbase.sh with the other tools in src/ (same classpath as the server).
//
//   Smoke zk  HOST:PORT [znodeParent]   discovery through ZooKeeper (ZKConnectionRegistry)
//   Smoke rpc HOST:PORT[,HOST:PORT]     discovery through RpcConnectionRegistry (bootstrap servers)
//
// Every check prints one line: "ok   <name>", "FAIL <name>: <why>" or "gap  <name>: <why>" (a feature the
// target is known not to support, answered with an error instead of a wrong result; see README "Known gaps").
// The exit code is 1 if any check failed.
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.AsyncAdmin;
import org.apache.hadoop.hbase.client.AsyncBufferedMutator;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.ColumnCountGetFilter;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.ColumnValueFilter;
import org.apache.hadoop.hbase.filter.DependentColumnFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.FuzzyRowFilter;
import org.apache.hadoop.hbase.filter.InclusiveStopFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.LongComparator;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.TimestampsFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;

public class Smoke {
  static final byte[] F = b("f");
  static final byte[] G = b("g");
  static int passed, failed, gaps;

  interface Body {
    void run() throws Exception;
  }

  /** A check whose failure is a known gap of the target when it answers with an error (never a wrong result). */
  static final class Gap extends RuntimeException {
    Gap(String why) {
      super(why);
    }
  }

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  static String s(byte[] v) {
    return v == null ? "null" : Bytes.toStringBinary(v);
  }

  static void check(String name, Body body) {
    long t0 = System.nanoTime();
    try {
      body.run();
      passed++;
      System.out.printf("ok   %s (%d ms)%n", name, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    } catch (Gap g) {
      gaps++;
      System.out.printf("gap  %s: %s%n", name, g.getMessage());
    } catch (Throwable t) {
      failed++;
      if (t instanceof org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException
          && ((org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException) t).getNumExceptions() > 0) {
        t = ((org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException) t).getCause(0);
      }
      System.err.println("FAIL " + name + ":");
      t.printStackTrace();
      String msg = String.valueOf(t);
      int nl = msg.indexOf('\n');
      System.out.printf("FAIL %s: %s%n", name, nl > 0 ? msg.substring(0, nl) : msg);
    }
    System.out.flush();
  }

  /** Runs a check body that is a known gap: an exception is reported as the gap, a wrong answer still fails. */
  static void gapCheck(String name, Body body) {
    check(name, () -> {
      try {
        body.run();
      } catch (AssertionError e) {
        throw e;
      } catch (Exception e) {
        throw new Gap(e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()));
      }
    });
  }

  static String firstLine(String m) {
    if (m == null) return "";
    int nl = m.indexOf('\n');
    return nl > 0 ? m.substring(0, nl) : m;
  }

  static void eq(Object expected, Object actual, String what) {
    if (expected == null ? actual != null : !expected.equals(actual)) {
      throw new AssertionError(what + ": expected " + expected + ", got " + actual);
    }
  }

  static void yes(boolean cond, String what) {
    if (!cond) throw new AssertionError(what);
  }

  static String val(Result r, byte[] fam, String q) {
    return s(r.getValue(fam, b(q)));
  }

  static List<String> rows(Table t, Scan scan) throws IOException {
    List<String> out = new ArrayList<>();
    try (ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) out.add(s(r.getRow()));
    }
    return out;
  }

  static List<String> cells(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell c : r.rawCells()) {
      out.add(s(CellUtil.cloneFamily(c)) + ":" + s(CellUtil.cloneQualifier(c)) + "=" + s(CellUtil.cloneValue(c)));
    }
    return out;
  }

  static List<String> scanCells(Table t, Scan scan) throws IOException {
    List<String> out = new ArrayList<>();
    try (ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) {
        for (String c : cells(r)) out.add(s(r.getRow()) + "/" + c);
      }
    }
    return out;
  }

  static Configuration conf(String mode, String target, String parent) {
    Configuration c = HBaseConfiguration.create();
    c.setInt("hbase.client.retries.number", 5);
    c.setInt("hbase.client.pause", 100);
    c.setInt("hbase.rpc.timeout", 15000);
    c.setInt("hbase.client.operation.timeout", 30000);
    c.setInt("hbase.client.meta.operation.timeout", 30000);
    c.setInt("zookeeper.recovery.retry", 1);
    c.setInt("zookeeper.session.timeout", 30000);
    // -Dsmoke.meta.replicas.mode=LoadBalance|HedgedRead: region lookups read hbase:meta's replicas.
    String metaMode = System.getProperty("smoke.meta.replicas.mode");
    if (metaMode != null) c.set("hbase.locator.meta.replicas.mode", metaMode);
    if (mode.equals("zk")) {
      String[] hp = target.split(":");
      c.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.ZKConnectionRegistry");
      c.set("hbase.zookeeper.quorum", hp[0]);
      c.setInt("hbase.zookeeper.property.clientPort", Integer.parseInt(hp[1]));
      if (parent != null) c.set("zookeeper.znode.parent", parent);
    } else {
      c.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
      c.set("hbase.client.bootstrap.servers", target);
      // A dead ZooKeeper: nothing on this path may need one.
      c.set("hbase.zookeeper.quorum", "127.0.0.1");
      c.setInt("hbase.zookeeper.property.clientPort", 1);
    }
    return c;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2 || !(args[0].equals("zk") || args[0].equals("rpc"))) {
      System.err.println("usage: Smoke zk HOST:PORT [znodeParent] | Smoke rpc HOST:PORT[,HOST:PORT]");
      System.exit(2);
    }
    String mode = args[0];
    Configuration conf = conf(mode, args[1], args.length > 2 ? args[2] : null);
    String tag = mode + Long.toString(System.currentTimeMillis() % 1000000, 36);
    System.out.println("Java client " + org.apache.hadoop.hbase.util.VersionInfo.getVersion() + " via " + mode + " "
        + args[1]);
    long t0 = System.nanoTime();
    try (Connection conn = ConnectionFactory.createConnection(conf)) {
      new Smoke(conn, conf, tag).run();
    }
    System.out.printf("java smoke via %s: %d passed, %d failed, %d known gaps (%d s)%n", mode, passed, failed, gaps,
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
    System.exit(failed == 0 ? 0 : 1);
  }

  final Connection conn;
  final Configuration conf;
  final String tag;
  final TableName data;
  final TableName split;
  final String ns;

  Smoke(Connection conn, Configuration conf, String tag) {
    this.conn = conn;
    this.conf = conf;
    this.tag = tag;
    this.data = TableName.valueOf("smoke_" + tag + "_data");
    this.split = TableName.valueOf("smoke_" + tag + "_split");
    this.ns = "smoke_" + tag + "_ns";
  }

  void run() throws Exception {
    Admin admin = conn.getAdmin();
    admin(admin);
    try (Table t = conn.getTable(data)) {
      putGetDelete(t);
      batch(t);
      conditional(t);
      scans(t);
      filters(t);
    }
    meta(admin);
    buffered();
    async();
    splitAndFlush(admin);
    namespaces(admin);
    cleanup(admin);
  }

  // ------------------------------------------------------------------------------------------------ admin

  void admin(Admin admin) {
    check("admin: create table with split keys b, m, t", () -> {
      TableDescriptor d = TableDescriptorBuilder.newBuilder(data)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(3).build())
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(G)).build();
      admin.createTable(d, new byte[][] {b("b"), b("m"), b("t")});
      eq(4, admin.getRegions(data).size(), "regions");
    });
    check("admin: tableExists", () -> {
      yes(admin.tableExists(data), "created table exists");
      yes(!admin.tableExists(TableName.valueOf("smoke_" + tag + "_absent")), "absent table does not exist");
    });
    check("admin: isTableEnabled / isTableAvailable", () -> {
      yes(admin.isTableEnabled(data), "enabled");
      yes(!admin.isTableDisabled(data), "not disabled");
      yes(admin.isTableAvailable(data), "available");
    });
    check("admin: listTableNames with a pattern", () -> {
      List<TableName> names = Arrays.asList(admin.listTableNames(Pattern.compile("smoke_" + tag + "_d.*")));
      eq(Arrays.asList(data), names, "pattern smoke_<tag>_d.*");
      List<TableName> all = Arrays.asList(admin.listTableNames());
      yes(all.contains(data), "listTableNames() contains " + data);
      eq(0, admin.listTableNames(Pattern.compile("nothing_matches_.*")).length, "no match");
    });
    check("admin: listTableDescriptors with a pattern", () -> {
      List<TableDescriptor> ds = admin.listTableDescriptors(Pattern.compile("smoke_" + tag + "_data"));
      eq(1, ds.size(), "descriptors");
      eq(data, ds.get(0).getTableName(), "name");
    });
    check("admin: getDescriptor (families, max versions)", () -> {
      TableDescriptor d = admin.getDescriptor(data);
      eq(data, d.getTableName(), "name");
      eq(2, d.getColumnFamilyCount(), "families");
      eq(3, d.getColumnFamily(F).getMaxVersions(), "f VERSIONS");
      eq(1, d.getColumnFamily(G).getMaxVersions(), "g VERSIONS");
    });
    check("admin: disable, isTableDisabled, enable", () -> {
      admin.disableTable(data);
      yes(admin.isTableDisabled(data), "disabled");
      yes(!admin.isTableEnabled(data), "not enabled");
      admin.enableTable(data);
      yes(admin.isTableEnabled(data), "enabled again");
    });
    check("admin: create an existing table fails with TableExistsException", () -> {
      try {
        admin.createTable(TableDescriptorBuilder.newBuilder(data).setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
            .build());
        throw new AssertionError("created twice");
      } catch (org.apache.hadoop.hbase.TableExistsException e) {
        // expected
      }
    });
    check("admin: create the split table (one region)", () -> {
      admin.createTable(TableDescriptorBuilder.newBuilder(split).setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
          .build());
      eq(1, admin.getRegions(split).size(), "regions");
    });
  }

  // ------------------------------------------------------------------------------------------------ put/get/delete

  void putGetDelete(Table t) {
    byte[] r = b("a1");
    check("put: several columns and families, get them back", () -> {
      t.put(new Put(r).addColumn(F, b("q1"), b("v1")).addColumn(F, b("q2"), b("v2")).addColumn(G, b("x"), b("y")));
      Result res = t.get(new Get(r));
      eq(Arrays.asList("f:q1=v1", "f:q2=v2", "g:x=y"), cells(res), "cells");
    });
    check("get: addColumn, addFamily, missing row, exists", () -> {
      eq(Arrays.asList("f:q2=v2"), cells(t.get(new Get(r).addColumn(F, b("q2")))), "one column");
      eq(Arrays.asList("g:x=y"), cells(t.get(new Get(r).addFamily(G))), "one family");
      Result none = t.get(new Get(b("a_missing")));
      yes(none.isEmpty(), "missing row is empty");
      yes(t.exists(new Get(r)), "exists");
      yes(!t.exists(new Get(b("a_missing"))), "missing does not exist");
      boolean[] ex = t.exists(Arrays.asList(new Get(r), new Get(b("a_missing"))));
      eq("[true, false]", Arrays.toString(ex), "exists(list)");
    });
    check("put with timestamps: versions, time range, readVersions", () -> {
      byte[] row = b("a2");
      for (long ts = 1; ts <= 4; ts++) {
        t.put(new Put(row).addColumn(F, b("v"), ts, b("ts" + ts)));
      }
      Result all = t.get(new Get(row).readAllVersions());
      eq(3, all.getColumnCells(F, b("v")).size(), "VERSIONS=3 keeps three");
      eq("ts4", val(all, F, "v"), "newest first");
      Result two = t.get(new Get(row).readVersions(2));
      eq(2, two.getColumnCells(F, b("v")).size(), "readVersions(2)");
      Result range = t.get(new Get(row).setTimeRange(2, 4).readAllVersions());
      eq(Arrays.asList("f:v=ts3", "f:v=ts2"), cells(range), "time range [2,4)");
      Result at = t.get(new Get(row).setTimestamp(3));
      eq(Arrays.asList("f:v=ts3"), cells(at), "setTimestamp(3)");
    });
    check("get(List<Get>) across regions", () -> {
      t.put(Arrays.asList(new Put(b("c1")).addColumn(F, b("q"), b("c")), new Put(b("n1")).addColumn(F, b("q"), b("n")),
          new Put(b("u1")).addColumn(F, b("q"), b("u"))));
      Result[] rs = t.get(Arrays.asList(new Get(b("c1")), new Get(b("n1")), new Get(b("u1")), new Get(b("zz"))));
      eq("c n u null", Arrays.stream(rs).map(x -> val(x, F, "q")).collect(Collectors.joining(" ")), "values");
    });
    check("delete: addColumn (latest version only)", () -> {
      byte[] row = b("a3");
      t.put(new Put(row).addColumn(F, b("v"), 1, b("old")));
      t.put(new Put(row).addColumn(F, b("v"), 2, b("new")));
      t.delete(new Delete(row).addColumn(F, b("v")));
      eq("old", val(t.get(new Get(row)), F, "v"), "older version shows");
    });
    check("delete: addColumn with a timestamp", () -> {
      byte[] row = b("a4");
      t.put(new Put(row).addColumn(F, b("v"), 1, b("one")));
      t.put(new Put(row).addColumn(F, b("v"), 2, b("two")));
      t.delete(new Delete(row).addColumn(F, b("v"), 2));
      eq("one", val(t.get(new Get(row)), F, "v"), "version 1 left");
    });
    check("delete: addColumns (all versions)", () -> {
      byte[] row = b("a5");
      t.put(new Put(row).addColumn(F, b("v"), 1, b("one")).addColumn(F, b("w"), b("w")));
      t.put(new Put(row).addColumn(F, b("v"), 2, b("two")));
      t.delete(new Delete(row).addColumns(F, b("v")));
      eq(Arrays.asList("f:w=w"), cells(t.get(new Get(row).readAllVersions())), "only w left");
    });
    check("delete: addFamily", () -> {
      byte[] row = b("a6");
      t.put(new Put(row).addColumn(F, b("a"), b("1")).addColumn(F, b("b"), b("2")).addColumn(G, b("c"), b("3")));
      t.delete(new Delete(row).addFamily(F));
      eq(Arrays.asList("g:c=3"), cells(t.get(new Get(row))), "only g left");
    });
    check("delete: addFamilyVersion", () -> {
      byte[] row = b("a7");
      t.put(new Put(row).addColumn(F, b("a"), 5, b("a5")).addColumn(F, b("b"), 5, b("b5")).addColumn(F, b("c"), 6,
          b("c6")));
      t.delete(new Delete(row).addFamilyVersion(F, 5));
      eq(Arrays.asList("f:c=c6"), cells(t.get(new Get(row))), "version 5 gone");
    });
    check("delete: whole row, and a timestamped row delete", () -> {
      byte[] row = b("a8");
      t.put(new Put(row).addColumn(F, b("a"), b("1")).addColumn(G, b("b"), b("2")));
      t.delete(new Delete(row));
      yes(t.get(new Get(row)).isEmpty(), "row gone");
      byte[] row2 = b("a8b");
      t.put(new Put(row2).addColumn(F, b("a"), 10, b("10")).addColumn(F, b("b"), 20, b("20")));
      t.delete(new Delete(row2, 15));
      eq(Arrays.asList("f:b=20"), cells(t.get(new Get(row2))), "cells after 15 stay");
    });
    check("delete(List<Delete>)", () -> {
      t.put(Arrays.asList(new Put(b("a9")).addColumn(F, b("q"), b("1")), new Put(b("n9")).addColumn(F, b("q"), b("2"))));
      List<Delete> ds = new ArrayList<>(Arrays.asList(new Delete(b("a9")), new Delete(b("n9"))));
      t.delete(ds);
      yes(!t.exists(new Get(b("a9"))) && !t.exists(new Get(b("n9"))), "both gone");
    });
    check("increment and incrementColumnValue", () -> {
      byte[] row = b("a_ctr");
      Result r1 = t.increment(new Increment(row).addColumn(F, b("n"), 5).addColumn(F, b("m"), 1));
      eq(5L, Bytes.toLong(r1.getValue(F, b("n"))), "first increment");
      eq(7L, t.incrementColumnValue(row, F, b("n"), 2), "incrementColumnValue");
      eq(7L, t.incrementColumnValue(row, F, b("n"), 0, Durability.SKIP_WAL), "read by +0");
      Result r2 = t.increment(new Increment(row).addColumn(F, b("n"), 1).setReturnResults(false));
      yes(r2 == null || r2.isEmpty(), "setReturnResults(false) gives an empty result, got " + r2);
      eq(8L, Bytes.toLong(t.get(new Get(row)).getValue(F, b("n"))), "stored value");
    });
    check("append", () -> {
      byte[] row = b("a_app");
      Result r1 = t.append(new Append(row).addColumn(F, b("s"), b("ab")));
      eq("ab", val(r1, F, "s"), "first append");
      Result r2 = t.append(new Append(row).addColumn(F, b("s"), b("cd")));
      eq("abcd", val(r2, F, "s"), "second append");
      eq("abcd", val(t.get(new Get(row)), F, "s"), "stored");
    });
    check("mutateRow (RowMutations: put + delete on one row)", () -> {
      byte[] row = b("a_rm");
      t.put(new Put(row).addColumn(F, b("old"), b("x")));
      RowMutations rm = new RowMutations(row);
      rm.add(new Put(row).addColumn(F, b("new"), b("y")));
      rm.add(new Delete(row).addColumns(F, b("old")));
      t.mutateRow(rm);
      eq(Arrays.asList("f:new=y"), cells(t.get(new Get(row))), "after RowMutations");
    });
  }

  // ------------------------------------------------------------------------------------------------ batch

  void batch(Table t) {
    check("batch: put, get, delete, increment, append across regions", () -> {
      t.put(new Put(b("d_del")).addColumn(F, b("q"), b("x")));
      List<Row> actions = new ArrayList<>();
      actions.add(new Put(b("d1")).addColumn(F, b("q"), b("d1")));
      actions.add(new Put(b("p1")).addColumn(F, b("q"), b("p1")));
      actions.add(new Get(b("c1")));
      actions.add(new Delete(b("d_del")));
      actions.add(new Increment(b("x1")).addColumn(F, b("n"), 3));
      actions.add(new Append(b("x2")).addColumn(F, b("s"), b("zz")));
      Object[] results = new Object[actions.size()];
      t.batch(actions, results);
      for (int i = 0; i < results.length; i++) {
        yes(results[i] instanceof Result, "action " + i + " gave " + results[i]);
      }
      eq("c", val((Result) results[2], F, "q"), "get in batch");
      eq(3L, Bytes.toLong(((Result) results[4]).getValue(F, b("n"))), "increment in batch");
      eq("zz", val((Result) results[5], F, "s"), "append in batch");
      eq("p1", val(t.get(new Get(b("p1"))), F, "q"), "put in batch stored");
      yes(!t.exists(new Get(b("d_del"))), "delete in batch applied");
    });
    check("batch: RowMutations inside a batch", () -> {
      RowMutations rm = new RowMutations(b("d2"));
      rm.add(new Put(b("d2")).addColumn(F, b("a"), b("1")));
      rm.add(new Put(b("d2")).addColumn(F, b("b"), b("2")));
      Object[] results = new Object[2];
      t.batch(Arrays.asList(rm, new Put(b("r2")).addColumn(F, b("q"), b("r2"))), results);
      yes(results[0] instanceof Result && results[1] instanceof Result, "results " + Arrays.toString(results));
      eq(Arrays.asList("f:a=1", "f:b=2"), cells(t.get(new Get(b("d2")))), "row mutations applied");
    });
    check("batch: a put to a missing family fails alone", () -> {
      Object[] results = new Object[2];
      try {
        t.batch(Arrays.asList(new Put(b("e1")).addColumn(b("nofam"), b("q"), b("x")),
            new Put(b("e2")).addColumn(F, b("q"), b("ok"))), results);
        throw new AssertionError("batch with a bad family succeeded");
      } catch (org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException e) {
        eq(1, e.getNumExceptions(), "one failed action");
        yes(e.getCause(0) instanceof org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException,
            "NoSuchColumnFamilyException, got " + e.getCause(0));
      }
      eq("ok", val(t.get(new Get(b("e2"))), F, "q"), "other action applied");
    });
  }

  // ------------------------------------------------------------------------------------------------ conditional

  void conditional(Table t) {
    byte[] row = b("h1");
    check("checkAndMutate: ifNotExists then ifEquals", () -> {
      CheckAndMutateResult r1 = t.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(F, b("c"))
          .build(new Put(row).addColumn(F, b("c"), b("v1"))));
      yes(r1.isSuccess(), "ifNotExists on an empty row");
      CheckAndMutateResult r2 = t.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(F, b("c"))
          .build(new Put(row).addColumn(F, b("c"), b("v2"))));
      yes(!r2.isSuccess(), "ifNotExists on an existing cell must fail");
      CheckAndMutateResult r3 = t.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(F, b("c"), b("v1"))
          .build(new Put(row).addColumn(F, b("c"), b("v3"))));
      yes(r3.isSuccess(), "ifEquals v1");
      eq("v3", val(t.get(new Get(row)), F, "c"), "value");
    });
    check("checkAndMutate: compare operators (GREATER, LESS, NOT_EQUAL)", () -> {
      // HBase compares the given value with the stored one: GREATER means "given > stored".
      t.put(new Put(row).addColumn(F, b("n"), b("5")));
      yes(t.checkAndMutate(CheckAndMutate.newBuilder(row).ifMatches(F, b("n"), CompareOperator.GREATER, b("7"))
          .build(new Put(row).addColumn(F, b("r"), b("gt")))).isSuccess(), "7 > 5");
      yes(!t.checkAndMutate(CheckAndMutate.newBuilder(row).ifMatches(F, b("n"), CompareOperator.LESS, b("7"))
          .build(new Put(row).addColumn(F, b("r"), b("lt")))).isSuccess(), "not 7 < 5");
      yes(t.checkAndMutate(CheckAndMutate.newBuilder(row).ifMatches(F, b("n"), CompareOperator.NOT_EQUAL, b("4"))
          .build(new Put(row).addColumn(F, b("r"), b("ne")))).isSuccess(), "4 != 5");
      eq("ne", val(t.get(new Get(row)), F, "r"), "last applied");
    });
    check("checkAndMutate: delete, and RowMutations", () -> {
      yes(t.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(F, b("r"), b("ne"))
          .build(new Delete(row).addColumns(F, b("r")))).isSuccess(), "conditional delete");
      RowMutations rm = new RowMutations(row);
      rm.add(new Put(row).addColumn(F, b("m1"), b("1")));
      rm.add(new Delete(row).addColumns(F, b("n")));
      CheckAndMutateResult res = t.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(F, b("c"), b("v3")).build(rm));
      yes(res.isSuccess(), "conditional RowMutations");
      eq(Arrays.asList("f:c=v3", "f:m1=1"), cells(t.get(new Get(row))), "cells");
    });
    check("checkAndMutate: with a filter condition and a time range", () -> {
      Filter cond = new SingleColumnValueFilter(F, b("c"), CompareOperator.EQUAL, b("v3"));
      yes(t.checkAndMutate(CheckAndMutate.newBuilder(row).ifMatches(cond)
          .build(new Put(row).addColumn(F, b("flt"), b("yes")))).isSuccess(), "filter matches");
      Filter no = new SingleColumnValueFilter(F, b("c"), CompareOperator.EQUAL, b("zzz"));
      yes(!t.checkAndMutate(CheckAndMutate.newBuilder(row).ifMatches(no)
          .build(new Put(row).addColumn(F, b("flt"), b("no")))).isSuccess(), "filter does not match");
      eq("yes", val(t.get(new Get(row)), F, "flt"), "value");
    });
    check("checkAndMutate: increment returns its result", () -> {
      CheckAndMutateResult r = t.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(F, b("c"), b("v3"))
          .build(new Increment(row).addColumn(F, b("cnt"), 4)));
      yes(r.isSuccess(), "success");
      eq(4L, r.getResult() == null ? null : Bytes.toLong(r.getResult().getValue(F, b("cnt"))), "result");
    });
    check("checkAndMutate(List): conditional batch, mixed outcomes", () -> {
      t.put(new Put(b("h2")).addColumn(F, b("c"), b("A")));
      t.put(new Put(b("o2")).addColumn(F, b("c"), b("B")));
      List<CheckAndMutate> list = Arrays.asList(
          CheckAndMutate.newBuilder(b("h2")).ifEquals(F, b("c"), b("A")).build(new Put(b("h2")).addColumn(F, b("d"),
              b("ok"))),
          CheckAndMutate.newBuilder(b("o2")).ifEquals(F, b("c"), b("WRONG")).build(new Put(b("o2")).addColumn(F,
              b("d"), b("bad"))),
          CheckAndMutate.newBuilder(b("o3")).ifNotExists(F, b("c")).build(new Put(b("o3")).addColumn(F, b("c"),
              b("new"))));
      List<CheckAndMutateResult> rs = t.checkAndMutate(list);
      eq("[true, false, true]", rs.stream().map(CheckAndMutateResult::isSuccess).collect(Collectors.toList())
          .toString(), "outcomes");
      eq("ok", val(t.get(new Get(b("h2"))), F, "d"), "h2");
      yes(t.get(new Get(b("o2"))).getValue(F, b("d")) == null, "o2 untouched");
      eq("new", val(t.get(new Get(b("o3"))), F, "c"), "o3");
    });
  }

  // ------------------------------------------------------------------------------------------------ scans

  static final String[] SCAN_ROWS = {"s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "s09", "s10"};

  void scans(Table t) {
    check("scan: load rows s01..s10 and a wide row", () -> {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < SCAN_ROWS.length; i++) {
        puts.add(new Put(b(SCAN_ROWS[i])).addColumn(F, b("a"), b("va" + i)).addColumn(F, b("b"), b("vb" + i))
            .addColumn(G, b("c"), Bytes.toBytes((long) i)));
      }
      Put wide = new Put(b("sw"));
      for (int i = 0; i < 20; i++) wide.addColumn(F, b(String.format("c%02d", i)), new byte[1000]);
      puts.add(wide);
      t.put(puts);
    });
    check("scan: full table across four regions, in order", () -> {
      List<String> all = rows(t, new Scan());
      yes(all.size() > 20, "rows " + all.size());
      List<String> sorted = new ArrayList<>(all);
      sorted.sort(null);
      eq(sorted, all, "order");
      yes(all.contains("a1") && all.contains("n1") && all.contains("u1"), "rows from every region");
    });
    check("scan: start/stop row, caching 1, limit", () -> {
      eq(Arrays.asList("s02", "s03", "s04"), rows(t, new Scan().withStartRow(b("s02")).withStopRow(b("s05"))
          .setCaching(1)), "range");
      eq(Arrays.asList("s02", "s03", "s04", "s05"), rows(t, new Scan().withStartRow(b("s02")).withStopRow(b("s05"),
          true)), "inclusive stop");
      eq(Arrays.asList("s01", "s02", "s03"), rows(t, new Scan().withStartRow(b("s01")).setLimit(3)), "limit 3");
    });
    check("scan: reversed, across regions", () -> {
      List<String> rev = rows(t, new Scan().withStartRow(b("s03")).withStopRow(b("c1")).setReversed(true));
      yes(rev.size() >= 5, "rows " + rev);
      eq("s03", rev.get(0), "first");
      yes(rev.contains("n1") && rev.contains("h2"), "crosses the m region boundary: " + rev);
      List<String> sorted = new ArrayList<>(rev);
      sorted.sort(java.util.Collections.reverseOrder());
      eq(sorted, rev, "descending");
      eq(Arrays.asList("s10", "s09", "s08"), rows(t, new Scan().withStartRow(b("s10")).setReversed(true).setLimit(3)),
          "reversed limit");
    });
    check("scan: reversed with PrefixFilter and RowFilter", () -> {
      eq(Arrays.asList("s10", "s09", "s08", "s07", "s06", "s05", "s04", "s03", "s02", "s01"), rows(t, new Scan()
          .setReversed(true).setFilter(new FilterList(new PrefixFilter(b("s")), new RowFilter(CompareOperator.NOT_EQUAL,
              new BinaryComparator(b("sw")))))),
          "reversed prefix s");
      eq(Arrays.asList("s03", "s02", "s01"), rows(t, new Scan().withStartRow(b("s03")).setReversed(true)
          .setFilter(new RowFilter(CompareOperator.GREATER_OR_EQUAL, new BinaryComparator(b("s01"))))),
          "reversed RowFilter >= s01");
    });
    check("scan: batch splits a wide row into pieces", () -> {
      int pieces = 0, cells = 0;
      try (ResultScanner rs = t.getScanner(new Scan().withStartRow(b("sw")).withStopRow(b("sw"), true).setBatch(6))) {
        for (Result r : rs) {
          pieces++;
          cells += r.size();
          yes(r.size() <= 6, "batch bound");
        }
      }
      eq(4, pieces, "20 cells by 6");
      eq(20, cells, "cells");
    });
    check("scan: allowPartialResults with a small max result size", () -> {
      int pieces = 0, cells = 0;
      boolean sawPartial = false;
      try (ResultScanner rs = t.getScanner(new Scan().withStartRow(b("sw")).withStopRow(b("sw"), true)
          .setAllowPartialResults(true).setMaxResultSize(3000))) {
        for (Result r : rs) {
          pieces++;
          cells += r.size();
          sawPartial |= r.mayHaveMoreCellsInRow();
        }
      }
      yes(pieces > 1, "partial results, got " + pieces + " piece(s)");
      yes(sawPartial, "mayHaveMoreCellsInRow set");
      eq(20, cells, "cells");
    });
    check("scan: small max result size without partials stitches the row", () -> {
      List<Result> rs = new ArrayList<>();
      try (ResultScanner sc = t.getScanner(new Scan().withStartRow(b("s09")).withStopRow(b("sx")).setMaxResultSize(
          1500))) {
        for (Result r : sc) rs.add(r);
      }
      eq(Arrays.asList("s09", "s10", "sw"), rs.stream().map(r -> s(r.getRow())).collect(Collectors.toList()), "rows");
      eq(20, rs.get(2).size(), "wide row whole");
    });
    check("scan: addFamily, addColumn, time range, readVersions", () -> {
      eq(Arrays.asList("s01/g:c=" + s(Bytes.toBytes(0L))), scanCells(t, new Scan().withStartRow(b("s01"))
          .withStopRow(b("s02")).addFamily(G)), "family g");
      eq(Arrays.asList("s01/f:b=vb0"), scanCells(t, new Scan().withStartRow(b("s01")).withStopRow(b("s02"))
          .addColumn(F, b("b"))), "column f:b");
      eq(Arrays.asList("a2/f:v=ts3", "a2/f:v=ts2"), scanCells(t, new Scan().withStartRow(b("a2")).withStopRow(b("a3"))
          .setTimeRange(2, 4).readAllVersions()), "versions in range");
    });
    check("scan: scan metrics", () -> {
      Scan scan = new Scan().withStartRow(b("s01")).withStopRow(b("s06")).setScanMetricsEnabled(true);
      int n = 0;
      ScanMetrics m;
      try (ResultScanner rs = t.getScanner(scan)) {
        for (Result r : rs) n++;
        m = rs.getScanMetrics();
      }
      eq(5, n, "rows");
      yes(m != null, "metrics");
      eq(5L, m.countOfRowsScanned.get(), "countOfRowsScanned");
      yes(m.countOfRPCcalls.get() >= 1, "RPC calls counted");
    });
  }

  // ------------------------------------------------------------------------------------------------ filters

  List<String> frows(Table t, Filter f) throws IOException {
    return rows(t, new Scan().withStartRow(b("s01")).withStopRow(b("s11")).setFilter(f));
  }

  List<String> fcells(Table t, Filter f) throws IOException {
    return scanCells(t, new Scan().withStartRow(b("s01")).withStopRow(b("s03")).setFilter(f));
  }

  void filters(Table t) {
    check("filter: PrefixFilter", () -> eq(Arrays.asList("s10"), frows(t, new PrefixFilter(b("s1"))), "rows"));
    check("filter: RowFilter with Binary, BinaryPrefix, Regex, Substring comparators", () -> {
      eq(Arrays.asList("s01", "s02"), frows(t, new RowFilter(CompareOperator.LESS, new BinaryComparator(b("s03")))),
          "binary <");
      eq(Arrays.asList("s10"), frows(t, new RowFilter(CompareOperator.EQUAL, new BinaryPrefixComparator(b("s1")))),
          "binary prefix");
      eq(Arrays.asList("s03", "s07"), frows(t, new RowFilter(CompareOperator.EQUAL, new RegexStringComparator(
          "s0[37]"))), "regex");
      eq(Arrays.asList("s05"), frows(t, new RowFilter(CompareOperator.EQUAL, new SubstringComparator("05"))),
          "substring");
    });
    check("filter: SingleColumnValueFilter (and filterIfMissing)", () -> {
      SingleColumnValueFilter f = new SingleColumnValueFilter(F, b("a"), CompareOperator.EQUAL, b("va4"));
      f.setFilterIfMissing(true);
      eq(Arrays.asList("s05"), frows(t, f), "a == va4");
      SingleColumnValueFilter g = new SingleColumnValueFilter(G, b("c"), CompareOperator.GREATER_OR_EQUAL,
          new LongComparator(8));
      g.setFilterIfMissing(true);
      eq(Arrays.asList("s09", "s10"), frows(t, g), "long >= 8");
    });
    check("filter: SingleColumnValueExcludeFilter", () -> {
      SingleColumnValueExcludeFilter f = new SingleColumnValueExcludeFilter(F, b("a"), CompareOperator.EQUAL, b("va0"));
      f.setFilterIfMissing(true);
      eq(Arrays.asList("s01/f:b=vb0", "s01/g:c=" + s(Bytes.toBytes(0L))), fcells(t, f), "cells without f:a");
    });
    check("filter: ValueFilter, QualifierFilter, FamilyFilter", () -> {
      eq(Arrays.asList("s02/f:b=vb1"), fcells(t, new ValueFilter(CompareOperator.EQUAL, new SubstringComparator("b1"))),
          "value");
      eq(Arrays.asList("s01/f:a=va0", "s02/f:a=va1"), fcells(t, new QualifierFilter(CompareOperator.EQUAL,
          new BinaryComparator(b("a")))), "qualifier");
      eq(2, fcells(t, new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(G))).size(), "family g");
    });
    check("filter: ColumnPrefixFilter, MultipleColumnPrefixFilter, ColumnRangeFilter", () -> {
      eq(Arrays.asList("s01/f:b=vb0", "s02/f:b=vb1"), fcells(t, new ColumnPrefixFilter(b("b"))), "prefix b");
      eq(6, fcells(t, new MultipleColumnPrefixFilter(new byte[][] {b("a"), b("b"), b("c")})).size(), "prefixes a,b,c");
      eq(Arrays.asList("s01/f:b=vb0", "s01/g:c=" + s(Bytes.toBytes(0L)), "s02/f:b=vb1", "s02/g:c=" + s(Bytes.toBytes(
          1L))), fcells(t, new ColumnRangeFilter(b("b"), true, b("c"), true)), "range [b,c]");
    });
    check("filter: KeyOnlyFilter, FirstKeyOnlyFilter", () -> {
      eq(Arrays.asList("s01/f:a=", "s01/f:b=", "s01/g:c=", "s02/f:a=", "s02/f:b=", "s02/g:c="), fcells(t,
          new KeyOnlyFilter()), "key only");
      eq(Arrays.asList("s01/f:a=va0", "s02/f:a=va1"), fcells(t, new FirstKeyOnlyFilter()), "first key only");
    });
    check("filter: PageFilter, InclusiveStopFilter, WhileMatchFilter", () -> {
      eq(Arrays.asList("s01", "s02", "s03"), frows(t, new PageFilter(3)), "page 3");
      eq(Arrays.asList("s01", "s02", "s03", "s04"), frows(t, new InclusiveStopFilter(b("s04"))), "inclusive stop");
      eq(Arrays.asList("s01", "s02"), frows(t, new WhileMatchFilter(new RowFilter(CompareOperator.LESS,
          new BinaryComparator(b("s03"))))), "while match");
    });
    check("filter: SkipFilter, ColumnCountGetFilter, ColumnPaginationFilter", () -> {
      eq(Arrays.asList("s01", "s02", "s03", "s05", "s06", "s07", "s08", "s09", "s10"), frows(t, new SkipFilter(
          new ValueFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(b("va3"))))), "skip the row holding va3");
      // In a scan HBase's ColumnCountGetFilter ends the whole scan once a row goes past the limit.
      eq(Arrays.asList("s01/f:a=va0"), fcells(t, new ColumnCountGetFilter(1)), "first column of the first row");
      eq(Arrays.asList("s01/f:b=vb0", "s02/f:b=vb1"), fcells(t, new ColumnPaginationFilter(1, 1)), "limit 1 offset 1");
    });
    check("filter: TimestampsFilter", () -> {
      eq(Arrays.asList("a2/f:v=ts3"), scanCells(t, new Scan().withStartRow(b("a2")).withStopRow(b("a3"))
          .readAllVersions().setFilter(new TimestampsFilter(Arrays.asList(3L)))), "ts 3");
    });
    check("filter: MultiRowRangeFilter", () -> {
      eq(Arrays.asList("s02", "s03", "s07"), frows(t, new MultiRowRangeFilter(Arrays.asList(
          new MultiRowRangeFilter.RowRange(b("s02"), true, b("s03"), true),
          new MultiRowRangeFilter.RowRange(b("s07"), true, b("s08"), false)))), "ranges");
    });
    check("filter: FilterList MUST_PASS_ALL and MUST_PASS_ONE", () -> {
      eq(Arrays.asList("s04", "s05"), frows(t, new FilterList(FilterList.Operator.MUST_PASS_ALL,
          new RowFilter(CompareOperator.GREATER, new BinaryComparator(b("s03"))), new PageFilter(2))), "all");
      eq(Arrays.asList("s01", "s10"), frows(t, new FilterList(FilterList.Operator.MUST_PASS_ONE,
          new PrefixFilter(b("s1")), new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("s01"))))), "one");
    });
    check("filter: on a Get", () -> {
      eq(Arrays.asList("f:b=vb2"), cells(t.get(new Get(b("s03")).setFilter(new ColumnPrefixFilter(b("b"))))),
          "get with filter");
    });
    gapCheck("filter: FuzzyRowFilter", () -> eq(Arrays.asList("s03"), frows(t, new FuzzyRowFilter(Arrays.asList(
        new Pair<>(b("s?3"), new byte[] {0, 1, 0})))), "rows s?3"));
    // Every cell of a row was written by one Put, so each has f:a's timestamp.
    gapCheck("filter: DependentColumnFilter", () -> eq(6, fcells(t, new DependentColumnFilter(F, b("a"))).size(),
        "cells with f:a's timestamp"));
    gapCheck("filter: ColumnValueFilter", () -> eq(Arrays.asList("s01/f:a=va0"), fcells(t, new ColumnValueFilter(F,
        b("a"), CompareOperator.EQUAL, b("va0"))), "only the matching cell"));
  }

  // ------------------------------------------------------------------------------------------------ meta

  void meta(Admin admin) {
    check("meta: RegionLocator.getAllRegionLocations", () -> {
      try (RegionLocator loc = conn.getRegionLocator(data)) {
        List<HRegionLocation> all = loc.getAllRegionLocations();
        eq(4, all.size(), "locations");
        eq("[, b, m, t]", all.stream().map(l -> s(l.getRegion().getStartKey())).collect(Collectors.toList())
            .toString(), "start keys");
        yes(all.stream().allMatch(l -> l.getServerName() != null), "every region has a server");
        eq(s(b("m")), s(loc.getRegionLocation(b("p1")).getRegion().getStartKey()), "region of p1");
        eq(4, loc.getStartKeys().length, "start keys");
      }
    });
    check("meta: scan hbase:meta rows of the table", () -> {
      try (Table meta = conn.getTable(TableName.META_TABLE_NAME)) {
        List<Result> rs = new ArrayList<>();
        try (ResultScanner sc = meta.getScanner(new Scan().addFamily(b("info")))) {
          for (Result r : sc) {
            byte[] ri = r.getValue(b("info"), b("regioninfo"));
            if (ri != null && RegionInfo.parseFrom(ri).getTable().equals(data)) rs.add(r);
          }
        }
        eq(4, rs.size(), "region rows");
        for (Result r : rs) {
          RegionInfo ri = RegionInfo.parseFrom(r.getValue(b("info"), b("regioninfo")));
          eq(data, ri.getTable(), "regioninfo table");
          yes(r.getValue(b("info"), b("server")) != null, "info:server");
          yes(r.getValue(b("info"), b("serverstartcode")) != null, "info:serverstartcode");
          eq("OPEN", val(r, b("info"), "state"), "info:state");
        }
      }
    });
    check("meta: table:state row read as the client reads it", () -> {
      try (Table meta = conn.getTable(TableName.META_TABLE_NAME)) {
        Result r = meta.get(new Get(data.getName()).addColumn(b("table"), b("state")));
        byte[] v = r.getValue(b("table"), b("state"));
        yes(v != null, "table:state present");
        org.apache.hadoop.hbase.client.TableState st = org.apache.hadoop.hbase.client.TableState.parseFrom(data, v);
        eq(org.apache.hadoop.hbase.client.TableState.State.ENABLED, st.getState(), "state");
      }
    });
  }

  // ------------------------------------------------------------------------------------------------ buffered + async

  void buffered() {
    check("BufferedMutator: 300 puts with a 4 KiB buffer, flush, close", () -> {
      try (BufferedMutator bm = conn.getBufferedMutator(new BufferedMutatorParams(data).writeBufferSize(4096))) {
        for (int i = 0; i < 300; i++) {
          bm.mutate(new Put(b(String.format("bm%04d", i))).addColumn(F, b("q"), b("v" + i)));
        }
        bm.flush();
        bm.mutate(new Delete(b("bm0000")));
      }
      try (Table t = conn.getTable(data)) {
        eq(299, rows(t, new Scan().withStartRow(b("bm")).withStopRow(b("bn"))).size(), "rows");
        eq("v299", val(t.get(new Get(b("bm0299"))), F, "q"), "last value");
      }
    });
  }

  void async() throws Exception {
    AsyncConnection ac;
    try {
      ac = ConnectionFactory.createAsyncConnection(conf).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      check("async: connect", () -> {
        throw e;
      });
      return;
    }
    try {
      AsyncTable<?> t = ac.getTable(data);
      check("async: put, get, exists", () -> {
        t.put(new Put(b("as1")).addColumn(F, b("q"), b("async"))).get(30, TimeUnit.SECONDS);
        eq("async", val(t.get(new Get(b("as1"))).get(30, TimeUnit.SECONDS), F, "q"), "get");
        yes(t.exists(new Get(b("as1"))).get(30, TimeUnit.SECONDS), "exists");
      });
      check("async: 200 concurrent puts then batchAll gets", () -> {
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          fs.add(t.put(new Put(b(String.format("ap%04d", i))).addColumn(F, b("q"), b("v" + i))));
        }
        CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        List<Row> gets = new ArrayList<>();
        for (int i = 0; i < 200; i += 50) gets.add(new Get(b(String.format("ap%04d", i))));
        List<Object> rs = t.batchAll(gets).get(30, TimeUnit.SECONDS);
        eq("v0 v50 v100 v150", rs.stream().map(r -> val((Result) r, F, "q")).collect(Collectors.joining(" ")), "values");
      });
      check("async: scanAll reversed with a filter and a limit", () -> {
        List<Result> rs = t.scanAll(new Scan().withStartRow(b("ap0099")).withStopRow(b("ap0050")).setReversed(true)
            .setLimit(3).setFilter(new PrefixFilter(b("ap00"))))
            .get(30, TimeUnit.SECONDS);
        eq("[ap0099, ap0098, ap0097]", rs.stream().map(r -> s(r.getRow())).collect(Collectors.toList()).toString(),
            "rows");
      });
      check("async: checkAndMutate and increment", () -> {
        yes(t.checkAndMutate(CheckAndMutate.newBuilder(b("as1")).ifEquals(F, b("q"), b("async"))
            .build(new Put(b("as1")).addColumn(F, b("q2"), b("x")))).get(30, TimeUnit.SECONDS).isSuccess(), "cas");
        eq(9L, t.incrementColumnValue(b("as2"), F, b("n"), 9).get(30, TimeUnit.SECONDS), "increment");
      });
      check("async: AsyncBufferedMutator", () -> {
        try (AsyncBufferedMutator bm = ac.getBufferedMutatorBuilder(data).setWriteBufferSize(2048).build()) {
          List<CompletableFuture<Void>> fs = new ArrayList<>();
          for (int i = 0; i < 100; i++) {
            fs.add(bm.mutate(new Put(b(String.format("ab%04d", i))).addColumn(F, b("q"), b("v" + i))));
          }
          bm.flush();
          CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        }
        eq(100, t.scanAll(new Scan().withStartRow(b("ab")).withStopRow(b("ac"))).get(30, TimeUnit.SECONDS).size(), "rows");
      });
      check("async: AsyncAdmin tableExists, listTableNames, getRegions", () -> {
        AsyncAdmin aa = ac.getAdmin();
        yes(aa.tableExists(data).get(30, TimeUnit.SECONDS), "exists");
        yes(aa.listTableNames(Pattern.compile("smoke_" + tag + "_.*"), false).get(30, TimeUnit.SECONDS).contains(data),
            "listed");
        eq(4, aa.getRegions(data).get(30, TimeUnit.SECONDS).size(), "regions");
        yes(aa.isTableEnabled(data).get(30, TimeUnit.SECONDS), "enabled");
      });
    } finally {
      ac.close();
    }
  }

  // ------------------------------------------------------------------------------------------------ split, flush, namespaces

  void splitAndFlush(Admin admin) {
    check("admin: flush a table", () -> admin.flush(data));
    check("admin: split at a point, data still readable", () -> {
      try (Table t = conn.getTable(split)) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < 50; i++) puts.add(new Put(b(String.format("k%03d", i))).addColumn(F, b("q"), b("v" + i)));
        t.put(puts);
        admin.split(split, b("k025"));
        long deadline = System.currentTimeMillis() + 30000;
        while (admin.getRegions(split).size() < 2 && System.currentTimeMillis() < deadline) Thread.sleep(200);
        List<RegionInfo> regions = admin.getRegions(split);
        eq(2, regions.size(), "regions after split");
        yes(regions.stream().anyMatch(r -> s(r.getStartKey()).equals("k025")), "a region starts at k025");
        eq(50, rows(t, new Scan()).size(), "rows after split");
        eq("v30", val(t.get(new Get(b("k030"))), F, "q"), "get after split");
        t.put(new Put(b("k049")).addColumn(F, b("q"), b("after")));
        eq("after", val(t.get(new Get(b("k049"))), F, "q"), "put after split");
      }
    });
  }

  void namespaces(Admin admin) {
    TableName inNs = TableName.valueOf(ns, "t");
    check("namespace: create, get, list", () -> {
      admin.createNamespace(NamespaceDescriptor.create(ns).build());
      eq(ns, admin.getNamespaceDescriptor(ns).getName(), "descriptor");
      List<String> names = Arrays.stream(admin.listNamespaceDescriptors()).map(NamespaceDescriptor::getName)
          .collect(Collectors.toList());
      yes(names.contains(ns) && names.contains("default") && names.contains("hbase"), "listed: " + names);
    });
    check("namespace: table inside it, listTableNamesByNamespace", () -> {
      admin.createTable(TableDescriptorBuilder.newBuilder(inNs).setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
          .build());
      eq(Arrays.asList(inNs), Arrays.asList(admin.listTableNamesByNamespace(ns)), "tables in namespace");
      try (Table t = conn.getTable(inNs)) {
        t.put(new Put(b("r")).addColumn(F, b("q"), b("ns")));
        eq("ns", val(t.get(new Get(b("r"))), F, "q"), "get");
      }
    });
    check("namespace: delete a non-empty one fails, then drop table and namespace", () -> {
      try {
        admin.deleteNamespace(ns);
        throw new AssertionError("deleted a namespace that holds a table");
      } catch (org.apache.hadoop.hbase.constraint.ConstraintException e) {
        // expected
      }
      admin.disableTable(inNs);
      admin.deleteTable(inNs);
      admin.deleteNamespace(ns);
      yes(Arrays.stream(admin.listNamespaceDescriptors()).noneMatch(d -> d.getName().equals(ns)), "gone");
    });
  }

  void cleanup(Admin admin) {
    check("admin: disable and delete the tables", () -> {
      for (TableName tn : new TableName[] {data, split}) {
        admin.disableTable(tn);
        admin.deleteTable(tn);
        yes(!admin.tableExists(tn), tn + " gone");
      }
    });
  }
}
