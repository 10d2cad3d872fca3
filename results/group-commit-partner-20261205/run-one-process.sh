#!/usr/bin/env bash
# The same two jars as run.sh with 2 threads in one process (1 x 2), where the change also applies:
# paired against the floor, both storages, two rounds alternated.
set -u
cd "${OUT:-.}"
for round in 1 2; do
  for j in head:$HEAD_JAR new:$NEW_JAR; do
    n=${j%%:*}; jar=${j#*:}
    for st in WAL_FULL WAL_NORMAL; do
      java -Dleaselab.bench.busyWait=JITTERED -cp "$jar" dev.leaselab.bench.MultiProcessMain --storage $st \
        --strategies GROUP_COMMIT --splits 1x2 --warmup 1s --duration 5s --paired --busy-timeout 5s \
        --json one-$n-$st-$round.json > one-$n-$st-$round.log 2>&1
      echo "one-$n-$st-$round rc=$? $(date -u +%T)"
    done
  done
done
