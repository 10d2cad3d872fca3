#!/bin/bash
# P x T matrix of issue 17 on PostgreSQL: every PostgreSQL strategy, 1x8 2x4 4x2 8x1, open loop at 50%, 5 s statement timeout,
# on the throwaway server of with-postgres.sh (PostgreSQL defaults: fsync on, synchronous_commit on).
here="$(cd "$(dirname "$0")" && pwd)"   # ran as /tmp/pxt-pg/run.sh next to a copy of bench/target/benchmarks.jar built at dc1d829
echo "== POSTGRESQL $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
/work/main/with-postgres.sh java -cp "$here/benchmarks.jar" dev.leaselab.bench.MultiProcessMain --storage POSTGRESQL \
  --splits 1x8,2x4,4x2,8x1 --warmup 1s --duration 3s --load 0.5 --busy-timeout 5s --json "$here/POSTGRESQL.json" > "$here/POSTGRESQL.log" 2>&1
echo "rc=$? $(date -u +%T)"
