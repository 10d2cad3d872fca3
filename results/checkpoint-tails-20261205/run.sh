#!/usr/bin/env bash
# GROUP_COMMIT 8 threads open loop WAL_NORMAL 30000/s: auto-checkpoint (default) vs none vs a background PASSIVE checkpointer
set -u
# auto, none and bg20, two rounds (logs/ol-*). JAR: bench/target/benchmarks.jar built at 8cce263 with
# ../group-commit-partner-20261205/explore/experiment.patch applied (its LL_AUTOCKPT, LL_BG_CKPT_MS and GC_SLOW parts).
cd "${OUT:-.}"
for round in 1 2; do
  for v in auto none bg20; do
    case $v in auto) e="";; none) e="LL_AUTOCKPT=0";; bg20) e="LL_AUTOCKPT=0 LL_BG_CKPT_MS=20";; esac
    env $e java -cp "$JAR" dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT --storage WAL_NORMAL --threads 8 --rate 30000 --duration 10s > logs/ol-$v-$round.log 2>&1
    echo "$round $v $(date -u +%T) $(grep '^rate' logs/ol-$v-$round.log)"
  done
done
