#!/usr/bin/env python3
"""Markdown tables from the JSON of run.sh (MultiProcessMain): one per storage and busy wait.
Paired runs (JITTERED) give x floor as the median over groups [95% interval]; unpaired runs
(SQLITE_SLEEPS) as the strategy's won/s over the floor's run of the same split.
Usage: table.py [folder]  (default: this script's folder)."""
import json, os, sys
os.chdir(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))

def opens(run):
    o = run.get('openLoop') or []
    return (', '.join(f"{x['p999Ms']:.1f}" for x in o) or '-',
            ', '.join(f"{x['failed']}" for x in o) or '-')

for storage in ['WAL_NORMAL', 'WAL_FULL']:
    for wait in ['JITTERED', 'SQLITE_SLEEPS']:
        path = f'{storage}-{wait}.json'
        if not os.path.exists(path):
            continue
        print(f'\n#### {storage}, {wait}\n')
        print('| P x T | strategy | won/s | x floor | failed (closed / open) | Jain | p99.9 ms (open, 50%) |')
        print('|---|---|---:|---|---|---:|---:|')
        for run in json.load(open(path))['runs']:
            p999, ofail = opens(run)
            if 'paired' in run:
                p = run['paired']
                x = p['xFloor']
                split = f"{p['split']['processes']}x{p['split']['threads']}"
                print(f"| {split} | {p['work']} | {p['claimWonPerSecond']:.0f} (floor {p['floorWonPerSecond']:.0f}) "
                      f"| {x['median']:.2f} [{x['low']:.2f}, {x['high']:.2f}] | {p['claimFailed']} / {ofail} "
                      f"(floor {p['floorFailed']}) | {p['jain']:.2f} | {p999} |")
            else:
                r = run['result']
                split = f"{r['split']['processes']}x{r['split']['threads']}"
                xf = '-' if run['xFloor'] is None else f"{run['xFloor']:.2f}"
                print(f"| {split} | {r['work']} | {r['wonPerSecond']:.0f} | {xf} | {r['failed']} / {ofail} "
                      f"| {r['jain']:.2f} | {p999} |")
