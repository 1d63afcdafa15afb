#!/usr/bin/env bash
# `make example-server`: builds the example in release mode, then for each
# read mode starts NotesServer on a free port with a new file, runs NotesLoad
# against it and stops the server. Fails if the build, a check or a clean
# shutdown fails; the server is stopped on every path out.
#   MODES="task frozen actor"  DURATION=5 (s per phase)  CONNECTIONS=16
#   WRITERS=2  NOTES=2000
set -euo pipefail
cd "$(dirname "$0")"
MODES=${MODES:-task frozen actor}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-16}
WRITERS=${WRITERS:-2}
NOTES=${NOTES:-2000}

swift build -c release
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d "${TMPDIR:-/tmp}/notes-server.XXXXXX")
server_pid=""

stop_server() {
    [ -n "$server_pid" ] || return 0
    local pid=$server_pid status=0
    server_pid=""
    kill -TERM "$pid" 2>/dev/null || true
    # Graceful shutdown waits for open requests; give it 10 s, then kill.
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { echo "NotesServer did not stop on SIGTERM; killing it"; kill -KILL "$pid"; }
    wait "$pid" || status=$?
    return $status
}
cleanup() { stop_server || true; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "machine: $(nproc) cores, $(uname -sr); $(swift --version 2>/dev/null | head -1)"
first=1
for mode in $MODES; do
    echo
    echo "== reads: $mode"
    "$bin/NotesServer" --reads "$mode" --file "$work/$mode.realm" --port-file "$work/$mode.port" \
        >"$work/$mode.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 300); do
        [ -s "$work/$mode.port" ] && break
        kill -0 "$server_pid" 2>/dev/null || { cat "$work/$mode.log"; echo "NotesServer exited at start"; exit 1; }
        sleep 0.1
    done
    [ -s "$work/$mode.port" ] || { cat "$work/$mode.log"; echo "NotesServer did not start"; exit 1; }
    port=$(cat "$work/$mode.port")
    "$bin/NotesLoad" --port "$port" --connections "$CONNECTIONS" --writers "$WRITERS" \
        --duration "$DURATION" --notes "$NOTES" --baseline "$first"
    first=0
    stop_server || { cat "$work/$mode.log"; echo "NotesServer did not shut down cleanly"; exit 1; }
done
echo
echo "example-server: all modes checked"
