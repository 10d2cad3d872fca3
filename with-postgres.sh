#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server, e.g. the README's test command:
#   ./with-postgres.sh mvn -B verify
# The server is Debian's package (installed here if missing and we are root), run as the postgres
# user on loopback in a temporary data directory, and stopped afterwards. The command finds it in
# LEASELAB_POSTGRES_URL, which the PostgreSQL tests read.
set -euo pipefail
cd "$(dirname "$0")"
if [ "$#" -eq 0 ]; then
  echo "usage: $0 command [args...]   (e.g. $0 mvn -B verify)" >&2
  exit 2
fi

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

if [ -z "$(pg_bin)" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    echo "== installing PostgreSQL from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql > /dev/null
  else
    echo "PostgreSQL is not installed: run 'apt-get install postgresql' as root, then $0 again" >&2
    exit 2
  fi
fi
bin="$(pg_bin)"

data="$(mktemp -d /tmp/leaselab-pg.XXXXXX)"
as_pg=()
if [ "$(id -u)" = 0 ]; then
  # initdb refuses to run as root
  chown postgres: "$data"
  as_pg=(runuser -u postgres --)
fi
stop_server() {
  "${as_pg[@]}" "$bin/pg_ctl" -D "$data/db" -m fast stop > /dev/null 2>&1 || true
  rm -rf "$data"
}
trap stop_server EXIT

"${as_pg[@]}" "$bin/initdb" -D "$data/db" -U postgres --auth=trust -E UTF8 > "$data/initdb.log"
port=""
for attempt in 1 2 3 4 5; do
  candidate=$((20000 + RANDOM % 30000))
  if "${as_pg[@]}" "$bin/pg_ctl" -D "$data/db" -l "$data/server.log" -w -t 60 start \
      -o "-p $candidate -k $data -c listen_addresses=127.0.0.1 -c max_connections=400" > /dev/null; then
    port="$candidate"
    break
  fi
done
if [ -z "$port" ]; then
  echo "could not start PostgreSQL from $bin; its log:" >&2
  cat "$data/server.log" >&2
  exit 2
fi
echo "== PostgreSQL $("$bin/postgres" --version | awk '{print $NF}') on 127.0.0.1:$port (data in $data)"

LEASELAB_POSTGRES_URL="jdbc:postgresql://127.0.0.1:$port/postgres?user=postgres" "$@"
