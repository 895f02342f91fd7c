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
(a before/after in the same run); R rounds (8), S seconds per run (3); C the concurrencies
(32,256); LOG=path writes every round's figures as JSON.

Also printed: voluntary context switches per request (`/usr/bin/time`'s %w), each a sleep in a
wait and its wake-up, which cost the sleeper 5-6 µs of CPU on this VM (wakeup_cost.c), and a
bootstrap interval of the median ratio.
"""
import json, os, random, re, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loadgen import with_small_url  # noqa: E402

ROUNDS = int(os.environ.get("R", "8"))
CONCURRENCIES = [int(c) for c in os.environ.get("C", "32,256").split(",")]
LOG = os.environ.get("LOG")
SECONDS = int(os.environ.get("S", "3"))
COURIER = os.environ.get("COURIER", ".build-release/release/courier")
BASE = os.environ.get("BASE")


def timed_sleeps(argv):
    """Runs `argv` on core 1: its output, user and system seconds, and voluntary context
    switches (each a sleep in a wait and a wake-up)."""
    p = subprocess.run(["taskset", "-c", "1", "/usr/bin/time", "-f", "TIME %U %S %w"] + argv, capture_output=True, text=True)
    m = re.search(r"TIME ([\d.]+) ([\d.]+) (\d+)", p.stderr)
    return p.stdout, float(m.group(1)), float(m.group(2)), int(m.group(3))


def one(tool, c, url):
    """(CPU µs per request, user µs per request, req/s, sleeps per request) of one run."""
    if tool == "wrk":
        out, user, system, sleeps = timed_sleeps(["wrk", "-t1", f"-c{c}", f"-d{SECONDS}s", url])
        requests = int(re.search(r"(\d+) requests in", out).group(1))
    else:
        binary = COURIER if tool == "courier" else BASE
        out, user, system, sleeps = timed_sleeps([binary, "bench", "-t", "1", "-c", str(c), "-d", f"{SECONDS}s", "--json", url])
        requests = json.loads(out)["requests"]
    return (user + system) / requests * 1e6, user / requests * 1e6, requests / SECONDS, sleeps / requests


def median_interval(values, resamples=2000, seed=1):
    """A 95% percentile-bootstrap interval of the median of `values`: how far the median of
    this many rounds could move on another run of the same rounds."""
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def main():
    with_small_url(rounds)


def rounds(url):
    log = {}
    for c in CONCURRENCIES:
        results = {}
        for r in range(ROUNDS):
            tools = ["wrk", "courier"] + (["base"] if BASE else [])
            if r % 2:
                tools.reverse()
            for tool in tools:
                results.setdefault(tool, []).append(one(tool, c, url))
        wrk = results["wrk"]
        log[c] = results
        for tool, runs in results.items():
            ratios = [mine[0] / theirs[0] for mine, theirs in zip(runs, wrk)]
            low, high = median_interval(ratios)
            print(f"c={c:<4} {tool:8} CPU/request {statistics.median(x[0] for x in runs):5.2f} µs "
                  f"(user {statistics.median(x[1] for x in runs):4.2f})  req/s {statistics.median(x[2] for x in runs):7.0f}  "
                  f"sleeps/request {statistics.median(x[3] for x in runs):.2f}  "
                  f"÷ wrk: median {statistics.median(ratios):.3f} (95% {low:.3f}–{high:.3f}), rounds {min(ratios):.2f}–{max(ratios):.2f}", flush=True)
    if LOG:
        # Every round's (CPU µs/request, user µs/request, req/s, sleeps/request) per tool, so
        # sittings can be pooled.
        with open(LOG, "w") as out:
            json.dump(log, out)

if __name__ == "__main__":
    main()
