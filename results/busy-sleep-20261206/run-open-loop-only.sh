#!/usr/bin/env bash
# CONDITIONAL_UPDATE at 4 x 2 on WAL_FULL, open loops only (--open-loop-only) at 2,000 and 3,000
# requests/s, 10 s each, with the jittered busy wait's longest sleep at 1 ms and at 4 ms (the
# default), alternated, order flipped every round. JAR: the benchmarks jar. OUT: output folder.
set -u
cd "${OUT:-.}"
for r in 1 2 3 4; do
  if [ $((r % 2)) = 1 ]; then order="1ms 4ms"; else order="4ms 1ms"; fi
  for s in $order; do
    java -cp "$JAR" dev.leaselab.bench.MultiProcessMain --storage WAL_FULL --splits 4x2 --strategies CONDITIONAL_UPDATE \
      --duration 10s --rate 2000,3000 --busy-timeout 5s --longest-busy-sleep $s --open-loop-only \
      --json cu-$s-$r.json > cu-$s-$r.log 2>&1
    echo "cu-$s-$r rc=$? $(date -u +%T)"
  done
done
