#!/usr/bin/env python3
"""x floor at 8 threads per run from the gate reports under a folder: one row per storage, one column per run."""
import re, sys, pathlib, collections
root = pathlib.Path(sys.argv[1])
rows = collections.defaultdict(dict)
for rep in sorted(root.glob('*/report.md')):
    run = rep.parent.name
    for line in rep.read_text().splitlines():
        if '| GROUP_COMMIT | 8 |' in line:
            c = [x.strip() for x in line.strip('|').split('|')]
            rows[c[0]][run] = (c[8], c[6])
for storage, runs in rows.items():
    print(storage)
    by = collections.defaultdict(list)
    for run, (xf, claims) in sorted(runs.items(), key=lambda kv: kv[0].rsplit('-',1)[1]):
        name = run.rsplit('-', 1)[0]
        by[name].append(xf.split(' ')[0])
        print(f'  {run:10s} x floor {xf:24s} claims/s {claims}')
    for name, v in by.items():
        print(f'  {name:6s} ' + ' '.join(v))
