#!/usr/bin/env bash
# `make soak`: starts nginx (Soak/nginx.conf.template), the faulty upstream behind it
# (upstream.py) and the fault-injecting relay in front of it (relay.py), all on 127.0.0.1, runs
# the CourierSoak driver given as the first argument against them, and stops every process it
# started when it ends, also on failure or interruption. docs/RELIABILITY.md has the figures.
#
# Knobs (environment, passed on to the driver): SOAK_REQUESTS, SOAK_SESSION_REQUESTS,
# SOAK_CONCURRENCY, SOAK_PROBES, SOAK_SEED, SOAK_DEADLINE_MS, SOAK_SLACK_MS, SOAK_RSS_GROWTH_MIB;
# SOAK_BASE_PORT (default 18600: ports BASE..BASE+6 and BASE+10.. for the probes);
# SOAK_KEEP=1 keeps the run directory (configuration, logs) for a look afterwards.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
driver=${1:?usage: Soak/run.sh PATH-TO-CourierSoak}

base=${SOAK_BASE_PORT:-18600}
probes=${SOAK_PROBES:-8}
port_ka1=$base port_ka7=$((base + 1)) port_ka100=$((base + 2)) port_proxy=$((base + 3))
port_relayed=$((base + 4)) port_relay=$((base + 5)) port_upstream=$((base + 6)) port_idle=$((base + 10))

# nginx from Debian's packages when missing (python3 is needed by the build already).
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "soak: installing nginx" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx >&2
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)

run=$(mktemp -d "${TMPDIR:-/tmp}/courier-soak.XXXXXX")
pids=()
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  # The injected faults fill nginx's log with [error] lines; anything worse is worth seeing.
  if [ "$status" != 0 ] && grep -qE '\[(crit|alert|emerg)\]' "$run/error.log" 2>/dev/null; then
    echo "soak: nginx error log:" >&2
    grep -E '\[(crit|alert|emerg)\]' "$run/error.log" | tail -n 20 >&2
  fi
  if [ "${SOAK_KEEP:-0}" = 1 ]; then echo "soak: run directory kept: $run" >&2; else rm -rf "$run"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
all_ports="$port_ka1 $port_ka7 $port_ka100 $port_proxy $port_relayed $port_relay $port_upstream"
for ((i = 0; i < probes; i++)); do all_ports="$all_ports $((port_idle + i))"; done
for port in $all_ports; do
  if listening "$port"; then echo "soak: port $port is in use (set SOAK_BASE_PORT)" >&2; exit 1; fi
done

# The files nginx serves (SoakPlan.files): sizes the driver checks, and text nginx gzips.
mkdir -p "$run/data/s" "$run/data/z"
: > "$run/data/s/empty"
head -c 1024 /dev/zero | tr '\0' 'a' > "$run/data/s/1k"
head -c 8192 /dev/zero | tr '\0' 'b' > "$run/data/s/8k"
head -c 65536 /dev/zero | tr '\0' 'c' > "$run/data/s/64k"
python3 -c 'import sys; line = b"the quick brown fox jumps over the lazy dog %05d\n"; sys.stdout.buffer.write(b"".join(line % i for i in range(10000))[:32768])' > "$run/data/z/32k.txt"

idle_listens=""
for ((i = 0; i < probes; i++)); do idle_listens="$idle_listens        listen 127.0.0.1:$((port_idle + i)) backlog=4096;"$'\n'; done
user_line=""; [ "$(id -u)" = 0 ] && user_line="user root;"
python3 - "$here/nginx.conf.template" "$run/nginx.conf" <<PY
import sys
text = open(sys.argv[1]).read()
for key, value in {"USER_LINE": "$user_line", "RUN_DIR": "$run", "PORT_KA1": "$port_ka1", "PORT_KA7": "$port_ka7",
                   "PORT_KA100": "$port_ka100", "PORT_PROXY": "$port_proxy", "PORT_RELAYED": "$port_relayed",
                   "PORT_UPSTREAM": "$port_upstream", "IDLE_LISTENS": """$idle_listens""".strip()}.items():
    text = text.replace("{{%s}}" % key, value)
open(sys.argv[2], "w").write(text)
PY

"$nginx" -p "$run" -c "$run/nginx.conf" -e "$run/error.log" </dev/null >/dev/null 2>&1 &
pids+=($!)
# The upstream's stall outlasts the request deadline 2.5 times (and stays under nginx's 30 s
# proxy_read_timeout for deadlines up to 12 s), so a stall ends in the client's total timeout.
stall=$(( (${SOAK_DEADLINE_MS:-2000} * 5 / 2 + 999) / 1000 ))
python3 "$here/upstream.py" --port "$port_upstream" --log "$run/upstream.log" --stall "$stall" </dev/null &
pids+=($!)
python3 "$here/relay.py" --port "$port_relay" --target "$port_relayed" --log "$run/relay.log" \
  --seed "${SOAK_SEED:-1}" </dev/null &
pids+=($!)

for port in $all_ports; do
  for ((try = 0; try < 200; try++)); do listening "$port" && break; sleep 0.05; done
  listening "$port" || { echo "soak: nothing listens on $port after 10 s" >&2; exit 1; }
done
echo "soak: nginx $("$nginx" -v 2>&1 | sed 's/.*\///'), upstream and relay up on 127.0.0.1:$base.. (run directory $run)"

# In the background, so an interrupt reaches the trap at once (bash runs traps only between
# foreground commands) and the driver is stopped with the servers.
"$driver" --port-ka1 "$port_ka1" --port-ka7 "$port_ka7" --port-ka100 "$port_ka100" --port-idle "$port_idle" \
  --port-proxy "$port_proxy" --port-relay "$port_relay" --probes "$probes" \
  --upstream-log "$run/upstream.log" --relay-log "$run/relay.log" </dev/null &
pids=($! "${pids[@]}")
wait "${pids[0]}"
