#!/usr/bin/env bash
# alternated open loops, GROUP_COMMIT 8 threads: load 0.5 of each jar's own max, and fixed equal rates
cd /tmp/gcruns
for round in 1 2; do
  for jar in base new; do
    for st in WAL_NORMAL:30000 WAL_FULL:13000; do
      s=${st%%:*}; r=${st##*:}
      java -cp /tmp/gc-$jar.jar dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT --storage $s --threads 8 --load 0.5 --duration 10s --json ol-$jar-$s-load-$round.json > ol-$jar-$s-load-$round.log 2>&1
      java -cp /tmp/gc-$jar.jar dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT --storage $s --threads 8 --rate $r --duration 10s --json ol-$jar-$s-rate-$round.json > ol-$jar-$s-rate-$round.log 2>&1
      echo "$round $jar $s done $(date -u +%T)"
    done
  done
done
