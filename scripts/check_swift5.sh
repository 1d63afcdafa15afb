#!/usr/bin/env bash
# Type-checks scripts/swift5/*.swift in Swift 5 language mode against the
# debug build of RealmLite (`swift build --target RealmLite` first): code
# written for RealmSwift in Swift 5 mode must compile against RealmLite,
# whose own sources use Swift 6 mode. Cheap: no second build of the library.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build --show-bin-path)
swiftc -typecheck -swift-version 5 -warnings-as-errors \
  -I "$bin/Modules" -Xcc -fmodule-map-file="$bin/CStorage.build/module.modulemap" \
  -I Sources/CStorage/include scripts/swift5/*.swift
echo "swift 5 mode: ok"
