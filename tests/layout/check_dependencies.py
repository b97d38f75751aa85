#!/usr/bin/env python3
"""The dependency direction of utilsim's libraries (docs/design.md, "Layout").

    command line (tools/cli), C ABI (tools/capi), Python (tools/python)
      -> [live ->, sweep ->] analysis -> {io, results} -> {policies, traces, workloads} -> engine

Every `#include "utilsim/<lib>/..."` in a folder must name a library that
folder may depend on, and every library's CMake link interface must stay
within the same set. Exit 0 when both hold; otherwise one line per breach
(file:line: what it includes, what is allowed) and exit 1.
"""
import pathlib
import re
import sys

# folder -> (library name, the libraries it may include, itself included)
ALLOWED = {
    "engine": {"engine"},
    "policies": {"policies", "engine"},
    "workloads": {"workloads", "engine"},
    "traces": {"traces", "engine"},
    "tools/io": {"io", "traces", "workloads", "engine"},
    "tools/results": {"results", "io", "traces", "engine"},
    "tools/analysis": {"analysis", "results", "io", "policies", "traces", "workloads", "engine"},
    "tools/live": {"live", "analysis", "results", "io", "policies", "traces", "workloads", "engine"},
    "tools/sweep": {"sweep", "analysis", "results", "io", "policies", "traces", "workloads",
                    "engine"},
}
# Programs on top: anything but each other.
TOP = {"tools/cli", "tools/capi", "tools/python"}
LIBRARIES = {"engine", "policies", "workloads", "traces", "io", "results", "analysis", "live", "sweep", "c"}
INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]utilsim/([a-z_]+)/')
LINK = re.compile(r"utilsim::([a-z_]+)")


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    breaches = []
    checked = 0
    for folder, allowed in ALLOWED.items():
        base = root / folder
        if not base.is_dir():
            breaches.append(f"{folder}: missing folder")
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix not in {".h", ".cc"}:
                continue
            checked += 1
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) in LIBRARIES and m.group(1) not in allowed:
                    breaches.append(
                        f"{path.relative_to(root)}:{n}: includes utilsim/{m.group(1)}/, "
                        f"but {folder} may include only {', '.join(sorted(allowed))}")
        cmake = base / "CMakeLists.txt"
        for n, line in enumerate(cmake.read_text().splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for m in LINK.finditer(line):
                if m.group(1) in LIBRARIES and m.group(1) not in allowed:
                    breaches.append(f"{cmake.relative_to(root)}:{n}: links utilsim::{m.group(1)}, "
                                    f"but {folder} may depend only on {', '.join(sorted(allowed))}")
    # Nothing below the programs includes a program's headers.
    for folder in ALLOWED:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in {".h", ".cc"}:
                continue
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if re.match(r'^\s*#\s*include\s+"(cli|decide_main|python)[a-z_]*\.h"', line):
                    breaches.append(f"{path.relative_to(root)}:{n}: includes a program header")
    for b in breaches:
        print(b)
    if checked == 0:
        print("no source files found under", root)
        return 1
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
