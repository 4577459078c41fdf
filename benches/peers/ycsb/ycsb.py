#!/usr/bin/env python3
"""YCSB helpers for benches/peers/ycsb.sh.

    ycsb.py java-run --output FILE.json --log FILE --meta JSON -- java ... site.ycsb.Client -t ...
        Runs one YCSB core JVM (the Java client through benches/peers/ycsb/src/hbclient/ycsb/HBase2Client.java),
        copies its output to --log and writes a result in the shape hbclient-bench's `ycsb run --output` writes.
    ycsb.py table DIR [--markdown]
        Reads every r<round>-<workload>-<tool>.json in DIR and prints medians, spread and verdicts per workload.

How the Java figures are measured:
- YCSB runs with -s and status.interval=1: a status line "... N sec: M operations; ..." every second (stderr).
  The binding warms up inside init() (hbclient.warmup.seconds) before any YCSB thread starts its operations, so
  YCSB counts 0 operations until then. The measured window runs from the first status line with operations > 0 to
  the last status line; its times are this script's monotonic clock at each line, its operations the difference of
  the two counts: throughput = ops / window. YCSB's own [OVERALL] Throughput (which also counts the connection set-up
  and warm-up time) is kept as ycsb_reported_throughput.
- Latencies: YCSB's own HdrHistogram per operation ([READ], 50th/95th/99thPercentileLatency(us), ...): every
  measured operation (warm-up operations bypass YCSB's measurement, they are the binding's own).
- CPU: utime+stime of the JVM from /proc/<pid>/stat at the window's two lines -> cpu_us_per_op; with
  HBCLIENT_BENCH_SERVER_PID (ycsb.sh sets it to the standalone HBase) the server's at the same lines ->
  server_cpu_us_per_op (hbclient-bench reads the same variable for its own phase).
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time

STATUS_RE = re.compile(r" (\d+) sec: (\d+) operations;")
METRIC_RE = re.compile(r"^\[([A-Z-]+)\], ([^,]+), ([-0-9.eE]+)\s*$")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


def java_run(argv):
    i = argv.index("--")
    opts, cmd = argv[:i], argv[i + 1:]
    o = dict(zip(opts[0::2], opts[1::2]))
    meta = json.loads(o.get("--meta", "{}"))
    server = os.environ.get("HBCLIENT_BENCH_SERVER_PID", "").strip()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            text=True, bufsize=1)
    first = last = None  # (monotonic, ops, cpu, server cpu)
    metrics = {}
    with open(o["--log"], "w") as log:
        for line in proc.stdout:
            now = time.monotonic()
            log.write(line)
            m = STATUS_RE.search(line)
            if m:
                ops = int(m.group(2))
                if ops > 0:
                    point = (now, ops, proc_cpu_s(proc.pid), proc_cpu_s(server) if server else None)
                    if first is None:
                        first = point
                    else:
                        last = point
                continue
            m = METRIC_RE.match(line.strip())
            if m:
                metrics.setdefault(m.group(1), {})[m.group(2).strip()] = float(m.group(3))
            elif "Exception" in line and "WARN" not in line:
                sys.stderr.write("ycsb: " + line)
    rc = proc.wait()
    err = None
    if rc != 0:
        err = f"YCSB exited with status {rc} (log: {o['--log']})"
    elif first is None or last is None:
        err = f"fewer than two status lines with operations (log: {o['--log']})"
    window = ops = 0
    cpu = server_cpu = None
    if first and last:
        window = last[0] - first[0]
        ops = last[1] - first[1]
        if first[2] is not None and last[2] is not None and ops > 0:
            cpu = (last[2] - first[2]) * 1e6 / ops
        if first[3] is not None and last[3] is not None and ops > 0:
            server_cpu = (last[3] - first[3]) * 1e6 / ops
    operations, errors, not_found = {}, 0, 0
    for name, m in metrics.items():
        if name in ("OVERALL", "CLEANUP") or name.endswith("-FAILED"):
            errors += int(metrics[name].get("Operations", 0)) if name.endswith("-FAILED") else 0
            continue
        errors += int(m.get("Return=ERROR", 0))
        not_found += int(m.get("Return=NOT_FOUND", 0))
        operations[name] = {
            "count": int(m.get("Operations", 0)),
            "mean_us": m.get("AverageLatency(us)"),
            "p50_us": m.get("50thPercentileLatency(us)"),
            "p95_us": m.get("95thPercentileLatency(us)"),
            "p99_us": m.get("99thPercentileLatency(us)"),
            "max_us": m.get("MaxLatency(us)"),
        }
    result = dict(meta)
    result.update({
        "tool": "java-ycsb",
        "measured_s": window,
        "ops": ops,
        "throughput": ops / window if window > 0 else 0.0,
        "ycsb_reported_throughput": metrics.get("OVERALL", {}).get("Throughput(ops/sec)"),
        "errors": errors,
        "not_found": not_found,
        "cpu_us_per_op": cpu,
        "server_cpu_us_per_op": server_cpu,
        "operations": operations,
        "error": err,
    })
    with open(o["--output"], "w") as f:
        json.dump(result, f, indent=2)
    print(f"java-ycsb workload{meta.get('workload')}: {result['throughput']:.0f} ops/s over {window:.1f} s, "
          f"{errors} errors" + "".join(f"; {k} p50 {v['p50_us']:.0f} p99 {v['p99_us']:.0f} us"
                                       for k, v in sorted(operations.items()) if v["p99_us"] is not None))
    if err:
        sys.exit(err)


def spread(values):
    return f"{statistics.median(values):,.0f} ({min(values):,.0f}–{max(values):,.0f})"


def table(argv):
    d = argv[0]
    runs = {}
    for path in sorted(glob.glob(os.path.join(d, "r*-*-*.json"))):
        m = re.match(r"r(\d+)-([a-f])-(hbclient|java)\.json$", os.path.basename(path))
        if not m:
            continue
        with open(path) as f:
            r = json.load(f)
        if r.get("error") or not r.get("throughput"):
            print(f"skipping {path}: {r.get('error') or 'no throughput'}", file=sys.stderr)
            continue
        runs.setdefault(m.group(2), {}).setdefault(m.group(3), {})[int(m.group(1))] = r
    print("| workload | hbclient ops/s median (min–max) | Java ops/s median (min–max) | ratio of medians "
          "(per-round min–max) | p50 / p99 µs hbclient vs Java, per operation | client CPU µs/op hbclient vs Java "
          "| server CPU µs/op hbclient vs Java | CPU predicts (a free client) | target (≥ 2×, lower p99) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for w in sorted(runs):
        h, j = runs[w].get("hbclient", {}), runs[w].get("java", {})
        if not h or not j:
            continue
        ht = [r["throughput"] for r in h.values()]
        jt = [r["throughput"] for r in j.values()]
        ratio = statistics.median(ht) / statistics.median(jt)
        paired = [h[k]["throughput"] / j[k]["throughput"] for k in sorted(set(h) & set(j))]
        lat, p99_better = [], True
        ops = sorted(set().union(*[r["operations"] for r in h.values()]))
        for op in ops:
            med = lambda rs, q: statistics.median(r["operations"][op][q] for r in rs.values()
                                                  if op in r["operations"] and r["operations"][op][q] is not None)
            try:
                hp50, hp99, jp50, jp99 = med(h, "p50_us"), med(h, "p99_us"), med(j, "p50_us"), med(j, "p99_us")
            except statistics.StatisticsError:
                continue
            p99_better &= hp99 < jp99
            lat.append(f"{op}: {hp50:,.0f} / {hp99:,.0f} vs {jp50:,.0f} / {jp99:,.0f}")
        cpu = lambda rs, k="cpu_us_per_op": statistics.median(r[k] for r in rs.values() if r.get(k))
        try:
            cpu_s = f"{cpu(h):.0f} vs {cpu(j):.0f}"
        except statistics.StatisticsError:
            cpu_s = "?"
        # On saturated cores the server shares, throughput ∝ 1 / (server + client CPU per op): the ratio
        # that predicts, and the most a client costing nothing would reach with the server's work per op
        # as measured under hbclient.
        try:
            srv_h, srv_j = cpu(h, "server_cpu_us_per_op"), cpu(j, "server_cpu_us_per_op")
            server_s = f"{srv_h:.0f} vs {srv_j:.0f}"
            bound_s = f"{(srv_j + cpu(j)) / (srv_h + cpu(h)):.2f}× (≤ {(srv_j + cpu(j)) / srv_h:.2f}×)"
        except (statistics.StatisticsError, KeyError):
            server_s = bound_s = "–"
        verdict = "met" if ratio >= 2.0 and p99_better else (
            "missed: " + ", ".join(x for x, bad in (("throughput < 2×", ratio < 2.0), ("p99 not lower", not p99_better))
                                   if bad))
        rounds = f" ({len(paired)} rounds)"
        print(f"| {w.upper()} | {spread(ht)} | {spread(jt)} | {ratio:.2f}× ({min(paired):.2f}–{max(paired):.2f})"
              f"{rounds} | {'; '.join(lat)} | {cpu_s} | {server_s} | {bound_s} | {verdict} |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "java-run":
        java_run(rest)
    elif cmd == "table":
        table(rest)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
