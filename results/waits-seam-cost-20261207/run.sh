#!/usr/bin/env bash
# usage: run.sh FIRST_ROUND LAST_ROUND JAR...
# Runs the gate's paired hot claim for GROUP_COMMIT (1 and 8 threads, WAL_NORMAL and WAL_FULL,
# 3 forks) once per jar in each round, the order rotated by one each round, from a folder that
# holds the jars (JAR names without .jar). Reports go to runs/<jar>-<round>/.
set -u
first=$1 last=$2
shift 2
jars=("$@")
for ((r = first; r <= last; r++)); do
  k=$(( (r - first) % ${#jars[@]} ))
  for n in "${jars[@]:k}" "${jars[@]:0:k}"; do
    java -cp "$n.jar" dev.leaselab.bench.BenchMain run --profile gate --strategies GROUP_COMMIT --forks 3 \
      --output runs --run-id "$n-$r" > "$n-$r.log" 2>&1
    echo "$n-$r rc=$? $(date -u +%T)"
  done
done
