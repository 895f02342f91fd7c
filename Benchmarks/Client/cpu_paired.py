#!/usr/bin/env python3
"""CPU per request of `courier bench` and wrk in pairs (issue 13): the two run back to back in
each round, alternating which goes first, against the client benchmark's nginx (one worker on
core 0; each generator on core 1, one thread). Prints, per concurrency, the median CPU (user +
system, from /usr/bin/time) per request, the median user part, the median req/s, and the median
and range of the per-round ratio to wrk. On a shared VM the rounds of one tool spread by ±15%,
as wide as the differences measured: pairing takes out drift between rounds, and the medians of
many short rounds are steadier than a few long ones.

Run from the repository root after `make release` and `bash Benchmarks/Client/setup.sh`:
    R=8 python3 Benchmarks/Client/cpu_paired.py
COURIER=path (default the release build); BASE=path adds another courier build to each round
(a before/after in the same run); R rounds (8), S seconds per run (3).
"""
import json, os, re, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loadgen import timed_parts, with_small_url  # noqa: E402

ROUNDS = int(os.environ.get("R", "8"))
SECONDS = int(os.environ.get("S", "3"))
COURIER = os.environ.get("COURIER", ".build-release/release/courier")
BASE = os.environ.get("BASE")


def one(tool, c, url):
    """(CPU µs per request, user µs per request, req/s) of one run."""
    if tool == "wrk":
        out, user, system, _ = timed_parts(["wrk", "-t1", f"-c{c}", f"-d{SECONDS}s", url])
        requests = int(re.search(r"(\d+) requests in", out).group(1))
    else:
        binary = COURIER if tool == "courier" else BASE
        out, user, system, _ = timed_parts([binary, "bench", "-t", "1", "-c", str(c), "-d", f"{SECONDS}s", "--json", url])
        requests = json.loads(out)["requests"]
    return (user + system) / requests * 1e6, user / requests * 1e6, requests / SECONDS


def main():
    with_small_url(rounds)


def rounds(url):
    for c in (32, 256):
        results = {}
        for r in range(ROUNDS):
            tools = ["wrk", "courier"] + (["base"] if BASE else [])
            if r % 2:
                tools.reverse()
            for tool in tools:
                results.setdefault(tool, []).append(one(tool, c, url))
        wrk = results["wrk"]
        for tool, runs in results.items():
            ratios = [mine[0] / theirs[0] for mine, theirs in zip(runs, wrk)]
            print(f"c={c:<4} {tool:8} CPU/request {statistics.median(x[0] for x in runs):5.2f} µs "
                  f"(user {statistics.median(x[1] for x in runs):4.2f})  req/s {statistics.median(x[2] for x in runs):7.0f}  "
                  f"÷ wrk: median {statistics.median(ratios):.3f}, rounds {min(ratios):.2f}–{max(ratios):.2f}", flush=True)

if __name__ == "__main__":
    main()
