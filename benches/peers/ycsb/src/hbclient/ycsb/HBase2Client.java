package hbclient.ycsb;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.Utils;

/**
 * A YCSB binding for the HBase 2 Java client, so YCSB core (site.ycsb:core, which resolves from Maven Central, unlike
 * the published HBase bindings) can drive the Java client against the same server as hbclient-bench's YCSB runs.
 *
 * <p>It does what YCSB's own HBase bindings do on the paths the core workloads use: one {@link Connection} shared by
 * every YCSB thread, one {@link Table} per thread, Gets of the whole family (or the named columns), Puts applied
 * one by one (YCSB's default clientbuffering=false), Scans with caching set to the requested row count.
 *
 * <p>Properties: {@code columnfamily} (required), {@code hbase.zookeeper.quorum} (else hbase-site.xml on the
 * classpath), {@code hbclient.warmup.seconds} (default 0): the first thread to initialise runs unmeasured Gets and
 * Puts of existing records, from {@code threadcount} threads, before any thread starts its measured operations,
 * so the JIT and the connection are warm when YCSB starts counting, as hbclient-bench's own warm-up does.
 *
 * <p>{@code main("flush", TABLE)} flushes a table's memstores (used after loading).
 */
public class HBase2Client extends DB {
  private static final Object LOCK = new Object();
  private static Connection connection;
  private static int users;

  private byte[] family;
  private String tableName;
  private Table table;

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    String cf = p.getProperty("columnfamily");
    if (cf == null || cf.isEmpty()) {
      throw new DBException("the property columnfamily is required");
    }
    family = Bytes.toBytes(cf);
    try {
      synchronized (LOCK) {
        if (connection == null) {
          connection = ConnectionFactory.createConnection(configuration(p));
          warmUp(p);
        }
        users++;
      }
      tableName = p.getProperty("table", "usertable");
      table = connection.getTable(TableName.valueOf(tableName));
    } catch (IOException e) {
      throw new DBException(e);
    }
  }

  private static Configuration configuration(Properties p) {
    Configuration conf = HBaseConfiguration.create();
    String quorum = p.getProperty("hbase.zookeeper.quorum");
    if (quorum != null) {
      conf.set("hbase.zookeeper.quorum", quorum);
    }
    return conf;
  }

  /** Unmeasured reads and single-field writes of loaded records (keys named as CoreWorkload names them). */
  private void warmUp(Properties p) throws IOException {
    double seconds = Double.parseDouble(p.getProperty("hbclient.warmup.seconds", "0"));
    if (seconds <= 0) {
      return;
    }
    int threads = Integer.parseInt(p.getProperty("threadcount", "1"));
    long records = Long.parseLong(p.getProperty("recordcount", "1000"));
    TableName name = TableName.valueOf(p.getProperty("table", "usertable"));
    long until = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] workers = new Thread[threads];
    final IOException[] failure = new IOException[1];
    for (int i = 0; i < threads; i++) {
      workers[i] = new Thread(() -> {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        byte[] value = new byte[100];
        try (Table t = connection.getTable(name)) {
          while (System.nanoTime() < until) {
            byte[] row = Bytes.toBytes("user" + Utils.fnvhash64(rnd.nextLong(records)));
            if (rnd.nextBoolean()) {
              t.get(new Get(row).addFamily(family));
            } else {
              rnd.nextBytes(value);
              t.put(new Put(row).addColumn(family, Bytes.toBytes("field" + rnd.nextInt(10)), value));
            }
          }
        } catch (IOException e) {
          synchronized (failure) {
            failure[0] = e;
          }
        }
      }, "ycsb-warmup-" + i);
      workers[i].start();
    }
    for (Thread w : workers) {
      try {
        w.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted during warm-up", e);
      }
    }
    if (failure[0] != null) {
      throw failure[0];
    }
    System.err.println("hbclient.ycsb: warm-up done (" + seconds + " s, " + threads + " threads)");
  }

  @Override
  public void cleanup() throws DBException {
    try {
      if (table != null) {
        table.close();
      }
      synchronized (LOCK) {
        if (--users == 0 && connection != null) {
          connection.close();
          connection = null;
        }
      }
    } catch (IOException e) {
      throw new DBException(e);
    }
  }

  private Table table(String name) throws IOException {
    if (!name.equals(tableName)) {
      table.close();
      tableName = name;
      table = connection.getTable(TableName.valueOf(name));
    }
    return table;
  }

  private static void copyCells(Result r, Map<String, ByteIterator> into) {
    for (Cell c : r.rawCells()) {
      into.put(Bytes.toString(CellUtil.cloneQualifier(c)), new ByteArrayByteIterator(CellUtil.cloneValue(c)));
    }
  }

  @Override
  public Status read(String tbl, String key, Set<String> fields, Map<String, ByteIterator> result) {
    Get g = new Get(Bytes.toBytes(key));
    if (fields == null) {
      g.addFamily(family);
    } else {
      for (String f : fields) {
        g.addColumn(family, Bytes.toBytes(f));
      }
    }
    try {
      Result r = table(tbl).get(g);
      if (r.isEmpty()) {
        return Status.NOT_FOUND;
      }
      copyCells(r, result);
      return Status.OK;
    } catch (IOException e) {
      System.err.println("read " + key + ": " + e);
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String tbl, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    Scan s = new Scan().withStartRow(Bytes.toBytes(startkey));
    s.setCaching(recordcount);
    if (fields == null) {
      s.addFamily(family);
    } else {
      for (String f : fields) {
        s.addColumn(family, Bytes.toBytes(f));
      }
    }
    try (ResultScanner scanner = table(tbl).getScanner(s)) {
      int n = 0;
      for (Result r : scanner) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        copyCells(r, row);
        result.add(row);
        if (++n >= recordcount) {
          break;
        }
      }
      return Status.OK;
    } catch (IOException e) {
      System.err.println("scan " + startkey + ": " + e);
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String tbl, String key, Map<String, ByteIterator> values) {
    Put p = new Put(Bytes.toBytes(key));
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      p.addColumn(family, Bytes.toBytes(e.getKey()), e.getValue().toArray());
    }
    try {
      table(tbl).put(p);
      return Status.OK;
    } catch (IOException e) {
      System.err.println("update " + key + ": " + e);
      return Status.ERROR;
    }
  }

  @Override
  public Status insert(String tbl, String key, Map<String, ByteIterator> values) {
    return update(tbl, key, values);
  }

  @Override
  public Status delete(String tbl, String key) {
    try {
      table(tbl).delete(new Delete(Bytes.toBytes(key)));
      return Status.OK;
    } catch (IOException e) {
      System.err.println("delete " + key + ": " + e);
      return Status.ERROR;
    }
  }

  /** {@code flush TABLE [QUORUM]}: flush the table's memstores and wait a moment for it. */
  public static void main(String[] args) throws Exception {
    if (args.length < 2 || !args[0].equals("flush")) {
      System.err.println("usage: HBase2Client flush TABLE [ZK_QUORUM]");
      System.exit(2);
    }
    Properties p = new Properties();
    if (args.length > 2) {
      p.setProperty("hbase.zookeeper.quorum", args[2]);
    }
    try (Connection c = ConnectionFactory.createConnection(configuration(p)); Admin admin = c.getAdmin()) {
      admin.flush(TableName.valueOf(args[1]));
      TimeUnit.MILLISECONDS.sleep(500);
    }
  }
}
