#!/usr/bin/env python3
"""The table of a scan_ingest.sh run: one line per hbclient-bench JSON result in DIR, in run order.

Columns: workload and its shaping options, mode and callers, rows/s, operations/s, wire MB/s
(received for reads, sent for writes), client CPU per row and per operation (the process's
getrusage; the server is another process), RPCs per operation, latency p50/p99 of an operation,
and misses or errors when there were any.
"""
import json
import pathlib
import sys


def label(p):
    w = p["workload"]
    bits = []
    if w == "scanRange":
        bits.append(f"{p['scan_rows']} rows")
    if w == "parallelScan":
        bits.append(f"{p.get('regions_scanned_per_pass')} regions, {p['scan_parallelism']} at a time")
    if w in ("batchPut",):
        bits.append(f"batch {p['batch_size']}")
    if p.get("caching"):
        bits.append(f"caching {p['caching']}")
    if p.get("max_result_size"):
        bits.append(f"max result {p['max_result_size'] // 1024} KiB")
    return w + (f" ({', '.join(bits)})" if bits else "")


def main():
    out = pathlib.Path(sys.argv[1])
    records = []
    for f in out.glob("*.json"):
        d = json.loads(f.read_text())
        if d.get("tool") == "hbclient-bench" and "result" in d:
            records.append(d)
    records.sort(key=lambda d: d["started_unix_s"])
    print("| workload | mode, callers | rows/s | ops/s | MB/s | client CPU µs/row | client CPU µs/op | RPCs/op | p50 / p99 ms | notes |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for d in records:
        p, r, c, rpc = d["params"], d["result"], d["cpu"], d.get("rpc") or {}
        reads = p["workload"] in ("scan", "scanRange", "parallelScan", "filterScan", "randomRead")
        mb = rpc.get("mb_in_per_sec" if reads else "mb_out_per_sec", 0.0)
        notes = []
        if r["misses"]:
            notes.append(f"{r['misses']} missing rows")
        if r["errors"]:
            notes.append(f"{r['errors']} errors")
        notes.append(f"load {d['machine'].get('loadavg_at_start', '?')}")
        lat = r["latency"]
        print(
            f"| {label(p)} | {p['mode']} ×{p['concurrency']} | {r['rows_per_sec']:,.0f} | {r['ops_per_sec']:,.1f} "
            f"| {mb:.1f} | {c['process_cpu_us_per_row']:.2f} | {c['process_cpu_us_per_op']:,.1f} "
            f"| {rpc.get('per_op', 0):.2f} | {lat['p50_us'] / 1000:.2f} / {lat['p99_us'] / 1000:.2f} | {'; '.join(notes)} |"
        )


if __name__ == "__main__":
    main()
