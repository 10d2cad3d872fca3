#!/usr/bin/env bash
# The two SQLite runs of run.sh once more, right after it (a second run of each setting).
set -u
here="$(cd "$(dirname "$0")" && pwd)"; out="${OUT:-$here}"; root="$here/../.."
jar="${JAR:-$root/bench/target/benchmarks.jar}"
for cfg in "0.5,3.0" "4.0,40.0"; do id="sqlite-fetch-${cfg/,/-}-run2"
  echo "== $id $(date -u +%T)"
  java -cp "$jar" dev.leaselab.bench.PeerDrainMain --postgres SKIP --jobs 20000 --threads 1,8 --rounds 3 \
    --strategies CONDITIONAL_UPDATE,GROUP_COMMIT --batches 1,16 --zombie-trials 0 --fetch-limits $cfg \
    --out "$out/$id.md" --json "$out/$id.json" > "$out/$id.log" 2>&1
  echo "rc=$? $(date -u +%T)"; grep -E "^\|" "$out/$id.md" | head -16
done
