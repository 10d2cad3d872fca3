#!/bin/bash
# Issue 17's P x T table from one run of each storage and busy wait: every SQLite strategy and the
# floor at 1x8 2x4 4x2 8x1 (MultiProcessMain), 5 s busy timeout, then an open loop at 50% of the
# closed loop's requests/s across the same processes.
# JITTERED: paired (--paired, 100 ms slices, 5 s measured). SQLITE_SLEEPS: unpaired (the floor and
# each strategy in runs of their own, 3 s measured), since --paired refuses SQLite's handler.
# OUT=<folder> writes the logs there instead of beside this script; JAR=... names the jar
# (mvn -B -pl bench -am package -DskipTests builds bench/target/benchmarks.jar).
set -uo pipefail
cd "${OUT:-$(dirname "$0")}"
jar="${JAR:-../../bench/target/benchmarks.jar}"
for storage in WAL_NORMAL WAL_FULL; do
  echo "== $storage JITTERED $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  java -Dleaselab.bench.busyWait=JITTERED -cp "$jar" dev.leaselab.bench.MultiProcessMain --storage $storage \
    --splits 1x8,2x4,4x2,8x1 --paired --warmup 1s --duration 5s --load 0.5 --busy-timeout 5s \
    --json $storage-JITTERED.json > $storage-JITTERED.log 2>&1
  echo "rc=$? $(date -u +%T)"
  echo "== $storage SQLITE_SLEEPS $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  java -Dleaselab.bench.busyWait=SQLITE_SLEEPS -cp "$jar" dev.leaselab.bench.MultiProcessMain --storage $storage \
    --splits 1x8,2x4,4x2,8x1 --warmup 1s --duration 3s --load 0.5 --busy-timeout 5s \
    --json $storage-SQLITE_SLEEPS.json > $storage-SQLITE_SLEEPS.log 2>&1
  echo "rc=$? $(date -u +%T)"
done
echo done
