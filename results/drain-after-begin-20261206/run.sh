#!/usr/bin/env bash
# GROUP_COMMIT as committed (head) against the experiment's variants, alternated:
#   drain: GC_DRAIN_AFTER_BEGIN (drain the queue again once BEGIN IMMEDIATE has the lock)
#   gather: drain + GC_GATHER_AFTER_BEGIN (below 4 writers, wait for the partner after BEGIN, the
#           time spent in BEGIN counted against the wait)
#   keep: drain, but a batch of one write still runs alone in autocommit (GC_KEEP_AUTOCOMMIT)
# JAR: the experimental build (its defaults behave as committed). OUT: output folder.
# ROUNDS (3), SPLITS (4x2; a comma-separated list), VARIANTS ("head drain gather").
set -u
cd "${OUT:-.}"
rounds=${ROUNDS:-3}; splits=${SPLITS:-4x2}
for round in $(seq 1 $rounds); do
  for v in ${VARIANTS:-head drain gather}; do
    unset GC_DRAIN_AFTER_BEGIN GC_GATHER_AFTER_BEGIN GC_KEEP_AUTOCOMMIT
    case $v in drain) export GC_DRAIN_AFTER_BEGIN=1;; gather) export GC_DRAIN_AFTER_BEGIN=1 GC_GATHER_AFTER_BEGIN=1;; keep) export GC_DRAIN_AFTER_BEGIN=1 GC_KEEP_AUTOCOMMIT=1;; esac
    for st in WAL_FULL WAL_NORMAL; do
      for sp in ${splits//,/ }; do
        f=mp-$v-$st-$sp-$round
        java -Dleaselab.bench.busyWait=JITTERED -cp "$JAR" dev.leaselab.bench.MultiProcessMain --storage $st \
          --strategies GROUP_COMMIT --splits $sp --warmup 1s --duration 5s --paired --busy-timeout 5s \
          --json $f.json > $f.log 2>&1
        echo "$f rc=$? $(date -u +%T) $(grep -o 'x floor [0-9.]*.*won/s  floor [0-9]* won/s' $f.log)"
      done
    done
  done
done
