#!/usr/bin/env python3
"""Build the side-by-side table of benches/peers/compare.sh from the JSON results of one run.

    compare_table.py RUN_DIR           reads RUN_DIR/runs.tsv (label, workload, threads, round, json path, load
                                       average[, server CPU s, busy CPU s of the box, wall s]), writes RUN_DIR/table.md and RUN_DIR/summary.json, prints the
                                       markdown table

All tools' JSONs share hbclient-bench's key fields: result.ops_per_sec, result.latency.{mean,p50,p99}_us,
result.errors, cpu.process_cpu_us_per_op, and for rows result.rows_per_sec and cpu.process_cpu_us_per_row. Every cell is the median over the rounds with its min–max; "× base"
is the ratio of medians (tool / baseline, same workload and threads; the baseline is the first label in
runs.tsv, hbclient async unless --tools said otherwise) and, in brackets, the min–max of the per-round ratios
(round r's tool / round r's baseline: pairs measured minutes apart, so the machine's drift mostly cancels).
Old runs.tsv files with three columns (label, workload, json) are read as one round.
With the server's CPU recorded (compare.sh finds the standalone HBase's pid), two more columns: the server's
CPU per row (per op where no rows are counted) — over the measured phase where the tool's JSON has it
(cpu.server_process_cpu_us_per_row/op: hbclient-bench, gohbase-bench), else over the whole command (PE; its
JVM start and any warm-up included) — and the box's busy cores over the whole command. They bound what a
client can gain: on a box whose cores the server shares, rows/s ≤ cores ÷ (server + client CPU per row).
"""
import json
import os
import statistics
import sys
from collections import defaultdict


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


FIELDS = {
    "ops_per_sec": ("result", "ops_per_sec"),
    "p50_us": ("result", "latency", "p50_us"),
    "p99_us": ("result", "latency", "p99_us"),
    "mean_us": ("result", "latency", "mean_us"),
    "cpu_us_per_op": ("cpu", "process_cpu_us_per_op"),
    # Scans: an operation may be a whole pass, so rows are what compare.
    "rows_per_sec": ("result", "rows_per_sec"),
    "cpu_us_per_row": ("cpu", "process_cpu_us_per_row"),
}


def main():
    run_dir = sys.argv[1]
    cells = defaultdict(dict)  # (tool, wl, threads) -> {round: row}
    order, missing = [], []
    with open(os.path.join(run_dir, "runs.tsv")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3:
                label, wl, path = parts
                threads, rnd, load = "?", "1", None
            else:
                label, wl, threads, rnd, path, load = parts[:6]
            server_s, busy_s, wall_s = (float(x) for x in parts[6:9]) if len(parts) >= 9 else (None,) * 3
            key = (label, wl, threads)
            if key not in order:
                order.append(key)
            try:
                d = json.load(open(path if os.path.isabs(path) else os.path.join(run_dir, path)))
            except (OSError, ValueError) as e:
                missing.append({"tool": label, "workload": wl, "threads": threads, "round": rnd, "error": str(e)})
                continue
            row = {k: get(d, *p) for k, p in FIELDS.items()}
            row.update(ops=get(d, "result", "ops"), errors=get(d, "result", "errors"),
                       load=float(load) if load else None, json=os.path.relpath(path, run_dir))
            rows = get(d, "result", "rows")
            work = rows or row["ops"]
            in_phase = get(d, "cpu", "server_process_cpu_us_per_row" if rows else "server_process_cpu_us_per_op")
            row["server_cpu_us_per_row"] = (in_phase if in_phase is not None
                                            else server_s * 1e6 / work if server_s and work else None)
            row["box_busy_cores"] = busy_s / wall_s if busy_s is not None and wall_s else None
            cells[key][int(rnd)] = row
    baseline = order[0][0] if order else None

    def stat(rows, k):
        vals = [r[k] for r in rows.values() if r.get(k) is not None]
        if not vals:
            return None
        return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}

    def cell(s, nd=0):
        if not s:
            return "–"
        if s["n"] == 1:
            return fmt(s["median"], nd)
        return f"{fmt(s['median'], nd)} [{fmt(s['min'], nd)}–{fmt(s['max'], nd)}]"

    def ratio(rows, base, k):
        a, b = stat(rows, k), stat(base, k)
        if not a or not b or not b["median"]:
            return "–", None
        per = [rows[r][k] / base[r][k] for r in rows if r in base and rows[r].get(k) is not None
               and base[r].get(k)]
        m = a["median"] / b["median"]
        text = f"{m:.2f}"
        if len(per) > 1:
            text += f" [{min(per):.2f}–{max(per):.2f}]"
        return text, {"of_medians": m, "per_round": per}

    head = ("| tool | workload | threads | rounds | ops/s median [min–max] | × base | p50 µs | × base "
            "| p99 µs | × base | client CPU µs/op | × base | rows/s | × base | CPU µs/row | × base "
            "| server CPU µs/row | box busy cores | errors |")
    lines = [head, "|" + " --- |" * 19]
    summary = []
    for wl in dict.fromkeys(k[1] for k in order):
        for th in dict.fromkeys(k[2] for k in order if k[1] == wl):
            base = cells.get((baseline, wl, th), {})
            for key in order:
                if key[1] != wl or key[2] != th:
                    continue
                rows = cells.get(key, {})
                if not rows:
                    lines.append(f"| {key[0]} | {wl} | {th} | 0 | no result |" + " |" * 14)
                    continue
                s = {k: stat(rows, k) for k in list(FIELDS) + ["server_cpu_us_per_row", "box_busy_cores"]}
                r = {k: ratio(rows, base, k) for k in ("ops_per_sec", "p50_us", "p99_us", "cpu_us_per_op",
                                                 "rows_per_sec", "cpu_us_per_row")}
                errs = sum(x.get("errors") or 0 for x in rows.values())
                lines.append(
                    f"| {key[0]} | {wl} | {th} | {len(rows)} | {cell(s['ops_per_sec'])} | {r['ops_per_sec'][0]} "
                    f"| {cell(s['p50_us'])} | {r['p50_us'][0]} | {cell(s['p99_us'])} | {r['p99_us'][0]} "
                    f"| {cell(s['cpu_us_per_op'], 1)} | {r['cpu_us_per_op'][0]} "
                    f"| {cell(s['rows_per_sec'])} | {r['rows_per_sec'][0]} "
                    f"| {cell(s['cpu_us_per_row'], 2)} | {r['cpu_us_per_row'][0]} "
                    f"| {cell(s['server_cpu_us_per_row'], 2)} | {cell(s['box_busy_cores'], 2)} | {errs} |")
                summary.append({"tool": key[0], "workload": wl, "threads": th, "stats": s,
                                "ratios_to_base": {k: v[1] for k, v in r.items()}, "errors": errs,
                                "rounds": {str(n): rows[n] for n in sorted(rows)}})
    table = "\n".join(lines)
    with open(os.path.join(run_dir, "table.md"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(run_dir, "summary.json"), "w") as f:
        json.dump({"baseline": baseline, "cells": summary, "missing": missing}, f, indent=2)
        f.write("\n")
    print(table)


if __name__ == "__main__":
    main()
