// Small admin helper for benches/peers (runs on the PE classpath, which contains hbase-client):
//   PeerAdmin flush TABLE     flush the table's memstores to HFiles (before read phases, so every tool reads the same files)
//   PeerAdmin exists TABLE    exit 0 if the table exists, 3 if not
//   PeerAdmin regions TABLE   print the number of regions
//   PeerAdmin drop TABLE      disable and delete the table if it exists
//   PeerAdmin settle TABLE    flush, major-compact, and wait until no compaction runs: one HFile per region, a cold
//                             block cache, the same starting state for every tool's read phase
// hbase-site.xml (hbase.zookeeper.quorum) comes from the classpath.
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

public class PeerAdmin {
  public static void main(String[] a) throws Exception {
    if (a.length != 2) {
      System.err.println("usage: PeerAdmin flush|settle|exists|regions|drop TABLE");
      System.exit(2);
    }
    TableName tn = TableName.valueOf(a[1]);
    int rc = 0;
    try (Connection conn = ConnectionFactory.createConnection(HBaseConfiguration.create());
        Admin admin = conn.getAdmin()) {
      switch (a[0]) {
        case "flush":
          long t0 = System.nanoTime();
          admin.flush(tn);
          System.out.printf("flushed %s in %.2f s%n", tn, (System.nanoTime() - t0) / 1e9);
          break;
        case "settle":
          long s0 = System.nanoTime();
          admin.flush(tn);
          admin.majorCompact(tn);
          Thread.sleep(500);
          long deadline = System.nanoTime() + 600_000_000_000L;
          while (admin.getCompactionState(tn) != org.apache.hadoop.hbase.client.CompactionState.NONE) {
            if (System.nanoTime() > deadline) throw new RuntimeException("compaction still running after 600 s");
            Thread.sleep(200);
          }
          System.out.printf("settled %s (flush + major compaction) in %.2f s%n", tn, (System.nanoTime() - s0) / 1e9);
          break;
        case "drop":
          if (admin.tableExists(tn)) {
            if (admin.isTableEnabled(tn)) admin.disableTable(tn);
            admin.deleteTable(tn);
            System.out.println("dropped " + tn);
          }
          break;
        case "exists":
          rc = admin.tableExists(tn) ? 0 : 3;
          break;
        case "regions":
          System.out.println(admin.getRegions(tn).size());
          break;
        default:
          System.err.println("unknown command " + a[0]);
          rc = 2;
      }
    }
    System.exit(rc);
  }
}
