#!/usr/bin/env bash
# Prepares the loopback client comparison (README.md beside this file): installs nginx, wrk,
# h2load and ab (loadgen.py) from Debian's packages when missing, then creates the served files once in a cache directory
# (default: Benchmarks/.build-bench/data, ignored by git; override with BENCH_CACHE=DIR):
#
#   small          13 bytes
#   big            1 GiB (a sparse file of zeros: no disk traffic, the page cache serves it)
#   text100m.gz    100 MiB of generated English-like text, gzip -6 (served as /text100m)
#   text100m.size  the decoded size in bytes
#   empty          0 bytes (an internal subrequest that makes nginx send /text100m chunked)
#
# Prints the cache directory on its last line.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${BENCH_CACHE:-$here/../.build-bench/data}

missing=""
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
command -v wrk >/dev/null 2>&1 || missing="$missing wrk"
command -v h2load >/dev/null 2>&1 || missing="$missing nghttp2-client"
command -v ab >/dev/null 2>&1 || missing="$missing apache2-utils"
command -v curl >/dev/null 2>&1 || missing="$missing curl"
command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
dpkg -s zlib1g-dev >/dev/null 2>&1 || missing="$missing zlib1g-dev"
if [ -n "$missing" ]; then
  echo "setup: installing$missing" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >&2
fi

mkdir -p "$cache"
cd "$cache"
: > empty
if [ "$(stat -c %s small 2>/dev/null || echo 0)" != 13 ]; then
  printf 'Hello, world\n' > small
fi
if [ "$(stat -c %s big 2>/dev/null || echo 0)" != 1073741824 ]; then
  rm -f big && truncate -s 1G big
fi
if [ ! -s text100m.gz ] || [ ! -s text100m.size ]; then
  echo "setup: generating text100m.gz (once)" >&2
  python3 - <<'PY'
import gzip, random
size = 100 * 1024 * 1024
rng = random.Random(20261122)
letters = "etaoinshrdlucmfwypvbgkjqxz"
weights = [12.7, 9.1, 8.2, 7.5, 7.0, 6.7, 6.3, 6.1, 6.0, 4.3, 4.0, 2.8, 2.8, 2.4, 2.2, 2.4, 2.0, 1.9,
           1.0, 1.5, 2.0, 0.8, 0.2, 0.1, 0.2, 0.1]
vocabulary = ["".join(rng.choices(letters, weights, k=rng.choice([1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 11])))
              for _ in range(20000)]
rank_weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]  # Zipf-like word frequencies
# 8 MiB of fresh text, then repeated: deflate's window is 32 KiB, so repeats this far apart
# compress and inflate like new text.
lines, total = [], 0
while total < 8 * 1024 * 1024:
    words = rng.choices(vocabulary, rank_weights, k=rng.randint(6, 16))
    line = " ".join(words).capitalize() + ".\n"
    lines.append(line)
    total += len(line)
block = "".join(lines).encode()
data = (block * (size // len(block) + 1))[:size]
with open("text100m.gz.part", "wb") as raw:
    with gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=raw, mtime=0) as out:
        out.write(data)
import os
os.replace("text100m.gz.part", "text100m.gz")
with open("text100m.size", "w") as f:
    f.write(f"{size}\n")
PY
fi
echo "setup: small $(stat -c %s small) B, big $(stat -c %s big) B, text100m.gz $(stat -c %s text100m.gz) B -> $(cat text100m.size) B" >&2
pwd
