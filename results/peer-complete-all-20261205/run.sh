#!/usr/bin/env bash
# completeAll against db-scheduler (issue 14): leaselab's workers take batches of 16 with claimNext and complete
# them job by job (EACH) or in one completeAll (ALL, one commit a batch), against db-scheduler tuned (fetch limits
# 4.0,40.0, the setting ahead of leaselab on PostgreSQL in ../peer-batches-20261204) and at its default, on SQLite
# (WAL_NORMAL) and on PostgreSQL (a throwaway server of ../../with-postgres.sh), where a drain of 100,000 jobs
# follows the 20,000-job one.
# JAR= names the benchmarks jar (default: the clone's bench/target/benchmarks.jar); OUT= the folder (default: here);
# ENGINES= "pg sqlite" (default) or one of them; SUFFIX= is appended to every output's name.
set -u
here="$(cd "$(dirname "$0")" && pwd)"; out="${OUT:-$here}"; root="$here/../.."
jar="${JAR:-$root/bench/target/benchmarks.jar}"; suffix="${SUFFIX:-}"
mkdir -p "$out"
run() { id=$1$suffix; shift
  echo "== $id $(date -u +%T)"
  "$@" --out "$out/$id.md" --json "$out/$id.json" > "$out/$id.log" 2>&1
  echo "rc=$? $(date -u +%T)"; grep -E "^\|" "$out/$id.md" | head -16
}
sqlite() { java -cp "$jar" dev.leaselab.bench.PeerDrainMain --postgres SKIP --jobs 20000 --threads 1,8 --rounds 3 \
  --strategies CONDITIONAL_UPDATE,GROUP_COMMIT --batches 16 --completes EACH,ALL --zombie-trials 0 "$@"; }
pg() { "$root/with-postgres.sh" java -cp "$jar" dev.leaselab.bench.PeerDrainMain --postgres ONLY --jobs 20000 \
  --threads 1,8 --rounds 3 --batches 16 --completes EACH,ALL --zombie-trials 0 "$@"; }
# A longer drain: both systems run faster per job in long drains than in short ones on PostgreSQL.
pglong() { "$root/with-postgres.sh" java -cp "$jar" dev.leaselab.bench.PeerDrainMain --postgres ONLY --jobs 100000 \
  --threads 1,8 --rounds 3 --batches 16,64 --completes ALL --pg-strategies PG_CONDITIONAL_UPDATE --zombie-trials 0 "$@"; }
for engine in ${ENGINES:-pg sqlite}; do
  case "$engine" in
    pg)     run pg-lock-and-fetch-4.0-40.0 pg --lock-and-fetch-limits 4.0,40.0
            run pg-100k-lock-and-fetch-4.0-40.0 pglong --lock-and-fetch-limits 4.0,40.0
            run pg-lock-and-fetch-0.5-1.0 pg --lock-and-fetch-limits 0.5,1.0 ;;
    sqlite) run sqlite-fetch-4.0-40.0 sqlite --fetch-limits 4.0,40.0
            run sqlite-fetch-0.5-3.0 sqlite --fetch-limits 0.5,3.0 ;;
    *) echo "ENGINES takes pg and sqlite, not $engine" >&2; exit 2 ;;
  esac
done
echo "done $(date -u +%T)"
