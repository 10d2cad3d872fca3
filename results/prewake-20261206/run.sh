#!/usr/bin/env bash
# GROUP_COMMIT gate (paired hot claim, 1 and 8 threads, WAL_NORMAL and WAL_FULL), 3 forks;
# head jar against the experimental jar's variants, alternated, order rotated each round
set -u
H=${HEAD_JAR:?built at 87e87e6}; E=${EXP_JAR:?87e87e6 with experiment.patch}
variants=("head|$H|" "pw|$E|-Dgc.prewake=true" "pw50|$E|-Dgc.prewake=true -Dgc.writerYieldNanos=50000")
for r in 1 2 3 4; do
  for k in 0 1 2; do
    i=$(( (k + r) % 3 )); IFS='|' read n jar props <<< "${variants[$i]}"
    java $props -cp $jar dev.leaselab.bench.BenchMain run --profile gate --strategies GROUP_COMMIT --forks 3 --output . --run-id $n-$r > $n-$r.log 2>&1
    echo "$n-$r rc=$? $(date -u +%T)"
  done
done
