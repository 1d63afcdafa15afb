#!/usr/bin/env bash
# Runs one phase of `make test` and records its wall time, so CI's total
# (kept under 30 minutes) can be traced to the phase that grew.
#   scripts/phase.sh LOG NAME command [args...]
set -uo pipefail
log=$1; name=$2; shift 2
start=$(date +%s)
"$@"; rc=$?
secs=$(( $(date +%s) - start ))
printf '%-14s %5d s\n' "$name" "$secs" >> "$log"
echo "== phase $name: $secs s (exit $rc)"
exit $rc
