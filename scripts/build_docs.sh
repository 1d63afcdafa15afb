#!/usr/bin/env bash
# make docs: the DocC catalog, built with the toolchain's docc.
#
# The catalog is Sources/RealmLite/RealmLite.docc (landing page and the
# hand-written articles) plus the design notes in docs/, copied in as
# articles so that each text exists once. Symbol graphs come from a build of
# the RealmLite target. Any docc warning (a broken symbol link, an unknown
# article) fails the build, and so does a public symbol without a doc comment
# (scripts/check_doc_coverage.py says which symbols it exempts and why).
# Then README.md's package snippet and example are built as a package of
# their own, and the articles' marked examples type-checked against it
# (scripts/build_doc_examples.sh).
# Output: build/docs/RealmLite.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/docs
# Beside the build that writes them: an up-to-date build emits nothing.
graphs=.build-docs/symbol-graphs
catalog=$out/RealmLite.docc
rm -rf "$out"
[ -f "$graphs/RealmLite.symbols.json" ] || rm -rf .build-docs
mkdir -p "$graphs" "$catalog"
swift build --target RealmLite --scratch-path .build-docs \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" >/dev/null
cp Sources/RealmLite/RealmLite.docc/*.md "$catalog/"
for note in THREADING QUERIES DURABILITY OBJECTS ARCHITECTURE MIGRATIONS; do
  [ -f "docs/$note.md" ] && cp "docs/$note.md" "$catalog/$note.md"
done
docc_bin=$(command -v docc || echo /opt/swift/usr/bin/docc)
"$docc_bin" convert "$catalog" --additional-symbol-graph-dir "$graphs" \
  --output-path "$out/RealmLite.doccarchive" \
  --fallback-display-name RealmLite --fallback-bundle-identifier org.realmlite.RealmLite \
  --warnings-as-errors
python3 scripts/check_doc_coverage.py "$graphs"
echo "docs: $out/RealmLite.doccarchive"
bash scripts/build_doc_examples.sh
