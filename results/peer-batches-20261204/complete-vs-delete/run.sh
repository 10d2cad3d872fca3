#!/usr/bin/env bash
# leaselab's complete (an UPDATE that keeps the row) against db-scheduler's completion (a DELETE) on PostgreSQL:
# 5000 of each in autocommit through psql, on the contract's table with the store's queue index; WAL bytes,
# HOT updates, seconds. Run it with the server of the clone's with-postgres.sh:
#   ./with-postgres.sh bash results/peer-batches-20261204/complete-vs-delete/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
for i in $(seq 1 5000); do
  echo "UPDATE jobs SET result = 'ok', done = 1 WHERE id = 'job-$i' AND owner = 'w' AND fence = 1 AND done = 0 AND until > 50;"
done > "$tmp/complete.sql"
for i in $(seq 1 5000); do echo "DELETE FROM scheduled WHERE id = 'job-$i';"; done > "$tmp/delete.sql"
u="${LEASELAB_POSTGRES_URL#jdbc:postgresql://}"; host="${u%%:*}"; rest="${u#*:}"; port="${rest%%/*}"
P="psql -q -h $host -p $port -U postgres -d postgres -v ON_ERROR_STOP=1"
$P -f "$here/setup.sql" 2> /dev/null
for t in complete delete; do
  tbl=$([ $t = complete ] && echo jobs || echo scheduled)
  lsn0=$($P -Atc "SELECT pg_current_wal_lsn()")
  s=$(date +%s.%N); $P -f "$tmp/$t.sql" > /dev/null; e=$(date +%s.%N)
  lsn1=$($P -Atc "SELECT pg_current_wal_lsn()")
  $P -Atc "SELECT pg_stat_force_next_flush()" > /dev/null; sleep 1
  echo "$t: $(awk "BEGIN { print $e - $s }") s for 5000 statements, WAL $($P -Atc "SELECT pg_wal_lsn_diff('$lsn1','$lsn0')") bytes;" \
    "$($P -Atc "SELECT 'n_tup_upd=' || n_tup_upd || ' n_tup_hot_upd=' || n_tup_hot_upd || ' n_tup_del=' || n_tup_del FROM pg_stat_user_tables WHERE relname = '$tbl'")"
done
echo "synchronous_commit=$($P -Atc 'SHOW synchronous_commit') fsync=$($P -Atc 'SHOW fsync')"
