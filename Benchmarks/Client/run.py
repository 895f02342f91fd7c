#!/usr/bin/env python3
"""Loopback HTTP client comparison: Courier against async-http-client, URLSession, curl and wrk.

Starts nginx on 127.0.0.1 (pinned to one core), runs every workload for every client (each pinned
to another core), interleaving the clients round-robin within each repetition, and reports medians
as a markdown table (stdout and Benchmarks/results/client-<date>.md) plus the raw runs as JSON.
See README.md beside this file. Python 3 standard library only.

Environment (all optional):
  REPS=5                      repetitions of the whole matrix
  CLIENTS=courier,ahc,urlsession,curl,wrk
  WORKLOADS=W1,W2,W3,W4,W5,W6,W7
  W1_REQUESTS=20000 W2_REQUESTS=100000 W6_REQUESTS=100000   small GETs per run
  W7_REQUESTS=5000            new TLS connections (one GET each, Connection: close) per run
  W3_REQUESTS=1 W4_REQUESTS=1 W5_REQUESTS=1                 big/gzip GETs per run
  WRK_SECONDS=5 WRK_BIG_SECONDS=3                           wrk runs for a fixed time
  URLSESSION_DIVISOR=5        URLSession runs W1/W2/W6 with N / this requests (it is much slower)
  ZLIB_REPEAT=3               inflations of the W5 file per zlib measurement
  NGINX_CPU=0 CLIENT_CPU=1    cores for the server and for every client
  BIN_DIR=Benchmarks/.build/release   where the Swift drivers are
  BENCH_CACHE=Benchmarks/.build-bench/data   the files setup.sh made
  RESULTS_DIR=Benchmarks/results   NO_SAVE=1 prints only
  RUN_TIMEOUT=600             seconds before one run is killed and counted as failed
"""

import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
GIB = 1 << 30
MIB = 1 << 20


def env_int(name, default):
    value = os.environ.get(name)
    return int(value) if value else default


def env_list(name, default):
    value = os.environ.get(name)
    return [v.strip() for v in value.split(",") if v.strip()] if value else default


def log(message):
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Workloads and clients

WORKLOADS = {
    # name: path, tls, requests, concurrency, gzip, unit, title, wrk connections (None: no wrk)
    "W1": dict(path="/small", tls=False, requests=env_int("W1_REQUESTS", 20000), concurrency=1, gzip=False,
               unit="req/s", title="sequential small GETs, 1 connection", wrk=1),
    "W2": dict(path="/small", tls=False, requests=env_int("W2_REQUESTS", 100000), concurrency=32, gzip=False,
               unit="req/s", title="small GETs, 32 concurrent", wrk=32),
    "W3": dict(path="/big", tls=False, requests=env_int("W3_REQUESTS", 1), concurrency=1, gzip=False,
               unit="MiB/s", title="1 GiB over plain HTTP", wrk=1),
    "W4": dict(path="/big", tls=True, requests=env_int("W4_REQUESTS", 1), concurrency=1, gzip=False,
               unit="MiB/s", title="1 GiB over TLS", wrk=1),
    "W5": dict(path="/text100m", tls=False, requests=env_int("W5_REQUESTS", 1), concurrency=1, gzip=True,
               unit="MiB/s", title="100 MiB text, chunked + gzip, decoded", wrk=None),
    "W6": dict(path="/small", tls=False, requests=env_int("W6_REQUESTS", 100000), concurrency=256, gzip=False,
               unit="req/s", title="small GETs, 256 concurrent", wrk=256),
    # New connections (issue 12): every GET sends `Connection: close`, so every request is a TCP
    # connect and a TLS handshake; nginx issues session tickets. Courier with and without TLS
    # session resumption, and curl (which resumes within one process); req/s = handshakes/s.
    "W7": dict(path="/small", tls=True, requests=env_int("W7_REQUESTS", 5000), concurrency=32, gzip=False,
               unit="req/s", title="new TLS connection per small GET (Connection: close), 32 concurrent", wrk=None,
               close=True),
}
# The clients of W7: those that send `Connection: close` on every request.
CLOSE_CLIENTS = ("courier", "courier-noresume", "curl")

