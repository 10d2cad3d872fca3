#!/usr/bin/env bash
# alternated: multi-process 1x8 GROUP_COMMIT paired, warmups given as args, N rounds
set -u
cd /tmp/mpw
rounds=$1; shift
for ((r = 1; r <= rounds; r++)); do
  for w in "$@"; do
    java -cp /tmp/gate52/warm.jar dev.leaselab.bench.MultiProcessMain --storage WAL_FULL --strategies GROUP_COMMIT,IMMEDIATE --splits 1x8,4x2 \
      --paired --warmup $w --duration 1500ms --json w$w-$r.json > w$w-$r.log 2>&1
    echo "w$w-$r rc=$? $(date +%T) $(grep -E 'GROUP_COMMIT +1x8' w$w-$r.log | head -1)"
  done
done
