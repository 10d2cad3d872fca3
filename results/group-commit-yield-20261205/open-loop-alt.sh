#!/usr/bin/env bash
# GROUP_COMMIT 8 threads, open loop: at 0.5 of each jar's own closed loop, and at one rate for both
# (30,000/s WAL_NORMAL, 13,000/s WAL_FULL); the committed jar (park) and the change (yield), alternated
# PARK_JAR: bench/target/benchmarks.jar built at 71975a0; YIELD_JAR: the same built at 3d6e396
# (mvn -B -q install -DskipTests). OUT: where the runs go (default: the current directory).
set -u
cd "${OUT:-.}"
for round in 1 2; do
  for j in park:$PARK_JAR yield:$YIELD_JAR; do
    n=${j%%:*}; jar=${j#*:}
    for st in WAL_NORMAL:30000 WAL_FULL:13000; do
      s=${st%%:*}; r=${st##*:}
      java -cp $jar dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT --storage $s --threads 8 --load 0.5 --duration 10s --json ol-$n-$s-load-$round.json > ol-$n-$s-load-$round.log 2>&1
      java -cp $jar dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT --storage $s --threads 8 --rate $r --duration 10s --json ol-$n-$s-rate-$round.json > ol-$n-$s-rate-$round.log 2>&1
      echo "$round $n $s $(date -u +%T)"
    done
  done
done
