#!/usr/bin/env bash
# 4x2 paired GROUP_COMMIT and CONDITIONAL_UPDATE: the jittered busy wait yielding first for LL_BUSY_YIELD_NANOS
# (by: 200 µs) x the leader waiting for writers from GC_MIN on (m2: from 2, as if WAKE_UP_NANOS were 0).
# The jar ("${JAR:-/tmp/exp.jar}" here) was bench/target/benchmarks.jar built at 8cce263 with ../experiment.patch applied
# (its LL_BUSY_YIELD_NANOS and GC_MIN parts). Logs in this folder.
set -u
cd "${OUT:-.}"
for round in 1 2; do
  for st in WAL_FULL WAL_NORMAL; do
    for v in base:0:4 by:200000:4 m2:0:2 bym2:200000:2; do
      IFS=: read n y m <<< "$v"
      LL_BUSY_YIELD_NANOS=$y GC_MIN=$m java -Dleaselab.bench.busyWait=JITTERED -cp "${JAR:-/tmp/exp.jar}" dev.leaselab.bench.MultiProcessMain --storage $st \
        --strategies GROUP_COMMIT,CONDITIONAL_UPDATE --splits 4x2 --warmup 1s --duration 5s --paired --busy-timeout 5s \
        --json r$round-$st-$n.json > r$round-$st-$n.log 2>&1
      echo "r$round $st $n rc=$? $(date -u +%T) $(grep -E 'paired' r$round-$st-$n.log | tr '\n' ' ' | cut -c1-300)"
    done
  done
done
