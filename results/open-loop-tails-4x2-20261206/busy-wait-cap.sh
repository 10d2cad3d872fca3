#!/usr/bin/env bash
# The jittered busy wait's longest sleep (4 ms as committed) against 1 ms and 250 µs (BW_LONGEST_US),
# GROUP_COMMIT and CONDITIONAL_UPDATE at 4 x 2 on WAL_FULL: a closed loop, then open loops at fixed
# rates, alternated. JAR: the experimental build. OUT: output folder. ROUNDS (2), CAPS ("4000 1000 250"),
# STRATEGIES ("GROUP_COMMIT CONDITIONAL_UPDATE"), RATES (2000,3000), DURATION (10s), SPLIT (4x2).
set -u
cd "${OUT:-.}"
for round in $(seq 1 ${ROUNDS:-2}); do
  for cap in ${CAPS:-4000 1000 250}; do
    for s in ${STRATEGIES:-GROUP_COMMIT CONDITIONAL_UPDATE}; do
      f=bw-$cap-$s-${SPLIT:-4x2}-$round
      BW_LONGEST_US=$cap java -Dleaselab.bench.busyWait=JITTERED -cp "$JAR" dev.leaselab.bench.MultiProcessMain --storage WAL_FULL \
        --strategies $s --splits ${SPLIT:-4x2} --warmup 1s --duration ${DURATION:-10s} --rate ${RATES:-2000,3000} --busy-timeout 5s \
        --json $f.json > $f.log 2>&1
      echo "$f rc=$? $(date -u +%T)"
      grep "won/s" $f.log | sed 's/^/  /'
    done
  done
done
