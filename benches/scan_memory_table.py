#!/usr/bin/env python3
"""Summarises a benches/scan_memory.sh run: peak RSS per prefetch depth and max result size against
the bound (depth + 1) x max result size, and RSS over time (min, max, first and last quarter
means) to show whether it grows with the bytes scanned. Usage: scan_memory_table.py DIR"""
import csv
import sys
from pathlib import Path

d = Path(sys.argv[1])
rows = list(csv.DictReader(open(d / "peak.tsv"), delimiter="\t"))
print("| prefetch depth | max result size | GB through the client | passes | peak RSS MiB | (depth+1) x size MiB | peak − that MiB | RSS over the run MiB: min / max, mean of 1st vs last quarter | load avg |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
for r in rows:
    depth, size = int(r["depth"]), int(r["max_result_size"])
    peak = int(r["peak_rss_kib"]) / 1024
    bound = (depth + 1) * size / 2**20
    series = [int(l["rss_kib"]) / 1024 for l in csv.DictReader(open(d / f"rss-{depth}-{size}.tsv"), delimiter="\t")]
    series = series[2:] if len(series) > 4 else series  # the first seconds are start-up
    q = max(1, len(series) // 4)
    first, last = sum(series[:q]) / q, sum(series[-q:]) / q
    print(f"| {depth} | {size // 2**20 if size >= 2**20 else str(size // 1024) + ' Ki'}{' Mi' if size >= 2**20 else ''}B | {int(r['bytes_in']) / 1e9:.2f} | {r['passes']} | {peak:.1f} | {bound:.0f} | {peak - bound:.1f} | {min(series):.1f} / {max(series):.1f}, {first:.1f} → {last:.1f} | {r['load1']} |")
