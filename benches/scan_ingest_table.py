#!/usr/bin/env python3
"""The table of a scan_ingest.sh run, from the hbclient-bench JSON results in DIR.

One line per configuration (workload, its shaping options, mode, callers), in the order of the
first round; each cell is the median over the rounds, rows/s also with its [min–max]. Columns:
rows/s, operations/s, wire MB/s (received for reads, sent for writes), client CPU per row and per
operation (the process's getrusage; the server is another process), RPCs per operation, latency
p50/p99 of an operation, missing rows or errors summed over the rounds, and the 1-minute load
averages when the runs started.
"""
import json
import pathlib
import statistics
import sys

READS = ("scan", "scanRange", "parallelScan", "filterScan", "randomRead")


def label(p):
    w = p["workload"]
    bits = []
    if w == "scanRange":
        bits.append(f"{p['scan_rows']} rows")
    if w == "parallelScan":
        bits.append(f"{p.get('regions_scanned_per_pass')} regions, {p['scan_parallelism']} at a time")
    if w == "batchPut":
        bits.append(f"batch {p['batch_size']}")
    if p.get("caching"):
        bits.append(f"caching {p['caching']}")
    if p.get("max_result_size"):
        bits.append(f"max result {p['max_result_size'] // 1024} KiB")
    return w + (f" ({', '.join(bits)})" if bits else "")


def load_avg(d):
    fields = str(d["machine"].get("loadavg_at_start", "")).split()
    return fields[0] if fields else "?"


def main():
    out = pathlib.Path(sys.argv[1])
    records = []
    for f in out.glob("*.json"):
        d = json.loads(f.read_text())
        if d.get("tool") == "hbclient-bench" and "result" in d:
            records.append(d)
    records.sort(key=lambda d: d["started_unix_s"])
    groups = {}
    for d in records:
        p = d["params"]
        key = (label(p), p["mode"], p["concurrency"])
        groups.setdefault(key, []).append(d)
    rounds = max((len(g) for g in groups.values()), default=0)
    print(f"Median over {rounds} round(s); rows/s as median [min–max].\n")
    print("| workload | mode, callers | rows/s | ops/s | MB/s | client CPU µs/row | client CPU µs/op | RPCs/op | p50 / p99 ms | notes |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for (name, mode, callers), runs in groups.items():
        med = lambda f: statistics.median(f(d) for d in runs)  # noqa: E731
        reads = runs[0]["params"]["workload"] in READS
        mb_key = "mb_in_per_sec" if reads else "mb_out_per_sec"
        rows = [d["result"]["rows_per_sec"] for d in runs]
        notes = []
        misses = sum(d["result"]["misses"] for d in runs)
        errors = sum(d["result"]["errors"] for d in runs)
        if misses:
            notes.append(f"{misses} missing rows")
        if errors:
            notes.append(f"{errors} errors")
        if runs[0]["params"]["workload"] == "filterScan":
            notes.append(f"server read {med(lambda d: d['result']['rows_per_sec']) * 100:,.0f} rows/s to return these")
        notes.append("load " + "/".join(load_avg(d) for d in runs))
        print(
            f"| {name} | {mode} ×{callers} "
            f"| {statistics.median(rows):,.0f} [{min(rows):,.0f}–{max(rows):,.0f}] "
            f"| {med(lambda d: d['result']['ops_per_sec']):,.1f} "
            f"| {med(lambda d: (d.get('rpc') or {}).get(mb_key, 0.0)):.1f} "
            f"| {med(lambda d: d['cpu']['process_cpu_us_per_row']):.2f} "
            f"| {med(lambda d: d['cpu']['process_cpu_us_per_op']):,.1f} "
            f"| {med(lambda d: (d.get('rpc') or {}).get('per_op', 0.0)):.2f} "
            f"| {med(lambda d: d['result']['latency']['p50_us']) / 1000:.2f} / "
            f"{med(lambda d: d['result']['latency']['p99_us']) / 1000:.2f} "
            f"| {'; '.join(notes)} |"
        )


if __name__ == "__main__":
    main()
