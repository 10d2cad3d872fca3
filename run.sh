#!/usr/bin/env bash
# The main job: build, then run the benchmark and stress harness on SQLite and on a throwaway
# PostgreSQL server (./with-postgres.sh starts it and stops it afterwards).
#   ./run.sh          quick profiles (benchmarks measured at 14-16 minutes with PostgreSQL, stress about 8, power loss
#                     about 8: SQLite's 100 cuts 5, PostgreSQL's 35 about 3 at the 5 s a cut its 150-cut
#                     run took; on 2 cores)
#   ./run.sh full     the full benchmark matrix and the long stress profile (hours)
set -euo pipefail
cd "$(dirname "$0")"

profile="${1:-quick}"
case "$profile" in
  quick) bench_profile=quick; stress_profile=quick; peer_args="--jobs 5000 --threads 1,8 --batches 1,16 --rounds 3 --zombie-trials 3" ;;
  full)  bench_profile=full;  stress_profile=long;  peer_args="--jobs 20000 --threads 1,8 --batches 1,16 --rounds 5 --zombie-trials 5" ;;
  *) echo "usage: $0 [quick|full]" >&2; exit 2 ;;
esac

if [ -z "${LEASELAB_POSTGRES_URL:-}" ]; then
  exec ./with-postgres.sh ./run.sh "$profile"
fi

mvn -B -q install -DskipTests

status=0
echo "== benchmarks ($bench_profile profile): results/<run-id>/report.md"
java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain run --profile "$bench_profile" || status=$?
peer="results/peer/$(date +%Y%m%d-%H%M%S)-$profile"
mkdir -p results/peer
echo "== leaselab and db-scheduler on the same work: $peer.md"
java -cp bench/target/benchmarks.jar dev.leaselab.bench.PeerDrainMain $peer_args --out "$peer.md" --json "$peer.json" || status=$?
echo "== stress ($stress_profile profile): results/stress/<run-id>/verdicts.txt"
java -jar stress/target/stress.jar --profile "$stress_profile" || status=$?
echo "== power-loss races ($stress_profile profile, a FUSE mount; needs libfuse2 and fuse3): results/powerloss/<run-id>/report.md"
java -cp stress/target/stress.jar dev.leaselab.stress.PowerLossMain --profile "$stress_profile" || status=$?
exit "$status"
