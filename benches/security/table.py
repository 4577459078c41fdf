#!/usr/bin/env python3
"""Tables for benches/security/compare.sh: reads DIR/runs.tsv (+ the JSON it names), writes markdown to stdout and
DIR/summary.json. Per tool, variant, workload and callers: ops/s median [min-max] over the rounds, the ratio of
medians to plain (and the per-round ratios' range: round r's variant / round r's plain, the interleaved pairs),
client CPU per op median (the client process's user+sys over the measured phase / ops); then hbclient's lead over
PE (hbclient median / PE median) per variant, and the issue's targets."""
import json
import os
import statistics
import sys
from collections import defaultdict

d = sys.argv[1]
only = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else None  # optional: workloads to include
runs = defaultdict(dict)  # (tool, variant, wl, callers) -> {round: (ops_s, cpu)}
for line in open(os.path.join(d, "runs.tsv")):
    tool, v, wl, c, r, path = line.rstrip("\n").split("\t")
    if only and wl not in only:
        continue
    j = json.load(open(os.path.join(d, path)))
    res = j["result"]
    if res.get("errors"):
        print(f"note: {path}: {res['errors']} errors", file=sys.stderr)
    runs[(tool, v, wl, int(c))][int(r)] = (res["ops_per_sec"], j["cpu"]["process_cpu_us_per_op"])

order = []
for k in runs:
    if k[1] not in order:
        order.append(k[1])
pref = ["plain", "tls", "krb-auth", "krb-auth-tls", "krb-int", "krb-priv"]
order.sort(key=lambda v: pref.index(v) if v in pref else 99)


def stats(vals):
    return statistics.median(vals), min(vals), max(vals)


summary = {}
out = []
for tool in ("hbclient", "pe"):
    keys = sorted({(k[2], k[3]) for k in runs if k[0] == tool}, key=lambda x: (x[0] != "randomRead", x[1]))
    if not keys:
        continue
    name = "hbclient (async, one connection)" if tool == "hbclient" else "PE (PerformanceEvaluation 2.6.4, threads on one connection)"
    out.append(f"### {name}\n")
    out.append("| workload | callers | variant | rounds | ops/s median [min–max] | × plain (median) | × plain per round [min–max] | client CPU µs/op median [min–max] | CPU × plain |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for wl, c in keys:
        base = runs.get((tool, "plain", wl, c), {})
        bm = statistics.median([x[0] for x in base.values()]) if base else None
        bc = statistics.median([x[1] for x in base.values()]) if base else None
        for v in order:
            rr = runs.get((tool, v, wl, c))
            if not rr:
                continue
            m, lo, hi = stats([x[0] for x in rr.values()])
            cm, clo, chi = stats([x[1] for x in rr.values()])
            per = [rr[r][0] / base[r][0] for r in rr if r in base]
            ratio = m / bm if bm else None
            summary[f"{tool}/{wl}/c{c}/{v}"] = {"ops_per_sec": [rr[r][0] for r in sorted(rr)], "median": m,
                                               "ratio_to_plain": ratio, "per_round_ratios": per,
                                               "cpu_us_per_op": [rr[r][1] for r in sorted(rr)], "cpu_median": cm,
                                               "cpu_ratio_to_plain": cm / bc if bc else None}
            out.append(f"| {wl} | {c} | {v} | {len(rr)} | {m:,.0f} [{lo:,.0f}–{hi:,.0f}] | "
                       f"{'**%.2f**' % ratio if ratio else '—'} | "
                       f"{('%.2f–%.2f' % (min(per), max(per))) if per else '—'} | {cm:.1f} [{clo:.1f}–{chi:.1f}] | "
                       f"{('%.2f' % (cm / bc)) if bc else '—'} |")
    out.append("")

# hbclient's lead over PE, same variant, workload, callers
lead_rows = []
for (tool, v, wl, c), rr in runs.items():
    if tool != "pe":
        continue
    h = summary.get(f"hbclient/{wl}/c{c}/{v}")
    p = summary.get(f"pe/{wl}/c{c}/{v}")
    if h and p:
        lead_rows.append((wl != "randomRead", wl, c, order.index(v), v, h["median"] / p["median"],
                          h["cpu_median"], p["cpu_median"]))
if lead_rows:
    out.append("### hbclient's lead over PE (same server, same rounds)\n")
    out.append("| workload | callers | variant | hbclient ÷ PE ops/s (medians) | lead × lead on plain | client CPU µs/op hbclient vs PE |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    for _, wl, c, _, v, lead, hc, pc in sorted(lead_rows):
        lp = next((x[5] for x in lead_rows if x[1] == wl and x[2] == c and x[4] == "plain"), None)
        summary[f"lead/{wl}/c{c}/{v}"] = {"lead": lead, "lead_vs_plain": lead / lp if lp else None}
        out.append(f"| {wl} | {c} | {v} | **{lead:.2f}×** | {('%.2f' % (lead / lp)) if lp else '—'} | {hc:.1f} vs {pc:.1f} |")
    out.append("")

# targets
out.append("### Targets (issue #12 point 8)\n")
for wl in ("randomRead", "randomWrite"):
    for v, t in (("tls", 0.85), ("krb-priv", 0.70)):
        s = summary.get(f"hbclient/{wl}/c64/{v}")
        if s:
            out.append(f"- {wl}, 64 callers, {v} ≥ {t}× plain: {s['ratio_to_plain']:.2f} → "
                       f"{'met' if s['ratio_to_plain'] >= t else '**missed**'}")
    for v in ("tls", "krb-priv"):
        s = summary.get(f"lead/{wl}/c64/{v}")
        if s and s["lead_vs_plain"]:
            out.append(f"- {wl}, 64 callers, lead over PE on {v} ({s['lead']:.2f}×) ≥ lead on plain: "
                       f"{s['lead_vs_plain']:.2f} of it → {'met' if s['lead_vs_plain'] >= 1 else '**missed**'}")
print("\n".join(out))
json.dump(summary, open(os.path.join(d, "summary.json"), "w"), indent=1)
