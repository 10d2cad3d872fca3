import json, sys, collections, statistics
# Per fork: each group's x floor (CLAIM_ALL won/s over FLOOR_ALL won/s), and when a 4-group rolling
# median first reached 90% of the measured (not warmup) median x floor.
for path in sys.argv[1:]:
    it = collections.defaultdict(list)
    for line in open(path):
        r = json.loads(line)
        if r['threads'] < 2 or 'slice' not in r: continue
        key = (r['params']['storage'], r['params']['strategy'], r['pid'])
        it[key + (r['iterationType'], r['iteration'], r['slice'])].append(r)
    forks = collections.defaultdict(list)
    for (st, strat, pid, typ, i, sl), rs in it.items():
        start = min(x['startNanos'] for x in rs); end = max(x['endNanos'] for x in rs)
        forks[(st, strat, pid)].append((start, typ, sl, sum(x['won'] for x in rs) / (max(end - start, 1) / 1e9)))
    for k, xs in sorted(forks.items()):
        xs.sort(); t0 = xs[0][0]
        claims = [x for x in xs if x[2] == 'CLAIM_ALL']; floors = [x for x in xs if x[2] == 'FLOOR_ALL']
        groups = [((c[0] - t0) / 1e9, c[3] / f[3], c[1]) for c, f in zip(claims, floors)]
        meas = statistics.median(g[1] for g in groups if g[2] == 'measurement')
        reach = next((groups[i][0] for i in range(len(groups) - 3)
                      if statistics.median(g[1] for g in groups[i:i + 4]) >= 0.9 * meas), None)
        early = statistics.median(g[1] for g in groups if g[0] >= 1.2 and g[0] < 1.2 + 4.2)
        print(f'{k[0]:10} {k[1]:18} fork {k[2]}: measured x floor {meas:.2f}; 90% of it from {reach:.1f} s; '
              f'x floor over 1.2-5.4 s (what the old gate measured) {early:.2f}')
