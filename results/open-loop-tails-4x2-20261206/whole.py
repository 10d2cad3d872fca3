#!/usr/bin/env python3
"""Per process of one open-loop run (req-<pid>.tsv, batch-<pid>.tsv): where the leader's time went over the whole window."""
import sys, glob, os, gzip

def lines(path):
    """The rows of a tsv file, or of its .gz beside it."""
    path = path[:-3] if path.endswith('.gz') else path
    return gzip.open(path + '.gz', 'rt') if os.path.exists(path + '.gz') else open(path)
d = sys.argv[1]
for f in sorted(glob.glob(d + '/req-*.tsv*')):
    p = os.path.basename(f)[4:].split('.')[0]
    rq = [tuple(map(int, l.split())) for l in lines(f)]
    a = min(r[0] for r in rq); b = max(r[2] for r in rq)
    bt = [tuple(map(int, l.split())) for l in lines(f'{d}/batch-{p}.tsv')]
    bt = [x for x in bt if x[0] >= a and x[3] <= b]
    g = sum(x[1] - x[0] for x in bt); waited = sum(1 for x in bt if x[1] - x[0] > 100_000)
    be = sum(x[2] - x[1] for x in bt if x[2] != -1); lone = sum(x[3] - x[1] for x in bt if x[2] == -1)
    tx = sum(x[3] - x[2] for x in bt if x[2] != -1)
    span = b - a
    s2 = sum(1 for x in bt if x[4] == 2)
    print(f'{p}: window {span/1e6:.0f} ms, {len(bt)} batches ({s2} of 2): gather {g/1e6:.0f} ms ({waited} waits over 0.1 ms), BEGIN {be/1e6:.0f}, lone {lone/1e6:.0f}, txn {tx/1e6:.0f}, no batch {(span-g-be-lone-tx)/1e6:.0f}')
