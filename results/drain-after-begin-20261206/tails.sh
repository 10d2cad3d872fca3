#!/usr/bin/env bash
# GROUP_COMMIT at 4 x 2 on WAL_FULL: as committed (head) against drain-after-begin's variants
# (experiment.patch, in this folder; its switches are environment variables, which
# the worker processes inherit):
#   drain: GC_DRAIN_AFTER_BEGIN (drain the queue again once BEGIN IMMEDIATE has the lock; a lone
#          write opens a transaction when the last batch saw other writers)
#   keep:  drain, but a batch of one write still runs alone in autocommit (GC_KEEP_AUTOCOMMIT)
# Each run: a paired closed loop (x floor), then a 10 s open loop at 2,000/s with --timeline.
# Order rotated every round. JAR: the experimental build. OUT: output folder.
# VARIANTS (head drain keep), rounds FIRST to LAST (1 to 4).
set -u
cd "${OUT:-.}"
variants=(${VARIANTS:-head drain keep})
for r in $(seq ${FIRST:-1} ${LAST:-4}); do
  for k in $(seq 0 $(( ${#variants[@]} - 1 ))); do
    v=${variants[$(( (k + r) % ${#variants[@]} ))]}
    unset GC_DRAIN_AFTER_BEGIN GC_GATHER_AFTER_BEGIN GC_KEEP_AUTOCOMMIT
    case $v in drain) export GC_DRAIN_AFTER_BEGIN=1;; keep) export GC_DRAIN_AFTER_BEGIN=1 GC_KEEP_AUTOCOMMIT=1;; esac
    java -Dleaselab.bench.busyWait=JITTERED -cp "$JAR" dev.leaselab.bench.MultiProcessMain --storage WAL_FULL \
      --strategies GROUP_COMMIT --splits 4x2 --paired --duration 10s --rate 2000 --busy-timeout 5s \
      --timeline tl-$v-$r --json $v-$r.json > $v-$r.log 2>&1
    echo "$v-$r rc=$? $(date -u +%T)"
  done
done
