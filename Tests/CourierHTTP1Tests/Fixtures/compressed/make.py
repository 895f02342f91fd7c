#!/usr/bin/env python3
"""Regenerates the compressed fixtures next to this script, deterministically (gzip mtime=0).

Run from anywhere: python3 make.py. Only text.txt is written by hand; the rest is derived.
"""
import gzip
import os
import zlib

here = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(here, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)


def gz(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


def raw_deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def lines(size):
    """The 2 MiB text: 'Line N: ...' with N = i // 3, cut to exactly `size` bytes (about 76:1)."""
    out, total, i = [], 0, 0
    while total < size:
        line = ("Line %d: the quick brown fox jumps over the lazy dog.\n" % (i // 3)).encode()
        out.append(line)
        total += len(line)
        i += 1
    return b"".join(out)[:size]


text = open(path("text.txt"), "rb").read()
write("text.gz", gz(text))
write("text.zlib", zlib.compress(text, 9))
write("text.deflate", raw_deflate(text))
write("text.gz.gz", gz(gz(text)))                      # Content-Encoding: gzip, gzip
write("text.zlib.gz", gz(zlib.compress(text, 9)))      # Content-Encoding: deflate, gzip
write("text-members.gz", gz(text[:1000]) + gz(text[1000:]))  # two members, like cat a.gz b.gz
write("empty.gz", gz(b""))
write("text-x100.gz", gz(text * 100))
write("lines-2MiB.gz", gz(lines(2 * 1024 * 1024)))
zeros = gz(bytes(10 * 1024 * 1024))
write("zeros-10MiB.gz", zeros)                # a decompression bomb, about 1000:1
write("zeros-10MiB.gz.gz", gz(zeros))          # the same bomb inside a second gzip layer
