"""Paired comparison of two jars' gate runs, round by round.

usage: python3 stats.py RUNS_DIR A B

Reads RUNS_DIR/<jar>-<round>/report.md (BenchMain's gate report) and, for each storage, the
8-thread GROUP_COMMIT row of the rounds that ran both jars: x floor (the headline paired ratio),
N / 1 (claims at 8 threads over claims at 1, also paired within each fork), claims/s and the
floor's rate at 8 threads. Prints both jars' values per round, their medians, in how many rounds
B was below A, and the two-sided Wilcoxon signed-rank p-value over the rounds (scipy).
"""
import glob
import os
import statistics
import sys

from scipy.stats import wilcoxon

runs, a, b = sys.argv[1:4]
rows = {}
for report in glob.glob(os.path.join(runs, '*', 'report.md')):
    jar, round_ = os.path.basename(os.path.dirname(report)).rsplit('-', 1)
    for line in open(report):
        cells = [c.strip() for c in line.split('|')]
        if len(cells) > 10 and cells[2] == 'GROUP_COMMIT' and cells[3] == '8':
            rows[(cells[1], jar, int(round_))] = {
                'x floor': float(cells[9].split()[0]),
                'N / 1': float(cells[10].split()[0]),
                'claims/s': int(cells[7].replace(',', '')),
                'floor/s': int(cells[8].replace(',', '')),
            }
for storage in ('WAL_NORMAL', 'WAL_FULL'):
    rounds = sorted(r for (s, j, r) in rows if s == storage and j == b and (s, a, r) in rows)
    print(f'{storage}, rounds {rounds[0]}-{rounds[-1]} ({len(rounds)})')
    for metric in ('x floor', 'N / 1', 'claims/s', 'floor/s'):
        xs = [rows[(storage, a, r)][metric] for r in rounds]
        ys = [rows[(storage, b, r)][metric] for r in rounds]
        below = sum(y < x for x, y in zip(xs, ys))
        p = wilcoxon(xs, ys).pvalue
        print(f'  {metric:9} {a}: {" ".join(map(str, xs))}')
        print(f'  {"":9} {b}: {" ".join(map(str, ys))}')
        print(f'  {"":9} median {statistics.median(xs):g} against {statistics.median(ys):g}, '
              f'{b} below in {below} of {len(rounds)}, Wilcoxon p = {p:.3f}')
