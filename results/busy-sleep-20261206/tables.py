#!/usr/bin/env python3
"""Tables from run.sh's JSON files: per storage, split, strategy and longest sleep, each round's
paired x floor, claim and floor won/s, Jain, failed, and the open loops' p99.9 (and how many ms
late the loop fell). Usage: tables.py [folder] (default: the folder of this script's runs/)."""
import glob, json, os, re, sys
from collections import defaultdict

folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "runs")
cells = defaultdict(list)
for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
    m = re.match(r"(WAL_\w+?)-(\d+x\d+)-(\w+)-(\w+)-(\d+)\.json$", os.path.basename(path))
    if not m:
        continue
    storage, split, strategy, sleep, rnd = m.groups()
    report = json.load(open(path))
    want = {"4ms": 4000, "1ms": 1000}.get(sleep)
    if want is not None and report.get("longestBusySleepMicros") != want:
        sys.exit(f"{path}: recorded longest sleep {report.get('longestBusySleepMicros')} us, not {sleep}")
    run = report["runs"][0]
    p = run["paired"]
    opens = {int(o["rateAsked"]): o for o in run["openLoop"]}
    cells[(storage, split, strategy, sleep)].append((int(rnd), p, opens))

def fmt(values, spec):
    return " ".join(format(v, spec) for v in values)

rates = sorted({r for runs in cells.values() for _, _, o in runs for r in o})
head = "| storage | split | strategy | longest sleep | x floor | claim won/s | floor won/s | Jain | failed | " + \
       " | ".join(f"p99.9 ms at {r}/s" for r in rates) + " |"
print(head)
print("|" + "---|" * (head.count("|") - 1))
for key in sorted(cells, key=lambda k: (k[0], k[1], k[2], -int(k[3].rstrip("ms")))):
    runs = sorted(cells[key])
    x = [p["xFloor"]["median"] for _, p, _ in runs]
    claim = [p["claimWonPerSecond"] for _, p, _ in runs]
    floor = [p["floorWonPerSecond"] for _, p, _ in runs]
    jain = [p["jain"] for _, p, _ in runs]
    failed = sum(p["claimFailed"] + p["floorFailed"] for _, p, _ in runs) + \
             sum(o[r]["failed"] for _, _, o in runs for r in o)
    tails = [fmt([o[r]["p999Ms"] for _, _, o in runs if r in o], ".1f") for r in rates]
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {fmt(x, '.2f')} | {fmt(claim, '.0f')} | {fmt(floor, '.0f')} | "
          f"{fmt(jain, '.2f')} | {failed} | " + " | ".join(tails) + " |")
