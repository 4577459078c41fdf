#!/usr/bin/env python3
"""Table for benches/compression/compare.sh: reads DIR/runs.tsv and the JSON it names; per workload,
value kind and codec: ops/s median [min-max] over the rounds, throughput relative to no compression
(median of the per-round ratios, round r's codec over round r's none: the interleaved pairs, and
their range), wire bytes per operation each way and the reduction of the direction that carries the
values (out for writes, in for reads), and client CPU per operation (the process's CPU minus the
embedded mini-hbase threads' for target mini; the whole process for a real cluster)."""
import json
import os
import statistics
import sys
from collections import defaultdict

d = sys.argv[1]
runs = defaultdict(dict)  # (wl, values, codec) -> {round: record}
for line in open(os.path.join(d, "runs.tsv")):
    r, wl, values, codec, path = line.rstrip("\n").split("\t")
    j = json.load(open(os.path.join(d, path)))
    if j["result"].get("errors"):
        print(f"note: {path}: {j['result']['errors']} errors", file=sys.stderr)
    cpu = j["cpu"].get("client_cpu_us_per_op_estimate") or j["cpu"]["process_cpu_us_per_op"]
    runs[(wl, values, codec)][int(r)] = {
        "ops": j["result"]["ops_per_sec"],
        "out": j["rpc"]["bytes_out_per_op"],
        "in": j["rpc"]["bytes_in_per_op"],
        "cpu": cpu,
    }

med = statistics.median
order = ["none", "gzip", "snappy", "lz4"]
print("| workload | values | codec | ops/s median [min–max] | × none [per-round range] "
      "| bytes/op out | bytes/op in | wire cut (value direction) | client CPU µs/op median |")
print("|---|---|---|---|---|---|---|---|---|")
summary = []
for wl in ("randomWrite", "randomRead"):
    for values in ("compressible", "random"):
        base = runs.get((wl, values, "none"), {})
        for codec in order:
            rs = runs.get((wl, values, codec))
            if not rs:
                continue
            ops = [x["ops"] for x in rs.values()]
            ratios = [rs[r]["ops"] / base[r]["ops"] for r in rs if r in base]
            out, inn, cpu = (med([x[k] for x in rs.values()]) for k in ("out", "in", "cpu"))
            key = "out" if wl == "randomWrite" else "in"
            cut = med([x[key] for x in base.values()]) / med([x[key] for x in rs.values()]) if base else 1
            summary.append({"workload": wl, "values": values, "codec": codec, "ops_median": med(ops),
                            "x_none": med(ratios) if ratios else None, "bytes_out": out,
                            "bytes_in": inn, "wire_cut": cut, "cpu_us_per_op": cpu})
            rng = f"{min(ratios):.2f}–{max(ratios):.2f}" if ratios else "–"
            print(f"| {wl} | {values} | {codec} | {med(ops):,.0f} [{min(ops):,.0f}–{max(ops):,.0f}] "
                  f"| **{med(ratios):.2f}** [{rng}] | {out:.0f} | {inn:.0f} | **{cut:.2f}×** | {cpu:.1f} |")
json.dump(summary, open(os.path.join(d, "summary.json"), "w"), indent=1)
