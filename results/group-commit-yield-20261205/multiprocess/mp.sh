#!/usr/bin/env bash
# GROUP_COMMIT across processes, park (0) vs yield (300 us), paired against the floor, jittered busy wait
# JAR: bench/target/benchmarks.jar built from 71975a0 with ../variants/yield-experiment.patch applied
# (its GC_* variables set the bounds). OUT: where the runs go (default: the current directory).
set -u
cd "${OUT:-.}"
J=$JAR
for round in 1 2; do
  for v in park:0 yield:300000; do
    n=${v%%:*}; y=${v##*:}
    for s in WAL_NORMAL WAL_FULL; do
      env GC_YIELD_NANOS=$y GC_GATHER_YIELD_NANOS=$y java -Dleaselab.bench.busyWait=JITTERED -cp $J dev.leaselab.bench.MultiProcessMain --storage $s --strategies GROUP_COMMIT --splits 1x8,2x4,4x2 --paired --load 0.5 --warmup 1s --duration 3s --json mp-$n-$s-$round.json > mp-$n-$s-$round.log 2>&1
      echo "$round $n $s rc=$? $(date -u +%T)"
    done
  done
done
