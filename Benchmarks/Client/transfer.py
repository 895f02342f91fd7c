#!/usr/bin/env python3
"""`courier URL -o /dev/null` against `curl URL -o /dev/null` for single transfers (issue 13):
the 13-byte `/small` and the 1 GiB `/big` of the client benchmark's nginx, timed by hyperfine
(whole processes: start-up, connect, transfer, exit), each command on core 1, nginx on core 0.
Also `courier --version`'s start-up. Prints hyperfine's summary lines and the mean ratios.

Run from the repository root after `make release` (the tuned release build in .build-release),
`bash Benchmarks/Client/setup.sh` and `apt-get install -y hyperfine`:
  python3 Benchmarks/Client/transfer.py
"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
import run  # noqa: E402  (the Nginx class of the client benchmark)

COURIER = os.environ.get("COURIER", ".build-release/release/courier")


def hyperfine(commands, runs, warmup):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(["hyperfine", "-N", "--style", "basic", "--warmup", str(warmup), "--runs", str(runs),
                        "--export-json", out.name] + commands, check=True)
        return [r["mean"] for r in json.load(open(out.name))["results"]]


def main():
    data = os.environ.get("BENCH_CACHE") or os.path.join(os.path.dirname(__file__), "..", ".build-bench", "data")
    nginx = run.Nginx(data, 0)
    nginx.start()
    try:
        pin = ["taskset", "-c", "1"]
        for path, runs in (("/small", 50), ("/big", 5)):
            url = nginx.url(path, False)
            courier = " ".join(pin + [COURIER, "-s", "-o", "/dev/null", url])
            curl = " ".join(pin + ["curl", "-s", "-o", "/dev/null", url])
            means = hyperfine([courier, curl], runs, 2 if path == "/small" else 1)
            print(f"{path}: courier {means[0] * 1000:.1f} ms, curl {means[1] * 1000:.1f} ms, courier ÷ curl {means[0] / means[1]:.2f}", flush=True)
        means = hyperfine([" ".join(pin + [COURIER, "--version"])], 50, 3)
        print(f"courier --version: {means[0] * 1000:.1f} ms", flush=True)
    finally:
        nginx.stop()


if __name__ == "__main__":
    main()
