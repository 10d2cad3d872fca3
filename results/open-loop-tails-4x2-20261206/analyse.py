#!/usr/bin/env python3
"""Reads req-<pid>.tsv and batch-<pid>.tsv of one open-loop run; for each process's worst episodes
(requests over LIMIT ms, grouped when less than 20 ms apart) prints where its leader's time went."""
import sys, glob, os, gzip, collections

def lines(path):
    """The rows of a tsv file, or of its .gz beside it."""
    path = path[:-3] if path.endswith('.gz') else path
    return gzip.open(path + '.gz', 'rt') if os.path.exists(path + '.gz') else open(path)
d = sys.argv[1]; LIMIT = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
procs = sorted(int(os.path.basename(f)[4:].split('.')[0]) for f in glob.glob(d + '/req-*.tsv*'))
req = {p: [tuple(map(int, l.split())) for l in lines(f'{d}/req-{p}.tsv')] for p in procs}
bat = {}
for p in procs:
    bat[p] = [tuple(map(int, l.split())) for l in lines(f'{d}/batch-{p}.tsv')]
t0 = min(r[0] for p in procs for r in req[p] if r[3])
ms = lambda ns: ns / 1e6
def busy(p, a, b):
    """(batches, gather ms, BEGIN ms, lone-statement ms, in-transaction ms, outside ms) of p's leader within [a, b]."""
    n = g = be = lone = tx = 0
    inside = 0
    for (s, ga, bg, e, size, _) in bat[p]:
        if e < a or s > b: continue
        n += 1
        s2, e2 = max(s, a), min(e, b)
        inside += e2 - s2
        g += max(0, min(ga, b) - max(s, a))
        if bg == -1:
            lone += max(0, min(e, b) - max(ga, a))
        else:
            be += max(0, min(bg, b) - max(ga, a)); tx += max(0, min(e, b) - max(bg, a))
    return n, ms(g), ms(be), ms(lone), ms(tx), ms((b - a) - inside)
for p in procs:
    rs = sorted(r for r in req[p] if r[3])
    lat = [(r[2] - r[0]) / 1e6 for r in rs]
    slow = [r for r, l in zip(rs, lat) if l > LIMIT]
    sizes = collections.Counter(b[4] for b in bat[p])
    print(f'process {p}: {len(rs)} requests, {len(slow)} over {LIMIT} ms, max {max(lat):.1f} ms; batches {len(bat[p])}, sizes {dict(sorted(sizes.items()))}')
    eps = []
    for r in slow:
        if eps and r[0] - eps[-1][-1][0] < 20e6: eps[-1].append(r)
        else: eps.append([r])
    for ep in sorted(eps, key=lambda e: -max(x[2] - x[0] for x in e))[:3]:
        a, b = ep[0][0], max(x[2] for x in ep)
        worst = max(x[2] - x[0] for x in ep) / 1e6
        print(f'  episode at {ms(a - t0):.1f} ms for {ms(b - a):.1f} ms, {len(ep)} slow requests, worst {worst:.1f} ms')
        for q in procs:
            n, g, be, lone, tx, out = busy(q, a, b)
            print(f'    {"this " if q == p else "other"} {q}: {n} batches, gather {g:.1f}, BEGIN {be:.1f}, lone {lone:.1f}, in txn {tx:.1f}, no batch running {out:.1f} ms')
