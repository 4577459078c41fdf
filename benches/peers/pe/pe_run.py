#!/usr/bin/env python3
"""Run one PerformanceEvaluation (PE) JVM, watch its output, and write a JSON result in the shape of
hbclient-bench's key fields. Called by benches/peers/pe.sh (which builds the java command line).

    pe_run.py --log FILE --output FILE.json --meta JSON -- java ... org.apache.hadoop.hbase.PerformanceEvaluation ...

What is measured, and how:
- The JVM is started directly (its pid is ours), its stdout+stderr are read line by line and copied to --log.
- The measured phase runs from the first "Timed test starting in thread" line (the first client thread has done
  its set-up and starts its timed loop) to the "Summary of timings" line (every client thread finished).
  Wall time of that span (our monotonic clock) -> elapsed_s and ops_per_sec = total rows / elapsed_s.
  PE's own figure (total rows / AVERAGE client duration) is kept as pe_reported_tps.
- CPU: utime+stime of the whole JVM from /proc/<pid>/stat at both markers (clock ticks, 10 ms) -> the
  measured phase's process_cpu_us_per_op. The JVM's total CPU including start-up, JIT warm-up, connection and
  meta look-up comes from wait4() rusage -> whole_process_cpu_us_per_op. Peak RSS: VmHWM at the end marker.
- Latency: PE (with --latency) prints, per client thread, a dropwizard histogram (UniformReservoir, exact for
  fewer than 512k samples): mean, min, max, stdDev, 50th, 75th, 95th, 99th, 99.9th ... in microseconds.
  PE prints no percentile over all threads, so p50/p99/... here are the per-thread values averaged, weighted
  by each thread's sample count (an approximation of the pooled percentile; threads run the same loop);
  mean is exact (weighted), min/max are the extremes. Per-thread figures are kept under result.per_client.
"""
import json
import os
import re
import subprocess
import sys
import time

FLOAT = r"([0-9.]+(?:[eE][-+]?[0-9]+)?)"
LAT_RE = re.compile(r"\[(TestClient-\d+)\] .*Latency \(us\) : (.*)$")
NUM_RE = re.compile(r"\[(TestClient-\d+)\] .*Num measures \(latency\) : (\d+)")
FIN_RE = re.compile(r"\[(TestClient-\d+)\] .*Finished \1 in (\d+)ms over (\d+) rows")
TPS_RE = re.compile(r"\[ Avg TPS/QPS\]\s+(\d+)")
AVG_LAT_RE = re.compile(r"\[ Avg latency \(us\)\]\s+(\d+)")
START_MARK = "Timed test starting in thread"
END_MARK = "Summary of timings"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # after the ")" : state(0) ppid(1) ... utime is field 14 overall -> index 11 here, stime index 12
        return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


def vm_hwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def shorten_classpath(cmd, cp_file):
    """The -cp value is ~185 jars: write it as "<conf dir>:$(cat <cp file>)" instead."""
    out = list(cmd)
    for i, a in enumerate(out[:-1]):
        if a in ("-cp", "-classpath") and cp_file:
            try:
                jars = open(cp_file).read().strip()
            except OSError:
                break
            out[i + 1] = out[i + 1].replace(jars, f"$(cat {cp_file})")
    return out


