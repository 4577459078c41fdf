#!/usr/bin/env python3
"""Summarizes interleaved before/after/raw-limit rounds (issue #18, 2026-12-02).
Usage: summarize.py RAWDIR OUTDIR [THR_MIN P50_MAX CPU_MAX]
RAWDIR holds r<N>-before/, optionally r<N>-a/ (an intermediate build), and r<N>-after/
(hbclient-bench --output dirs; after's JSON also holds raw-limit's phase, --compare-raw). Writes OUTDIR/runs.tsv (one line per run) and prints a markdown
table: median [min-max] over rounds; ratios are per-round ratios (same round), then their median."""
import glob, json, os, re, statistics, sys
from collections import defaultdict

raw, out = sys.argv[1], sys.argv[2]
tmin = float(sys.argv[3]) if len(sys.argv) > 3 else None
pmax = float(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] != "-" else None
cmax = float(sys.argv[5]) if len(sys.argv) > 5 else None

def cpu(c):
    return c.get("client_cpu_us_per_op_estimate") or c["process_cpu_us_per_op"]

runs = defaultdict(dict)  # (round, callers) -> {"before": ..., "after": ..., "raw": ...}
tsv = ["round\tvariant\tcallers\tops_s\tp50_us\tp99_us\tclient_cpu_us_op\terrors\tload1"]
for f in sorted(glob.glob(os.path.join(raw, "r*-*", "randomRead-*.json"))):
    m = re.search(r"r(\d+)-(before|after|a)/", f)
    rnd, var = int(m.group(1)), m.group(2)
    j = json.load(open(f))
    c = j["params"]["concurrency"]
    load1 = float(j.get("machine", {}).get("loadavg_at_start", "nan").split()[0])
    def rec(res, cp, name):
        d = {"ops": res["ops_per_sec"], "p50": res["latency"]["p50_us"], "p99": res["latency"]["p99_us"],
             "cpu": cpu(cp), "err": res["errors"], "load1": load1}
        runs[(rnd, c)][name] = d
        tsv.append(f"{rnd}\t{name}\t{c}\t{d['ops']:.0f}\t{d['p50']}\t{d['p99']}\t{d['cpu']:.2f}\t{d['err']}\t{load1}")
    rec(j["result"], j["cpu"], var)
    if j.get("raw_limit"):
        rec(j["raw_limit"], j["raw_limit_cpu"], "raw")
open(os.path.join(out, "runs.tsv"), "w").write("\n".join(tsv) + "\n")

def s(vals, nd):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "–", None
    m = statistics.median(vals)
    return f"{m:,.{nd}f} [{min(vals):,.{nd}f}–{max(vals):,.{nd}f}]", m

pts = sorted({c for (_, c) in runs})
has_a = any("a" in v for v in runs.values())
hdr = ("| callers | rounds | before ops/s | after ops/s | raw ops/s | after ÷ before | after ÷ raw | "
       "p50 after ÷ raw | CPU µs/op before | CPU after | CPU raw | CPU after ÷ before | CPU after ÷ raw | "
       + ("CPU A ÷ before | " if has_a else "") + "load1 | verdict |")
print(hdr)
print("|" + " --- |" * hdr.count("|")[:-1] if False else "|" + " --- |" * (hdr.count("|") - 1))
for c in pts:
    # Rounds without a "before" run (a re-measure of one build) leave the before columns empty.
    rs = [runs[k] for k in sorted(runs) if k[1] == c and {"after", "raw"} <= set(runs[k])]
    g = lambda v, k: [r[v][k] for r in rs if v in r]
    ratio = lambda a, b, k: [r[a][k] / r[b][k] if r[b][k] else None for r in rs if a in r and b in r]
    thr = s(ratio("after", "raw", "ops"), 2)
    p50 = s(ratio("after", "raw", "p50"), 2)
    cpr = s(ratio("after", "raw", "cpu"), 2)
    v = []
    if tmin is not None: v.append("thr " + ("met" if thr[1] >= tmin else "missed"))
    if pmax is not None: v.append("p50 " + ("met" if p50[1] <= pmax else "missed"))
    if cmax is not None: v.append("CPU " + ("met" if cpr[1] <= cmax else "missed"))
    cells = [str(c), str(len(rs)), s(g("before", "ops"), 0)[0], s(g("after", "ops"), 0)[0], s(g("raw", "ops"), 0)[0],
             s(ratio("after", "before", "ops"), 2)[0], thr[0], p50[0], s(g("before", "cpu"), 1)[0],
             s(g("after", "cpu"), 1)[0], s(g("raw", "cpu"), 1)[0], s(ratio("after", "before", "cpu"), 2)[0], cpr[0]] + (
             [s([r["a"]["cpu"] / r["before"]["cpu"] for r in rs if "a" in r], 2)[0]] if has_a else []) + [
             s([r[v]["load1"] for r in rs for v in ("after", "before") if v in r], 1)[0], ", ".join(v)]
    print("| " + " | ".join(cells) + " |")
