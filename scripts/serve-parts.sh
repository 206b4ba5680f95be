#!/usr/bin/env bash
# Provide the real parts the `policy serve` tests and bench run against: Debian's chromium (the
# console, driven by Playwright), PostgreSQL (a private cluster: scripts/postgres.sh) and wrk
# (bench/bench_serve.py).
#
#   bash scripts/serve-parts.sh      # install what is missing (as root on Debian, apt-get)
#
# Idempotent: a program that is already there is kept; apt-get runs only when one is missing.
# It starts nothing: scripts/postgres.sh starts (and stops) this checkout's cluster.
set -euo pipefail

log() { printf 'serve-parts: %s\n' "$*" >&2; }

have_postgres() { compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; }

missing=()
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing+=(chromium)
have_postgres || missing+=(postgresql)
command -v wrk >/dev/null || missing+=(wrk)

if ((${#missing[@]} == 0)); then
    log "chromium, postgresql and wrk are present"
    exit 0
fi
if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
    log "missing: ${missing[*]} (installing needs root and apt-get)"
    exit 1
fi
log "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
log "installed: ${missing[*]}"
