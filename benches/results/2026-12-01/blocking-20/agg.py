"""Aggregate perf script output: per thread group, self (leaf) share and inclusive share of chosen frames."""
import sys, re, collections
path = sys.argv[1]
groups = collections.Counter(); leaf = collections.defaultdict(collections.Counter); incl = collections.defaultdict(collections.Counter)
KEYS = sys.argv[2].split(',') if len(sys.argv) > 2 else []
def group(comm):
    if comm.startswith('bench-caller'): return 'callers'
    if comm.startswith('mini-hbase'): return 'server'
    if comm.startswith('hbclient-io'): return 'io'
    if comm.startswith('bench-client'): return 'async-rt'
    return 'other:'+comm
def flush(comm, frames):
    if comm is None: return
    g = group(comm); groups[g]+=1
    if frames:
        f = frames[0]
        leaf[g][('K ' if f[1]=='k' else 'U ')+f[0][:90]]+=1
        syms=set(x[0] for x in frames)
        for k in KEYS:
            if any(k in s for s in syms): incl[g][k]+=1
        if frames[0][1]=='k': incl[g]['<kernel leaf>']+=1
comm=None; frames=[]
for line in open(path, errors='replace'):
    if not line.strip():
        flush(comm, frames); comm=None; frames=[]; continue
    if not line.startswith('\t') and not line.startswith(' '):
        flush(comm, frames); comm=line.split()[0]; frames=[]; continue
    m = re.match(r'\s*[0-9a-f]+ (.*) \((.*)\)$', line.rstrip())
    if m: frames.append((m.group(1), 'k' if 'kernel' in m.group(2) else 'u'))
flush(comm, frames)
tot=sum(groups.values())
for g,n in groups.most_common():
    if n < tot*0.01: continue
    print(f"== {g}: {n} samples {100*n/tot:.1f}%")
    for k,c in incl[g].most_common(): print(f"   incl {k}: {100*c/n:.1f}%")
    for s,c in leaf[g].most_common(int(sys.argv[3]) if len(sys.argv)>3 else 15): print(f"   {100*c/n:5.1f}% {s}")
