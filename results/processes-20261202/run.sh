#!/bin/bash
# P x T matrix of issue 17: every SQLite strategy, 1x8 2x4 4x2 8x1, both storages, both busy handlers, 5 s busy timeout.
# OUT=<a folder under results/> writes the logs there instead of beside this script.
cd "${OUT:-$(dirname "$0")}"   # measured with the jar of 16c41f8; JAR=... names another
jar="${JAR:-../../bench/target/benchmarks.jar}"   # mvn -B -pl bench -am package -DskipTests builds it
for storage in WAL_NORMAL WAL_FULL; do
  for wait in SQLITE_SLEEPS JITTERED; do
    echo "== $storage $wait $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    java -Dleaselab.bench.busyWait=$wait -cp "$jar" dev.leaselab.bench.MultiProcessMain --storage $storage \
      --splits 1x8,2x4,4x2,8x1 --warmup 1s --duration 3s --load 0.5 --busy-timeout 5s --json $storage-$wait.json > $storage-$wait.log 2>&1
    echo "rc=$? $(date -u +%T)"
  done
done
echo done
