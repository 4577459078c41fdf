#!/usr/bin/env python3
"""Table of hbclient vs raw-limit over interleaved rounds: reads DIR/raw/r*/randomRead-*.json (one per
callers point per round, each holding hbclient's phase and raw-limit's phase from the same invocation),
prints a markdown table (median [min–max] over rounds of per-round ratios) and writes DIR/table.json.
Usage: raw_table.py DIR [THROUGHPUT_MIN P50_MAX CPU_MAX]  (targets; omitted ones are not judged)"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict

d = sys.argv[1]
tmin = float(sys.argv[2]) if len(sys.argv) > 2 else None
pmax = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != "-" else None
cmax = float(sys.argv[4]) if len(sys.argv) > 4 else None
pts = defaultdict(list)
for f in sorted(glob.glob(os.path.join(d, "raw", "r*", "randomRead-*.json"))):
    j = json.load(open(f))
    if "raw_limit" not in j:
        continue
    c = j["params"]["concurrency"]
    pool = j["params"]["pool_size"]
    h, r = j["result"], j["raw_limit"]
    cpu_h = j["cpu"].get("client_cpu_us_per_op_estimate") or j["cpu"]["process_cpu_us_per_op"]
    cpu_r = j["raw_limit_cpu"].get("client_cpu_us_per_op_estimate") or j["raw_limit_cpu"]["process_cpu_us_per_op"]
    pts[(pool, c)].append({
        "round": f.split(os.sep)[-2], "ops_s": h["ops_per_sec"], "raw_ops_s": r["ops_per_sec"],
        "thr_ratio": h["ops_per_sec"] / r["ops_per_sec"], "p50": h["latency"]["p50_us"],
        "raw_p50": r["latency"]["p50_us"], "p50_ratio": h["latency"]["p50_us"] / r["latency"]["p50_us"],
        "p99": h["latency"]["p99_us"], "raw_p99": r["latency"]["p99_us"],
        "cpu": cpu_h, "raw_cpu": cpu_r, "cpu_ratio": cpu_h / cpu_r if cpu_r else None,
        "errors": h["errors"] + r["errors"],
        "load1": float(j.get("machine", {}).get("loadavg_at_start", "nan").split()[0]),
        "file": os.path.relpath(f, d)})


def s(vals, nd=2, sep=""):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "–", None
    m = statistics.median(vals)
    return (f"{m:,.{nd}f} [{min(vals):,.{nd}f}–{max(vals):,.{nd}f}]", m)


out = ["| pool | callers | rounds | hbclient ops/s | raw-limit ops/s | throughput × raw | p50 µs | raw p50 µs "
       "| p50 × raw | p99 µs | raw p99 µs | client CPU µs/op | raw CPU µs/op | CPU × raw | load1 | verdict |",
       "|" + " --- |" * 16]
summary = []
for (pool, c) in sorted(pts):
    rs = pts[(pool, c)]
    row = {k: s([x[k] for x in rs], 0 if k in ("ops_s", "raw_ops_s", "p50", "raw_p50", "p99", "raw_p99") else (1 if k in ("cpu", "raw_cpu", "load1") else 2))
           for k in ("ops_s", "raw_ops_s", "thr_ratio", "p50", "raw_p50", "p50_ratio", "p99", "raw_p99", "cpu", "raw_cpu", "cpu_ratio", "load1")}
    verdict = []
    if tmin is not None:
        verdict.append("thr " + ("met" if row["thr_ratio"][1] >= tmin else "missed"))
    if pmax is not None:
        verdict.append("p50 " + ("met" if row["p50_ratio"][1] <= pmax else "missed"))
    if cmax is not None and row["cpu_ratio"][1] is not None:
        verdict.append("CPU " + ("met" if row["cpu_ratio"][1] <= cmax else "missed"))
    out.append(f"| {pool} | {c} | {len(rs)} | " + " | ".join(row[k][0] for k in row) + f" | {', '.join(verdict)} |")
    summary.append({"pool": pool, "callers": c, "medians": {k: v[1] for k, v in row.items()}, "rounds": rs,
                    "verdict": verdict})
print("\n".join(out))
json.dump({"targets": {"throughput_ratio_min": tmin, "p50_ratio_max": pmax, "cpu_ratio_max": cmax},
           "points": summary}, open(os.path.join(d, "table.json"), "w"), indent=1)
