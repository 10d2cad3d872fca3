#!/usr/bin/env bash
# db-scheduler's polling tuned on SQLite (issue 14): the same drain with several fetch limits and polling intervals.
out=.; cd "$(dirname "$0")"
for cfg in "0.5,3.0 10ms" "1.0,10.0 10ms" "2.0,20.0 10ms" "4.0,40.0 10ms" "2.0,20.0 1ms"; do set -- $cfg
  id="fetch-${1/,/-}-poll-$2"
  echo "== $id $(date +%T)"
  java -cp ${JAR:-../../bench/target/benchmarks.jar} dev.leaselab.bench.PeerDrainMain --postgres SKIP --jobs 20000 --threads 1,8 --rounds 3 --strategies CONDITIONAL_UPDATE,GROUP_COMMIT \
    --fetch-limits $1 --polling-interval $2 --zombie-trials 0 --out $out/$id.md --json $out/$id.json > $out/$id.log 2>&1
  echo "rc=$? $(date +%T)"; grep -E "^\|" $out/$id.md | head -12
done
