import json, sys, collections
# per fork: the CLAIM_ALL and FLOOR_ALL slices' won/s over the fork's time (seconds since its first slice)
for path in sys.argv[1:]:
    it = collections.defaultdict(list)
    for line in open(path):
        r = json.loads(line)
        if r['threads'] != 8 or 'slice' not in r: continue
        it[(r['pid'], r['iterationType'], r['iteration'], r['slice'])].append(r)
    forks = collections.defaultdict(list)
    for (pid, typ, i, sl), rs in it.items():
        start = min(x['startNanos'] for x in rs); end = max(x['endNanos'] for x in rs)
        forks[pid].append((start, sl, typ, sum(x['won'] for x in rs) / ((end - start) / 1e9)))
    for pid, xs in forks.items():
        xs.sort(); t0 = xs[0][0]
        print(path, pid)
        for sl in ('CLAIM_ALL', 'FLOOR_ALL'):
            row = [(round((s - t0) / 1e9, 1), round(v / 1000, 1), typ[0]) for s, l, typ, v in xs if l == sl]
            print(' ', sl, ' '.join(f'{t}s:{v}{w}' for t, v, w in row))