# Session variants with a do-nothing extra (COURIER_SESSION_EXTRA), run side by side with
# courier-session to measure what the extra costs per request.
SESSION_EXTRAS = {"courier-session-interceptor": "interceptor", "courier-session-policy": "policy",
                  "courier-session-monitor": "monitor",
                  # Both against /small-nostore: no jar and no cache, then a jar of 1,000 cookies
                  # over 100 domains (10 sent) and a cache of 10,000 entries (issue 12); and the
                  # same with none of the cookies for the benchmark's host (the lookup alone).
                  "courier-session-nostate": "nostate", "courier-session-state": "state",
                  "courier-session-state-nomatch": "state-nomatch"}
SWIFT_DRIVERS = {"courier": "CourierBench", "courier-poll": "CourierBench", "courier-noresume": "CourierBench", "courier-session": "CourierSessionBench",
                 **{name: "CourierSessionBench" for name in SESSION_EXTRAS},
                 "courier-async": "CourierSessionBench", "ahc": "AHCBench",
                 "urlsession": "URLSessionBench"}
CLIENT_NAMES = {"courier": "Courier", "courier-poll": "Courier, busy poll 200 µs",
                "courier-noresume": "Courier, TLS resumption off",
                "courier-session": "Courier SessionManager", "courier-async": "Courier async GET", "ahc": "AHC",
                "urlsession": "URLSession", "curl": "curl", "wrk": "wrk",
                "courier-session-interceptor": "Courier SessionManager + do-nothing interceptor",
                "courier-session-policy": "Courier SessionManager + RetryPolicy",
                "courier-session-monitor": "Courier SessionManager + do-nothing event monitor",
                "courier-session-nostate": "Courier SessionManager, no cookie jar, no cache (/small-nostore)",
                "courier-session-state": "Courier SessionManager + 1,000 cookies + 10,000 cached responses (/small-nostore)",
                "courier-session-state-nomatch": "Courier SessionManager + 1,000 cookies (none for this host) + 10,000 cached responses (/small-nostore)"}
# courier-poll: the same driver with the event loop polling 200 µs before it sleeps
# (HTTPClientConfiguration.busyPoll, off by default). Run for W1 only, where latency decides.
# courier-session: data tasks through the AFNetworking layer (SessionManager) instead of the
# transport's delegate API; small-request workloads only (data tasks keep bodies in memory).
# courier-async: the same driver awaiting HTTPSessionManager's async GET in one Swift task per
# connection (COURIER_SESSION_MODE=async); small-request workloads only.
ALL_CLIENTS = ["courier", "courier-poll", "courier-noresume", "courier-session", "courier-async", "ahc", "urlsession", "curl", "wrk",
               *SESSION_EXTRAS]
SESSION_WORKLOADS = ("W1", "W2", "W6")
BUSY_POLL_MICROSECONDS = "200"


