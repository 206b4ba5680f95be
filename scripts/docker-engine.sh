#!/usr/bin/env bash
# Provide the real sandboxes clawgate's tests run against: bubblewrap, a Docker engine and the
# local image clawgate-sandbox:busybox (no image can be pulled on these machines).
#
#   bash scripts/docker-engine.sh          # install what is missing, start an engine, build image
#   bash scripts/docker-engine.sh stop     # stop the dockerd this script started (and only it)
#
# Idempotent: an engine that already answers is used as it is (local or DOCKER_HOST), an image
# that exists is kept. As root on Debian it installs docker.io, bubblewrap and busybox-static
# with apt-get when they are missing. A dockerd it starts is recorded in this checkout
# ($STATE_DIR, git-ignored: its PID and the start time the kernel gives that process), so that
# `stop` stops only the engine this checkout started: never one another checkout started, never
# one that already answered when this script ran, never a later process that reuses the PID.
set -euo pipefail

IMAGE=${CLAWGATE_SANDBOX_IMAGE:-clawgate-sandbox:busybox}
CHECKOUT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
STATE_DIR=${CLAWGATE_ENGINE_DIR:-$CHECKOUT/.clawgate-engine}
PIDFILE=$STATE_DIR/dockerd.pid
LOGFILE=$STATE_DIR/dockerd.log
WAIT_S=${CLAWGATE_ENGINE_WAIT_S:-60}

log() { printf 'docker-engine: %s\n' "$*" >&2; }

engine_answers() {
    timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

started_at() {
    # The process's start time in clock ticks since boot (field 22 of /proc/PID/stat).
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }  # the fields after the command name, which may hold spaces
    awk '{print $20}' <<<"$stat"
}

alive() {
    # The process exists and is not a zombie waiting for its parent.
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ ${stat:0:1} != Z ]]
}

record() {
    # Write "PID START" for the dockerd this checkout started.
    mkdir -p "$STATE_DIR"
    printf '%s %s\n' "$1" "$(started_at "$1")" >"$PIDFILE"
}

our_pid() {
    # The PID recorded in $PIDFILE if that very process (same start time) is still a dockerd.
    [[ -r $PIDFILE ]] || return 1
    local pid start
    read -r pid start <"$PIDFILE" || return 1
    [[ $pid =~ ^[0-9]+$ && $start =~ ^[0-9]+$ ]] || return 1
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == dockerd ]] || return 1
    [[ $(started_at "$pid") == "$start" ]] || return 1
    printf '%s\n' "$pid"
}

install_missing() {
    local missing=()
    command -v dockerd >/dev/null || missing+=(docker.io)
    command -v docker >/dev/null || missing+=(docker.io)
    command -v bwrap >/dev/null || missing+=(bubblewrap)
    busybox_path >/dev/null || missing+=(busybox-static)
    ((${#missing[@]} == 0)) && return 0
    if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
        log "missing ${missing[*]} and cannot install them (needs root and apt-get)"
        return 1
    fi
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

busybox_path() {
    # A statically linked busybox: the image has no libc to offer a dynamic one.
    local candidate
    for candidate in /bin/busybox /usr/bin/busybox; do
        if [[ -x $candidate ]] && ! ldd "$candidate" >/dev/null 2>&1; then
            printf '%s\n' "$candidate"
            return 0
        fi
    done
    return 1
}

start_engine() {
    if engine_answers; then
        log "an engine answers already"
        return 0
    fi
    if [[ -n ${DOCKER_HOST:-} ]]; then
        log "DOCKER_HOST=$DOCKER_HOST does not answer; not starting a local engine in its place"
        return 1
    fi
    if ! our_pid >/dev/null; then
        mkdir -p "$STATE_DIR"
        log "starting dockerd (log: $LOGFILE)"
        setsid dockerd --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none \
            >"$LOGFILE" 2>&1 </dev/null &
        record $!
    fi
    local waited=0 pid
    read -r pid _ <"$PIDFILE"
    until engine_answers; do
        if [[ ! -d /proc/$pid ]]; then  # (its name reads dockerd only once setsid has run it)
            log "dockerd exited; last lines of $LOGFILE:"
            tail -n 20 "$LOGFILE" >&2 || true
            return 1
        fi
        ((waited++ < WAIT_S * 2)) || { log "dockerd did not answer in ${WAIT_S}s"; return 1; }
        sleep 0.5
    done
    log "dockerd $pid answers (started by this checkout; \`$0 stop\` stops it)"
}

build_image() {
    if docker image inspect "$IMAGE" >/dev/null 2>&1; then
        log "image $IMAGE exists"
        return 0
    fi
    local busybox root applet
    busybox=$(busybox_path) || { log "no static busybox to build $IMAGE from"; return 1; }
    root=$(mktemp -d)
    trap 'rm -rf "$root"' RETURN
    mkdir -p "$root/bin" "$root/tmp" "$root/workspace" "$root/etc" "$root/proc" "$root/dev" \
        "$root/sys"
    cp "$busybox" "$root/bin/busybox"
    for applet in $("$busybox" --list); do
        [[ $applet == busybox ]] || ln -s busybox "$root/bin/$applet"
    done
    echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
    echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
    chmod 1777 "$root/tmp"
    tar -C "$root" -c . | docker import -c 'ENV PATH=/bin' -c 'WORKDIR /workspace' - "$IMAGE" \
        >/dev/null
    log "built $IMAGE"
}

stop_engine() {
    local pid
    if ! pid=$(our_pid); then
        log "no dockerd started by this checkout ($CHECKOUT) is running; nothing to stop"
        return 0
    fi
    log "stopping dockerd $pid"
    kill -TERM "$pid"
    for _ in $(seq 1 40); do
        alive "$pid" || { rm -f "$PIDFILE"; return 0; }
        sleep 0.25
    done
    log "dockerd $pid still running after 10s"
    return 1
}

case ${1:-up} in
    up)
        install_missing
        start_engine
        build_image
        ;;
    stop) stop_engine ;;
    *)
        log "usage: $0 [up|stop]"
        exit 2
        ;;
esac
