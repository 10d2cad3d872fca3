#!/usr/bin/env python3
"""One open-loop run's timeline in 5 ms steps from A to B ms (after the first measured request):
per process, the batches its leader ended and the requests over 30 ms that ended in each step.
Usage: buckets.py <folder> A B"""
import sys, glob, os, gzip

def lines(path):
    """The rows of a tsv file, or of its .gz beside it."""
    return gzip.open(path + '.gz', 'rt') if os.path.exists(path + '.gz') else open(path)

d, A, B = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
procs = sorted(os.path.basename(f)[4:].split('.')[0] for f in glob.glob(d + '/req-*.tsv*'))
bt = {p: [tuple(map(int, l.split())) for l in lines(f'{d}/batch-{p}.tsv')] for p in procs}
rq = {p: [tuple(map(int, l.split())) for l in lines(f'{d}/req-{p}.tsv')] for p in procs}
t0 = min(r[0] for p in procs for r in rq[p])
print('ms     ' + '  '.join(f'{p}:done/slow' for p in procs))
for s in range(A, B, 5):
    a = t0 + s * 1e6; b = a + 5e6
    row = []
    for p in procs:
        n = sum(1 for x in bt[p] if a <= x[3] < b)
        slow = sum(1 for r in rq[p] if a <= r[2] < b and r[2] - r[0] > 30e6)
        row.append(f'{n:3d}/{slow:<3d}')
    print(f'{s:5d}  ' + '      '.join(row))