def free_ports(count):
    """Ports the kernel hands out for 127.0.0.1 right now (held together so they differ)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


# --------------------------------------------------------------------------------------------
# nginx

class Nginx:
    def __init__(self, data_dir, cpu):
        self.data_dir = os.path.abspath(data_dir)
        self.cpu = cpu
        self.run_dir = tempfile.mkdtemp(prefix="courier-bench-nginx-")
        self.http_port, self.https_port = free_ports(2)
        self.process = None
        self.worker_pid = None

    def make_certificates(self):
        """A CA and a leaf for IP:127.0.0.1 signed by it, made fresh for this run."""
        d = self.run_dir
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-keyout", f"{d}/ca.key", "-out", f"{d}/ca.pem", "-days", "2",
                        "-subj", "/CN=Courier benchmark CA"], **quiet)
        subprocess.run(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-keyout", f"{d}/server.key", "-out", f"{d}/server.csr", "-subj", "/CN=127.0.0.1"], **quiet)
        with open(f"{d}/server.ext", "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                    "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n")
        subprocess.run(["openssl", "x509", "-req", "-in", f"{d}/server.csr", "-CA", f"{d}/ca.pem",
                        "-CAkey", f"{d}/ca.key", "-CAcreateserial", "-out", f"{d}/server.pem", "-days", "2",
                        "-extfile", f"{d}/server.ext"], **quiet)
        self.ca_file = f"{d}/ca.pem"

    def start(self):
        self.make_certificates()
        with open(os.path.join(HERE, "nginx.conf.template")) as f:
            conf = f.read()
        # As root, the master would hand the worker to "nobody", who may not read the data or the
        # run directory; the server only listens on loopback for the length of the run.
        user_line = "user root;" if os.geteuid() == 0 else ""
        for key, value in {"USER_LINE": user_line, "RUN_DIR": self.run_dir, "DATA_DIR": self.data_dir,
                           "HTTP_PORT": self.http_port, "HTTPS_PORT": self.https_port}.items():
            conf = conf.replace("{{%s}}" % key, str(value))
        conf_path = os.path.join(self.run_dir, "nginx.conf")
        with open(conf_path, "w") as f:
            f.write(conf)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        command = [nginx, "-p", self.run_dir, "-c", conf_path, "-e", os.path.join(self.run_dir, "error.log")]
        if self.cpu is not None:
            command = ["taskset", "-c", str(self.cpu)] + command
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit("nginx exited at start:\n" + self.error_log())
            try:
                socket.create_connection(("127.0.0.1", self.http_port), timeout=0.2).close()
                socket.create_connection(("127.0.0.1", self.https_port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise SystemExit("nginx did not listen within 10 s:\n" + self.error_log())
        self.worker_pid = self.find_worker()

    def error_log(self):
        try:
            with open(os.path.join(self.run_dir, "error.log")) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def find_worker(self):
        master = self.process.pid
        for _ in range(100):
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == master:
                    return int(pid)
            time.sleep(0.05)
        return master

    def cpu_seconds(self):
        """utime + stime of the worker, from /proc/<pid>/stat."""
        try:
            with open(f"/proc/{self.worker_pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return float("nan")

    def url(self, path, tls):
        return f"https://127.0.0.1:{self.https_port}{path}" if tls else f"http://127.0.0.1:{self.http_port}{path}"

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.run_dir, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# One run of one client: spawn pinned, wait4 for its rusage

def core_times(cpu):
    """(busy, total) jiffies of one core from /proc/stat, or None."""
    if cpu is None:
        return None
    try:
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith(f"cpu{cpu} "):
                    values = [int(v) for v in line.split()[1:]]
                    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
                    total = sum(values[:8])  # guest time is already inside user
                    return total - idle, total
    except OSError:
        pass
    return None


def run_child(command, cpu, timeout, env=None, spawner=None):
    """Runs `command` pinned to `cpu`; returns (exit code, stdout, stderr, wall s, usage).

    usage: {"cpu": utime + stime, "utime", "stime", "maxrss_kib"}. CPU comes from os.wait4 on the
    child. Linux keeps a process's peak RSS across exec, so a child forked from this (large) Python
    process would report at least our RSS: with `spawner` (RusageSpawn) the command is forked from
    that small program instead, which reports the command's own rusage, and its ru_maxrss is used.
    """
    def pin():
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
    report_path = None
    if spawner:
        handle, report_path = tempfile.mkstemp(prefix="rusage-", suffix=".json")
        os.close(handle)
        command = [spawner, report_path] + list(command)
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    start = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err, preexec_fn=pin, env=env,
                               start_new_session=True)

    def on_alarm(signum, frame):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(max(1, int(timeout)))
    try:
        _, status, rusage = os.wait4(process.pid, 0)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    wall = time.monotonic() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    usage = {"cpu": rusage.ru_utime + rusage.ru_stime, "utime": rusage.ru_utime, "stime": rusage.ru_stime,
             "maxrss_kib": rusage.ru_maxrss, "maxrss_source": "wait4 (includes the runner's RSS at fork)"}
    if report_path:
        try:
            with open(report_path) as f:
                spawned = json.loads(f.read() or "null")
            if spawned:
                usage["maxrss_kib"] = spawned["maxrss_kib"]
                usage["maxrss_source"] = "RusageSpawn"
        except (OSError, ValueError, KeyError):
            pass
        finally:
            os.unlink(report_path)
    out.seek(0)
    err.seek(0)
    return process.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"), wall, usage


def last_json_line(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


class Runner:
    def __init__(self, nginx, data_dir, bin_dir):
        self.nginx = nginx
        self.bin_dir = bin_dir
        self.client_cpu = env_int("CLIENT_CPU", 1) if os.cpu_count() and os.cpu_count() > 1 else None
        self.timeout = env_int("RUN_TIMEOUT", 600)
        self.wrk_seconds = env_int("WRK_SECONDS", 5)
        self.wrk_big_seconds = env_int("WRK_BIG_SECONDS", 3)
        self.work_dir = tempfile.mkdtemp(prefix="courier-bench-run-")
        with open(os.path.join(data_dir, "text100m.size")) as f:
            self.text_size = int(f.read().strip())
        self.gzip_file = os.path.join(data_dir, "text100m.gz")
        self.curl_configs = {}
        spawner = os.path.join(bin_dir, "RusageSpawn")
        self.spawner = spawner if os.access(spawner, os.X_OK) else None
        if not self.spawner:
            log("warning: RusageSpawn not built: max RSS includes the runner's own RSS")
        self.ca_bundle = self.system_ca_bundle()

    @staticmethod
    def system_ca_bundle():
        # libcurl's compiled-in CA file on Debian; FoundationNetworking cannot be given another.
        for path in ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"):
            if os.path.isfile(path):
                return path
        return None

    def scrub(self, text):
        """`text` without this machine's paths (results may be committed)."""
        for path, name in ((self.nginx.run_dir, "RUN_DIR"), (self.work_dir, "WORK_DIR"), (self.bin_dir, "BIN_DIR"),
                           (BENCH, "Benchmarks"), (os.path.expanduser("~"), "~")):
            if path and path != "/":
                text = text.replace(path, name)
        return text

    def driver(self, client):
        path = os.path.join(self.bin_dir, SWIFT_DRIVERS[client])
        return path if os.access(path, os.X_OK) else None

    def available(self, client):
        if client in SWIFT_DRIVERS:
            return self.driver(client) is not None
        return shutil.which(client) is not None

    def requests_for(self, client, workload):
        """Requests per run; URLSession does a fraction of the small-request counts (it is about
        ten times slower, and its rate is still measured over several seconds)."""
        w = WORKLOADS[workload]
        if client == "urlsession" and w["unit"] == "req/s":
            return max(1, w["requests"] // max(1, env_int("URLSESSION_DIVISOR", 5)))
        return w["requests"]

    def applies(self, client, workload):
        if WORKLOADS[workload].get("close"):
            return client in CLOSE_CLIENTS
        if client == "courier-noresume":
            return False
        if client == "courier-poll":
            return workload == "W1"
        if client in ("courier-session", "courier-async") or client in SESSION_EXTRAS:
            return workload in SESSION_WORKLOADS
        return client != "wrk" or WORKLOADS[workload]["wrk"] is not None

    def command(self, client, workload):
        """(argv, how to count, env) for one run, or (None, reason, None) when the client cannot run it."""
        w = WORKLOADS[workload]
        url = self.nginx.url(w["path"], w["tls"])
        if client in SWIFT_DRIVERS:
            argv = [self.driver(client), "--url", url, "--requests", str(self.requests_for(client, workload)),
                    "--concurrency", str(w["concurrency"])]
            if w["gzip"]:
                argv.append("--decode-gzip")
            if w["tls"]:
                if client == "urlsession":
                    # FoundationNetworking on Linux trusts only libcurl's compiled-in CA file: give
                    # the driver a private mount namespace in which that file is our CA.
                    if os.geteuid() != 0 or not self.ca_bundle or not shutil.which("unshare"):
                        return None, "needs root (CA bind mount)", None
                    argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                            'mount --bind "$0" "$1" && shift && exec "$@"',
                            self.nginx.ca_file, self.ca_bundle] + argv
                else:
                    argv += ["--ca", self.nginx.ca_file]
            if w.get("close"):
                env = dict(os.environ, COURIER_CONNECTION_CLOSE="1")
                if client == "courier-noresume":
                    env["COURIER_TLS_RESUMPTION"] = "0"
                return argv, "driver", env
            if client == "courier-poll":
                return argv, "driver", dict(os.environ, COURIER_BUSY_POLL_US=BUSY_POLL_MICROSECONDS)
            if client == "courier-async":
                return argv, "driver", dict(os.environ, COURIER_SESSION_MODE="async")
            if client in SESSION_EXTRAS:
                return argv, "driver", dict(os.environ, COURIER_SESSION_EXTRA=SESSION_EXTRAS[client])
            return argv, "driver", None
        if client == "curl":
            config = self.curl_config(url, self.requests_for(client, workload))
            argv = ["curl", "-s", "--http1.1", "-K", config, "-w", "%{http_code} %{size_download}\\n"]
            if w["concurrency"] > 1:
                argv += ["--parallel", "--parallel-immediate", "--parallel-max", str(w["concurrency"])]
            if w["gzip"]:
                argv.append("--compressed")
            if w["tls"]:
                argv += ["--cacert", self.nginx.ca_file]
            if w.get("close"):
                argv += ["-H", "Connection: close"]
            return argv, "curl", None
        if client == "wrk":
            seconds = self.wrk_big_seconds if w["path"] == "/big" else self.wrk_seconds
            argv = ["wrk", "-t1", f"-c{w['wrk']}", f"-d{seconds}s", "--timeout", "60s",
                    "-s", os.path.join(HERE, "wrk-report.lua"), url]
            return argv, "driver", None
        raise ValueError(client)

    def curl_config(self, url, requests):
        """A curl config file with `requests` url/output pairs (one process, connections reused)."""
        key = (url, requests)
        if key not in self.curl_configs:
            path = os.path.join(self.work_dir, f"curl-{len(self.curl_configs)}.conf")
            with open(path, "w") as f:
                entry = f'url = "{url}"\noutput = "/dev/null"\n'
                f.write(entry * requests)
            self.curl_configs[key] = path
        return self.curl_configs[key]

    def run(self, client, workload):
        w = WORKLOADS[workload]
        requests = self.requests_for(client, workload)
        argv, how, env = self.command(client, workload)
        record = {"client": client, "workload": workload}
        if argv is None:
            record.update(ok=False, skipped=how)
            return record
        nginx_before = self.nginx.cpu_seconds()
        core_before = core_times(self.nginx.cpu)
        code, out, err, wall, usage = run_child(argv, self.client_cpu, self.timeout, env, self.spawner)
        nginx_cpu = self.nginx.cpu_seconds() - nginx_before
        core_after = core_times(self.nginx.cpu)
        if core_before and core_after and core_after[1] > core_before[1]:
            # Everything on the server's core: nginx, softirq work of loopback, anyone else's processes.
            record["server_core_busy"] = (core_after[0] - core_before[0]) / (core_after[1] - core_before[1])
        record.update(exit=code, wall=wall, cpu=usage["cpu"], utime=usage["utime"], stime=usage["stime"],
                      maxrss_kib=usage["maxrss_kib"], maxrss_source=usage["maxrss_source"], nginx_cpu=nginx_cpu,
                      nginx_util=nginx_cpu / wall if wall > 0 else None)
        if how == "driver":
            report = last_json_line(out)
            if report is None:
                record.update(ok=False, problem=self.scrub(f"no JSON line (exit {code}): {err.strip()[-300:]}"))
                return record
            record.update(requests=report["requests"], bytes=report["bytes"], seconds=report["seconds"],
                          errors=report["errors"])
            resumed = re.search(r"(\d+) of (\d+) handshakes resumed", err)
            if resumed:
                record.update(resumed=int(resumed.group(1)), handshakes=int(resumed.group(2)))
        else:  # curl: one "status size" line per transfer; the wall time is the process's
            lines = [line.split() for line in out.splitlines() if line.strip()]
            ok = sum(1 for parts in lines if parts and parts[0] == "200")
            if w["gzip"]:
                size = self.text_size * ok  # curl writes the decoded body; size_download is the encoded one
            else:
                size = sum(int(parts[1]) for parts in lines if len(parts) == 2 and parts[0] == "200")
            record.update(requests=len(lines), bytes=size, seconds=wall, errors=requests - ok)
        problems = []
        if code != 0:
            problems.append(f"exit {code}: {err.strip()[-300:]}")
        if record["errors"]:
            problems.append(f"{record['errors']} errors")
        if client != "wrk":
            expected = {"/small": 13, "/big": GIB, "/text100m": self.text_size}[w["path"]] * requests
            if record["requests"] != requests or record["bytes"] != expected:
                problems.append(f"got {record['requests']} requests / {record['bytes']} bytes, expected "
                                f"{requests} / {expected}")
        if problems:
            record.update(ok=False, problem=self.scrub("; ".join(problems)))
            return record
        seconds = record["seconds"]
        if w["unit"] == "req/s":
            record["throughput"] = record["requests"] / seconds
            record["cpu_per_unit"] = record["cpu"] * 1e6 / record["requests"]  # µs per request
        else:
            record["throughput"] = record["bytes"] / MIB / seconds
            record["cpu_per_unit"] = record["cpu"] / (record["bytes"] / GIB)  # s per GiB
        record["ok"] = True
        return record

    def zlib(self, repeat):
        path = os.path.join(self.bin_dir, "ZlibInflateBench")
        if not os.access(path, os.X_OK):
            return {"ok": False, "skipped": "not built"}
        code, out, err, wall, usage = run_child([path, self.gzip_file, str(repeat), "131072"], self.client_cpu,
                                                self.timeout)
        report = last_json_line(out)
        if code != 0 or report is None:
            return {"ok": False, "problem": self.scrub(err.strip()[-300:])}
        return {"ok": True, "throughput": report["bytes"] / MIB / report["seconds"], "bytes": report["bytes"],
                "seconds": report["seconds"], "cpu": usage["cpu"]}


