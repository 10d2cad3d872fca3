#!/usr/bin/env bash
# 4 x 2 on WAL_FULL, GROUP_COMMIT and CONDITIONAL_UPDATE, a closed loop and then a 10 s open loop at
# 2,000 requests/s with --timeline; three rounds. JAR: the benchmarks jar; OUT: where the runs go.
set -u
cd "${OUT:-.}"
for r in 1 2 3; do
  java -cp "$JAR" dev.leaselab.bench.MultiProcessMain --storage WAL_FULL --splits 4x2 \
    --strategies GROUP_COMMIT,CONDITIONAL_UPDATE --duration 10s --rate 2000 --busy-timeout 5s \
    --timeline timeline-$r --json round-$r.json > round-$r.log 2>&1
  echo "round $r rc=$? $(date -u +%T)"
done