def parse_latency(s):
    out = {}
    for part in s.split(","):
        if "=" in part:
            k, v = part.strip().split("=", 1)
            try:
                out[k.strip()] = float(v)
            except ValueError:
                pass
    return out


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: pe_run.py --log FILE --output FILE --meta JSON -- CMD...")
    i = argv.index("--")
    opts, cmd = argv[:i], argv[i + 1:]
    o = dict(zip(opts[0::2], opts[1::2]))
    log_path, out_path = o["--log"], o.get("--output")
    meta = json.loads(o.get("--meta", "{}"))
    quiet = o.get("--quiet", "0") == "1"

    started = time.time()
    loadavg = open("/proc/loadavg").read().strip()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            text=True, bufsize=1)
    pid = proc.pid
    t_start = t_end = None
    cpu_start = cpu_end = None
    hwm = None
    lat, nmeas, fin = {}, {}, {}
    pe_tps = pe_avg_lat = None
    with open(log_path, "w") as log:
        for line in proc.stdout:
            now = time.monotonic()
            log.write(line)
            if t_start is None and START_MARK in line:
                t_start, cpu_start = now, proc_cpu_s(pid)
            elif END_MARK in line and t_end is None:
                t_end, cpu_end, hwm = now, proc_cpu_s(pid), vm_hwm_kib(pid)
            m = LAT_RE.search(line)
            if m:
                lat[m.group(1)] = parse_latency(m.group(2))
            m = NUM_RE.search(line)
            if m:
                nmeas[m.group(1)] = int(m.group(2))
            m = FIN_RE.search(line)
            if m:
                fin[m.group(1)] = (int(m.group(2)), int(m.group(3)))
            m = TPS_RE.search(line)
            if m:
                pe_tps = int(m.group(1))
            m = AVG_LAT_RE.search(line)
            if m:
                pe_avg_lat = int(m.group(1))
            if not quiet and ("Exception" in line or "ERROR" in line):
                sys.stderr.write("pe: " + line)
    _, status, ru = os.wait4(pid, 0)
    rc = os.waitstatus_to_exitcode(status)

    ops = sum(r for _, r in fin.values())
    err = None
    if rc != 0:
        err = f"PE exited with status {rc} (log: {log_path})"
    elif t_start is None or t_end is None or not fin:
        err = f"PE output had no timed phase (log: {log_path})"
    elapsed = (t_end - t_start) if (t_start is not None and t_end is not None) else None

    clients = sorted(set(lat) | set(fin), key=lambda c: int(c.split("-")[1]))
    per_client = []
    for c in clients:
        d = {"thread": c}
        if c in fin:
            d["duration_ms"], d["rows"] = fin[c]
        if c in lat:
            d["latency_us"] = lat[c]
            d["latency_count"] = nmeas.get(c)
        per_client.append(d)

    def weighted(key):
        num = den = 0.0
        for c in clients:
            if c in lat and key in lat[c]:
                w = nmeas.get(c) or 1
                num += lat[c][key] * w
                den += w
        return round(num / den, 2) if den else None

    count = sum(nmeas.get(c, 0) for c in clients if c in lat)
    latency = {
        "count": count,
        "mean_us": weighted("mean"),
        "stddev_us": weighted("stdDev"),
        "min_us": min((lat[c]["min"] for c in lat if "min" in lat[c]), default=None),
        "p50_us": weighted("50th"),
        "p75_us": weighted("75th"),
        "p95_us": weighted("95th"),
        "p99_us": weighted("99th"),
        "p999_us": weighted("99.9th"),
        "max_us": max((lat[c]["max"] for c in lat if "max" in lat[c]), default=None),
        "note": "per-thread dropwizard histograms (PE --latency); percentiles are the per-thread values "
                "averaged, weighted by sample count; PE prints no p90",
    }
    # Rows one PE operation reads (scanRange100: 100; PE reports operations only).
    rows_per_op = (meta.get("params") or {}).get("rows_per_op") or 1
    rows = ops * rows_per_op
    result = {
        "ops": ops,
        "errors": 0 if err is None else 1,
        "first_error": err,
        "rows": rows,
        "misses": None,
        "elapsed_s": round(elapsed, 6) if elapsed else None,
        "ops_per_sec": round(ops / elapsed, 2) if elapsed and ops else None,
        "rows_per_sec": round(rows / elapsed, 2) if elapsed and ops else None,
        "pe_reported_tps": pe_tps,
        "pe_reported_avg_latency_us": pe_avg_lat,
        "max_client_duration_ms": max((d for d, _ in fin.values()), default=None),
        "latency": latency,
        "per_client": per_client,
    }
    cpu = {"note": "JVM process CPU from /proc/<pid>/stat (10 ms ticks) between the first 'Timed test starting' "
                   "and 'Summary of timings' lines; whole_process_* from wait4() rusage, start-up and JIT included"}
    if cpu_start and cpu_end:
        user, sys_ = cpu_end[0] - cpu_start[0], cpu_end[1] - cpu_start[1]
        cpu.update({"process_user_s": round(user, 3), "process_sys_s": round(sys_, 3),
                    "process_cpu_us_per_op": round((user + sys_) * 1e6 / ops, 2) if ops else None,
                    "process_cpu_us_per_row": round((user + sys_) * 1e6 / rows, 2) if rows else None})
    whole = ru.ru_utime + ru.ru_stime
    cpu.update({"whole_process_user_s": round(ru.ru_utime, 3), "whole_process_sys_s": round(ru.ru_stime, 3),
                "whole_process_cpu_us_per_op": round(whole * 1e6 / ops, 2) if ops else None})
    out = {
        "tool": "hbase-pe",
        "tool_version": meta.pop("tool_version", None),
        "command_line": shorten_classpath(cmd, meta.pop("classpath_file", None)),
        "started_unix_s": int(started),
        "machine": {"nproc": os.cpu_count(), "hostname": os.uname().nodename, "kernel": os.uname().release,
                    "loadavg_at_start": loadavg},
        "target": meta.pop("target", None),
        "params": meta.pop("params", {}),
        "result": result,
        "cpu": cpu,
        "peak_rss_kib": hwm if hwm is not None else ru.ru_maxrss,
        "exit_status": rc,
        "log": log_path,
        "summary": {"ops_per_sec": result["ops_per_sec"], "p50_us": latency["p50_us"], "p99_us": latency["p99_us"],
                    "mean_us": latency["mean_us"], "client_cpu_us_per_op": cpu.get("process_cpu_us_per_op")},
    }
    out.update(meta)
    js = json.dumps(out, indent=2)
    if out_path:
        with open(out_path, "w") as f:
            f.write(js + "\n")
    l = latency
    print(f"pe {out['params'].get('workload')} threads={out['params'].get('concurrency')}: {ops} ops in "
          f"{elapsed or 0:.2f} s = {result['ops_per_sec']} ops/s (PE's own: {pe_tps})")
    print(f"  latency us: mean {l['mean_us']} p50 {l['p50_us']} p95 {l['p95_us']} p99 {l['p99_us']} "
          f"p99.9 {l['p999_us']} max {l['max_us']}")
    print(f"  JVM CPU: {cpu.get('process_cpu_us_per_op')} us/op in the timed phase "
          f"({cpu.get('whole_process_cpu_us_per_op')} us/op for the whole JVM run); peak RSS {out['peak_rss_kib']} KiB")
    if out_path:
        print(f"  wrote {out_path}")
    if err:
        print(f"  ERROR: {err}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
