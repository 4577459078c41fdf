#!/usr/bin/env python3
"""Issue #18 target 3 from a compare.sh run's summary.json: per workload and threads, hbclient-async's
throughput over gohbase's (median of per-round ratios, [min–max]; target >= 1.5) and hbclient's p99 against
gohbase's, PE's and PE async's (medians; target: lower than every one)."""
import json, os, statistics, sys
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))
cells = {(c["tool"], c["workload"], c["threads"]): c for c in s["cells"]}
print("| workload | threads | rounds | hbclient ops/s ÷ gohbase [min–max] | ≥ 1.5× | hbclient p99 µs | gohbase p99 | PE p99 | PE async p99 | p99 lowest | verdict |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (tool, wl, th), h in cells.items():
    if tool != "hbclient-async":
        continue
    g = cells.get(("gohbase", wl, th))
    per = [h["rounds"][r]["ops_per_sec"] / g["rounds"][r]["ops_per_sec"] for r in h["rounds"] if g and r in g["rounds"]]
    thr = statistics.median(per) if per else None
    p99 = {t: (cells.get((t, wl, th)) or {}).get("stats", {}).get("p99_us", {}) or {} for t in ("hbclient-async", "gohbase", "pe", "pe-async")}
    med = {t: v.get("median") for t, v in p99.items()}
    lowest = all(med["hbclient-async"] < v for t, v in med.items() if t != "hbclient-async" and v is not None)
    tok = thr is not None and thr >= 1.5
    rng = f"{thr:.2f} [{min(per):.2f}–{max(per):.2f}]" if per else "–"
    f = lambda v: f"{v:,.0f}" if v is not None else "–"
    print(f"| {wl} | {th} | {len(h['rounds'])} | {rng} | {'yes' if tok else 'no'} | {f(med['hbclient-async'])} | {f(med['gohbase'])} | {f(med['pe'])} | {f(med['pe-async'])} | {'yes' if lowest else 'no'} | {'met' if tok and lowest else 'missed'} |")
