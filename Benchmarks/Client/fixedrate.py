#!/usr/bin/env python3
"""`courier bench -R RATE` against wrk2 at the same constant rate, below saturation: do the two
report the same latencies? Both correct coordinated omission the same way (a request's latency
counts from when it was due, not from when it was sent), so at a rate the server and the client
keep up with, their p50 and p99 should agree. Small GETs of the client benchmark's nginx
(`/small`, 13 bytes; nginx on core 0), 32 connections, one thread, each generator on core 1;
for each rate a warm-up run of each tool, then REPS rounds of wrk2 and courier interleaved (the
first tool alternates by round). Prints each run's p50, p99 and achieved req/s, then the medians
over the rounds and courier ÷ wrk2 for each.

wrk2's latency is its "Recorded Latency" HdrHistogram (the corrected one, `--latency`); courier's
is `latency.p50_ns` / `p99_ns` of `--json` (also counted from the due time). wrk2 resets its
histogram after a calibration of 10 s + 5 ms per connection, so with a 10 s run (the default
here) it never does and both histograms cover the whole run, connects included. Both tools wait
for a due time with millisecond timers and count the wait's overshoot as latency: wrk2 delays a
send by round(wait_ms + 0.5) ms in ae's timer events (0.5 to 1.5 ms late), courier's loop wakes in
`epoll_wait` with the timeout rounded up to a millisecond but also on every response, so at tens
of thousands of req/s courier sends closer to the due time. wrk2's `-U` (uncorrected latency) and
courier's `phases.total` show the service time without the schedule.

wrk2 has no Debian package; build it from source beside the benchmark (the directory is ignored
by git through `.build*/`; its bundled LuaJIT builds with the stock toolchain):
  apt-get install -y build-essential libssl-dev zlib1g-dev
  git clone https://github.com/giltene/wrk2 Benchmarks/.build-bench/wrk2
  make -C Benchmarks/.build-bench/wrk2          # the binary is Benchmarks/.build-bench/wrk2/wrk

Run from the repository root after `make release` (the tuned release build in .build-release) and
`bash Benchmarks/Client/setup.sh` (about 2 minutes with the defaults):
  WRK2=Benchmarks/.build-bench/wrk2/wrk python3 Benchmarks/Client/fixedrate.py
Environment (all optional): WRK2 (default `wrk2` on PATH), COURIER (.build-release/release/courier),
RATES=10000,30000 (req/s), CONNECTIONS=32, DURATION=10 (s), WARMUP_SECONDS=2, REPS=3, BENCH_CACHE.
"""
import json, os, re, statistics, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
import run  # noqa: E402  (the Nginx class of the client benchmark)

WRK2 = os.environ.get("WRK2", "wrk2")
COURIER = os.environ.get("COURIER", ".build-release/release/courier")
RATES = [int(r) for r in os.environ.get("RATES", "10000,30000").split(",") if r.strip()]
CONNECTIONS = int(os.environ.get("CONNECTIONS", "32"))
SECONDS = int(os.environ.get("DURATION", "10"))
WARMUP = int(os.environ.get("WARMUP_SECONDS", "2"))
REPS = int(os.environ.get("REPS", "3"))
UNITS = {"us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}


def pinned(argv):
    p = subprocess.run(["taskset", "-c", "1"] + argv, capture_output=True, text=True, timeout=SECONDS * 3 + 60)
    if p.returncode != 0:
        raise SystemExit(f"{argv[0]} exited with {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p.stdout


def wrk2(url, rate, seconds):
    out = pinned([WRK2, "-t1", f"-c{CONNECTIONS}", f"-d{seconds}s", "-R", str(rate), "--latency", url])
    section = out.split("Latency Distribution (HdrHistogram - Recorded Latency)", 1)[1]

    def percentile(p):
        value, unit = re.search(rf"^\s*{re.escape(p)}%\s+([\d.]+)(us|ms|s|m|h)\s*$", section, re.M).groups()
        return float(value) * UNITS[unit]
    problems = [line.strip() for line in out.splitlines() if "Socket errors" in line or "Non-2xx" in line]
    return dict(p50=percentile("50.000"), p99=percentile("99.000"),
                rps=float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), problems=problems)


def courier(url, rate, seconds):
    out = pinned([COURIER, "bench", "-t", "1", "-c", str(CONNECTIONS), "-d", f"{seconds}s", "-R", str(rate), "--json", url])
    result = json.loads(out)
    problems = [f"{result['failures']} failures {result['errors']}"] if result["failures"] else []
    other = {k: v for k, v in result["status"].items() if k != "200"}
    if other:
        problems.append(f"statuses other than 200: {other}")
    return dict(p50=float(result["latency"]["p50_ns"]), p99=float(result["latency"]["p99_ns"]),
                rps=float(result["requests_per_second"]), problems=problems)


TOOLS = {"wrk2": wrk2, "courier": courier}


def report(rate, label, tool, r):
    note = ("  " + "; ".join(r["problems"])) if r["problems"] else ""
    print(f"R={rate:<6} {label:7} {tool:8} p50 {r['p50'] / 1e3:9.1f} µs  p99 {r['p99'] / 1e3:9.1f} µs  "
          f"{r['rps']:9.0f} req/s{note}", flush=True)


def main():
    data = os.environ.get("BENCH_CACHE") or os.path.join(os.path.dirname(__file__), "..", ".build-bench", "data")
    if not os.path.isfile(os.path.join(data, "small")):
        raise SystemExit(f"no {data}/small: run Benchmarks/Client/setup.sh first (or set BENCH_CACHE)")
    nginx = run.Nginx(data, 0)
    nginx.start()
    try:
        url = nginx.url("/small", False)
        summary = []
        for rate in RATES:
            for name, tool in TOOLS.items():
                tool(url, rate, WARMUP)
            runs = {name: [] for name in TOOLS}
            for rep in range(REPS):
                order = list(TOOLS) if rep % 2 == 0 else list(TOOLS)[::-1]
                for name in order:
                    r = TOOLS[name](url, rate, SECONDS)
                    runs[name].append(r)
                    report(rate, f"round {rep + 1}", name, r)
            med = {name: {k: statistics.median(r[k] for r in rs) for k in ("p50", "p99", "rps")} for name, rs in runs.items()}
            for name in TOOLS:
                report(rate, "median", name, dict(med[name], problems=[]))
            ratio = {k: med["courier"][k] / med["wrk2"][k] for k in ("p50", "p99", "rps")}
            print(f"R={rate:<6} courier ÷ wrk2: p50 {ratio['p50']:.2f}  p99 {ratio['p99']:.2f}  req/s {ratio['rps']:.3f}", flush=True)
            summary.append((rate, med, ratio))
        print()
        print("| rate | wrk2 p50 | wrk2 p99 | wrk2 req/s | courier p50 | courier p99 | courier req/s | p50 ÷ | p99 ÷ |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for rate, med, ratio in summary:
            w, c = med["wrk2"], med["courier"]
            print(f"| {rate} | {w['p50'] / 1e3:.0f} µs | {w['p99'] / 1e3:.0f} µs | {w['rps']:.0f} | {c['p50'] / 1e3:.0f} µs "
                  f"| {c['p99'] / 1e3:.0f} µs | {c['rps']:.0f} | {ratio['p50']:.2f} | {ratio['p99']:.2f} |")
    finally:
        nginx.stop()


if __name__ == "__main__":
    main()
