#!/usr/bin/env python3
"""`courier bench` side by side with wrk, h2load (--h1) and ab (-k) against the client
benchmark's nginx (issue 13): closed-loop small GETs, each generator on core 1 with one thread,
nginx on core 0, tools interleaved in each round. Prints one line per run: req/s, CPU per request
(user+system from /usr/bin/time) and maximum RSS.

Run from the repository root after `make release` (the tuned release build in .build-release) and
`bash Benchmarks/Client/setup.sh`:  REPS=3 python3 Benchmarks/Client/loadgen.py
With COURIER_BASELINE=path/to/another/courier, that build runs too, right after courier in each
round ("courier-base"): a before/after of a change in the same run.
"""
import json, os, re, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
import run  # noqa: E402  (the Nginx class of the client benchmark)

COURIER = os.environ.get("COURIER", ".build-release/release/courier")
BASELINE = os.environ.get("COURIER_BASELINE")
SECONDS = 5


def timed_parts(argv):
    """Runs `argv` on core 1: its output, user and system seconds, and maximum RSS in MiB."""
    p = subprocess.run(["taskset", "-c", "1", "/usr/bin/time", "-f", "TIME %U %S %M"] + argv, capture_output=True, text=True)
    m = re.search(r"TIME ([\d.]+) ([\d.]+) (\d+)", p.stderr)
    return p.stdout, float(m.group(1)), float(m.group(2)), int(m.group(3)) / 1024


def timed(argv):
    out, user, system, rss = timed_parts(argv)
    return out, user + system, rss


def with_small_url(body):
    """Starts the client benchmark's nginx (one worker, core 0) and calls `body` with its
    `/small` URL."""
    data = os.environ.get("BENCH_CACHE") or os.path.join(os.path.dirname(__file__), "..", ".build-bench", "data")
    nginx = run.Nginx(data, 0)
    nginx.start()
    try:
        body(nginx.url("/small", False))
    finally:
        nginx.stop()


def main():
    with_small_url(rounds)


def rounds(url):
    for c in (32, 256):
        for _ in range(int(os.environ.get("REPS", "3"))):
            out, cpu, rss = timed(["wrk", "-t1", f"-c{c}", f"-d{SECONDS}s", url])
            rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
            report(c, "wrk", rps, cpu / (rps * SECONDS), rss)
            for name, binary in [("courier", COURIER)] + ([("courier-base", BASELINE)] if BASELINE else []):
                out, cpu, rss = timed([binary, "bench", "-t", "1", "-c", str(c), "-d", f"{SECONDS}s", "--json", url])
                result = json.loads(out)
                report(c, name, result["requests_per_second"], cpu / result["requests"], rss)
            out, cpu, rss = timed(["h2load", "--h1", "-t1", f"-c{c}", "-D", str(SECONDS), url])
            rps = float(re.search(r"finished in [\d.]+s, ([\d.]+) req/s", out).group(1))
            report(c, "h2load", rps, cpu / (rps * SECONDS), rss)
            out, cpu, rss = timed(["ab", "-k", f"-c{c}", "-n", "100000", "-q", url])
            rps = float(re.search(r"Requests per second:\s+([\d.]+)", out).group(1))
            report(c, "ab", rps, cpu / 100000, rss)


def report(c, tool, rps, cpu_per_request, rss):
    print(f"c={c:<4} {tool:12} {rps:10.0f} req/s  {cpu_per_request * 1e6:6.1f} µs/req  rss {rss:5.1f} MiB", flush=True)


if __name__ == "__main__":
    main()
