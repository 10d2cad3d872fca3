#!/usr/bin/env python3
"""Markdown tables from the MultiProcessMain logs of run.sh: one table per storage, both busy handlers side by side."""
import re, sys, os
os.chdir(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))  # or the folder given
closed = re.compile(r'^(\w+)\s+(\d+x\d+)\s+(\d+) won/s\s+lost (\d+)\s+failed (\d+)\s+Jain ([\d.]+)\s+slowest ([\d.]+)\s+per process \[([^\]]*)\](?:\s+x floor ([\d.]+))?')
opened = re.compile(r'^(\w+)\s+(\d+x\d+)\s+open loop at ([\d.]+) \((\d+) req/s\): p50 ([\d.]+)\s+p99 ([\d.]+)\s+p99.9 ([\d.]+)\s+max ([\d.]+) ms\s+(\d+) won/s\s+failed (\d+)\s+late (\d+)')
def read(path):
    d = {}
    for line in open(path):
        m = closed.match(line)
        if m:
            d.setdefault((m[1], m[2]), {}).update(won=int(m[3]), lost=int(m[4]), failed=int(m[5]), jain=float(m[6]), xf=m[9])
            continue
        m = opened.match(line)
        if m:
            d.setdefault((m[1], m[2]), {}).update(rate=int(m[4]), p999=float(m[7]), ofailed=int(m[10]), owon=int(m[9]))
    return d
waits = ['SQLITE_SLEEPS', 'JITTERED']
for storage in ['WAL_NORMAL', 'WAL_FULL']:
    data = {w: read(f'{storage}-{w}.log') for w in waits if os.path.exists(f'{storage}-{w}.log')}
    if not data:
        continue
    print(f'\n#### {storage}\n')
    print('| P x T | strategy | ' + ' | '.join(f'{w}: won/s | x floor | failed | Jain | p99.9 ms (open, 50%)' for w in data) + ' |')
    print('|---|---|' + '---:|---:|---:|---:|---:|' * len(data))
    keys = []
    for w in data:
        for k in data[w]:
            if k not in keys:
                keys.append(k)
    for split in ['1x8', '2x4', '4x2', '8x1']:
        for k in [k for k in keys if k[1] == split]:
            cells = []
            for w in data:
                r = data[w].get(k)
                if not r or 'won' not in r:
                    cells.append('- | - | - | - | -')
                    continue
                failed = r['failed'] + r.get('ofailed', 0)
                cells.append(f"{r['won']} | {r['xf'] or '1'} | {r['failed']}{'+' + str(r['ofailed']) if r.get('ofailed') else ''} | {r['jain']:.2f} | {r['p999'] if 'p999' in r else '-'}")
            print(f'| {split} | {k[0]} | ' + ' | '.join(cells) + ' |')
