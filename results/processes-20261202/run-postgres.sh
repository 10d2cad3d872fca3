#!/bin/bash
# P x T matrix of issue 17 on PostgreSQL: every PostgreSQL strategy, 1x8 2x4 4x2 8x1, open loop at 50%, 5 s statement timeout,
# on the throwaway server of with-postgres.sh (PostgreSQL defaults: fsync on, synchronous_commit on).
here="$(cd "$(dirname "$0")" && pwd)"   # measured with the jar of dc1d829; JAR=... names another
jar="${JAR:-$here/../../bench/target/benchmarks.jar}"   # mvn -B -pl bench -am package -DskipTests builds it
echo "== POSTGRESQL $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
"$here/../../with-postgres.sh" java -cp "$jar" dev.leaselab.bench.MultiProcessMain --storage POSTGRESQL \
  --splits 1x8,2x4,4x2,8x1 --warmup 1s --duration 3s --load 0.5 --busy-timeout 5s --json "$here/POSTGRESQL.json" > "$here/POSTGRESQL.log" 2>&1
echo "rc=$? $(date -u +%T)"
