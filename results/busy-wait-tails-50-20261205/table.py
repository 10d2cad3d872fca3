#!/usr/bin/env python3
"""Folds run.sh's JSON files into table.md: per storage and strategy, each round's open-loop p99.9
under both busy waits and their ratio (SQLITE_SLEEPS over JITTERED), with loads and failures."""
import glob, json, os, re, statistics, sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
runs = {}
for path in glob.glob(os.path.join(here, 'r*-*.json')):
    m = re.match(r'r(\d+)-(WAL_\w+?)-(SQLITE_SLEEPS|JITTERED)-(\w+)\.json$', os.path.basename(path))
    if not m:
        continue
    rnd, storage, wait, strategy = int(m[1]), m[2], m[3], m[4]
    d = json.load(open(path))
    closed = d['runs'][1]
    o = closed['openLoop'][0]
    runs[(storage, strategy, rnd, wait)] = dict(rate=o['rateAsked'], load=o['load'], p50=o['p50Ms'], p99=o['p99Ms'],
        p999=o['p999Ms'], max=o['maxMs'], failed=o['failed'] + closed['result']['failed'], floorFailed=d['runs'][0]['result']['failed'],
        sent=o['sent'], won=o['won'], late=o['late'])
rounds = sorted({k[2] for k in runs})
out = []
for storage in ('WAL_FULL', 'WAL_NORMAL'):
    strategies = [s for s in ('IMMEDIATE', 'EXCLUSIVE', 'CONDITIONAL_UPDATE', 'SERIALIZED', 'DEFERRED_RETRY', 'GROUP_COMMIT')
                  if any(k[0] == storage and k[1] == s for k in runs)]
    if not strategies:
        continue
    out.append(f'### {storage}, 4 x 2, open-loop p99.9 ms: SQLITE_SLEEPS / JITTERED (ratio), per round\n')
    out.append('| strategy | req/s | ' + ' | '.join(f'round {r}' for r in rounds)
               + ' | median ratio | load (closed-loop fraction), SLEEPS / JITTERED | p50 ms, SLEEPS / JITTERED (medians) | failed over all rounds (strategy + its floor), SLEEPS / JITTERED |')
    out.append('|---|---:|' + '---|' * len(rounds) + '---:|---|---|---:|')
    for s in strategies:
        cells, ratios, loads_s, loads_j, p50_s, p50_j, rate = [], [], [], [], [], [], None
        failed = {'SQLITE_SLEEPS': [0, 0], 'JITTERED': [0, 0]}
        for r in rounds:
            a, b = runs.get((storage, s, r, 'SQLITE_SLEEPS')), runs.get((storage, s, r, 'JITTERED'))
            if not a or not b:
                cells.append('-')
                continue
            rate = a['rate']
            ratios.append(a['p999'] / b['p999'])
            cells.append(f"{a['p999']:.1f} / {b['p999']:.1f} ({ratios[-1]:.1f}x)")
            loads_s.append(a['load']); loads_j.append(b['load']); p50_s.append(a['p50']); p50_j.append(b['p50'])
            for wait, x in (('SQLITE_SLEEPS', a), ('JITTERED', b)):
                failed[wait][0] += x['failed']
                failed[wait][1] += x['floorFailed']
        if not ratios:
            continue
        out.append(f"| {s} | {rate:.0f} | " + ' | '.join(cells) + f" | **{statistics.median(ratios):.1f}x** | "
                   f"{min(loads_s):.2f}-{max(loads_s):.2f} / {min(loads_j):.2f}-{max(loads_j):.2f} | "
                   f"{statistics.median(p50_s):.2f} / {statistics.median(p50_j):.2f} | {failed['SQLITE_SLEEPS'][0]} + {failed['SQLITE_SLEEPS'][1]} / {failed['JITTERED'][0]} + {failed['JITTERED'][1]} |")
    out.append('')
text = '\n'.join(out)
open(os.path.join(here, 'table.md'), 'w').write(text + '\n')
print(text)
