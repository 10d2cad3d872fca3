#!/usr/bin/env bash
# usage: run.sh label ENV=... ; runs gate GROUP_COMMIT forks 2
label=$1; shift
cd /tmp/gcruns
env "$@" java -cp /tmp/gcx.jar dev.leaselab.bench.BenchMain run --profile gate --strategies GROUP_COMMIT --forks 3 --output /tmp/gcruns --run-id "$label" > "$label.log" 2>&1
echo "$label rc=$? $(date -u +%T)"
