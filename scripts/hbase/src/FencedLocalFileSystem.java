// The local filesystem for the pseudo-distributed cluster (cluster.sh), with a WAL fence.
//
// Without it, a region server that was paused (SIGSTOP) past its ZooKeeper session timeout keeps its open WAL file
// after the master declared it dead and split that WAL. On SIGCONT it can still append and sync to the moved file and
// acknowledge writes, and those writes are lost (verify pause observed it in 2 of 3 runs). On HDFS the WAL split
// recovers the file's lease first, so the zombie's next sync fails. This class is a stand-in for that fence: every
// hflush/hsync of a file under a "WALs" directory first pushes the bytes to the OS, then checks that the path still
// names the same file (same inode). The master renames WALs/<server> to WALs/<server>-splitting before it splits,
// so after that the check fails, the sync throws an IOException, and the write is never acknowledged. A new WAL cannot be created
// either: WAL writers use createNonRecursive and the parent directory is gone.
//
// It stays a LocalFileSystem (HFileSystem's "instanceof LocalFileSystem" handling and FileSystem.getLocal still
// apply). cluster.sh selects it with fs.file.impl in core-site.xml and hbase-site.xml
// (HBASE_CLUSTER_WAL_FENCE=0 turns it off).
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.EnumSet;

import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

public class FencedLocalFileSystem extends LocalFileSystem {

  static boolean isWal(Path p) {
    String s = p.toUri().getPath();
    return s.contains("/WALs/") && !s.contains("-splitting/");
  }

  private FSDataOutputStream fence(Path p, FSDataOutputStream out) throws IOException {
    if (!isWal(p) || out.getWrappedStream() instanceof Fenced) return out;
    java.nio.file.Path local = pathToFile(p).toPath();
    Object key = Files.readAttributes(local, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
    if (key == null) return out;
    return new FSDataOutputStream(new Fenced(out, local, key), null, out.getPos());
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    return fence(f, super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress));
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    return fence(f, super.createNonRecursive(f, permission, overwrite, bufferSize, replication, blockSize, progress));
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path f, FsPermission permission, EnumSet<CreateFlag> flags,
      int bufferSize, short replication, long blockSize, Progressable progress) throws IOException {
    return fence(f, super.createNonRecursive(f, permission, flags, bufferSize, replication, blockSize, progress));
  }

  /** Passes everything through; hflush/hsync fail once the path no longer names the file this stream writes. */
  static final class Fenced extends OutputStream implements Syncable, StreamCapabilities {
    private final FSDataOutputStream out;
    private final java.nio.file.Path path;
    private final Object fileKey;
    private volatile boolean fenced;

    Fenced(FSDataOutputStream out, java.nio.file.Path path, Object fileKey) {
      this.out = out;
      this.path = path;
      this.fileKey = fileKey;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    // Flush first, check second: if the check passes, the rename (and so the split that reads the file) comes after
    // the bytes reached the OS, and the split sees them.
    @Override
    public void hflush() throws IOException {
      out.hflush();
      check();
    }

    @Override
    public void hsync() throws IOException {
      out.hsync();
      check();
    }

    // Hadoop 2.x's Syncable still declares the old sync() (gone in Hadoop 3): no @Override, so this compiles
    // against both (HBase 2.4.x is built on Hadoop 2.10).
    public void sync() throws IOException {
      hflush();
    }

    private void check() throws IOException {
      if (!fenced) {
        try {
          Object now = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
          if (fileKey.equals(now)) return;
        } catch (NoSuchFileException e) {
          // moved away
        }
        fenced = true;
      }
      // A plain IOException, like a failed HDFS sync: clients see an ordinary server-side IOException.
      throw new IOException("WAL fenced: " + path + " was moved away (the master is splitting it): refusing to"
          + " acknowledge edits written to it");
    }

    @Override
    public boolean hasCapability(String capability) {
      return out.hasCapability(capability);
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
