#!/bin/bash
# Issue 17's P x T matrix, paired: every SQLite strategy against the floor in one run per cell
# (MultiProcessMain --paired: 25 groups of a floor and a claim slice of 100 ms), 1x8 2x4 4x2 8x1,
# both storages, 5 s busy timeout, then an open loop at 50% of the claim slices' requests/s.
# The jittered busy wait only: --paired refuses SQLite's handler (README.md here says why).
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
done
echo done