# --------------------------------------------------------------------------------------------
# Checks before measuring

def head_lines(url, ca_file, extra=()):
    result = subprocess.run(["curl", "-sS", "--http1.1", "-o", "/dev/null", "-D", "-", "--cacert", ca_file,
                             *extra, url], capture_output=True, text=True, timeout=120)
    return result.stdout.lower()


def verify_server(nginx, text_size):
    """The served paths look as the workloads assume; returns notes for the report."""
    notes = []
    for tls in (False, True):
        scheme = "https" if tls else "http"
        small = head_lines(nginx.url("/small", tls), nginx.ca_file)
        big = head_lines(nginx.url("/big", tls), nginx.ca_file, ("-r", "0-0"))
        text = head_lines(nginx.url("/text100m", tls), nginx.ca_file, ("-H", "Accept-Encoding: gzip"))
        if "content-length: 13" not in small:
            raise SystemExit(f"{scheme} /small is not 13 bytes:\n{small}")
        if "content-range: bytes 0-0/1073741824" not in big:
            raise SystemExit(f"{scheme} /big is not 1 GiB:\n{big}")
        if "transfer-encoding: chunked" not in text or "content-encoding: gzip" not in text:
            raise SystemExit(f"{scheme} /text100m is not chunked + gzip:\n{text}")
    decoded = subprocess.run(["curl", "-sS", "--compressed", "-o", "/dev/null", "-w", "%{size_download}",
                              nginx.url("/text100m", False)], capture_output=True, text=True, timeout=120)
    if decoded.stdout.strip() == "" or int(decoded.stdout.strip()) <= 0:
        raise SystemExit("/text100m did not download")
    # Warm-up: the first read of the sparse 1 GiB file fills the page cache (nginx's CPU, not the
    # client's); without this the first client to fetch /big each suite runs at a third of the speed.
    subprocess.run(["curl", "-sS", "-o", "/dev/null", nginx.url("/big", False)], check=True, timeout=300)
    notes.append("/text100m is sent with Transfer-Encoding: chunked and Content-Encoding: gzip (checked over "
                 "HTTP and HTTPS before the runs)")
    tls = subprocess.run(["curl", "-sS", "-v", "-o", "/dev/null", "--cacert", nginx.ca_file,
                          nginx.url("/small", True)], capture_output=True, text=True, timeout=60)
    for line in tls.stderr.splitlines():
        if "SSL connection using" in line:
            notes.append("TLS: " + line.split("SSL connection using", 1)[1].strip() + " (curl; nginx allows only this suite)")
    return notes


