#!/usr/bin/env python3
"""Raw-socket look at what a (secured) HBase RPC port answers to a few openings. No dependencies.

  python3 scripts/hbase/tools/rpc_bytes.py simple   HOST PORT   'HBas' 00 50 + ConnectionHeader + GetClusterId call
  python3 scripts/hbase/tools/rpc_bytes.py kerberos HOST PORT   'HBas' 00 51 + a garbage 'GSS token'
  python3 scripts/hbase/tools/rpc_bytes.py securi   HOST PORT   the 6-byte 'Securi' preamble (HBASE-28321)
  python3 scripts/hbase/tools/rpc_bytes.py raw      HOST PORT HEX   any bytes

Prints everything the server sends back (hex + printable), and decodes response frames
(int32 length, varint-delimited ResponseHeader, varint-delimited message) with a tiny protobuf reader.
"""
import socket
import struct
import sys


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field_bytes(num, payload):
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def read_varint(b, i):
    shift = n = 0
    while True:
        x = b[i]
        i += 1
        n |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return n, i


def pb_fields(b):
    """Flat list of (field, wire type, value); length-delimited values stay bytes."""
    out, i = [], 0
    while i < len(b):
        key, i = read_varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = read_varint(b, i)
        elif wt == 2:
            ln, i = read_varint(b, i)
            v, i = b[i:i + ln], i + ln
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.append((f, wt, v))
    return out


def show_pb(b, depth=0):
    pad = "    " * (depth + 2)
    try:
        fields = pb_fields(b)
    except Exception:
        print(pad + "(not protobuf) %r" % b)
        return
    for f, wt, v in fields:
        if wt == 2:
            txt = v.decode("utf-8", "replace")
            printable = all(32 <= c < 127 or c in (9, 10) for c in v)
            print(pad + "field %d (len %d): %s" % (f, len(v), repr(txt) if printable and v else v.hex()))
            if not printable and v:
                show_pb(v, depth + 1)
        else:
            print(pad + "field %d: %r" % (f, v))


def printable(b):
    return "".join(chr(c) if 32 <= c < 127 else "." for c in b)


def exchange(host, port, payload, wait=5.0):
    s = socket.create_connection((host, port), timeout=wait)
    s.sendall(payload)
    got = b""
    how = "server closed the connection"
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += d
    except socket.timeout:
        how = "no more data within %.0f s; connection still open" % wait
    except OSError as e:
        how = "read ended: %s" % e
    s.close()
    print("  sent %d bytes: %s" % (len(payload), payload.hex()))
    print("  got  %d bytes (%s): %s" % (len(got), how, got.hex()))
    if got:
        print("  ascii: %s" % printable(got))
    return got


def decode_frames(got):
    i = 0
    while i + 4 <= len(got):
        (ln,) = struct.unpack(">i", got[i:i + 4])
        if ln < 0 or i + 4 + ln > len(got):
            print("  int32 at %d = %d (not a whole frame)" % (i, ln))
            return
        body = got[i + 4:i + 4 + ln]
        print("  frame of %d bytes:" % ln)
        hl, j = read_varint(body, 0)
        print("    ResponseHeader (%d bytes): %s" % (hl, body[j:j + hl].hex()))
        show_pb(body[j:j + hl])
        rest = body[j + hl:]
        if rest:
            ml, k = read_varint(rest, 0)
            print("    message (%d bytes): %s" % (ml, rest[k:k + ml].hex()))
            show_pb(rest[k:k + ml])
        i += 4 + ln


def sasl_reply(got):
    """i32 status, then i32 len + token (status 0) or two length-prefixed strings (status 1)."""
    if len(got) < 8:
        return
    st, ln = struct.unpack(">ii", got[:8])
    print("  as SASL reply: status=%d next_int32=%d" % (st, ln))
    if st == 1:
        cls = got[8:8 + ln].decode("utf-8", "replace")
        (ml,) = struct.unpack(">i", got[8 + ln:12 + ln])
        msg = got[12 + ln:12 + ln + ml].decode("utf-8", "replace")
        print("    exception class: %s\n    message: %s" % (cls, msg))


def main():
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "simple":
        ch = field_bytes(1, field_bytes(1, b"rpcbytes")) + field_bytes(2, b"ClientMetaService")
        call = field_varint(1, 1) + field_bytes(3, b"GetClusterId") + field_varint(4, 1)
        call_frame = varint(len(call)) + call + varint(0)
        payload = b"HBas\x00\x50" + struct.pack(">i", len(ch)) + ch + struct.pack(">i", len(call_frame)) + call_frame
        got = exchange(host, port, payload)
        decode_frames(got)
    elif mode == "kerberos":
        got = exchange(host, port, b"HBas\x00\x51" + struct.pack(">i", 4) + b"junk")
        sasl_reply(got)
    elif mode == "securi":
        got = exchange(host, port, b"Securi")
        decode_frames(got)
    elif mode == "raw":
        got = exchange(host, port, bytes.fromhex(sys.argv[4]))
        decode_frames(got)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
