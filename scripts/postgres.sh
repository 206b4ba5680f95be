#!/usr/bin/env bash
# A private PostgreSQL cluster on loopback for the `policy serve` tests (no system service).
#
#   bash scripts/postgres.sh          # install what is missing, initdb, start; prints the URL
#   bash scripts/postgres.sh stop     # stop the cluster this checkout started (and only it)
#   bash scripts/postgres.sh restart  # stop and start it again (the fault tests use this)
#   bash scripts/postgres.sh status   # exit 0 when this checkout's cluster runs
#
# The cluster lives in .clawgate-postgres/ inside the checkout (git-ignored), owned by the
# `postgres` user, listening on 127.0.0.1 only (port: see pick_port), trusting local connections. Its URL is
# written to .clawgate-postgres/url for the tests (CLAWGATE_TEST_POSTGRES=<url> overrides).
# Idempotent: a cluster that already runs is reused.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)/.clawgate-postgres
DATA=$ROOT/data
LOG=$ROOT/postgres.log

# The port: CLAWGATE_POSTGRES_PORT, else the one this cluster was first started on, else the
# first free one from 55432 up (another checkout's cluster may hold 55432 on the same machine).
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
    if [[ -n ${CLAWGATE_POSTGRES_PORT:-} ]]; then printf '%s\n' "$CLAWGATE_POSTGRES_PORT"; return; fi
    if [[ -f $ROOT/port ]]; then cat "$ROOT/port"; return; fi
    local port
    for port in $(seq 55432 55499); do
        port_free "$port" && { printf '%s\n' "$port"; return; }
    done
    log "no free port in 55432-55499"; return 1
}

log() { printf 'postgres: %s\n' "$*" >&2; }

bindir() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        [[ -x $dir/initdb ]] && { printf '%s\n' "$dir"; return 0; }
    done
    return 1
}

install_missing() {
    bindir >/dev/null && return 0
    if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
        log "PostgreSQL is missing and cannot be installed here (needs root and apt-get)"
        return 1
    fi
    log "installing postgresql"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends postgresql >/dev/null
}

as_postgres() {
    if [[ $(id -u) == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

running() { [[ -f $DATA/postmaster.pid ]] && as_postgres "$(bindir)/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

start() {
    install_missing
    local bin
    bin=$(bindir)
    mkdir -p "$ROOT"
    PORT=$(pick_port)
    printf '%s\n' "$PORT" > "$ROOT/port"
    [[ $(id -u) == 0 ]] && chown postgres "$ROOT"
    if [[ ! -f $DATA/PG_VERSION ]]; then
        log "initdb $DATA"
        as_postgres "$bin/initdb" -D "$DATA" -A trust -U postgres >/dev/null
    fi
    if ! running; then
        as_postgres "$bin/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
            -o "-h 127.0.0.1 -p $PORT -k /tmp -c max_connections=200 -c fsync=on" start >/dev/null
    fi
    if ! as_postgres "$bin/psql" -h 127.0.0.1 -p "$PORT" -U postgres -tAc \
            "SELECT 1 FROM pg_database WHERE datname='clawgate_test'" | grep -q 1; then
        as_postgres "$bin/createdb" -h 127.0.0.1 -p "$PORT" -U postgres clawgate_test
    fi
    printf 'postgresql+psycopg://postgres@127.0.0.1:%s/clawgate_test\n' "$PORT" | tee "$ROOT/url"
}

stop() {
    local bin
    bin=$(bindir) || return 0
    running && as_postgres "$bin/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
    return 0
}

case ${1:-start} in
    start) start ;;
    stop) stop ;;
    restart) stop; start ;;
    status) running ;;
    *) log "usage: $0 [start|stop|restart|status]"; exit 2 ;;
esac
