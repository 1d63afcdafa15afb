#!/usr/bin/env python3
"""Fails listing each public symbol of module RealmLite without a doc comment.

Reads the symbol graphs that scripts/build_docs.sh extracts (default
.build-docs/symbol-graphs): RealmLite.symbols.json and the extension graphs
RealmLite@<Module>.symbols.json (RealmLite's public members on other modules'
types). A symbol is documented when its doc comment has a non-blank line.

Not required to carry a comment of their own, because the reader already has
the documentation that applies or the symbol is not API:
- synthesized symbols (`::SYNTHESIZED::` identifiers): copies of a protocol
  extension's member onto each conforming type, carrying the comment of the
  declaration they copy. A declaration from another module (Sequence's `map`)
  is documented there. One from RealmLite is checked once, as the
  declaration: in the graph itself, or, when it extends an underscored
  protocol (`_RealmQueryable`'s `sorted(byKeyPath:)`, which the graph omits
  and shows only on Results, List, ...), through its copies;
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

Usage: check_doc_coverage.py [GRAPH_DIR]
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
    graph_dir = sys.argv[1] if len(sys.argv) > 1 else ".build-docs/symbol-graphs"
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
    copies = {}  # RealmLite declarations seen only through synthesized copies
    for usr, sym in symbols.items():
        source = usr.split("::SYNTHESIZED::")[0]
        if (source != usr and source.startswith(f"s:{len(MODULE)}{MODULE}")
                and source not in symbols and not sym["pathComponents"][-1].startswith("_")):
            copies.setdefault(source, []).append(sym)
    covered += [group[0] for group in copies.values()]
    missing = [s for s in covered if not has_comment(s)]
    missing = [s for s in missing if not any(has_comment(c) for c in copies.get(
        s["identifier"]["precise"].split("::SYNTHESIZED::")[0], []))]
    print(f"doc coverage: {len(covered) - len(missing)}/{len(covered)} public symbols documented"
          f" ({len(symbols) - len(covered)} exempt)")
    if not missing:
        return
    root = os.getcwd() + "/"

    def where(sym):
        loc = sym.get("location")
        if loc is None:
            return "(no source location)", 0
        path = loc["uri"].removeprefix("file://").removeprefix(root)
        return path, loc["position"]["line"] + 1

    def name(sym):
        source = sym["identifier"]["precise"].split("::SYNTHESIZED::")[0]
        if source not in copies:
            return ".".join(sym["pathComponents"])
        shown = sorted({c["pathComponents"][0] for c in copies[source]})
        return f"{sym['pathComponents'][-1]} (shown on {', '.join(shown)})"

    for sym in sorted(missing, key=where):
        path, line = where(sym)
        print(f"{path}:{line}: undocumented public {sym['kind']['displayName'].lower()} {name(sym)}")
    sys.exit(f"check_doc_coverage: {len(missing)} public symbols without a doc comment")


if __name__ == "__main__":
    main()
