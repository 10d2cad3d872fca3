#!/usr/bin/env bash
# GROUP_COMMIT's open-loop tail across processes, head against GC_FEW_WAIT_OFF (the leader never
# waits for fewer than 4 writers: the rule before e388bbc) and GC_MISS_BACKOFF (after a wait its
# writers did not end, skip the next 1, 3, 7 ... 63 waits), alternated, at fixed rates.
# JAR: the experimental build. OUT: output folder. ROUNDS (3), STORAGE (WAL_FULL),
# RUNS: split:rate,rate;split:rate,... (default 4x2:2000,3500;1x8:8000,16000), VARIANTS ("head off backoff").
set -u
cd "${OUT:-.}"
rounds=${ROUNDS:-3}; storage=${STORAGE:-WAL_FULL}; runs=${RUNS:-4x2:2000,3500;1x8:8000,16000}
for round in $(seq 1 $rounds); do
  for v in ${VARIANTS:-head off backoff}; do
    unset GC_FEW_WAIT_OFF GC_MISS_BACKOFF LL_LOCKFILE GC_NO_YIELD GC_NO_YIELD_LEADER GC_NO_YIELD_WRITER
    case $v in off) export GC_FEW_WAIT_OFF=1;; backoff) export GC_MISS_BACKOFF=1;; lock) export LL_LOCKFILE=/tmp/leaselab-writer.lock;; noyield) export GC_NO_YIELD=1;; noyieldleader) export GC_NO_YIELD_LEADER=1;; noyieldwriter) export GC_NO_YIELD_WRITER=1;; esac
    IFS=';' read -ra items <<< "$runs"
    for item in "${items[@]}"; do
      sp=${item%%:*}; rates=${item#*:}
      f=ol-$v-$storage-$sp-$round
      java -Dleaselab.bench.busyWait=JITTERED -cp "$JAR" dev.leaselab.bench.MultiProcessMain --storage $storage \
        --strategies GROUP_COMMIT --splits $sp --warmup 1s --duration ${DURATION:-3s} --rate $rates --busy-timeout 5s \
        --json $f.json > $f.log 2>&1
      echo "$f rc=$? $(date -u +%T)"
      grep "open loop" $f.log | sed 's/^/  /'
    done
  done
done
