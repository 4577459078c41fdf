// Hand-made Kerberos (GSSAPI) SASL exchange with an HBase RPC port, byte by byte, with no HBase client code:
// the steps a native client has to do, so the steps and bytes can be checked against a real server.
//
//   Probe sasl HOST PORT [QOP] [flags...]
//     QOP    auth | auth-int | auth-conf (default auth-conf): the layer this client picks
//     flags  securi     first send the 6-byte 'Securi' preamble on the same connection and print the answer
//            noempty    do not send the empty (u32 0) reply once the GSS context is established
//            shortuser  put the short name (no @REALM) in ConnectionHeader.user_info.effective_user
//            nouser     leave user_info out of the ConnectionHeader
//            service=NAME  ConnectionHeader service (default ClientMetaService; calls GetClusterId on it)
//
// Credentials: hbase.client.keytab.file / hbase.client.keytab.principal from the client conf dir (ProbeSecurity);
// the server principal is hbase/HOST (hbase@HOST as a host-based service). TLS is used when the client conf says
// hbase.client.netty.tls.enabled=true (trust: hbase.rpc.tls.truststore.location, a PEM CA file).
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.PrivilegedExceptionAction;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Arrays;
import java.util.List;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hbase.thirdparty.com.google.protobuf.UnknownFieldSet;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.MessageProp;
import org.ietf.jgss.Oid;

final class SaslWire {
  private SaslWire() {
  }

