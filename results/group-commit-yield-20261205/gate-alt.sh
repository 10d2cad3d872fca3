#!/usr/bin/env bash
# gate profile (paired hot claim, 1 and 8 threads, WAL_NORMAL and WAL_FULL), GROUP_COMMIT, 3 forks;
# the committed jar (park) and the change (yield), alternated
cd /tmp/gcy
for r in 1 2 3; do
  for j in park:/tmp/gcjars/park-71975a0.jar yield:/tmp/gcjars/yield-final.jar; do
    n=${j%%:*}; jar=${j#*:}
    java -cp $jar dev.leaselab.bench.BenchMain run --profile gate --strategies GROUP_COMMIT --forks 3 --output /tmp/gcy --run-id gate-$n-$r > gate-$n-$r.log 2>&1
    echo "gate-$n-$r rc=$? $(date -u +%T)"
  done
done
