#!/usr/bin/env python3
"""Groups `perf report --no-children --sort comm,dso,sym --stdio -g none` lines by thread and category."""
import re, sys
from collections import defaultdict
cats = [
    ("tokio timers (per-call timeout/sleep)", r"tokio::runtime::time|tokio::time::|timer|Sleep|wheel"),
    ("tracing spans (Instrumented)", r"tracing::|Instrumented"),
    ("semaphores (byte/queue bounds, mpsc permits)", r"semaphore|Semaphore|Acquire|add_permit"),
    ("tokio scheduler and wakers, oneshot, mpsc", r"tokio::runtime::|tokio::sync::oneshot|tokio::sync::mpsc|waker|Waker|tokio::sync::task|parking_lot|std::sys::sync|futex|tokio::task|tokio::loom|atomic_waker"),
    ("bench harness (caller loop, histograms, key gen)", r"hbclient_bench|hdrhistogram|rand::"),
    ("pending map / hashing", r"hashbrown|HashMap|BinaryHeap|sift|hash::"),
    ("codec/protobuf", r"prost|hbclient_proto|encode|decode|bytes::"),
    ("hbclient rpc/table/locate/metrics", r"hbclient::"),
    ("allocator", r"malloc|free|cfree|realloc|_int_|alloc::alloc|__rust_alloc|__rust_dealloc|tcache"),
    ("libc memcpy/memcmp etc", r"memcpy|memmove|memset|memcmp|__libc"),
]
threads = defaultdict(float); groups = defaultdict(float); top = []
client = sys.argv[1] if len(sys.argv) > 1 else "bench-client"
for line in open(sys.argv[2] if len(sys.argv) > 2 else "/dev/stdin", errors="replace"):
    m = re.match(r"\s+([\d.]+)%\s+(\S+)\s+(\S+)\s+\[(.)\]\s+(.*)$", line)
    if not m:
        continue
    pct, comm, dso, kind, sym = float(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5).strip()
    threads[comm] += pct
    if comm != client:
        continue
    top.append((pct, kind, sym))
    if kind == "k" or dso.startswith("[kernel"):
        groups["kernel (syscalls, TCP, epoll)"] += pct; continue
    for name, rx in cats:
        if re.search(rx, sym):
            groups[name] += pct; break
    else:
        groups["other"] += pct
print("## samples by thread name")
for t, p in sorted(threads.items(), key=lambda x: -x[1]):
    print(f"  {p:6.2f}%  {t}")
tot = sum(groups.values()) or 1
print(f"\n## client threads ({client}), grouped (relative %)")
for g, p in sorted(groups.items(), key=lambda x: -x[1]):
    print(f"  {100*p/tot:5.1f}%  {g}")
print(f"\n## client threads, top symbols (relative %)")
for pct, kind, sym in sorted(top, reverse=True)[:40]:
    print(f"  {100*pct/tot:6.2f}%  [{kind}] {sym[:150]}")
