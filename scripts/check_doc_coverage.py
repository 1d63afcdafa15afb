#!/usr/bin/env python3
"""Fails listing each public symbol of module RealmLite without a doc comment.

Reads the symbol graphs that scripts/build_docs.sh extracts (default
.build-docs/symbol-graphs): RealmLite.symbols.json and the extension graphs
RealmLite@<Module>.symbols.json (RealmLite's public members on other modules'
types). A symbol is documented when its doc comment has a non-blank line.

Not required to carry a comment of their own, because the reader already has
the documentation that applies or the symbol is not API:
- synthesized symbols (`::SYNTHESIZED::` identifiers): copies of a protocol
  extension's member onto a conforming type; the declaration they copy is
  documented where it is written (the standard library's, or RealmLite's own,
  which this check covers);
- symbols without a source location: compiler-generated members such as an
  enum's `init(rawValue:)`;
- symbols with a path component starting with `_`: public only because
  generic code in the user's module must see them (`_Persistable`,
  `_rlmMoved(to:)`), implementation details that may change any time;
- a member that implements a standard-library protocol requirement whose
  meaning that protocol fixes entirely, when its type conforms to that
  protocol: index plumbing (`startIndex`, `endIndex`, `index(after:)`,
  `index(before:)`), `makeIterator()`, an iterator's `next()`,
  `description`, `rawValue`/`init(rawValue:)`, and the literal initializers.
  Everything that carries Realm semantics (subscripts, `count`, `==` on
  objects, `<` on ObjectId, freeze/thaw, observe) must be documented on the
  type itself, because docc does not show a requirement's comment on its
  implementations.

Usage: check_doc_coverage.py [GRAPH_DIR] [--summary]
Prints "documented/total" for the symbols this check covers; exits 1 listing
file:line and name of each undocumented one.
"""
import glob
import json
import os
import sys

MODULE = "RealmLite"

# protocol USR -> members whose meaning the protocol fixes (see above)
FIXED_BY_PROTOCOL = {
    "s:Sl": {"startIndex", "endIndex", "index(after:)"},  # Collection
    "s:SK": {"index(before:)"},  # BidirectionalCollection
    "s:ST": {"makeIterator()"},  # Sequence
    "s:St": {"next()"},  # IteratorProtocol
    "s:s23CustomStringConvertibleP": {"description"},
    "s:SY": {"rawValue", "init(rawValue:)"},  # RawRepresentable
    "s:s27ExpressibleByIntegerLiteralP": {"init(integerLiteral:)"},
    "s:s25ExpressibleByFloatLiteralP": {"init(floatLiteral:)"},
    "s:s26ExpressibleByStringLiteralP": {"init(stringLiteral:)"},
    "s:s25ExpressibleByArrayLiteralP": {"init(arrayLiteral:)"},
}


def has_comment(sym):
    lines = sym.get("docComment", {}).get("lines", [])
    return any(line.get("text", "").strip() for line in lines)


def exempt(sym, parent_of, conforms):
    usr = sym["identifier"]["precise"]
    if "::SYNTHESIZED::" in usr or "location" not in sym:
        return True
    if any(p.startswith("_") for p in sym["pathComponents"]):
        return True
    name = sym["pathComponents"][-1]
    protocols = conforms.get(parent_of.get(usr), set())
    return any(name in FIXED_BY_PROTOCOL.get(p, ()) for p in protocols)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    graph_dir = args[0] if args else ".build-docs/symbol-graphs"
    paths = sorted(glob.glob(os.path.join(graph_dir, MODULE + ".symbols.json")) +
                   glob.glob(os.path.join(graph_dir, MODULE + "@*.symbols.json")))
    if not paths:
        sys.exit(f"check_doc_coverage: no {MODULE} symbol graphs in {graph_dir}")
    symbols, parent_of, conforms = {}, {}, {}
    for path in paths:
        with open(path) as f:
            graph = json.load(f)
        for sym in graph["symbols"]:
            if sym["accessLevel"] in ("public", "open"):
                symbols.setdefault(sym["identifier"]["precise"], sym)
        for rel in graph["relationships"]:
            if rel["kind"] == "memberOf":
                parent_of[rel["source"]] = rel["target"]
            elif rel["kind"] == "conformsTo":
                conforms.setdefault(rel["source"], set()).add(rel["target"])
    covered = [s for s in symbols.values() if not exempt(s, parent_of, conforms)]
    missing = [s for s in covered if not has_comment(s)]
    print(f"doc coverage: {len(covered) - len(missing)}/{len(covered)} public symbols documented"
          f" ({len(symbols) - len(covered)} exempt)")
    if not missing:
        return
    root = os.getcwd() + "/"

    def where(sym):
        loc = sym["location"]
        path = loc["uri"].removeprefix("file://").removeprefix(root)
        return path, loc["position"]["line"] + 1

    for sym in sorted(missing, key=where):
        path, line = where(sym)
        kind = sym["kind"]["displayName"].lower()
        print(f"{path}:{line}: undocumented public {kind} {'.'.join(sym['pathComponents'])}")
    sys.exit(f"check_doc_coverage: {len(missing)} public symbols without a doc comment")


if __name__ == "__main__":
    main()
