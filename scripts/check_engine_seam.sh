#!/usr/bin/env bash
# The object layer calls the engine only through its seam: Storage/Engine.swift
# (and Storage/SharedEnv.swift, which opens and closes files), so that each
# kind of engine call fails one way (docs/ARCHITECTURE.md). Engine types
# (cs_val, cs_filter, cs_value_test, cs_tree...) may appear anywhere; calls
# may not. cs_thread_token() is the object layer's inline confinement check.
# Exits 1 listing every call outside the seam.
set -u
cd "$(dirname "$0")/.."
allowed='^Sources/RealmLite/Storage/(Engine|SharedEnv)\.swift:'
types='cs_(val|filter|value_test|tree|diff_kind|cursor_op|options|test_kind|test_cmp)\('
calls=$(grep -rnE '\bcs_[a-z_]+\(' --include='*.swift' Sources/RealmLite \
          | grep -vE "$allowed" | grep -vE "$types" | grep -v 'cs_thread_token()' \
          | grep -vE '^[^:]+:[0-9]+:\s*//')
if [ -n "$calls" ]; then
  echo "engine calls outside Sources/RealmLite/Storage/Engine.swift (route them through the seam):"
  echo "$calls"
  exit 1
fi
echo "engine seam: every CStorage call of the object layer goes through Storage/Engine.swift"
