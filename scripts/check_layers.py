#!/usr/bin/env python3
"""Checks that no #include runs upward through onnxc's layers.

The folders are floors, bottom to top (docs/design.md, "Layers"):

    runtime-lite < dialect < lowering < passes < codegen < targets < compiler

A file may include headers of its own floor or of the floors below it, never
one above: the dialect knows nothing of lowering, lowering nothing of the
passes, and only compiler/ (import, quantization, pipelines, driver, tools)
sees everything. Each quoted #include is resolved as the build resolves it
(the including file's folder, then the include roots below); generated
headers (.inc) count as their folder's. Prints every upward include and
exits 1 if there is one.

    scripts/check_layers.py [ROOT]
"""
import os
import re
import sys

FLOORS = ["runtime-lite", "dialect", "lowering", "passes", "codegen", "targets", "compiler"]
# Include roots, as CMakeLists.txt lists them, with the floor each belongs to.
INCLUDE_ROOTS = [
    "runtime-lite/include",
    "dialect/include",
    "lowering/include",
    "passes/include",
    "codegen/include",
    "compiler/include",
    "",  # the source root: "targets/simd/..." and the like
]
# Generated headers live in the build tree: their floor by the path's prefix.
GENERATED = {
    "onnxc/Dialect/": "dialect",
    "onnxc/Lowering/": "lowering",
    "onnxc/Passes/": "passes",
    "onnxc/Codegen/": "codegen",
    "targets/": "targets",
}
SOURCE_EXT = (".h", ".hpp", ".cpp", ".c", ".cc", ".cu", ".cuh", ".inc", ".td")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"|^\s*include\s+"([^"]+)"')


def floor_of(rel):
    top = rel.split("/", 1)[0]
    return top if top in FLOORS else None


def resolve(root, including, name):
    """The floor the included file belongs to, or None for a non-onnxc one."""
    here = os.path.dirname(including)
    for base in [here] + [os.path.join(root, r) for r in INCLUDE_ROOTS]:
        path = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(path):
            return floor_of(os.path.relpath(path, root))
    for prefix, floor in GENERATED.items():
        if name.startswith(prefix):
            return floor
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    upward = []
    files = 0
    for floor in FLOORS:
        for dirpath, _, names in os.walk(os.path.join(root, floor)):
            for n in sorted(names):
                if not n.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, n)
                files += 1
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        name = m.group(1) or m.group(2)
                        to = resolve(root, path, name)
                        if to and FLOORS.index(to) > FLOORS.index(floor):
                            upward.append(f"{os.path.relpath(path, root)}:{lineno}: "
                                          f"{floor}/ includes \"{name}\" of {to}/, a floor above")
    for u in upward:
        print(u)
    print(f"check_layers: {files} files, {len(upward)} upward include(s); "
          f"floors bottom to top: {' < '.join(FLOORS)}")
    return 1 if upward else 0


if __name__ == "__main__":
    sys.exit(main())
