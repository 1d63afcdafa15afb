#!/usr/bin/env bash
# Builds the code that README.md and the DocC articles show, so that it
# can't rot. Run by make docs.
#
# Marked blocks: a fenced block between `<!-- readme-package: FILE -->` and
# `<!-- /readme-package -->`, or between `<!-- typecheck: NAME -->` and
# `<!-- /typecheck -->`.
# - README.md's readme-package blocks are the files of a package of their
#   own (its Package.swift and Sources/App/main.swift), built in
#   .build-docs/readme/App with .build-docs/readme/RealmLite a link to this
#   checkout, so that the manifest's `.package(path: "../RealmLite")` is used
#   as written. An article may show the same FILE: it must be the same text.
# - typecheck blocks of one NAME in one article (Sources/RealmLite/
#   RealmLite.docc/*.md) are joined in order, after `import Foundation` and
#   `import RealmLite`, and type-checked against the RealmLite module that
#   build made (Swift 6 language mode, as a new package gets).
# Files are rewritten only when the text changed, so a second run is
# incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
root=.build-docs/readme
mkdir -p "$root/App" "$root/typecheck"
ln -sfn "$PWD" "$root/RealmLite"
python3 - "$root" README.md Sources/RealmLite/RealmLite.docc/*.md <<'PY'
import os, re, sys
root, readme, articles = sys.argv[1], sys.argv[2], sys.argv[3:]

def blocks(path, kind):
    text = open(path).read()
    pattern = r"<!-- %s: (\S+) -->\n```\w*\n(.*?)```\n<!-- /%s -->" % (kind, kind)
    return re.findall(pattern, text, re.S)

def write(path, body):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path) or open(path).read() != body:
        with open(path, "w") as f:
            f.write(body)

package = dict(blocks(readme, "readme-package"))
if "Package.swift" not in package or "Sources/App/main.swift" not in package:
    sys.exit(f"build_doc_examples: {readme} lacks the marked Package.swift or Sources/App/main.swift block")
for name, body in package.items():
    write(os.path.join(root, "App", name), body)
checked = set()
for article in articles:
    for name, body in blocks(article, "readme-package"):
        if package.get(name) != body:
            sys.exit(f"build_doc_examples: {article} shows {name} unlike {readme}'s; keep them the same")
    joined = {}
    for name, body in blocks(article, "typecheck"):
        joined[name] = joined.get(name, "import Foundation\nimport RealmLite\n") + body
    for name, body in joined.items():
        stem = os.path.splitext(os.path.basename(article))[0]
        checked.add(f"{stem}-{name}.swift")
        write(os.path.join(root, "typecheck", f"{stem}-{name}.swift"), body)
for stale in set(os.listdir(os.path.join(root, "typecheck"))) - checked:
    os.remove(os.path.join(root, "typecheck", stale))
PY
fail() { echo "$1"; echo "build_doc_examples: $2" >&2; exit 1; }
# SwiftPM does not notice source files added to or removed from a package
# it reaches through a link: start its build again when the list changed.
sources=$(find Sources -name '*.swift' -o -name '*.c' -o -name '*.h' | sort | cksum)
if [ "$(cat "$root/sources.cksum" 2>/dev/null)" != "$sources" ]; then
  rm -rf "$root/.build"
  echo "$sources" > "$root/sources.cksum"
fi
log=$(swift build --package-path "$root/App" --scratch-path "$root/.build" 2>&1) ||
  fail "$log" "README.md's package snippet or example does not build (files in $root/App)"
modules="$root/.build/debug"
for file in "$root"/typecheck/*.swift; do
  [ -e "$file" ] || continue
  log=$(swiftc -typecheck -swift-version 6 -I "$modules/Modules" \
        -Xcc -fmodule-map-file="$modules/CStorage.build/module.modulemap" "$file" 2>&1) ||
    fail "$log" "an article's example does not compile ($file)"
done
echo "doc examples: README's package builds, articles' examples type-check"
