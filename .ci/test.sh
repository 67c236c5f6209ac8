#!/usr/bin/env bash
# The whole test suite against the real components it needs: `make test` runs this.
#
# On a fresh Debian machine it installs what is missing (as root, from Debian's packages):
# Node.js and npm (the exports are loaded in the real JavaScript libraries), NetworkX
# (python3-networkx: the GEXF 1.2 and GraphML exports are loaded in it), Chromium (the
# explorer is driven headless) and PostgreSQL (the scale-out replicas run on a real server,
# a throwaway cluster started by .ci/postgres.sh unless ATHAR_TEST_DATABASE is already set).
# Extra arguments go to `go test` (e.g. -run TestExplorer), over every package at once.
set -euo pipefail
cd "$(dirname "$0")/.."

install() {
  if [ "$(id -u)" != 0 ]; then
    echo "test.sh: $* not found; install it (apt-get install $*) or run as root" >&2
    exit 1
  fi
  echo "== installing $* from Debian's packages" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@") >&2
}

{ command -v node && command -v npm; } >/dev/null 2>&1 || install nodejs npm
command -v chromium >/dev/null 2>&1 || install chromium
python3 -c 'import networkx' >/dev/null 2>&1 || install python3-networkx
[ -d web/exportcheck/node_modules ] || npm ci --prefix web/exportcheck --no-audit --no-fund
# Cytoscape.js as the explorer builds with it: TestExportRendersInCytoscape draws an export with it.
[ -d web/explorer/node_modules ] || npm ci --prefix web/explorer --no-audit --no-fund

if [ -z "${ATHAR_TEST_DATABASE:-}" ]; then
  eval "$(.ci/postgres.sh start)"
  trap '.ci/postgres.sh stop "$ATHAR_TEST_PGDATA" >/dev/null 2>&1 || true' EXIT
fi

if [ $# -gt 0 ]; then
  go test -race -count=1 "$@" ./...
  exit
fi
# The abuse test measures how fast the real server answers /healthz while it is attacked
# (within a second): it runs alone, after the rest, so that other packages' tests running
# beside it on a small machine cannot be what it measures.
abuse='^TestServeBoundedUnderAbuse$'
# cmd/athar drives the real binary end to end (loads, kills, browsers, servers): minutes under
# -race on 2 cores (9 with a benchmark beside it), too close to Go's default 10-minute bound.
go test -race -count=1 -timeout 25m -skip "$abuse" ./...
go test -race -count=1 -run "$abuse" ./cmd/athar
