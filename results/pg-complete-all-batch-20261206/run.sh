#!/usr/bin/env bash
# PG_ROW_LOCK's and PG_ADVISORY_LOCK's completeAll before (a lock, a check and a write per job) and after (the
# compare-and-sets of the whole batch in one JDBC batch, under PG_ADVISORY_LOCK after the jobs' advisory locks in one
# statement), alternated twice, with PG_CONDITIONAL_UPDATE (unchanged) and db-scheduler as the controls of each run.
# BEFORE= and AFTER= name the two benchmarks jars (e.g. built from 9250ad4 and from the commit after it); OUT= the
# folder (default: runs/ here). Each run starts a throwaway PostgreSQL server (../../with-postgres.sh).
set -u
here="$(cd "$(dirname "$0")" && pwd)"; out="${OUT:-$here/runs}"; root="$here/../.."
: "${BEFORE:?BEFORE= the jar without the change}" "${AFTER:?AFTER= the jar with it}"
mkdir -p "$out"
for round in 1 2; do
  for side in before after; do
    jar=$BEFORE; [ "$side" = after ] && jar=$AFTER
    id=$side-$round
    echo "== $id $(date -u +%T)"
    "$root/with-postgres.sh" java -cp "$(realpath "$jar")" dev.leaselab.bench.PeerDrainMain --postgres ONLY --jobs 20000 \
      --threads 1,8 --rounds 3 --batches 16 --completes ALL --zombie-trials 0 --lock-and-fetch-limits 4.0,40.0 \
      --pg-strategies PG_ROW_LOCK,PG_ADVISORY_LOCK,PG_CONDITIONAL_UPDATE \
      --out "$(realpath "$out")/$id.md" --json "$(realpath "$out")/$id.json" > "$out/$id.log" 2>&1
    echo "rc=$? $(date -u +%T)"
  done
done
