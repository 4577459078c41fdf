"""Summarise runs.tsv (label callers round ops p50 p99 cpu errors load): medians [min-max] and per-round ratios to a base label."""
import sys, collections, statistics as st
path, base = sys.argv[1], sys.argv[2]
rows = [l.rstrip('\n').split('\t') for l in open(path) if l.strip() and 'FAILED' not in l and not l.startswith('label')]
d = collections.defaultdict(dict)
for lab,c,r,ops,p50,p99,cpu,err,load in rows:
    d[(lab,int(c))][int(r)] = dict(ops=float(ops),p50=float(p50),p99=float(p99),cpu=float(cpu),load=float(load))
def fmt(xs, f="{:,.0f}"):
    return f"{f.format(st.median(xs))} [{f.format(min(xs))}–{f.format(max(xs))}]"
print("| mode | callers | rounds | ops/s | × " + base + " | p50 µs | p99 µs | client CPU µs/op | CPU × " + base + " | load1 |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
labels = list(dict.fromkeys(lab for lab,_ in d))
for c in sorted(set(c for _,c in d)):
    for lab in labels:
        runs = d.get((lab,c));
        if not runs: continue
        b = d.get((base,c), {})
        rr = [runs[r]['ops']/b[r]['ops'] for r in runs if r in b]
        cr = [runs[r]['cpu']/b[r]['cpu'] for r in runs if r in b]
        v = lambda k: [x[k] for x in runs.values()]
        print(f"| {lab} | {c:,} | {len(runs)} | {fmt(v('ops'))} | {fmt(rr,'{:.2f}')} | {fmt(v('p50'))} | {fmt(v('p99'))} | {fmt(v('cpu'),'{:.1f}')} | {fmt(cr,'{:.2f}')} | {fmt(v('load'),'{:.1f}')} |")
