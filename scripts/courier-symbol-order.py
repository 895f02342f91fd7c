#!/usr/bin/env python3
"""Writes Sources/CourierCLI/Link/courier.order: the functions a `courier` run executes, in the
order it first executes them, for lld's --symbol-ordering-file (Package.swift, CourierCLI's
release link).

Why: the kernel maps a binary's code 64 KiB at a time around each page a process touches
("fault-around"), so the resident size of a 40 MB static `courier` is set by how many 64 KiB
windows its executed functions are spread over, not by how much code runs. Laid out in link
order, the few thousand functions `courier --version`, a transfer and `courier bench` execute
(about 1 MB) touched 8 MiB of text; packed first, about 4 MiB (what is left sits in the toolchain's
static libraries, whose Swift code is one section per module and cannot be reordered).
Benchmarks/RESULTS.md has the measurements.

How: runs the release binary under valgrind's callgrind (no demangling) for `--version`, one
HTTP and one HTTPS transfer, a keep-alive `bench` and a `bench --no-keepalive` against the client
benchmark's nginx (Benchmarks/Client/run.py), and collects the functions each run executed in
the binary. Names defined more than once in the binary (local helpers the compiler merged, such as
`objectdestroyTm`) are left out: lld would move every definition, dragging whole unrelated
sections into the packed region. A stale name is harmless (lld ignores it,
--no-warn-symbol-ordering), so the file only needs regenerating when the hot path changes a lot.

Run from the repository root after `make release` (the tuned release build in .build-release)
and `bash Benchmarks/Client/setup.sh`, with valgrind installed:
    python3 scripts/courier-symbol-order.py
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks", "Client"))
import run  # noqa: E402  (the client benchmark's nginx)

COURIER = os.environ.get("COURIER", os.path.join(ROOT, ".build-release", "release", "courier"))
OUTPUT = os.path.join(ROOT, "Sources", "CourierCLI", "Link", "courier.order")
ENTRY = re.compile(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$")


def executed(profile, binary):
    """The functions of `binary` a callgrind profile saw run, in the order they first appear."""
    objects, functions, names, current = {}, {}, [], None
    with open(profile, errors="replace") as lines:
        for line in lines:
            match = ENTRY.match(line.rstrip("\n"))
            if not match:
                continue
            kind, ident, name = match.groups()
            if kind in ("ob", "cob"):
                if name is not None:
                    objects[ident] = name
                if kind == "ob":
                    current = objects.get(ident)
                continue
            if name is not None:
                functions[ident] = name
            if kind == "fn" and current and os.path.realpath(current) == binary:
                function = functions.get(ident)
                if function and not function.startswith("0x"):
                    names.append(function)
    return names


def profile(arguments, scratch, index):
    path = os.path.join(scratch, f"run{index}.callgrind")
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={path}", COURIER] + arguments,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return executed(path, os.path.realpath(COURIER))


def main():
    data = os.environ.get("BENCH_CACHE") or os.path.join(ROOT, "Benchmarks", ".build-bench", "data")
    nginx = run.Nginx(data, None)
    nginx.start()
    try:
        plain, tls = nginx.url("/small", False), nginx.url("/small", True)
        # `bench` first: its functions then sit together at the front, so a load run does not
        # touch the pages of what only a transfer runs (the session layer, the output code).
        runs = [
            ["bench", "-t", "1", "-c", "8", "-n", "2000", plain],
            ["bench", "-t", "1", "-c", "8", "-n", "500", "--no-keepalive", plain],
            ["--version"],
            ["-s", "-o", "/dev/null", plain],
            ["-s", "-k", "-o", "/dev/null", tls],
        ]
        with tempfile.TemporaryDirectory() as scratch:
            order, seen = [], set()
            for index, arguments in enumerate(runs):
                for name in profile(arguments, scratch, index):
                    if name not in seen:
                        seen.add(name)
                        order.append(name)
    finally:
        nginx.stop()
    symbols = subprocess.run(["nm", "--defined-only", COURIER], capture_output=True, text=True, check=True).stdout
    definitions = collections.Counter(line.split()[-1] for line in symbols.splitlines() if len(line.split()) == 3)
    unique = [name for name in order if definitions[name] == 1]
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w") as file:
        file.write("\n".join(unique) + "\n")
    print(f"{len(unique)} functions ({len(order) - len(unique)} defined more than once, left out) -> {os.path.relpath(OUTPUT, ROOT)}")


if __name__ == "__main__":
    main()
