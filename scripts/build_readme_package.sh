#!/usr/bin/env bash
# Builds README.md's "Use it in your package" manifest, with the README's
# Swift API example as its main.swift, as a package of its own that depends
# on this checkout by path: the README can't rot. Run by make docs.
#
# Each block between `<!-- readme-package: FILE -->` and
# `<!-- /readme-package -->` in README.md becomes FILE of the package, byte
# for byte. The package lives in .build-docs/readme/App, with
# .build-docs/readme/RealmLite a link to this checkout, so the manifest's
# `.package(path: "../RealmLite")` is used as written. Files are rewritten
# only when the README changed them, so a second run is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
root=.build-docs/readme
mkdir -p "$root/App"
ln -sfn "$PWD" "$root/RealmLite"
python3 - "$root/App" <<'EOF'
import os, re, sys
app = sys.argv[1]
text = open("README.md").read()
blocks = re.findall(r"<!-- readme-package: (\S+) -->\n```\w*\n(.*?)```\n<!-- /readme-package -->", text, re.S)
names = [name for name, _ in blocks]
if "Package.swift" not in names or not any(n.endswith(".swift") and n != "Package.swift" for n in names):
    sys.exit("build_readme_package: README.md lacks the marked Package.swift or Swift source block")
for name, body in blocks:
    path = os.path.join(app, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path) or open(path).read() != body:
        with open(path, "w") as f:
            f.write(body)
EOF
if ! log=$(swift build --package-path "$root/App" --scratch-path "$root/.build" 2>&1); then
  echo "$log"
  echo "build_readme_package: README.md's package snippet or example does not build (files in $root/App)" >&2
  exit 1
fi
echo "readme: the package snippet and example build"
