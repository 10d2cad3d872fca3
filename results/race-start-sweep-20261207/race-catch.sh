#!/bin/bash
# usage: race-catch.sh LABEL RUNS VARIANT TEST STRATEGY -> one line per run: caught round or "missed"
# Needs the jars installed first (mvn -B install -DskipTests); runs the race with mvn -o, one JVM a run.
cd "$(dirname "$0")/../.."
label=$1; runs=$2; variant=$3; test=$4; strategy=$5
for i in $(seq 1 $runs); do
  mvn -B -o -q -pl testkit surefire:test -Dtest="LeaseContractTest#$test" -Dleaselab.brokenPostgresStore=$variant \
     -Dleaselab.strategies=$strategy -Dsurefire.failIfNoSpecifiedTests=false > /tmp/rc.log 2>&1
  r=$(grep -o "round [0-9]*:" /tmp/rc.log | head -1 | tr -dc 0-9)
  if [ -n "$r" ]; then echo "$label $i caught $r"; elif grep -q "Failures: 0, Errors: 0" /tmp/rc.log; then echo "$label $i missed"; else echo "$label $i other"; cp /tmp/rc.log /tmp/rc-other-$label-$i.log; fi
done
