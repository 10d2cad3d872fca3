#!/usr/bin/env bash
# GROUP_COMMIT, the committed rule (wait for the writers of the last batch from 4 on) against the
# change (below 4, also when the commits the missing writes would save cost more than 100 µs),
# alternated, three rounds: 4 processes x 2 threads paired against the floor on both storages,
# and the in-process gate (1 and 8 threads) as a check that one process is unchanged.
# HEAD_JAR: bench/target/benchmarks.jar built at 8cce263; NEW_JAR: the same built with the change
# (mvn -B -q package -DskipTests). OUT: where the runs go (default: the current directory).
set -u
cd "${OUT:-.}"
for round in 1 2 3; do
  for j in head:$HEAD_JAR new:$NEW_JAR; do
    n=${j%%:*}; jar=${j#*:}
    for st in WAL_FULL WAL_NORMAL; do
      java -Dleaselab.bench.busyWait=JITTERED -cp "$jar" dev.leaselab.bench.MultiProcessMain --storage $st \
        --strategies GROUP_COMMIT --splits 4x2 --warmup 1s --duration 5s --paired --busy-timeout 5s \
        --json mp-$n-$st-$round.json > mp-$n-$st-$round.log 2>&1
      echo "mp-$n-$st-$round rc=$? $(date -u +%T)"
    done
    java -cp "$jar" dev.leaselab.bench.BenchMain run --profile gate --strategies GROUP_COMMIT --forks 3 --output gate \
      --run-id gate-$n-$round > gate-$n-$round.log 2>&1
    echo "gate-$n-$round rc=$? $(date -u +%T)"
  done
done
