#!/usr/bin/env bash
# usage: gate-env.sh label jar [ENV=...]
label=$1; jar=$2; shift 2
cd /tmp/gcruns
env "$@" java -cp $jar dev.leaselab.bench.BenchMain run --profile gate --strategies GROUP_COMMIT --forks 3 --output /tmp/gcruns --run-id "$label" > "$label.log" 2>&1
echo "$label rc=$? $(date -u +%T)"