# --------------------------------------------------------------------------------------------
# Report

def median(values):
    return statistics.median(values) if values else None


def fmt(value, digits=0):
    if value is None:
        return "—"
    if digits == 0:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def summarize(records, clients, workloads, zlib_runs):
    rows = {}
    for workload in workloads:
        for client in clients:
            runs = [r for r in records if r["workload"] == workload and r["client"] == client]
            good = [r for r in runs if r.get("ok")]
            rows[(workload, client)] = {
                "runs": len(runs), "good": len(good),
                "throughput": median([r["throughput"] for r in good]),
                "min": min([r["throughput"] for r in good], default=None),
                "max": max([r["throughput"] for r in good], default=None),
                "cpu": median([r["cpu_per_unit"] for r in good]),
                "rss_mib": median([r["maxrss_kib"] / 1024 for r in good]),
                "nginx_util": median([r["nginx_util"] for r in good if r.get("nginx_util") is not None]),
                "core_busy": median([r["server_core_busy"] for r in good if r.get("server_core_busy") is not None]),
                "note": next((r.get("skipped") or r.get("problem") for r in runs if not r.get("ok")), None),
                "handshakes": sum(r.get("handshakes", 0) for r in good),
                "resumed": sum(r.get("resumed", 0) for r in good),
            }
    zlib_good = [z for z in zlib_runs if z.get("ok")]
    zlib = median([z["throughput"] for z in zlib_good])
    return rows, zlib


