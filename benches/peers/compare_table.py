#!/usr/bin/env python3
"""Build the side-by-side table of benches/peers/compare.sh from the JSON results of one run.

    compare_table.py RUN_DIR           reads RUN_DIR/runs.tsv (label, workload, json path), writes
                                       RUN_DIR/peers.md and RUN_DIR/summary.json, prints the markdown table

All tools' JSONs share hbclient-bench's key fields: result.ops_per_sec, result.latency.{mean,p50,p99}_us,
result.errors, cpu.process_cpu_us_per_op. Ratios are tool / baseline for the same workload, the baseline being
the first label in runs.tsv (hbclient async unless --tools said otherwise).
"""
import json
import os
import sys


def get(d, *path):
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def fmt(v, nd=0):
    if v is None:
        return "–"
    return f"{v:,.{nd}f}"


def ratio(a, b):
    if a is None or b in (None, 0):
        return "–"
    return f"{a / b:.2f}"


def main():
    run_dir = sys.argv[1]
    rows = []
    with open(os.path.join(run_dir, "runs.tsv")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            label, workload, path = line.rstrip("\n").split("\t")
            try:
                d = json.load(open(path))
            except (OSError, ValueError) as e:
                rows.append({"tool": label, "workload": workload, "json": path, "missing": str(e)})
                continue
            rows.append({
                "tool": label,
                "workload": workload,
                "ops": get(d, "result", "ops"),
                "errors": get(d, "result", "errors"),
                "ops_per_sec": get(d, "result", "ops_per_sec"),
                "mean_us": get(d, "result", "latency", "mean_us"),
                "p50_us": get(d, "result", "latency", "p50_us"),
                "p99_us": get(d, "result", "latency", "p99_us"),
                "cpu_us_per_op": get(d, "cpu", "process_cpu_us_per_op"),
                "tool_version": d.get("tool_version"),
                "json": os.path.relpath(path, run_dir),
            })
    baseline = rows[0]["tool"] if rows else None
    base = {r["workload"]: r for r in rows if r["tool"] == baseline}
    head = ("| tool | workload | ops | ops/s | × base | p50 µs | × base | p99 µs | × base | mean µs "
            "| client CPU µs/op | × base |")
    lines = [head, "|" + " --- |" * 12]
    for wl in dict.fromkeys(r["workload"] for r in rows):
        for r in rows:
            if r["workload"] != wl:
                continue
            if "missing" in r:
                lines.append(f"| {r['tool']} | {wl} | no result ({r['missing']}) |" + " |" * 9)
                continue
            b = base.get(wl, {})
            ops = fmt(r["ops"]) + (f" ({r['errors']} err)" if r.get("errors") else "")
            lines.append(
                f"| {r['tool']} | {wl} | {ops} | {fmt(r['ops_per_sec'])} | {ratio(r['ops_per_sec'], b.get('ops_per_sec'))} "
                f"| {fmt(r['p50_us'])} | {ratio(r['p50_us'], b.get('p50_us'))} "
                f"| {fmt(r['p99_us'])} | {ratio(r['p99_us'], b.get('p99_us'))} | {fmt(r['mean_us'])} "
                f"| {fmt(r['cpu_us_per_op'], 1)} | {ratio(r['cpu_us_per_op'], b.get('cpu_us_per_op'))} |")
    table = "\n".join(lines)
    with open(os.path.join(run_dir, "table.md"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(run_dir, "summary.json"), "w") as f:
        json.dump({"baseline": baseline, "runs": rows}, f, indent=2)
        f.write("\n")
    print(table)


if __name__ == "__main__":
    main()
