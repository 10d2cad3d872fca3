#!/usr/bin/env python3
"""Markdown tables from the JSON of run.sh (MultiProcessMain --paired): one table per storage.
Usage: table.py [folder]  (default: this script's folder)."""
import json, os, sys
os.chdir(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
for storage in ['WAL_NORMAL', 'WAL_FULL']:
    for wait in ['JITTERED', 'SQLITE_SLEEPS']:
        path = f'{storage}-{wait}.json'
        if not os.path.exists(path):
            continue
        print(f'\n#### {storage}, {wait}\n')
        print('| P x T | strategy | x floor [95%] | claim won/s | floor won/s | failed (claim / floor) | Jain | p99.9 ms (open, 50%) | open loop won/s of asked |')
        print('|---|---|---|---:|---:|---:|---:|---:|---|')
        for run in json.load(open(path))['runs']:
            p = run['paired']
            x = p['xFloor']
            opens = run.get('openLoop') or []
            p999 = ', '.join(f"{o['p999Ms']:.1f}" for o in opens) or '-'
            got = ', '.join(f"{o['wonPerSecond']:.0f} of {o['rateAsked']:.0f}" for o in opens) or '-'
            split = f"{p['split']['processes']}x{p['split']['threads']}"
            print(f"| {split} | {p['work']} | {x['median']:.2f} [{x['low']:.2f}, {x['high']:.2f}] | {p['claimWonPerSecond']:.0f} "
                  f"| {p['floorWonPerSecond']:.0f} | {p['claimFailed']} / {p['floorFailed']} | {p['jain']:.2f} | {p999} | {got} |")
