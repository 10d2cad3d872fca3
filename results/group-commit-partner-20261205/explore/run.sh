#!/usr/bin/env bash
# 4x2 paired GROUP_COMMIT: below 4 writers, wait for the partner only when the commits it saves exceed GC_WAKE_NANOS
# (base: never, as committed; w0: always; w100, w150: above 100 or 150 µs). The jar ("${JAR:-/tmp/exp3.jar}" here) was
# bench/target/benchmarks.jar built at 8cce263 with experiment.patch applied (its GC_WAKE_NANOS and GC_DEBUG
# parts; GC_DEBUG names a folder where each worker process writes its average commit, waits and skips).
set -u
cd "${OUT:-/tmp/bx}"
for round in 1 2 3; do
  for st in WAL_FULL WAL_NORMAL; do
    for v in base:4611686018427387904 w0:0 w100:100000 w150:150000; do
      IFS=: read n w <<< "$v"
      mkdir -p dbg2/$round-$st-$n
      GC_DEBUG=$PWD/dbg2/$round-$st-$n GC_WAKE_NANOS=$w java -Dleaselab.bench.busyWait=JITTERED -cp "${JAR:-/tmp/exp3.jar}" dev.leaselab.bench.MultiProcessMain --storage $st \
        --strategies GROUP_COMMIT --splits 4x2 --warmup 1s --duration 5s --paired --busy-timeout 5s \
        --json s$round-$st-$n.json > s$round-$st-$n.log 2>&1
      echo "r$round $st $n rc=$? $(date -u +%T) $(grep -E 'paired' s$round-$st-$n.log | cut -c1-170) | $(cat dbg2/$round-$st-$n/* | awk '{printf "%d/%d/%d ", $2/1000, $4, $6}')"
    done
  done
done
