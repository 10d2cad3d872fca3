#!/usr/bin/env bash
# GROUP_COMMIT gate (paired hot claim, 1 and 8 threads, WAL_NORMAL and WAL_FULL), 3 forks;
# head (dd4bf36) against the Gathering seam (Waits), alternated, order flipped each round.
set -u
cd /tmp/gate47
for r in 1 2 3; do
  if [ $((r % 2)) = 1 ]; then order="head new"; else order="new head"; fi
  for n in $order; do
    java -cp $n.jar dev.leaselab.bench.BenchMain run --profile gate --strategies GROUP_COMMIT --forks 3 --output runs --run-id $n-$r > $n-$r.log 2>&1
    echo "$n-$r rc=$? $(date -u +%T)"
  done
done