def markdown(rows, zlib, clients, workloads, meta, runner_available):
    out = []
    out.append(f"# Loopback client comparison, {meta['date']}")
    out.append("")
    out.append(f"{meta['reps']} repetitions, clients interleaved round-robin in each; medians. "
               f"{meta['nginx']}, 1 worker on core {meta['nginx_cpu']}; every client on core {meta['client_cpu']}. "
               f"Machine: {meta['machine']}.")
    out.append("")
    for note in meta["notes"]:
        out.append(f"- {note}")
    out.append("")
    out.append("Throughput: req/s (W1, W2, W6) or MiB/s of body (W3, W4; decoded output for W5). CPU: the "
               "client's user+system time from wait4's rusage, µs per request or s per GiB. RSS: the client's "
               "maximum resident set. nginx CPU: the worker's CPU time over the run's wall time; in brackets, how busy "
               "the server's core was (nginx, loopback softirq work, any other process there). "
               "Courier ÷ client: ratio of the median throughputs (above 1: Courier is faster).")
    out.append("")
    out.append("| workload | client | throughput | min–max | CPU | max RSS MiB | nginx CPU (server core busy) | Courier ÷ client |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    after = []
    for workload in workloads:
        w = WORKLOADS[workload]
        cpu_unit = "µs/req" if w["unit"] == "req/s" else "s/GiB"
        courier = rows.get((workload, "courier"), {}).get("throughput")
        for client in clients:
            row = rows[(workload, client)]
            label = f"{workload} {w['title']}"
            if not runner_available.get(client):
                out.append(f"| {label} | {CLIENT_NAMES[client]} | not built | | | | | |")
                continue
            if (client == "wrk" and w["wrk"] is None) or (client == "courier-poll" and workload != "W1") \
                    or (client == "courier-session" and workload not in SESSION_WORKLOADS) \
                    or (w.get("close") and client not in CLOSE_CLIENTS) \
                    or (client == "courier-noresume" and not w.get("close")):
                continue
            if row["throughput"] is None:
                out.append(f"| {label} | {CLIENT_NAMES[client]} | failed | {row['note'] or ''} | | | | |")
                continue
            digits = 0
            ratio = courier / row["throughput"] if courier and client != "courier" else None
            failed = "" if row["good"] == row["runs"] else f" ({row['runs'] - row['good']} failed)"
            cpu_digits = 1 if w["unit"] == "req/s" else 3
            out.append(f"| {label} | {CLIENT_NAMES[client]} | {fmt(row['throughput'], digits)} {w['unit']}{failed} "
                       f"| {fmt(row['min'], digits)}–{fmt(row['max'], digits)} "
                       f"| {fmt(row['cpu'], cpu_digits)} {cpu_unit} | {fmt(row['rss_mib'], 1)} "
                       f"| {fmt(row['nginx_util'] * 100 if row['nginx_util'] is not None else None)}% "
                       f"({fmt(row['core_busy'] * 100 if row['core_busy'] is not None else None)}%) "
                       f"| {fmt(ratio, 2)} |")
        if w.get("close"):
            shares = [f"{CLIENT_NAMES[c]} {rows[(workload, c)]['resumed']:,} of {rows[(workload, c)]['handshakes']:,}"
                      for c in clients if rows.get((workload, c), {}).get("handshakes")]
            if shares:
                after.append(f"{workload}: handshakes resumed (the driver's metrics, all good runs): "
                             + "; ".join(shares) + ".")
        if workload == "W5" and zlib is not None:
            ratio = courier / zlib if courier else None
            out.append(f"| W5 {w['title']} | zlib inflate alone (memory, 128 KiB output buffer) | {fmt(zlib)} MiB/s "
                       f"| | | | | {fmt(ratio, 2)} |")
    out.append("")
    for line in after:
        out.append(line)
        out.append("")
    return "\n".join(out)


def tool_version(argv):
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        text = (result.stdout + result.stderr).strip().splitlines()
        return text[0] if text else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def machine_description():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}, Linux {platform.release()}"


