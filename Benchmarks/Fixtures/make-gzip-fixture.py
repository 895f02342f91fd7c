#!/usr/bin/env python3
"""Writes body.json.gz, the gzip body of the "gzip" benchmark case.

Deterministic: the text comes from a fixed linear congruential generator and the gzip header
carries mtime 0, so running this again produces the same bytes. Run from any directory:
    python3 Benchmarks/Fixtures/make-gzip-fixture.py
"""
import gzip
import os

state = 0x2545F491


def rand(n):
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
    return (state >> 33) % n


WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november "
         "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()
STATUSES = ("active", "pending", "suspended", "closed")

lines = []
size = 0
i = 0
# About 160 KiB of JSON lines: realistic API records with varying numbers and words, which gzip
# compresses roughly 5:1.
while size < 160 * 1024:
    words = " ".join(WORDS[rand(len(WORDS))] for _ in range(3 + rand(6)))
    line = ('{"id":%d,"account":"acct_%08x","status":"%s","balance":%d.%02d,'
            '"tags":["%s","%s"],"note":"%s","updated":"2026-11-%02dT%02d:%02d:%02dZ"}\n'
            % (100000 + i, rand(1 << 32), STATUSES[rand(4)], rand(100000), rand(100),
               WORDS[rand(26)], WORDS[rand(26)], words,
               1 + rand(28), rand(24), rand(60), rand(60)))
    lines.append(line)
    size += len(line)
    i += 1

text = "".join(lines).encode()
packed = gzip.compress(text, compresslevel=6, mtime=0)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "body.json.gz")
with open(out, "wb") as f:
    f.write(packed)
print("%s: %d bytes compressed, %d bytes decoded" % (out, len(packed), len(text)))
