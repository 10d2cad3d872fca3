#!/usr/bin/env bash
# GROUP_COMMIT at 4 x 2 against the same with its leader holding an OS file lock (fcntl, FileChannel.lock)
# around each batch, alternated, two rounds. HEAD_JAR: bench/target/benchmarks.jar at 01ed307; LOCK_JAR:
# the same with experiment.patch applied (mvn -B -q package -DskipTests). Runs in the current directory.
set -u
for round in 1 2; do
  for j in head:$HEAD_JAR lock:$LOCK_JAR; do
    n=${j%%:*}; jar=${j#*:}
    if [ $n = lock ]; then export LL_LOCKFILE=${LOCK_FILE:-/tmp/leaselab-writer.lock}; else unset LL_LOCKFILE; fi
    for st in WAL_FULL WAL_NORMAL; do
      java -Dleaselab.bench.busyWait=JITTERED -cp "$jar" dev.leaselab.bench.MultiProcessMain --storage $st \
        --strategies GROUP_COMMIT --splits 4x2 --warmup 1s --duration 5s --paired --busy-timeout 5s \
        --json mp-$n-$st-$round.json > mp-$n-$st-$round.log 2>&1
      echo "mp-$n-$st-$round rc=$? $(date -u +%T) $(grep -o 'x floor [0-9.]*.*won/s  floor [0-9]* won/s' mp-$n-$st-$round.log)"
    done
  done
done