def main():
    reps = env_int("REPS", 5)
    clients = env_list("CLIENTS", ALL_CLIENTS)
    workloads = env_list("WORKLOADS", list(WORKLOADS))
    for c in clients:
        if c not in CLIENT_NAMES:
            raise SystemExit(f"unknown client {c}; known: {', '.join(ALL_CLIENTS)}")
    for w in workloads:
        if w not in WORKLOADS:
            raise SystemExit(f"unknown workload {w}; known: {', '.join(WORKLOADS)}")
    data_dir = os.environ.get("BENCH_CACHE") or os.path.join(BENCH, ".build-bench", "data")
    bin_dir = os.environ.get("BIN_DIR") or os.path.join(BENCH, ".build", "release")
    if not os.path.isfile(os.path.join(data_dir, "text100m.gz")):
        raise SystemExit("no data files: run Benchmarks/Client/setup.sh first (make bench-client does)")
    multi_core = (os.cpu_count() or 1) > 1
    nginx_cpu = env_int("NGINX_CPU", 0) if multi_core else None
    if not multi_core:
        log("warning: one core only, nothing is pinned")

    nginx = Nginx(data_dir, nginx_cpu)
    runner = None
    try:
        nginx.start()
        runner = Runner(nginx, data_dir, bin_dir)
        notes = verify_server(nginx, runner.text_size)
        available = {c: runner.available(c) for c in clients}
        for c in clients:
            if not available[c]:
                log(f"{CLIENT_NAMES[c]}: not built" + (f" ({SWIFT_DRIVERS[c]} not in the bin directory)"
                                                       if c in SWIFT_DRIVERS else " (not installed)"))
        active = [c for c in clients if available[c]]
        records, zlib_runs = [], []
        started = time.monotonic()
        for rep in range(reps):
            # Rotate the order each repetition so no client always runs first (warm caches, etc.).
            order = active[rep % len(active):] + active[:rep % len(active)] if active else []
            for workload in workloads:
                for client in order:
                    if not runner.applies(client, workload):
                        continue
                    record = runner.run(client, workload)
                    record["rep"] = rep
                    records.append(record)
                    if record.get("ok"):
                        unit = WORKLOADS[workload]["unit"]
                        log(f"rep {rep + 1}/{reps} {workload} {CLIENT_NAMES[client]:<10} "
                            f"{record['throughput']:>12,.1f} {unit}  cpu {record['cpu']:.2f}s  "
                            f"rss {record['maxrss_kib'] / 1024:.0f} MiB  nginx {record['nginx_util'] * 100:.0f}% "
                            f"(core {record.get('server_core_busy', float('nan')) * 100:.0f}%)")
                    else:
                        log(f"rep {rep + 1}/{reps} {workload} {CLIENT_NAMES[client]:<10} "
                            f"{record.get('skipped') or 'FAILED: ' + record.get('problem', '?')}")
                if workload == "W5":
                    z = runner.zlib(env_int("ZLIB_REPEAT", 3))
                    z["rep"] = rep
                    zlib_runs.append(z)
                    if z.get("ok"):
                        log(f"rep {rep + 1}/{reps} W5 zlib       {z['throughput']:>12,.1f} MiB/s")
        elapsed = time.monotonic() - started
    finally:
        nginx.stop()
        if runner:
            shutil.rmtree(runner.work_dir, ignore_errors=True)

    now = datetime.datetime.now()
    meta = {
        "date": now.strftime("%Y-%m-%d %H:%M"), "reps": reps, "clients": clients, "workloads": workloads,
        "nginx": tool_version(["nginx", "-v"]).replace("nginx version: ", ""),
        "curl": tool_version(["curl", "--version"]), "wrk": tool_version(["wrk", "-v"]),
        "machine": machine_description(), "nginx_cpu": nginx_cpu, "client_cpu": runner.client_cpu,
        "elapsed_seconds": round(elapsed, 1),
        "counts": {w: {"requests": WORKLOADS[w]["requests"], "concurrency": WORKLOADS[w]["concurrency"]}
                   for w in workloads},
        "wrk_seconds": runner.wrk_seconds, "wrk_big_seconds": runner.wrk_big_seconds,
        "notes": notes + [f"Requests per run: " + ", ".join(
            f"{w} {WORKLOADS[w]['requests']:,}" for w in workloads)
            + f" (URLSession: 1/{env_int('URLSESSION_DIVISOR', 5)} of the W1/W2/W6 counts)"
            + f"; wrk runs {runner.wrk_seconds} s (W3/W4: {runner.wrk_big_seconds} s). "
            f"Whole suite: {elapsed / 60:.1f} min."],
    }
    rows, zlib = summarize(records, clients, workloads, zlib_runs)
    table = markdown(rows, zlib, clients, workloads, meta, available)
    print(table)
    if not os.environ.get("NO_SAVE"):
        results_dir = os.environ.get("RESULTS_DIR") or os.path.join(BENCH, "results")
        os.makedirs(results_dir, exist_ok=True)
        stem = os.path.join(results_dir, "client-" + now.strftime("%Y-%m-%d-%H%M"))
        with open(stem + ".md", "w") as f:
            f.write(table)
        with open(stem + ".json", "w") as f:
            json.dump({"meta": meta, "runs": records, "zlib": zlib_runs}, f, indent=1)
            f.write("\n")
        log(f"written: {stem}.md and .json")


if __name__ == "__main__":
    main()
