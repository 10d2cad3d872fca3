#!/usr/bin/env bash
# The jittered busy wait's longest sleep (StoreOptions.longestBusySleep, MultiProcessMain
# --longest-busy-sleep): the default 4 ms against 1 ms, alternated within each round (the order
# flips every round). Per run: a paired closed loop (claim and floor in shared slices, so x floor
# and both won/s come from the same seconds), then open loops at fixed rates.
# JAR: benchmarks.jar of the commit measured. OUT: output folder (default .). ROUNDS (3),
# SLEEPS ("4ms 1ms"), CELLS ("WAL_FULL:4x2 WAL_FULL:1x8 WAL_FULL:8x1 WAL_NORMAL:4x2"),
# STRATEGIES ("CONDITIONAL_UPDATE GROUP_COMMIT"), RATES (2000,3000), DURATION (10s).
set -u
cd "${OUT:-.}"
for round in $(seq 1 ${ROUNDS:-3}); do
  sleeps=${SLEEPS:-4ms 1ms}
  if (( round % 2 == 0 )); then sleeps=$(echo $sleeps | tr ' ' '\n' | tac | tr '\n' ' '); fi
  for cell in ${CELLS:-WAL_FULL:4x2 WAL_FULL:1x8 WAL_FULL:8x1 WAL_NORMAL:4x2}; do
    storage=${cell%%:*}; split=${cell##*:}
    for s in ${STRATEGIES:-CONDITIONAL_UPDATE GROUP_COMMIT}; do
      for sleep in $sleeps; do
        f=$storage-$split-$s-$sleep-$round
        java -cp "$JAR" dev.leaselab.bench.MultiProcessMain --storage $storage --strategies $s --splits $split --paired \
          --warmup 1s --duration ${DURATION:-10s} --rate ${RATES:-2000,3000} --busy-timeout 5s --longest-busy-sleep $sleep \
          --json $f.json > $f.log 2>&1
        echo "$f rc=$? $(date -u +%T)"
      done
    done
  done
done
