#!/usr/bin/env bash
# Issue 17's tail target, on the same work: SQLite's busy handler (SQLITE_SLEEPS) against the store's
# jittered wait (JITTERED), 4 processes x 2 threads, hot-job claims, 5 s busy timeout, each strategy's
# open loop at one fixed rate (requests/s over all processes) for both handlers, the handlers alternated
# in every round (SQLITE_SLEEPS first on odd rounds). The rates are half the lowest closed-loop requests/s
# (attempts, won or lost) that each strategy's six closed loops of ../busy-wait-tails-20261204 measured at 4 x 2:
# the issue's "50% of the measured maximum rate", the same for both handlers.
# JAR= names the benchmarks jar (default: the clone's); OUT= the folder (default: here); ROUNDS= (default 3).
set -u
here="$(cd "$(dirname "$0")" && pwd)"; out="${OUT:-$here}"; jar="${JAR:-$here/../../bench/target/benchmarks.jar}"
mkdir -p "$out"
declare -A rate=(
  [WAL_FULL:IMMEDIATE]=2450 [WAL_FULL:EXCLUSIVE]=2800 [WAL_FULL:CONDITIONAL_UPDATE]=2700
  [WAL_FULL:SERIALIZED]=2450 [WAL_FULL:DEFERRED_RETRY]=1650 [WAL_FULL:GROUP_COMMIT]=2300
  [WAL_NORMAL:IMMEDIATE]=13800 [WAL_NORMAL:EXCLUSIVE]=13700 [WAL_NORMAL:CONDITIONAL_UPDATE]=16900
  [WAL_NORMAL:SERIALIZED]=13600 [WAL_NORMAL:DEFERRED_RETRY]=12300 [WAL_NORMAL:GROUP_COMMIT]=19800)
for round in $(seq 1 "${ROUNDS:-3}"); do
  if [ $((round % 2)) = 1 ]; then waits="SQLITE_SLEEPS JITTERED"; else waits="JITTERED SQLITE_SLEEPS"; fi
  for storage in WAL_FULL WAL_NORMAL; do
    for wait in $waits; do
      for strategy in IMMEDIATE EXCLUSIVE CONDITIONAL_UPDATE SERIALIZED DEFERRED_RETRY GROUP_COMMIT; do
        id="r$round-$storage-$wait-$strategy"
        echo "== $id $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
        java -Dleaselab.bench.busyWait=$wait -cp "$jar" dev.leaselab.bench.MultiProcessMain --storage $storage \
          --splits 4x2 --strategies $strategy --warmup 1s --duration 3s --busy-timeout 5s \
          --rate "${rate[$storage:$strategy]}" --json "$out/$id.json" > "$out/$id.log" 2>&1
        echo "rc=$? $(grep 'open loop' "$out/$id.log")"
      done
    done
  done
done
echo "done $(date -u +%T)"
