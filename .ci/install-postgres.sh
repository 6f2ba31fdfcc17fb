#!/usr/bin/env bash
# What the registry's PostgreSQL tests and its load benchmark need: Debian's PostgreSQL server
# binaries (initdb, postgres under /usr/lib/postgresql/N/bin).  The tests make, start and stop
# their own throw-away clusters (tests/pg_cluster.py), so no cluster is created or started
# here: the package's "main" cluster is switched off before it is installed.  Called from
# scripts/setup.sh; safe to run twice.
set -euo pipefail
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "PostgreSQL's server binaries are missing: run 'apt-get install postgresql' as root" \
         "(the PostgreSQL registry tests are skipped without them)" >&2
    exit 0
  fi
  export DEBIAN_FRONTEND=noninteractive UCF_FORCE_CONFFOLD=1  # keep the line below through ucf
  mkdir -p /etc/postgresql-common
  if ! grep -q '^create_main_cluster' /etc/postgresql-common/createcluster.conf 2>/dev/null; then
    echo 'create_main_cluster = false' >> /etc/postgresql-common/createcluster.conf
  fi
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi
ls -d /usr/lib/postgresql/*/bin | sed 's/^/postgresql: /'
