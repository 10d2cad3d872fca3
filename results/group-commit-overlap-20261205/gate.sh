#!/usr/bin/env bash
# usage: gate.sh label jar
label=$1; jar=$2
cd /tmp/gcruns
java -cp $jar dev.leaselab.bench.BenchMain run --profile gate --strategies GROUP_COMMIT --forks 3 --output /tmp/gcruns --run-id "$label" > "$label.log" 2>&1
echo "$label rc=$? $(date -u +%T)"
