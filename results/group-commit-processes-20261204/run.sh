#!/bin/bash
# GROUP_COMMIT at 4 processes x 2 threads, three builds alternated, three rounds (paired.txt).
# BASE: a jar of dab2160 (GROUP_COMMIT as at ccb2bc1); VARIANT: the same with drain-after-begin.patch
# applied and MIN_WRITERS_TO_WAIT_FOR read from $GC_MIN (v1: GC_MIN=4, as committed; v2: GC_MIN=2), a line
# of the experiment's build that the patch does not carry:
#   static final int MIN_WRITERS_TO_WAIT_FOR = System.getenv("GC_MIN") == null ? 4 : Integer.parseInt(System.getenv("GC_MIN"));
# unpaired.txt came from the same loop without --paired (floor and claim in runs of their own), with
# the jar of ccb2bc1 as BASE, splits WAL_FULL:4x2 WAL_NORMAL:4x2 WAL_NORMAL:1x8, 3 s measured, --load 0.5.
set -uo pipefail
cd "$(dirname "$0")"
for round in 1 2 3; do
  for st in WAL_FULL WAL_NORMAL; do
    for v in base v1 v2; do
      case $v in base) jar=$BASE; m=4;; v1) jar=$VARIANT; m=4;; v2) jar=$VARIANT; m=2;; esac
      echo "== r$round $st 4x2 $v $(date -u +%T)"
      GC_MIN=$m java -Dleaselab.bench.busyWait=JITTERED -cp "$jar" dev.leaselab.bench.MultiProcessMain --storage $st \
        --strategies GROUP_COMMIT --splits 4x2 --warmup 1s --duration 6s --paired --busy-timeout 5s \
        --json r$round-$st-$v.json 2>&1 | grep -E "paired"
    done
  done
done
