#!/usr/bin/env python3
"""The import check of `make linkage`.

For every target of Package.swift (read from `swift package dump-package`), collects the
modules its Swift files import and fails when
  1. a target imports a module of this package that it does not declare as a dependency
     (Swift would let it compile through a transitive dependency, hiding the edge);
  2. a target imports, or declares, a module that the forbidden-imports table of
     docs/ARCHITECTURE.md ("Modules that exist") forbids it;
  3. a file names `Mutex` without importing CourierCore (under -DCOURIER_TSAN, CourierCore's
     `Mutex` is what shadows Synchronization's; see Sources/CourierCore/PthreadMutex.swift), or
     writes `Mutex<...>` as a type (`: Mutex<`, `-> Mutex<`) in a module that does not declare
     its own `typealias Mutex` (type lookup does not apply import shadowing: ambiguous under TSan).

Usage: scripts/check-imports.py [--package-json FILE] [--table FILE]
Exit status 0 when the graph is clean, 1 with one line per violation otherwise.
"""
import argparse
import json
import os
import re
import subprocess
import sys

IMPORT = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)")
MUTEX = re.compile(r"\bMutex\s*[<(]|:\s*Mutex\b")
MUTEX_TYPE = re.compile(r"(:|->)\s*Mutex\s*<")
MUTEX_ALIAS = re.compile(r"^\s*typealias\s+Mutex\s*<")
TABLE_BEGIN = "<!-- forbidden-imports:begin -->"
TABLE_END = "<!-- forbidden-imports:end -->"


def load_package(path):
    if path:
        with open(path) as f:
            return json.load(f)
    out = subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def target_dependencies(target):
    names = set()
    for dep in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dep:
                names.add(dep[kind][0])
    return names


def target_directory(target):
    if target.get("path"):
        return target["path"]
    return os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])


def load_table(path, modules):
    """Rows `| module(s) | must not import | why |` between the markers. A cell lists names
    separated by commas; `every library module` expands to the package's library targets."""
    with open(path) as f:
        text = f.read()
    if TABLE_BEGIN not in text or TABLE_END not in text:
        sys.exit(f"check-imports: no forbidden-imports table in {path}")
    body = text.split(TABLE_BEGIN, 1)[1].split(TABLE_END, 1)[0]
    forbidden = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0] or set(cells[0]) <= set("-: ") or cells[0] == "module":
            continue

        def names(cell):
            result = set()
            for name in cell.replace("`", "").split(","):
                name = name.strip()
                if name == "every library module":
                    result |= modules["library"]
                elif name:
                    result.add(name)
            return result

        for source in names(cells[0]):
            forbidden.setdefault(source, set()).update(names(cells[1]) - {source})
    return forbidden


def swift_files(directory):
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(root, name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--package-json", help="dump-package output (default: run it)")
    parser.add_argument("--table", default="docs/ARCHITECTURE.md")
    args = parser.parse_args()

    package = load_package(args.package_json)
    targets = package["targets"]
    own = {t["name"] for t in targets}
    modules = {"library": {t["name"] for t in targets if t["type"] == "regular"}}
    forbidden = load_table(args.table, modules)
    unknown = set(forbidden) - own
    if unknown:
        sys.exit(f"check-imports: the table names modules that do not exist: {', '.join(sorted(unknown))}")

    problems = []
    edges = 0
    for target in sorted(targets, key=lambda t: t["name"]):
        if target["type"] == "system-target":
            continue
        name = target["name"]
        declared = target_dependencies(target)
        files = list(swift_files(target_directory(target)))
        has_alias = any(MUTEX_ALIAS.search(line) for path in files for line in open(path, encoding="utf-8"))
        banned = forbidden.get(name, set())
        for dep in sorted(declared & banned):
            problems.append(f"Package.swift: {name} declares {dep}, which {args.table} forbids")
        for path in files:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            imported = set()
            for number, line in enumerate(lines, 1):
                match = IMPORT.match(line)
                if not match:
                    continue
                module = match.group(1)
                imported.add(module)
                if module in banned:
                    problems.append(f"{path}:{number}: {name} imports {module}, which {args.table} forbids")
                elif module in own and module != name and module not in declared:
                    problems.append(f"{path}:{number}: {name} imports {module} but does not declare it in Package.swift")
                elif module in own:
                    edges += 1
            code = [l for l in lines if not l.lstrip().startswith("//")]
            if name != "CourierCore" and any(MUTEX.search(l) for l in code) and "CourierCore" not in imported:
                problems.append(f"{path}: names Mutex without importing CourierCore (its TSan Mutex would not apply)")
            if not has_alias and name != "CourierCore":
                for number, line in enumerate(lines, 1):
                    if not line.lstrip().startswith("//") and MUTEX_TYPE.search(line):
                        problems.append(f"{path}:{number}: Mutex<...> as a type needs {name}'s own `typealias Mutex` (see Sources/Courier/Session/TSanMutex.swift)")

    for problem in problems:
        print(f"linkage: {problem}")
    if problems:
        print(f"linkage: {len(problems)} import(s) break the module graph (docs/ARCHITECTURE.md, \"Modules that exist\")")
        return 1
    print(f"linkage: imports match Package.swift and the forbidden-imports table ({edges} imports of package modules in {sum(1 for t in targets if t['type'] != 'system-target')} targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
