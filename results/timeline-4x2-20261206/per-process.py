#!/usr/bin/env python3
"""Each process's p99 and p99.9 (end - intended start) from the timelines of the open loops under a folder,
and the most requests that were due in it but not yet started at any moment (its longest queue).

    tar xJf timelines.tar.xz && python3 per-process.py set-1 set-2

A request that never completed counts as longer than any (none did in these runs)."""
import glob, sys

for root in sys.argv[1:]:
    for loop in sorted(glob.glob(root + '/timeline-*/*')):
        cells = []
        for f in sorted(glob.glob(loop + '/process-*.tsv')):
            with open(f) as lines:
                next(lines)
                rows = [[int(x) for x in l.split('\t')[1:4]] for l in lines]
            latencies = sorted((e - i) / 1e6 if e != -1 else float('inf') for i, _, e in rows)
            # +1 when a request falls due, -1 when it starts; at equal times the start counts first.
            events = sorted([(i, 1) for i, _, _ in rows] + [(s, -1) for _, s, _ in rows if s != -1])
            queued = longest_queue = 0
            for _, step in events:
                queued += step
                longest_queue = max(longest_queue, queued)
            n = len(latencies)
            cells.append('%.1f/%.1f/%d' % (latencies[min(n - 1, int(n * 0.99))], latencies[min(n - 1, int(n * 0.999))],
                                           longest_queue))
        print(loop, 'p99 ms/p99.9 ms/longest queue per process:', ' '.join(cells))
