#!/usr/bin/env python3
"""Markdown table of cost_split.sh's split.tsv: per workload, label and variant, the medians over rounds (ops/s
with [min-max], and its ratio to the same round's plain run), client and server CPU per op, syscalls per op.
    python3 benches/security/split_table.py DIR/split.tsv"""
import csv, statistics, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
base = {}  # each round's plain run (the label "new" if several builds ran plain)
for r in sorted((r for r in rows if r["variant"] == "plain"), key=lambda r: r["label"] != "new", reverse=True):
    base[(r["workload"], r["round"])] = float(r["ops_s"])
g = defaultdict(list)
for r in rows:
    g[(r["workload"], r["callers"], r["variant"], r["label"])].append(r)
med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
print("| workload | callers | variant | client build | rounds | ops/s median [min–max] | × plain (per-round ratios, median [min–max]) "
      "| client CPU µs/op | server CPU µs/op | of which server event loops | client read syscalls/op | RPCs per socket write | load avg |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
order = {"plain": 0, "tls": 1, "krb-auth": 2, "krb-auth-tls": 2.5, "krb-int": 3, "krb-priv": 4}
for (wl, c, v, label), rs in sorted(g.items(), key=lambda kv: (kv[0][0], int(kv[0][1]), order.get(kv[0][2], 9), kv[0][3] != "new")):
    ops = [float(r["ops_s"]) for r in rs]
    ratios = [float(r["ops_s"]) / base[(wl, r["round"])] for r in rs if (wl, r["round"]) in base]
    ld = [float(r["loadavg"]) for r in rs]
    rt = f"**{statistics.median(ratios):.2f}** [{min(ratios):.2f}–{max(ratios):.2f}]" if ratios else "–"
    print(f"| {wl} | {c} | {v} | {label} | {len(rs)} | {statistics.median(ops):,.0f} [{min(ops):,.0f}–{max(ops):,.0f}] "
          f"| {rt} | {med(rs, 'client_cpu_us_op'):.1f} "
          f"| {med(rs, 'server_cpu_us_op'):.1f} | {med(rs, 'server_event_loop_cpu_us_op'):.1f} | {med(rs, 'read_syscalls_op'):.2f} "
          f"| {med(rs, 'rpcs_per_socket_write'):.1f} | {min(ld):.0f}–{max(ld):.0f} |")
