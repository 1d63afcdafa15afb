#!/usr/bin/env python3
"""check_layers.py - fail when an engine function calls up a layer.

The layers are the table in the header comment of Sources/CStorage/internal.h
(lines " *  L<n> <name>  <files>: <what it owns>"); the inline functions of
internal.h and of the layer headers it includes (base.h, pages.h, os.h,
txnstate.h) take the layer of the "==== L<n> ... ====" section they sit in;
format.h and cstorage.h count as L0.

Each .c file is compiled to LLVM IR with no optimisation pass at all
(-Xclang -disable-llvm-passes), so nothing is inlined, not even
always_inline: a call through a static inline function of a header is seen
as two calls, each checked against its own layer. Every function that refers
to another engine function (a call or taking its address) is checked: the
callee's layer must not be higher than the caller's.

Usage: check_layers.py [--cc clang] [--src Sources/CStorage] [-v]
Exit status 1 and one line per upward call (file:function -> file:callee).
"""
import argparse
import os
import re
import subprocess
import sys

LAYER_ROW = re.compile(r"^\s*\*\s+L(\d+)\s+([\w-]+)\s+(.*?):\s")
SECTION = re.compile(r"^/\* =+ L(\d+) ")
DEFINE = re.compile(r"^define\s[^@]*@([\w.]+)\(.*!dbg !(\d+)")
SUBPROGRAM = re.compile(r"^!(\d+) = distinct !DISubprogram\(name: \"([\w.]+)\".*?file: !(\d+), line: (\d+)")
DIFILE = re.compile(r"^!(\d+) = !DIFile\(filename: \"([^\"]+)\"")
REF = re.compile(r"@([A-Za-z_]\w*)\b")


PLAIN_HEADERS = {"format.h", "cstorage.h"}


def parse_sections(header):
    """[(line, layer)] of a header's "==== L<n>" section markers."""
    with open(header) as f:
        return [(lineno, int(m.group(1))) for lineno, line in enumerate(f, 1) if (m := SECTION.match(line))]


def parse_layers(internal_h):
    files, names = {}, {}
    header_done = False
    with open(internal_h) as f:
        for lineno, line in enumerate(f, 1):
            if not header_done:
                m = LAYER_ROW.match(line)
                if m:
                    n = int(m.group(1))
                    names[n] = m.group(2)
                    for tok in m.group(3).split():
                        if tok.endswith(".c"):
                            if tok in files:
                                sys.exit(f"check_layers: {tok} is listed in two layers")
                            files[tok] = n
                if line.startswith(" */"):
                    header_done = True
    if not files:
        sys.exit(f"check_layers: no layer table (' *  L<n> name files: ...') in {internal_h}")
    return files, names


def section_layer(sections, line):
    layer = 0
    for start, n in sections:
        if start <= line:
            layer = n
    return layer


def compile_ir(cc, src, path):
    cmd = [cc, "-std=c11", "-D_GNU_SOURCE", "-I", os.path.join(src, "include"), "-I", src,
           "-O0", "-g", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", "-o", "-", path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"check_layers: {' '.join(cmd)} failed:\n{r.stderr}")
    return r.stdout


def parse_ir(ir):
    """[(name, file, line, body refs)] for every function defined in the IR."""
    subs, files, defs = {}, {}, []
    cur = None
    for line in ir.splitlines():
        if cur is not None:
            if line.startswith("}"):
                defs.append(cur)
                cur = None
            else:
                cur[2].update(REF.findall(line))
            continue
        m = DEFINE.match(line)
        if m:
            cur = (m.group(1), m.group(2), set())
            continue
        m = SUBPROGRAM.match(line)
        if m:
            subs[m.group(1)] = (m.group(3), int(m.group(4)))
            continue
        m = DIFILE.match(line)
        if m:
            files[m.group(1)] = m.group(2)
    out = []
    for name, dbg, refs in defs:
        fid, line = subs.get(dbg, (None, 0))
        out.append((name, files.get(fid, "?"), line, refs - {name}))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", default=os.environ.get("CC") or "clang")
    ap.add_argument("--src", default="Sources/CStorage")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if "clang" not in os.path.basename(a.cc):
        a.cc = "clang"
    internal_h = os.path.join(a.src, "internal.h")
    file_layer, layer_name = parse_layers(internal_h)
    sections = {h: parse_sections(os.path.join(a.src, h)) for h in sorted(os.listdir(a.src))
                if h.endswith(".h") and h not in PLAIN_HEADERS}
    sources = sorted(f for f in os.listdir(a.src) if f.endswith(".c"))
    unlisted = [f for f in sources if f not in file_layer]
    if unlisted:
        sys.exit(f"check_layers: {', '.join(unlisted)} not in the layer table of {internal_h}")
    for f in file_layer:
        if f not in sources:
            sys.exit(f"check_layers: the layer table names {f}, which does not exist")
    problems = [f"{h}: section L{n} (line {ln}) comes after a higher layer's section"
                for h, marks in sections.items() for (ln, n), (_, prev) in zip(marks[1:], marks) if n < prev]
    problems += [f"{h}: no \"==== L<n>\" section, so its inline functions have no layer"
                 for h, marks in sections.items() if not marks]

    def layer_of(defined_in, line):
        base = os.path.basename(defined_in)
        if base.endswith(".c"):
            return file_layer.get(base), base
        if base in sections:
            return section_layer(sections[base], line), base
        return 0, base  # format.h, cstorage.h: plain data and leaf helpers

    # name -> (layer, file) for external functions; per TU for static ones.
    units, external = {}, {}
    for src in sources:
        fns = parse_ir(compile_ir(a.cc, a.src, os.path.join(a.src, src)))
        units[src] = fns
        for name, defined_in, line, _ in fns:
            if os.path.basename(defined_in) == src:
                external.setdefault(name, layer_of(defined_in, line))
    edges = 0
    for src, fns in units.items():
        local = {name: layer_of(d, ln) for name, d, ln, _ in fns}
        for name, defined_in, line, refs in fns:
            lay, where = local[name]
            for callee in sorted(refs):
                target = local.get(callee) or external.get(callee)
                if not target:
                    continue  # libc, globals, string constants
                clay, cwhere = target
                edges += 1
                if a.verbose:
                    print(f"  L{lay} {where}:{name} -> L{clay} {cwhere}:{callee}")
                if clay > lay:
                    problems.append(f"{where}:{name} (L{lay} {layer_name.get(lay, '?')}) -> "
                                    f"{cwhere}:{callee} (L{clay} {layer_name.get(clay, '?')})")
    problems = sorted(set(problems))
    for p in problems:
        print(f"upward call: {p}")
    print(f"check_layers: {len(sources)} files, {len(layer_name)} layers, {edges} calls checked, "
          f"{len(problems)} upward")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
