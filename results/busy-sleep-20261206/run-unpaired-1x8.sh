#!/usr/bin/env bash
# GROUP_COMMIT at 1 x 8 on WAL_FULL won more with a 1 ms longest sleep in its paired runs. Unpaired
# (the floor and the claim in separate 10 s closed loops), does the claim alone win more at 1 ms?
# Sleeps alternated, order flipped each round. JAR: benchmarks.jar; OUT: output folder (default .).
set -u
JAR=${JAR:?benchmarks.jar of the commit measured}
cd "${OUT:-.}"
for r in 1 2 3; do
  sleeps="4ms 1ms"; if (( r % 2 == 0 )); then sleeps="1ms 4ms"; fi
  for s in $sleeps; do
    java -cp $JAR dev.leaselab.bench.MultiProcessMain --storage WAL_FULL --strategies GROUP_COMMIT --splits 1x8 \
      --warmup 1s --duration 10s --busy-timeout 5s --longest-busy-sleep $s --json u-$s-$r.json > u-$s-$r.log 2>&1
    echo "u-$s-$r rc=$? $(date -u +%T)"
  done
done
