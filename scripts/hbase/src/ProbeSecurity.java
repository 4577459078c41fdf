// Client-side security settings for Probe when hbase.sh runs a secured HBase (--security ...).
//
// hbase.sh passes -Dprobe.client.conf=<run>/client-conf (the directory `start` prints as client_conf_dir) and, for
// Kerberos, -Djava.security.krb5.conf=<that dir>/krb5.conf. The directory's core-site.xml and hbase-site.xml are added
// to every Probe configuration, so the probe is exactly a Java client that was only given that directory.
// -Dprobe.set.<key>=<value> overrides one key (e.g. -Dprobe.set.hbase.rpc.protection=integrity).
import java.io.File;
import java.io.IOException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.security.provider.SaslClientAuthenticationProviders;
import org.apache.hadoop.security.UserGroupInformation;

final class ProbeSecurity {
  private ProbeSecurity() {
  }

  static final String CONF_DIR = System.getProperty("probe.client.conf");
  private static boolean ugiConfigured;

  static boolean enabled() {
    return CONF_DIR != null && !CONF_DIR.isEmpty();
  }

  /** Adds the client configuration directory (and probe.set.* overrides) to c. */
  static void apply(Configuration c) {
    if (!enabled()) return;
    for (String f : new String[] { "core-site.xml", "hbase-site.xml" }) {
      File file = new File(CONF_DIR, f);
      if (file.isFile()) c.addResource(new Path(file.getAbsolutePath()));
    }
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("probe.set.")) c.set(name.substring("probe.set.".length()), System.getProperty(name));
    }
    if ("kerberos".equalsIgnoreCase(c.get("hbase.security.authentication"))) {
      configureUgi(c);
    }
  }

  /**
   * Hadoop's UserGroupInformation reads its own static configuration (core-site.xml), not the one handed to
   * ConnectionFactory: give it ours once. ConnectionFactory.createConnection then logs in from
   * hbase.client.keytab.file / hbase.client.keytab.principal (AuthUtil.loginClient).
   *
   * Also works around a 2.6.4 client bug: SaslClientAuthenticationProviders is a JVM-wide singleton built from the
   * first configuration that asks for it. With the RPC registry, the first asker is the cluster-id fetch, which runs
   * with a copy of the configuration forced to hbase.security.authentication=simple, so every later connection in
   * that JVM picks SIMPLE and fails with "SimpleSaslClientAuthenticationProvider returned a null SaslClient".
   * Building the singleton here, from the Kerberos configuration, avoids it.
   */
  private static synchronized void configureUgi(Configuration c) {
    if (ugiConfigured) return;
    UserGroupInformation.setConfiguration(c);
    SaslClientAuthenticationProviders.getInstance(c);
    ugiConfigured = true;
  }

  /** One line describing the client side, for the probe's output. */
  static String describe(Configuration c) {
    if (!enabled()) return "security=none";
    StringBuilder sb = new StringBuilder();
    sb.append("auth=").append(c.get("hbase.security.authentication", "simple"));
    if ("kerberos".equalsIgnoreCase(c.get("hbase.security.authentication"))) {
      sb.append(" protection=").append(c.get("hbase.rpc.protection", "authentication"));
      try {
        sb.append(" user=").append(UserGroupInformation.getCurrentUser().getUserName());
      } catch (IOException e) {
        sb.append(" user=?");
      }
    }
    sb.append(" tls=").append(c.getBoolean("hbase.client.netty.tls.enabled", false));
    return sb.toString();
  }
}
