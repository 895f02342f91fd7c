#!/usr/bin/env python3
"""Writes the committed seed corpus under Fuzz/Corpus/<Target>/.

Each seed is the target's configuration prefix (see the layout comment at the top of each
fuzzer's source) followed by a stream. Re-run after changing a layout: `python3 Fuzz/make-seeds.py`.
Deterministic: the same files every time.
"""
import gzip
import hashlib
import os
import random
import shutil
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261122)


def write(target, name, data):
    d = os.path.join(HERE, "Corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def reset(target):
    shutil.rmtree(os.path.join(HERE, "Corpus", target), ignore_errors=True)


def cuts(n):
    return struct.pack("<HHH", *(rng.randrange(0, 0x10000) for _ in range(3)))


# ---------------------------------------------------------------------------------------------
# Parser configuration bytes (HTTPParserConfiguration.fuzzed): flags, a, b, c.
DEFAULT = bytes([0, 0, 0, 0])
LENIENT = bytes([7, 0, 0, 0])          # obs-fold, bare LF, CL with TE
OBSFOLD = bytes([1, 0, 0, 0])
BARELF = bytes([2, 0, 0, 0])
CLTE = bytes([4, 0, 0, 0])
SMALL = bytes([8, 0x31, 0x23, 0x0A])   # 512 B heads, 4 fields, 4 size digits, 2 B extensions, body ≤ 2
SMALL_LENIENT = bytes([15, 0x62, 0xF5, 0xE7])
TINY = bytes([8, 0x00, 0x00, 0x01])    # 64 B heads, 1 field, 1 digit, no extensions, body ≤ 0


def response_seed(config, stream, method=0, mode=0, retain=False):
    # mode byte: low two bits feeding (0..3), bits 2-3 method (GET, HEAD, CONNECT, POST),
    # bit 4 keep what the split feeding was handed
    return config + bytes([(mode & 3) | (method << 2) | (0x10 if retain else 0)]) + cuts(len(stream)) + stream


GET, HEAD, CONNECT, POST = range(4)

responses = {
    "ok-content-length": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello", GET),
    "chunked-ext-trailers": (DEFAULT, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6 ; a=\"b c\"\r\n world\r\n0\r\nX-Trailer: yes\r\nChecksum: abc\r\n\r\n", GET),
    "chunked-simple": (DEFAULT, b"HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n", GET),
    "interim-then-ok": (DEFAULT, b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", POST),
    "head-with-length": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nTransfer-Encoding: chunked\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", HEAD),
    "switching-protocols": (DEFAULT, b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x05hello", GET),
    "connect-tunnel": (DEFAULT, b"HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x01\x02\x00", CONNECT),
    "connect-refused": (DEFAULT, b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 3\r\n\r\nno!", CONNECT),
    "until-close-10": (DEFAULT, b"HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody until close", GET),
    "keep-alive-10": (DEFAULT, b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabcHTTP/1.0 204 No Content\r\n\r\n", GET),
    "no-content-not-modified": (DEFAULT, b"HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\nHTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n!", GET),
    "pipelined": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\nHTTP/1.1 500 Oops\r\nConnection: close\r\n\r\nrest", GET),
    "empty-reason": (DEFAULT, b"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\nHTTP/1.1 201 \r\nContent-Length: 0\r\n\r\n", GET),
    "gzip-encoded": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip, x-gzip\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 0\r\n\r\n", GET),
    "obs-fold": (OBSFOLD, b"HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\n\tc\r\nX-Empty:\r\n  d\r\nContent-Length: 0\r\n\r\n", GET),
    "obs-fold-strict": (DEFAULT, b"HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\n\r\n", GET),
    "bare-lf": (BARELF, b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\nT: 1\n\n", GET),
    "bare-lf-strict": (DEFAULT, b"HTTP/1.1 200 OK\nContent-Length: 0\n\n", GET),
    "cl-and-te": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", GET),
    "cl-and-te-allowed": (CLTE, b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", GET),
    "te-in-http10": (DEFAULT, b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", GET),
    "conflicting-cl": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", GET),
    "duplicate-cl": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\ncontent-length:3\r\n\r\nabc", GET),
    "cl-list": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\n\r\nabc", GET),
    "cl-overflow": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\n", GET),
    "te-gzip-chunked": (DEFAULT, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", GET),
    "te-chunked-gzip": (DEFAULT, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", GET),
    "te-chunked-twice": (DEFAULT, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", GET),
    "bad-chunk-size": (DEFAULT, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5x\r\nhello\r\n0\r\n\r\n", GET),
    "chunk-size-overflow": (DEFAULT, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", GET),
    "chunk-missing-crlf": (DEFAULT, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n", GET),
    "whitespace-before-colon": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n", GET),
    "bad-status": (DEFAULT, b"HTTP/1.1 20 OK\r\n\r\n", GET),
    "http2-version": (DEFAULT, b"HTTP/2.0 200 OK\r\n\r\n", GET),
    "reason-control": (DEFAULT, b"HTTP/1.1 200 O\x01K\r\n\r\n", GET),
    "value-nul": (DEFAULT, b"HTTP/1.1 200 OK\r\nX: a\x00b\r\n\r\n", GET),
    "truncated-body": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", GET),
    "truncated-head": (DEFAULT, b"HTTP/1.1 200 OK\r\nContent-Le", GET),
    "small-limits": (SMALL, b"HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\nTransfer-Encoding: chunked\r\n\r\n1;x\r\na\r\n0\r\n\r\n", GET),
    "small-lenient": (SMALL_LENIENT, b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\nX: a\n b\n\n1;abcdef\na\n1\nb\n1\nc\n1\nd\n0\n\n", GET),
    "tiny-limits": (TINY, b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", GET),
    "body-limit-until-close": (bytes([8, 0x0A, 0x0F, 0x0A]), b"HTTP/1.1 200 OK\r\n\r\n0123456789", GET),
    "many-fields": (DEFAULT, b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: %d\r\n" % (i, i) for i in range(40)) + b"Content-Length: 0\r\n\r\n", GET),
    "lenient-all": (LENIENT, b"HTTP/1.1 200 OK\nContent-Length: 2\r\nTransfer-Encoding: chunked\nX: a\r\n\tb\n\n2\r\nhi\n0\r\n\n", GET),
}
reset("FuzzResponseParser")
for i, (name, (config, stream, method)) in enumerate(sorted(responses.items())):
    write("FuzzResponseParser", name, response_seed(config, stream, method, mode=i % 4, retain=i % 2 == 1))

# ---------------------------------------------------------------------------------------------
# FuzzChunkedDecoder: config(4) mode(1) cuts(6) body.
chunked = {
    "simple": (DEFAULT, b"5\r\nhello\r\n0\r\n\r\n"),
    "two-chunks-trailers": (DEFAULT, b"5\r\nhello\r\n6\r\n world\r\n0\r\nExpires: never\r\nX-Sum: 1\r\n\r\n"),
    "extensions": (DEFAULT, b"5;name=value;other\r\nhello\r\n3 ; q=\"a b\"\r\nabc\r\n0;last\r\n\r\n"),
    "uppercase-leading-zeros": (DEFAULT, b"000A\r\n0123456789\r\n00\r\n\r\n"),
    "large-size": (DEFAULT, b"ffffffffffffffff\r\nabc"),
    "size-overflow": (DEFAULT, b"10000000000000000\r\n"),
    "too-many-digits": (SMALL, b"00001\r\na\r\n0\r\n\r\n"),
    "bad-size": (DEFAULT, b"g\r\n"),
    "empty-size": (DEFAULT, b"\r\n"),
    "bws-before-ext": (DEFAULT, b"3 \t;x\r\nabc\r\n0\r\n\r\n"),
    "bws-no-ext": (DEFAULT, b"3 \r\nabc\r\n0\r\n\r\n"),
    "ext-control": (DEFAULT, b"3;\x01\r\nabc\r\n0\r\n\r\n"),
    "ext-too-long": (SMALL, b"3;abcdefgh\r\nabc\r\n0\r\n\r\n"),
    "missing-lf": (DEFAULT, b"3\rabc\r\n0\r\n\r\n"),
    "bad-terminator": (DEFAULT, b"3\r\nabcX\r\n0\r\n\r\n"),
    "bare-lf": (BARELF, b"3\nabc\n0\nT: v\n\n"),
    "bare-lf-strict": (DEFAULT, b"3\nabc\n0\n\n"),
    "trailer-obs-fold": (OBSFOLD, b"0\r\nT: a\r\n b\r\n\r\n"),
    "trailer-bad": (DEFAULT, b"0\r\nBad Name: x\r\n\r\n"),
    "after-end": (DEFAULT, b"0\r\n\r\nHTTP/1.1 200 OK\r\n"),
    "flood": (bytes([8, 0x0A, 0x0F, 0xFC]), b"1\r\na\r\n" * 12 + b"0\r\n\r\n"),
    "body-limit": (bytes([8, 0x0A, 0x0F, 0x0A]), b"2\r\nab\r\n1\r\nc\r\n0\r\n\r\n"),
    "truncated": (DEFAULT, b"a\r\nabc"),
    "many-trailers": (SMALL, b"0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n"),
    "lenient-mix": (LENIENT, b"4;x=y\nwxyz\r\n2\r\nab\n0\nT: 1\r\n 2\n\n"),
    "bigger": (DEFAULT, b"".join(b"%x\r\n%s\r\n" % (n, bytes(rng.randrange(256) for _ in range(n))) for n in (1, 15, 16, 100, 255)) + b"0\r\n\r\n"),
}
reset("FuzzChunkedDecoder")
for i, (name, (config, body)) in enumerate(sorted(chunked.items())):
    # feeding, start offset 1000 (bit 2), keep data slices (bit 3)
    mode = (i % 4) | ((i % 2) << 2) | ((i % 3 == 0) << 3)
    write("FuzzChunkedDecoder", name, config + bytes([mode]) + cuts(len(body)) + body)

# ---------------------------------------------------------------------------------------------
# FuzzContentDecoder: choice(1) mode(1) cuts(6) body.
# choice: bits 0-1 codings [gzip] [deflate] [gzip,gzip] [deflate,gzip]; 2-3 maxDecoded; 4-5 ratio.
GZ, DF, GZGZ, DFGZ = range(4)
text = b"The quick brown fox jumps over the lazy dog. " * 20
binary = bytes(rng.randrange(256) for _ in range(300))


def gz(data, level=9, mtime=0):
    return gzip.compress(data, compresslevel=level, mtime=mtime)


def raw_deflate(data, level=9):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def zl(data, level=9, wbits=15):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits)
    return c.compress(data) + c.flush()


def gzip_with_header_fields(data):
    # FTEXT|FHCRC|FEXTRA|FNAME|FCOMMENT
    header = b"\x1f\x8b\x08\x1f" + b"\x00\x00\x00\x00" + b"\x02\x03"
    extra = b"AB\x02\x00xy"
    header += struct.pack("<H", len(extra)) + extra + b"name.txt\x00" + b"a comment\x00"
    header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    return header + raw_deflate(data) + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


content = {
    "gzip-text": (GZ, gz(text)),
    "gzip-empty": (GZ, gz(b"")),
    "gzip-binary-level1": (GZ, gz(binary, level=1)),
    "gzip-stored": (GZ, gz(text[:100], level=0)),
    "gzip-concatenated": (GZ, gz(b"first member ") + gz(b"second member ") + gz(b"")),
    "gzip-header-fields": (GZ, gzip_with_header_fields(text[:200])),
    "gzip-truncated": (GZ, gz(text)[:40]),
    "gzip-trailing-garbage": (GZ, gz(b"abc") + b"garbage"),
    "gzip-bad-crc": (GZ, gz(b"abc")[:-8] + b"\x00\x00\x00\x00\x03\x00\x00\x00"),
    "gzip-zero-padding": (GZ, gz(b"abc") + b"\x00\x00\x00\x00"),
    "deflate-zlib": (DF, zl(text)),
    "deflate-zlib-fast": (DF, zl(binary, level=1)),
    "deflate-zlib-small-window": (DF, zl(text, wbits=9)),
    "deflate-raw": (DF, raw_deflate(text)),
    "deflate-raw-empty": (DF, raw_deflate(b"")),
    "deflate-zlib-trailing": (DF, zl(b"abc") + b"x"),
    "deflate-zlib-preset-dict": (DF, b"\x78\xbb" + b"\x00\x00\x00\x01" + raw_deflate(b"abc")),
    "deflate-one-byte": (DF, b"\x78"),
    "deflate-bad-adler": (DF, zl(b"abc")[:-4] + b"\x00\x00\x00\x00"),
    "gzip-gzip": (GZGZ, gz(gz(text))),
    "gzip-gzip-concatenated": (GZGZ, gz(gz(b"inner one") + gz(b"inner two"))),
    "deflate-gzip": (DFGZ, gz(zl(text))),
    "deflate-raw-gzip": (DFGZ, gz(raw_deflate(binary))),
    "bomb-zeros": (GZ | (1 << 4), gz(b"\x00" * (1 << 20))),
    "bomb-zeros-limited": (DF | (2 << 2), zl(b"\x00" * 200000)),
    "bomb-nested": (GZGZ | (3 << 4), gz(gz(b"\x00" * (4 << 20)))),
    "limit-exact": (GZ | (2 << 2), gz(b"x" * 1000)),
    "limit-over": (GZ | (2 << 2), gz(b"x" * 1001)),
    "limit-zero": (DF | (1 << 2), zl(b"")),
    "ratio-one": (GZ | (2 << 4), gz(b"abcabcabc" * 10)),
    "not-compressed": (GZ, b"plain text, not gzip"),
    "empty": (DF, b""),
}
reset("FuzzContentDecoder")
for i, (name, (choice, body)) in enumerate(sorted(content.items())):
    write("FuzzContentDecoder", name, bytes([choice, i % 4]) + cuts(len(body)) + body)

# ---------------------------------------------------------------------------------------------
# FuzzRequestRoundTrip: see the layout comment in FuzzRequestRoundTrip.swift.
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]
NAMES = ["Host", "Content-Length", "Transfer-Encoding", "Connection", "host", "content-LENGTH", "TRANSFER-ENCODING", "X-Test"]


def lp(b):
    if isinstance(b, str):
        b = b.encode()
    return bytes([len(b)]) + b


def request(method="GET", target=("origin", "/index.html"), version="1.1", fields=(), host=None,
            framing="none", body=b"", chunks=(), trailers=()):
    out = b""
    if method in METHODS:
        out += bytes([METHODS.index(method)])
    else:
        out += b"\x80" + lp(method)
    kind, *rest = target
    if kind == "origin":
        out += b"\x00" + lp(rest[0])
    elif kind == "absolute":
        out += b"\x01" + lp(rest[0])
    elif kind == "authority":
        out += b"\x02" + lp(rest[0]) + struct.pack("<H", rest[1])
    elif kind == "authority-bad-port":
        out += b"\x0a" + lp(rest[0]) + struct.pack("<H", rest[1])
    else:
        out += b"\x03"
    if version == "1.1":
        out += b"\x00"
    elif version == "1.0":
        out += b"\x01"
    else:
        out += b"\x03" + bytes(version)
    shape = len(fields) | (0x10 if host is not None else 0) | {"none": 0, "length": 1, "chunked": 2}[framing] << 6
    out += bytes([shape])
    if host is not None:
        out += lp(host)
    if framing == "length":
        out += bytes([len(body)]) + body
    elif framing == "chunked":
        out += bytes([len(chunks)])
        for data, style in chunks:
            out += bytes([len(data) | (0x80 if style else 0)]) + data
        out += bytes([len(trailers)])
        for t in trailers:
            out += field(*t)
    for f in fields:
        out += field(*f)
    return out


def field(name, value):
    """name: a str (raw) or an int (table index); value: a str (raw), 'LEN' or 'CHUNKED'."""
    sel = 0
    payload = b""
    if isinstance(name, int):
        sel |= 0x80 | name
    else:
        payload += lp(name)
    if value == "LEN":
        sel |= 2 << 4
    elif value == "CHUNKED":
        sel |= 3 << 4
    else:
        payload += lp(value)
    # A raw name's length byte comes before the value's, and the selector comes first.
    return bytes([sel]) + payload


requests = {
    "get-simple": request(fields=[("Accept", "*/*"), ("User-Agent", "courier/0.1")], host="example.com"),
    "get-host-field": request(fields=[(0, "example.com:8080"), ("X-A", "  padded  ")]),
    "get-host-twice": request(fields=[(0, "a.example"), (4, "b.example"), ("X", "y")]),
    "post-length": request("POST", fields=[("Content-Type", "text/plain")], host="h", framing="length", body=b"hello body"),
    "post-length-field": request("POST", fields=[(1, "LEN")], host="h", framing="length", body=b"abc"),
    "put-chunked": request("PUT", host="h", framing="chunked", chunks=[(b"hello", False), (b"", False), (b"world!", True)], trailers=[("X-Checksum", "abc"), (7, "t")]),
    "chunked-field": request("POST", fields=[(2, "CHUNKED")], host="h", framing="chunked", chunks=[(b"x", True)]),
    "chunked-http10": request("POST", version="1.0", host="h", framing="chunked"),
    "http10-no-host": request(version="1.0"),
    "http11-no-host": request(),
    "absolute": request(target=("absolute", "http://example.com/path?q=1"), host="example.com"),
    "absolute-bad-scheme": request(target=("absolute", "ht!tp://x/"), host="x"),
    "authority": request("CONNECT", target=("authority", "example.com", 443), host="example.com:443"),
    "authority-bad-port": request("CONNECT", target=("authority-bad-port", "example.com", 1), host="example.com:443"),
    "asterisk": request("OPTIONS", target=("asterisk",), host="h"),
    "asterisk-get": request("GET", target=("asterisk",), host="h"),
    "custom-method": request("PROPFIND", host="h", fields=[("Depth", "1")]),
    "bad-method": request("GE T", host="h"),
    "crlf-in-value": request(host="h", fields=[("X-Inject", "a\r\nEvil: 1")]),
    "lf-in-target": request(target=("origin", "/a\nb"), host="h"),
    "nul-in-host": request(host="h\x00st"),
    "crlf-in-host": request(host="h\r\nX: y"),
    "fragment-target": request(target=("origin", "/a#frag"), host="h"),
    "obs-text-value": request(host="h", fields=[("X-Utf8", "caf\u00e9 \u2603")]),
    "conflicting-length": request("POST", fields=[(1, "7")], host="h", framing="length", body=b"abc"),
    "te-with-length": request("POST", fields=[(2, "CHUNKED")], host="h", framing="length", body=b"abc"),
    "version-2": request(version=(2, 0), host="h"),
    "version-1-2-no-host": request(version=(1, 2)),
    "many-fields": request(host="h", fields=[("A%d" % i, "v%d" % i) for i in range(8)]),
    "connection-close": request(host="h", fields=[(3, "close")]),
}
reset("FuzzRequestRoundTrip")
for name, data in sorted(requests.items()):
    write("FuzzRequestRoundTrip", name, data)

# ---------------------------------------------------------------------------------------------
# Seeds added later, with their own generator so the files above stay byte-identical.
later = random.Random(20261125)


def later_cuts():
    return struct.pack("<HHH", *(later.randrange(0, 0x10000) for _ in range(3)))


later_responses = {
    # RFC 9110 §2.5: a higher minor version is processed as HTTP/1.1.
    "http12-version": (DEFAULT, b"HTTP/1.2 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.9 204 No Content\r\n\r\n", GET),
    # The first offending byte decides: an HTTP/0.9-style reply is an invalid version at byte 0.
    "http09-reply": (DEFAULT, b"hello world\n", GET),
    "ext-grammar": (DEFAULT, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1 ; a = \"q\\\"\" ;b\r\nx\r\n1;a=\"b\r\ny\r\n0\r\n\r\n", GET),
}
for i, (name, (config, stream, method)) in enumerate(sorted(later_responses.items())):
    write("FuzzResponseParser", name, config + bytes([(i & 3) | (method << 2)]) + later_cuts() + stream)

later_chunked = {
    # RFC 9112 §7.1.1 chunk-ext: valid forms, then each way of breaking it.
    "ext-valid-forms": (DEFAULT, b"1;a\r\na\r\n1;a=b\r\nb\r\n1 ;\tx = \"q \\\" \xe9\" ; y=z\r\nc\r\n0;last\r\n\r\n"),
    "ext-empty": (DEFAULT, b"2;\r\nab\r\n0\r\n\r\n"),
    "ext-no-value": (DEFAULT, b"2;a=\r\nab\r\n0\r\n\r\n"),
    "ext-unterminated-quote": (DEFAULT, b"5;a=\"b\r\nhello\r\n0\r\n\r\n"),
    "ext-space-in-name": (DEFAULT, b"2;a b\r\nab\r\n0\r\n\r\n"),
    "ext-obs-text": (DEFAULT, b"2;a=\xe9\r\nab\r\n0\r\n\r\n"),
}
for i, (name, (config, body)) in enumerate(sorted(later_chunked.items())):
    mode = (i % 4) | ((i % 2) << 2) | ((i % 3 == 0) << 3)
    write("FuzzChunkedDecoder", name, config + bytes([mode]) + later_cuts() + body)

for t in ("FuzzResponseParser", "FuzzChunkedDecoder", "FuzzContentDecoder", "FuzzRequestRoundTrip"):
    print(t, len(os.listdir(os.path.join(HERE, "Corpus", t))), "seeds")