  static void run(String[] args) throws Exception {
    String host = args.length > 1 ? args[1] : "localhost";
    int port = args.length > 2 ? Integer.parseInt(args[2]) : Probe.RS_PORT;
    String qop = args.length > 3 ? args[3] : "auth-conf";
    List<String> flags = Arrays.asList(args).subList(Math.min(4, args.length), args.length);
    String service = "ClientMetaService";
    for (String f : flags) if (f.startsWith("service=")) service = f.substring(8);
    final String svc = service;

    Configuration conf = Probe.baseConf();
    String principal = conf.get("hbase.client.keytab.principal");
    String keytab = conf.get("hbase.client.keytab.file");
    if (principal == null || keytab == null) throw new IOException("no client keytab in the client conf dir");
    UserGroupInformation ugi = UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal, keytab);
    ugi.doAs((PrivilegedExceptionAction<Void>) () -> {
      exchange(conf, host, port, qop, flags, svc, principal);
      return null;
    });
  }

  static Socket open(Configuration conf, String host, int port) throws Exception {
    if (!conf.getBoolean("hbase.client.netty.tls.enabled", false)) return new Socket(host, port);
    KeyStore ts = KeyStore.getInstance(KeyStore.getDefaultType());
    ts.load(null, null);
    try (InputStream in = new FileInputStream(conf.get("hbase.rpc.tls.truststore.location"))) {
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ts.setCertificateEntry("ca" + i++, c);
      }
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ts);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(host, port);
    SSLParameters p = s.getSSLParameters();
    p.setEndpointIdentificationAlgorithm("HTTPS");
    s.setSSLParameters(p);
    s.startHandshake();
    System.out.println("TLS: " + s.getSession().getProtocol() + " " + s.getSession().getCipherSuite());
    return s;
  }

  static void writeLen(DataOutputStream out, byte[] b, String what) throws IOException {
    out.writeInt(b.length);
    out.write(b);
    out.flush();
    System.out.println("C->S " + what + ": u32 " + b.length + (b.length > 0 ? " | " + head(b) : ""));
  }

  static String head(byte[] b) {
    return b.length <= 48 ? Probe.hex(b) : Probe.hex(Arrays.copyOf(b, 48)) + "...";
  }

  /** One SASL reply: i32 status, then i32 len | bytes (0) or class + message (1). Returns the token or null. */
  static byte[] readSasl(DataInputStream in, String what) throws IOException {
    int status = in.readInt();
    int len = in.readInt();
    if (status != 0) {
      byte[] cls = new byte[len];
      in.readFully(cls);
      byte[] msg = new byte[in.readInt()];
      in.readFully(msg);
      System.out.println("S->C " + what + ": status " + status + " exception " + new String(cls, StandardCharsets.UTF_8)
          + ": " + new String(msg, StandardCharsets.UTF_8));
      throw new IOException("server error");
    }
    if (len == -88) {
      System.out.println("S->C " + what + ": status 0, SWITCH_TO_SIMPLE_AUTH (-88)");
      return null;
    }
    byte[] b = new byte[len];
    in.readFully(b);
    System.out.println("S->C " + what + ": status 0 | u32 " + len + " | " + head(b));
    return b;
  }

  static String layers(int bits) {
    StringBuilder sb = new StringBuilder();
    if ((bits & 1) != 0) sb.append("none(auth) ");
    if ((bits & 2) != 0) sb.append("integrity(auth-int) ");
    if ((bits & 4) != 0) sb.append("privacy(auth-conf) ");
    return sb.toString().trim();
  }

  static void exchange(Configuration conf, String host, int port, String qop, List<String> flags, String service,
      String principal) throws Exception {
    try (Socket s = open(conf, host, port)) {
      s.setSoTimeout(15000);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      DataInputStream in = new DataInputStream(s.getInputStream());
      if (flags.contains("securi")) {
        out.write("Securi".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        int len = in.readInt();
        byte[] body = new byte[len];
        in.readFully(body);
        ByteArrayInputStream bi = new ByteArrayInputStream(body);
        RPCProtos.ResponseHeader rh = RPCProtos.ResponseHeader.parseDelimitedFrom(bi);
        byte[] rest = bi.readAllBytes(); // varint length (one byte here) + SecurityPreamableResponse
        UnknownFieldSet msg = UnknownFieldSet.parseFrom(rest.length > 1 ? Arrays.copyOfRange(rest, 1, rest.length)
            : new byte[0]);
        System.out.println("S->C Securi reply: frame " + len + " bytes " + Probe.hex(body) + " | header "
            + rh.toString().replace("\n", " ").trim() + " | message " + msg.toString().replace("\n", " ").trim());
      }
      byte[] pre = { 'H', 'B', 'a', 's', 0, 0x51 };
      out.write(pre);
      System.out.println("C->S preamble " + Probe.hex(pre));

      GSSManager mgr = GSSManager.getInstance();
      GSSName server = mgr.createName("hbase@" + host.toLowerCase(), GSSName.NT_HOSTBASED_SERVICE);
      GSSContext ctx = mgr.createContext(server, new Oid("1.2.840.113554.1.2.2"), null, GSSContext.DEFAULT_LIFETIME);
      ctx.requestMutualAuth(true);
      ctx.requestConf(true);
      ctx.requestInteg(true);
      byte[] tok = ctx.initSecContext(new byte[0], 0, 0);
      writeLen(out, tok, "initial GSS token (AP-REQ)");
      int round = 0;
      while (!ctx.isEstablished()) {
        byte[] ch = readSasl(in, "challenge " + (++round));
        if (ch == null) return;
        tok = ctx.initSecContext(ch, 0, ch.length);
        if (tok != null) writeLen(out, tok, "GSS token");
      }
      System.out.println("GSS context established after " + round + " challenge(s): mutual=" + ctx.getMutualAuthState()
          + " conf=" + ctx.getConfState() + " integ=" + ctx.getIntegState() + " src=" + ctx.getSrcName()
          + " target=" + ctx.getTargName());
      if (tok == null || tok.length == 0) {
        if (flags.contains("noempty")) {
          System.out.println("C->S (skipping the empty reply, as asked)");
        } else {
          writeLen(out, new byte[0], "empty reply (context complete)");
        }
      }
      byte[] wrapped = readSasl(in, "security-layer offer");
      MessageProp mp = new MessageProp(0, false);
      byte[] offer = ctx.unwrap(wrapped, 0, wrapped.length, mp);
      int bits = offer[0] & 0xff;
      int maxBuf = ((offer[1] & 0xff) << 16) | ((offer[2] & 0xff) << 8) | (offer[3] & 0xff);
      System.out.println("  unwrapped offer (" + offer.length + " bytes, wrapped with conf=" + mp.getPrivacy() + "): "
          + Probe.hex(offer) + " = layers {" + layers(bits) + "} max buffer " + maxBuf);
      int want = qop.equals("auth") ? 1 : qop.equals("auth-int") ? 2 : 4;
      if ((bits & want) == 0) {
        System.out.println("  server does not offer " + qop + ": no common protection level (stopping)");
        return;
      }
      byte[] reply = { (byte) want, 0, 0, 0 };
      if (want != 1) {
        reply[1] = (byte) 0x01; // 65536: what the JDK's SASL client would accept as its own buffer
      }
      byte[] rw = ctx.wrap(reply, 0, reply.length, new MessageProp(0, false));
      writeLen(out, rw, "chosen layer " + Probe.hex(reply) + " (" + layers(want) + "), wrapped without conf");
      s.setSoTimeout(1500);
      try {
        int b = in.read();
        System.out.println("S->C after the layer choice: unexpected byte " + b);
      } catch (SocketTimeoutException e) {
        System.out.println("S->C after the layer choice: nothing within 1.5 s (no status frame), as expected");
      }
      s.setSoTimeout(15000);
      boolean wrap = want != 1;

      RPCProtos.ConnectionHeader.Builder chb = RPCProtos.ConnectionHeader.newBuilder().setServiceName(service);
      if (!flags.contains("nouser")) {
        String u = flags.contains("shortuser") ? principal.replaceAll("@.*", "") : principal;
        chb.setUserInfo(RPCProtos.UserInformation.newBuilder().setEffectiveUser(u));
      }
      byte[] chBytes = chb.build().toByteArray();
      ByteArrayOutputStream chunk = new ByteArrayOutputStream();
      new DataOutputStream(chunk).writeInt(chBytes.length);
      chunk.write(chBytes);
      send(ctx, out, chunk.toByteArray(), wrap, want == 4, "ConnectionHeader " + chb.build().toString()
          .replace("\n", " ").trim());

      ByteArrayOutputStream body = new ByteArrayOutputStream();
      RPCProtos.RequestHeader.newBuilder().setCallId(1).setMethodName("GetClusterId").setRequestParam(true).build()
          .writeDelimitedTo(body);
      // RegistryProtos is HBase 2.5+: by name, so this compiles against 2.4 too.
      Probe.registryMessage("GetClusterIdRequest").writeDelimitedTo(body);
      ByteArrayOutputStream call = new ByteArrayOutputStream();
      new DataOutputStream(call).writeInt(body.size());
      call.write(body.toByteArray());
      send(ctx, out, call.toByteArray(), wrap, want == 4, "call GetClusterId");

      byte[] frame;
      if (wrap) {
        int len = in.readInt();
        byte[] w = new byte[len];
        in.readFully(w);
        MessageProp rp = new MessageProp(0, false);
        frame = ctx.unwrap(w, 0, w.length, rp);
        System.out.println("S->C u32 " + len + " wrapped (conf=" + rp.getPrivacy() + ") -> " + frame.length
            + " bytes: " + head(frame));
      } else {
        int len = in.readInt();
        byte[] b = new byte[len];
        in.readFully(b);
        frame = new byte[len + 4];
        System.arraycopy(b, 0, frame, 4, len);
        frame[0] = (byte) (len >>> 24);
        frame[1] = (byte) (len >>> 16);
        frame[2] = (byte) (len >>> 8);
        frame[3] = (byte) len;
        System.out.println("S->C plain frame: " + head(frame));
      }
      ByteArrayInputStream bi = new ByteArrayInputStream(frame, 4, frame.length - 4);
      RPCProtos.ResponseHeader rh = RPCProtos.ResponseHeader.parseDelimitedFrom(bi);
      System.out.println("  ResponseHeader: " + rh.toString().replace("\n", " ").trim());
      if (!rh.hasException()) {
        Object r = Probe.registryMessage("GetClusterIdResponse").getParserForType().parseDelimitedFrom(bi);
        System.out.println("  GetClusterIdResponse: " + r.toString().replace("\n", " ").trim());
        System.out.println("OK: negotiated " + layers(want) + " with " + host + ":" + port);
      }
    }
  }

  static void send(GSSContext ctx, DataOutputStream out, byte[] chunk, boolean wrap, boolean conf, String what)
      throws Exception {
    if (!wrap) {
      out.write(chunk);
      out.flush();
      System.out.println("C->S " + what + ": plain " + head(chunk));
      return;
    }
    byte[] w = ctx.wrap(chunk, 0, chunk.length, new MessageProp(0, conf));
    writeLen(out, w, what + " (" + chunk.length + " bytes, wrapped conf=" + conf + ")");
  }
}
