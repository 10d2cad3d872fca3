#!/usr/bin/env bash
# GROUP_COMMIT 8 threads open loop WAL_NORMAL 30000/s: where the checkpoint runs
set -u
# auto, a10k, bg5, bg50, bg200 and none with the slow-write counters, two rounds (logs/c3-*). JAR: bench/target/benchmarks.jar built at 8cce263 with
# ../group-commit-partner-20261205/explore/experiment.patch applied (its LL_AUTOCKPT, LL_BG_CKPT_MS and GC_SLOW parts).
cd "${OUT:-.}"
for round in 1 2; do
  for v in auto a10k bg5 bg50 bg200 none; do
    case $v in auto) e="";; a10k) e="LL_AUTOCKPT=10000";; none) e="LL_AUTOCKPT=0";; bg*) e="LL_AUTOCKPT=0 LL_BG_CKPT_MS=${v#bg}";; esac
    env $e GC_SLOW=1 java -cp "$JAR" dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT --storage WAL_NORMAL --threads 8 --rate 30000 --duration 10s > logs/c3-$v-$round.log 2>&1
    echo "$round $v $(grep '^rate' logs/c3-$v-$round.log | cut -c1-75) | $(grep -o 'started.*' logs/c3-$v-$round.log) | $(grep GCDEBUG logs/c3-$v-$round.log | sed 's/GCDEBUG //; s/mean_us/m/g')"
  done
done
