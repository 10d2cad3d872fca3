#!/usr/bin/env bash
# gate profile (paired hot claim, 1 and 8 threads, WAL_NORMAL and WAL_FULL), GROUP_COMMIT, 3 forks;
# the committed jar (park) and the change (yield), alternated
# PARK_JAR: bench/target/benchmarks.jar built at 71975a0; YIELD_JAR: the same built at 3d6e396
# (mvn -B -q install -DskipTests). OUT: where the runs go (default: the current directory).
set -u
cd "${OUT:-.}"
for r in 1 2 3; do
  for j in park:$PARK_JAR yield:$YIELD_JAR; do
    n=${j%%:*}; jar=${j#*:}
    java -cp $jar dev.leaselab.bench.BenchMain run --profile gate --strategies GROUP_COMMIT --forks 3 --output . --run-id gate-$n-$r > gate-$n-$r.log 2>&1
    echo "gate-$n-$r rc=$? $(date -u +%T)"
  done
done
