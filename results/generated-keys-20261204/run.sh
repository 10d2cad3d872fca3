#!/usr/bin/env bash
# The gate's paired rows of three jars, alternated A C B B C A (2 forks a row each).
#   A: bench/target/benchmarks.jar built at 29f423f
#   B: built at the commit that adds this folder, with bench/.../Storage.java of 29f423f (the store without generated keys, the floor as before)
#   C: built at the commit that adds this folder
# A=, B=, C= name the jars; OUT= the folder of the run folders (default: /tmp/generated-keys-runs).
set -u
out="${OUT:-/tmp/generated-keys-runs}"; mkdir -p "$out"
n=0
for v in A C B B C A; do
  n=$((n+1)); jar="${!v:?set $v to the jar of variant $v}"
  echo "== $n $v $(date -u +%T)"
  java -cp "$jar" dev.leaselab.bench.BenchMain run --profile gate --forks 2 --output "$out" --run-id "$n-$v" > "$out/$n-$v.log" 2>&1
  echo "   rc=$? $(date -u +%T)"
done
