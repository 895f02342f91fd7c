#!/usr/bin/env python3
"""Turns `make bench-parser` outputs into the RESULTS.md table.

    python3 Benchmarks/results-table.py run1.txt [run2.txt ...]

For each benchmark it takes the p50 of every run and reports the median of those p50s.
Response sizes come from `Benchmarks/.build/release/ParserProfile sizes` (build it first:
`cd Benchmarks && swift build -c release --product ParserProfile`).
MB/s is response bytes x responses/s / 10^6.
"""
import os
import re
import statistics
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
profile = os.path.join(here, ".build", "release", "ParserProfile")
sizes = {}
for line in subprocess.run([profile, "sizes"], check=True, capture_output=True, text=True).stdout.splitlines():
    name, size, _, _ = line.split("\t")
    sizes[name] = int(size)

# benchmark name -> metric -> [p50 per run]
values = {}
for path in sys.argv[1:]:
    current = None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^### (.+?)\s*$", line)
        if m:
            current = m.group(1)
            continue
        if current is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[3].replace(",", "").isdigit():
            continue
        metric = cells[0]
        p50 = int(cells[3].replace(",", ""))
        p100 = int(cells[7].replace(",", ""))
        entry = values.setdefault(current, {})
        entry.setdefault(metric, []).append(p50)
        entry.setdefault(metric + " p100", []).append(p100)


def median(name, metric):
    v = values.get(name, {}).get(metric)
    return statistics.median(v) if v else None


def ns(name):
    for metric in values.get(name, {}):
        if metric.startswith("Time (wall clock) (ns)"):
            return median(name, metric)
    return None


def mallocs(name):
    total = median(name, "Malloc (total) *")
    worst = max(values.get(name, {}).get("Malloc (total) * p100", [0]))
    return None if total is None else (total, worst)


def fmt_int(x):
    return "{:,}".format(int(round(x)))


def fmt_mallocs(m):
    if m is None:
        return "n/a"
    total, worst = m
    return "%s (max %s)" % (fmt_int(total), fmt_int(worst))


print("| case | Courier resp/s | llhttp resp/s | ratio | Courier MB/s | llhttp MB/s | Courier mallocs/resp | llhttp mallocs/resp |")
print("|:--|--:|--:|--:|--:|--:|--:|--:|")
for case in ["typical", "40 headers", "500 chunks", "gzip"]:
    c_ns, l_ns = ns("time %s Courier" % case), ns("time %s llhttp" % case)
    if c_ns is None or l_ns is None:
        continue
    c_rps, l_rps = 1e9 / c_ns, 1e9 / l_ns
    size = sizes[case]
    print("| %s (%s B) | %s | %s | %.2f | %s | %s | %s | %s |" % (
        case, fmt_int(size), fmt_int(c_rps), fmt_int(l_rps), c_rps / l_rps,
        fmt_int(c_rps * size / 1e6), fmt_int(l_rps * size / 1e6),
        fmt_mallocs(mallocs("malloc %s Courier" % case)), fmt_mallocs(mallocs("malloc %s llhttp" % case))))
i_ns = ns("time gzip+inflate Courier-only")
if i_ns is not None:
    size = sizes["gzip"]
    print("| gzip+inflate, Courier only (%s B) | %s | — | — | %s | — | %s | — |" % (
        fmt_int(size), fmt_int(1e9 / i_ns), fmt_int(1e9 / i_ns * size / 1e6),
        fmt_mallocs(mallocs("malloc gzip+inflate Courier-only"))))
control = mallocs("malloc control: one Array allocation")
if control is not None:
    print("\nmalloc control (one Array allocation per iteration): %s" % fmt_mallocs(control))
print("\np50 wall clock per response (ns), median over %d run(s):" % len(sys.argv[1:]))
for name in sorted(values):
    if name.startswith("time "):
        runs = [v for k, v in values[name].items() if k.startswith("Time (wall clock)") and not k.endswith("p100")][0]
        print("  %-34s %s  (runs: %s)" % (name[5:], fmt_int(ns(name)), ", ".join(fmt_int(r) for r in runs)))
