#!/usr/bin/env bash
# leaselab's claimNext in batches of 1 and 16 against db-scheduler at its default polling and tuned (issue 14),
# on SQLite (WAL_NORMAL) and on PostgreSQL (a throwaway server of ../../with-postgres.sh).
# JAR= names the benchmarks jar (default: the clone's bench/target/benchmarks.jar); OUT= the folder (default: here);
# ENGINES= "sqlite pg" (default) or one of them; SUFFIX= is appended to every output's name (run2.sh: -run2).
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
  --strategies CONDITIONAL_UPDATE,GROUP_COMMIT --batches 1,16 --zombie-trials 0 "$@"; }
pg() { "$root/with-postgres.sh" java -cp "$jar" dev.leaselab.bench.PeerDrainMain --postgres ONLY --jobs 5000 --threads 1,8 \
  --rounds 3 --batches 1,16 --zombie-trials 0 "$@"; }
for engine in ${ENGINES:-sqlite pg}; do
  case "$engine" in
    sqlite) run sqlite-fetch-0.5-3.0 sqlite --fetch-limits 0.5,3.0
            run sqlite-fetch-4.0-40.0 sqlite --fetch-limits 4.0,40.0 ;;
    pg)     run pg-lock-and-fetch-0.5-1.0 pg --lock-and-fetch-limits 0.5,1.0
            run pg-lock-and-fetch-4.0-40.0 pg --lock-and-fetch-limits 4.0,40.0 ;;
    *) echo "ENGINES takes sqlite and pg, not $engine" >&2; exit 2 ;;
  esac
done
