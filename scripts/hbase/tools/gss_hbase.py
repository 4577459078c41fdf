#!/usr/bin/env python3
"""Kerberos SASL exchange with an HBase RPC port through MIT libgssapi_krb5 (ctypes): what a native client does.

  KRB5_CONFIG=... KRB5CCNAME=FILE:... python3 scripts/hbase/tools/gss_hbase.py HOST PORT [auth|auth-int|auth-conf]
  KRB5_CONFIG=... KRB5CCNAME=FILE:/tmp/empty KRB5_CLIENT_KTNAME=... python3 ... (initial creds from the keytab)

No TLS (use a --security kerberos server). Prints every step. It ends with a GetClusterId call on
ClientMetaService; the ConnectionHeader's effective_user is the full principal from the credential.
Only the standard library and libgssapi_krb5.so.2 (Debian package libgssapi-krb5-2) are needed.
"""
import ctypes as C
import socket
import struct
import sys

lib = C.CDLL("libgssapi_krb5.so.2")
OM = C.c_uint32


class Buf(C.Structure):
    _fields_ = [("length", C.c_size_t), ("value", C.c_void_p)]


class Oid(C.Structure):
    _fields_ = [("length", OM), ("elements", C.c_void_p)]


MUTUAL, REPLAY, SEQUENCE, CONF, INTEG = 2, 4, 8, 16, 32
CONTINUE_NEEDED = 1
NT_HOSTBASED = C.c_void_p.in_dll(lib, "GSS_C_NT_HOSTBASED_SERVICE")
KRB5_MECH = Oid(9, C.cast(C.c_char_p(b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02"), C.c_void_p))


def status_text(major, minor):
    out = []
    for code, kind in ((major, 1), (minor, 2)):
        ctx = OM(0)
        while True:
            m, b = OM(0), Buf()
            lib.gss_display_status(C.byref(m), OM(code), C.c_int(kind), None, C.byref(ctx), C.byref(b))
            out.append(C.string_at(b.value, b.length).decode())
            lib.gss_release_buffer(C.byref(m), C.byref(b))
            if ctx.value == 0:
                break
    return "; ".join(out)


def check(major, minor, what):
    if major & 0xFFFF0000:
        raise SystemExit("%s failed: major=0x%x minor=%d: %s" % (what, major, minor.value,
                                                                 status_text(major, minor.value)))


def take(b):
    data = C.string_at(b.value, b.length) if b.length else b""
    m = OM(0)
    lib.gss_release_buffer(C.byref(m), C.byref(b))
    return data


def recv_exact(s, n):
    out = b""
    while len(out) < n:
        d = s.recv(n - len(out))
        if not d:
            raise SystemExit("server closed the connection after %d of %d bytes" % (len(out), n))
        out += d
    return out


def read_sasl(s, what):
    status, ln = struct.unpack(">ii", recv_exact(s, 8))
    if status != 0:
        cls = recv_exact(s, ln).decode()
        (ml,) = struct.unpack(">i", recv_exact(s, 4))
        raise SystemExit("S->C %s: error %s: %s" % (what, cls, recv_exact(s, ml).decode()))
    if ln == -88:
        raise SystemExit("S->C %s: SWITCH_TO_SIMPLE_AUTH" % what)
    tok = recv_exact(s, ln)
    print("S->C %s: status 0 | u32 %d | %s" % (what, ln, tok[:24].hex()))
    return tok


def varint(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def pb_bytes(num, payload):
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    qop = sys.argv[3] if len(sys.argv) > 3 else "auth-conf"
    minor = OM(0)
    name = C.c_void_p()
    svc = ("hbase@" + host).encode()
    nb = Buf(len(svc), C.cast(C.c_char_p(svc), C.c_void_p))
    check(lib.gss_import_name(C.byref(minor), C.byref(nb), NT_HOSTBASED, C.byref(name)), minor, "gss_import_name")

    s = socket.create_connection((host, port), timeout=15)
    s.sendall(b"HBas\x00\x51")
    ctx = C.c_void_p()
    flags = MUTUAL | CONF | INTEG | (SEQUENCE if qop != "auth" else 0)
    inp = None
    rounds = 0
    while True:
        out, ret_flags = Buf(), OM(0)
        major = lib.gss_init_sec_context(C.byref(minor), None, C.byref(ctx), name, C.byref(KRB5_MECH), OM(flags),
                                         OM(0), None, C.byref(inp) if inp else None, None, C.byref(out),
                                         C.byref(ret_flags), None)
        check(major, minor, "gss_init_sec_context")
        tok = take(out)
        if tok or not (major & CONTINUE_NEEDED):
            # Once the context is complete with no output token, HBase still expects an empty reply (u32 0).
            s.sendall(struct.pack(">I", len(tok)) + tok)
            print("C->S GSS token: u32 %d%s" % (len(tok), " | " + tok[:24].hex() if tok else " (empty reply)"))
        if not (major & CONTINUE_NEEDED):
            break
        rounds += 1
        ch = read_sasl(s, "challenge %d" % rounds)
        inp = Buf(len(ch), C.cast(C.c_char_p(ch), C.c_void_p))
    src = C.c_void_p()
    check(lib.gss_inquire_context(C.byref(minor), ctx, C.byref(src), None, None, None, None, None, None), minor,
          "gss_inquire_context")
    nbuf = Buf()
    check(lib.gss_display_name(C.byref(minor), src, C.byref(nbuf), None), minor, "gss_display_name")
    principal = take(nbuf)
    print("context established: flags=0x%x client=%s" % (ret_flags.value, principal.decode()))

    wrapped = read_sasl(s, "security-layer offer")
    ib, ob, conf = Buf(len(wrapped), C.cast(C.c_char_p(wrapped), C.c_void_p)), Buf(), C.c_int(0)
    check(lib.gss_unwrap(C.byref(minor), ctx, C.byref(ib), C.byref(ob), C.byref(conf), None), minor, "gss_unwrap")
    offer = take(ob)
    print("  offer %s: layers bits=%d max buffer %d (wrapped with conf=%d)" % (
        offer.hex(), offer[0], int.from_bytes(offer[1:4], "big"), conf.value))
    want = {"auth": 1, "auth-int": 2, "auth-conf": 4}[qop]
    if not offer[0] & want:
        raise SystemExit("no common protection level: server offers bits %d, client wants %s" % (offer[0], qop))
    choice = bytes([want]) + ((0).to_bytes(3, "big") if want == 1 else (65536).to_bytes(3, "big"))

    def wrap(data, use_conf):
        ib, ob = Buf(len(data), C.cast(C.c_char_p(data), C.c_void_p)), Buf()
        check(lib.gss_wrap(C.byref(minor), ctx, C.c_int(1 if use_conf else 0), OM(0), C.byref(ib), None, C.byref(ob)),
              minor, "gss_wrap")
        return take(ob)

    w = wrap(choice, False)
    s.sendall(struct.pack(">I", len(w)) + w)
    print("C->S chosen layer %s, wrapped: u32 %d" % (choice.hex(), len(w)))

    header = pb_bytes(1, pb_bytes(1, principal)) + pb_bytes(2, b"ClientMetaService")
    call = varint(len(b"\x08\x01\x1a\x0cGetClusterId\x20\x01")) + b"\x08\x01\x1a\x0cGetClusterId\x20\x01" + varint(0)
    for what, chunk in (("ConnectionHeader", struct.pack(">I", len(header)) + header),
                        ("GetClusterId call", struct.pack(">I", len(call)) + call)):
        if want == 1:
            s.sendall(chunk)
        else:
            w = wrap(chunk, want == 4)
            s.sendall(struct.pack(">I", len(w)) + w)
        print("C->S %s (%d bytes%s)" % (what, len(chunk), ", wrapped" if want != 1 else ""))
    if want == 1:
        (ln,) = struct.unpack(">I", recv_exact(s, 4))
        frame = struct.pack(">I", ln) + recv_exact(s, ln)
    else:
        (ln,) = struct.unpack(">I", recv_exact(s, 4))
        tok = recv_exact(s, ln)
        ib, ob = Buf(len(tok), C.cast(C.c_char_p(tok), C.c_void_p)), Buf()
        check(lib.gss_unwrap(C.byref(minor), ctx, C.byref(ib), C.byref(ob), C.byref(conf), None), minor, "gss_unwrap")
        frame = take(ob)
        print("S->C wrapped response u32 %d (conf=%d) -> %d bytes" % (ln, conf.value, len(frame)))
    print("  response frame: %s" % frame.hex())
    idx = frame.find(b"\x0a\x24")
    if idx > 0:
        print("OK: cluster id %s via MIT GSSAPI, %s" % (frame[idx + 2:idx + 38].decode(), qop))
    else:
        print("  (no cluster id in the response: printable %r)" % frame)


if __name__ == "__main__":
    main()
