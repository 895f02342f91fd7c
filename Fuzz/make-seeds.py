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
# FuzzURL: base(1) request(1) configuration(1) fields(1) history(1), a length-prefixed URL,
# then the Location (see the layout comment in FuzzURL.swift).
STATUS = {301: 0, 302: 1, 303: 2, 307: 3, 308: 4, 300: 5, 304: 6, 200: 7}
URL_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]
URL_BODY = {"none": 0, "replayable": 1, "stream": 2}
ALL_FIELDS = 0xFF & ~0x10   # every field but the second Host


def url_seed(location, base=0, url="", status=302, method="GET", body="none", follow=True,
             allow_downgrade=True, maximum=0, no_location=False, fields=0, history=0):
    r = STATUS[status] | URL_METHODS.index(method) << 3 | URL_BODY[body] << 6
    c = (0 if follow else 1) | (0 if allow_downgrade else 2) | maximum << 2 | (0xE0 if no_location else 0)
    if isinstance(url, str):
        url = url.encode()
    if isinstance(location, str):
        location = location.encode()
    return bytes([base, r, c, fields, history]) + bytes([len(url)]) + url + location


# RFC 3986 §5.4: every normal and abnormal example against its base "http://a/b/c/d;p?q" (base 0).
rfc_references = [
    "g:h", "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", "g?y#s", ";x", "g;x", "g;x?y#s", "",
    ".", "./", "..", "../", "../g", "../..", "../../", "../../g",
    "../../../g", "../../../../g", "/./g", "/../g", "g.", ".g", "g..", "..g", "./../g", "./g/.", "g/./h",
    "g/../h", "g;x=1/./y", "g;x=1/../y", "g?y/./x", "g?y/../x", "g#s/./x", "g#s/../x", "http:g",
]
statuses = [301, 302, 303, 307, 308]
seeds = {}
for i, ref in enumerate(rfc_references):
    seeds["rfc3986-%02d" % i] = url_seed(ref, status=statuses[i % 5], method=URL_METHODS[i % 8],
                                         body=["none", "replayable", "stream"][i % 3], fields=ALL_FIELDS if i % 2 else 0)
hostile = {
    "other-origin": ("//evil.example/steal", dict(base=1, fields=ALL_FIELDS)),
    "other-origin-credentials": ("https://user:pw@evil.example/", dict(base=1, fields=ALL_FIELDS)),
    "same-origin-keeps-credentials": ("/next", dict(base=1, fields=ALL_FIELDS, status=307, method="PUT", body="replayable")),
    "other-port": ("http://a:8080/b", dict(fields=ALL_FIELDS)),
    "default-port-same-origin": ("http://a:80/x", dict(fields=ALL_FIELDS | 0x10)),
    "downgrade": ("http://example.com:8443/dir/file", dict(base=1)),
    "downgrade-refused": ("http://www.example.com/", dict(base=5, allow_downgrade=False)),
    "into-unix-socket": ("http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json", dict(base=0)),
    "unix-same-socket": ("/api/v2?x", dict(base=4)),
    "unix-other-socket": ("http+unix://%2Ftmp%2Fother.sock/", dict(base=4)),
    "file-scheme": ("file:///etc/passwd", {}),
    "javascript": ("javascript:alert(1)", {}),
    "header-injection": ("/a\r\nSet-Cookie: x=1", {}),
    "spaces-trimmed": (" \t/spaced path?q=a b \t", {}),
    "non-ascii": ("/caf\u00e9/\u2603".encode(), {}),
    "invalid-utf8": (b"/\xff\xfe", {}),
    "ipv6-port-zero": ("http://[::1]:0/", {}),
    "ipv6-zone": ("https://[fe80::1%25eth0]/", {}),
    "ipv6-mapped": ("//[::ffff:1.2.3.4]:443/x", dict(base=3)),
    "ipv6-long": ("//[2001:0DB8:0000:0000:0000:0000:0000:0001]/", dict(base=2)),
    "ipvfuture": ("http://[v1.x]/", {}),
    "ipv4-five-parts": ("http://1.2.3.4.5/", {}),
    "ipv4-hex": ("http://0x7f.0.0.1/", {}),
    "ipv4-short": ("http://127.1/", {}),
    "ipv4-leading-zero": ("http://127.0.0.01/", {}),
    "empty-userinfo-host": ("//@", {}),
    "two-at": ("http://a@b@c/", {}),
    "port-too-big": ("http://h:65536/", {}),
    "port-empty": ("http://h:/", {}),
    "port-leading-zeros": ("http://h:0080/", {}),
    "uppercase": ("HTTP://EXAMPLE.COM:80/A/../B", {}),
    "lone-percent": ("/%", {}),
    "bad-percent": ("/%zz", {}),
    "encoded-dots": ("/%2e%2e/x", {}),
    "encoded-password": ("http://user:pa%20ss@h/", dict(fields=ALL_FIELDS)),
    "empty-query-fragment": ("//h?#", {}),
    "only-query-fragment": ("?#", {}),
    "space-in-host": ("http://exa mple.com/", {}),
    "scheme-only": ("https:", {}),
    "scheme-one-slash": ("http:/", {}),
    "empty-host": ("http:///x", {}),
    "digit-scheme": ("1http://h/", {}),
    "loop": ("/a/b/c/d;p?q", dict(status=307)),
    "loop-history": ("/g", dict(history=0b0101_01 | 2)),
    "too-many": ("/g", dict(maximum=3, history=3)),
    "no-location": ("", dict(no_location=True)),
    "blank-location": ("  \t ", {}),
    "not-followed-300": ("/g", dict(status=300)),
    "disabled": ("/g", dict(follow=False)),
    "post-303": ("/g", dict(status=303, method="POST", body="replayable", fields=ALL_FIELDS)),
    "head-303": ("/g", dict(status=303, method="HEAD")),
    "post-301": ("//other/g", dict(status=301, method="POST", body="stream", fields=ALL_FIELDS)),
    "put-308-stream": ("/g", dict(status=308, method="PUT", body="stream")),
    "custom-host-other-origin": ("//b/", dict(fields=0x10 | 0x01)),
    "rfc-base-parsed": ("../x", dict(base=9, url="http://User:Pw@EXAMPLE.com:8080/a/b/../c/./d?q#f")),
    "unix-base-parsed": ("x", dict(base=9, url="http+unix://%2Frun%2Fapp.sock/a/b")),
    "ipv6-base-parsed": ("//[::1]/", dict(base=9, url="https://[2001:DB8::0:1]:443/")),
    "bad-base-url": ("/x", dict(base=9, url="http://h\r\n/")),
    "downgrade-with-credentials": ("http://user:secret@www.example.com/", dict(base=5, allow_downgrade=False)),
    "loop-with-credentials": ("/dir/file?x=1", dict(base=1, status=307)),
    "same-origin-inherits-credentials": ("https://example.com:8443/other", dict(base=1, fields=ALL_FIELDS)),
}
for name, (location, options) in hostile.items():
    seeds[name] = url_seed(location, **options)
reset("FuzzURL")
for name, data in sorted(seeds.items()):
    write("FuzzURL", name, data)

# ---------------------------------------------------------------------------------------------
# FuzzConnection: parser configuration(4) maximumUses(1), then operations (see the layout
# comment in FuzzConnection.swift).
CONN_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT"]
CONN_VALUES = ["close", "keep-alive", "Close", "keep-alive, close", "upgrade", "KEEP-ALIVE"]
CANNED = {
    "200-length": 0, "200-chunked": 1, "204": 2, "304": 3, "100": 4, "103": 5, "101": 6, "10-keep-alive": 7,
    "10-until-close": 8, "close": 9, "cl-te": 10, "connect-ok": 11, "417": 12, "bytes-after": 13,
    "keep-alive-close": 14, "truncated": 15,
}


def start(method="GET", body="none", length=0, expect=False, replayable=True, http10=False, connection=None,
          expect_field=False, host_field=False, bad_target=False, cl7=False, te=False):
    kind = {"none": 0, "length": 1, "chunked": 2, "zero": 3}[body]
    m = CONN_METHODS.index(method) | kind << 3 | (0x20 if expect else 0) | (0 if replayable else 0x40) | (0x80 if http10 else 0)
    f = (CONN_VALUES.index(connection) if connection else 7) | (8 if expect_field else 0) | (0x10 if host_field else 0)
    f |= (0x20 if bad_target else 0) | (0x40 if cl7 else 0) | (0x80 if te else 0)
    return bytes([0, m, f]) + (bytes([length]) if kind == 1 else b"")


def part(data):
    return bytes([2, len(data)]) + data


def end(trailer=False):
    return bytes([3 | (0x10 if trailer else 0)])


def recv(data, pieces=1):
    """Response bytes in `pieces` roughly equal operations."""
    if isinstance(data, str):
        data = data.encode()
    out = b""
    size = max(1, -(-len(data) // pieces))
    for i in range(0, len(data), size):
        piece = data[i:i + size]
        while piece:
            out += bytes([4, len(piece[:255])]) + piece[:255]
            piece = piece[255:]
    return out


def big(data):
    return bytes([8]) + struct.pack("<H", len(data)) + data


def canned(name):
    return bytes([7, CANNED[name]])


EOF, PAUSE, DEMAND, CANCEL = bytes([9]), bytes([10]), bytes([11]), bytes([13])


def timeout(kind):
    return bytes([12 | {"idle": 0, "total": 1, "continue": 2}[kind] << 4])


def error(kind=0):
    return bytes([14 | kind << 4])


def conn_seed(ops, config=DEFAULT, uses=0):
    return config + bytes([uses]) + b"".join(ops)


connection = {
    "reuse-three": conn_seed([start(), canned("200-length"), start(), canned("200-chunked"), start("HEAD"), canned("204")]),
    "split-response": conn_seed([start(), recv("HTTP/1.1 200 OK\r\nContent-Length: 11\r\nA: b\r\n\r\nhello world", pieces=7)]),
    "post-length": conn_seed([start("POST", "length", 5), part(b"hello"), canned("200-length")]),
    "put-chunked-trailer": conn_seed([start("PUT", "chunked"), part(b"abc"), part(b""), part(b"defgh"), end(True), canned("200-chunked"), start(), canned("200-length")]),
    "expect-continue": conn_seed([start("PUT", "length", 3, expect=True), canned("100"), part(b"abc"), canned("200-length")]),
    "expect-field": conn_seed([start("POST", "chunked", expect_field=True), recv("HTTP/1.1 100 Continue\r\n\r\n", 3), part(b"x"), end(), canned("200-length")]),
    "continue-timeout": conn_seed([start("PUT", "length", 3, expect=True), timeout("continue"), part(b"abc"), canned("200-length")]),
    "expect-refused": conn_seed([start("PUT", "length", 3, expect=True), canned("417"), start()]),
    "early-response": conn_seed([start("POST", "length", 10), part(b"abc"), canned("200-length"), part(b"defg")]),
    "until-close": conn_seed([start(), canned("10-until-close"), recv("more"), EOF]),
    "stale-reused-retry": conn_seed([start(), canned("200-length"), start(), EOF]),
    "stale-not-replayable": conn_seed([start(), canned("200-length"), start("POST", "length", 2, replayable=False), part(b"ab"), EOF]),
    "stale-put-not-replayable": conn_seed([start(), canned("200-length"), start("PUT", "length", 2, replayable=False), part(b"ab"), EOF]),
    "stale-post": conn_seed([start("PUT", "length", 1), part(b"a"), canned("200-length"), start("POST", "length", 1), part(b"b"), EOF]),
    "first-request-eof": conn_seed([start(), EOF]),
    "eof-mid-head": conn_seed([start(), canned("200-length"), start(), recv("HTTP/1.1 200 O"), EOF]),
    "response-close": conn_seed([start(), canned("close"), start()]),
    "request-close": conn_seed([start(connection="close"), canned("200-length"), start()]),
    "request-keep-alive-close": conn_seed([start(connection="keep-alive, close"), canned("200-length")]),
    "http10-no-keep-alive": conn_seed([start(http10=True), canned("10-keep-alive")]),
    "http10-keep-alive": conn_seed([start(http10=True, connection="KEEP-ALIVE"), canned("10-keep-alive"), start(), canned("200-length")]),
    "cl-te-strict": conn_seed([start(), canned("cl-te")]),
    "cl-te-lenient": conn_seed([start(), canned("cl-te"), start()], config=CLTE),
    "bytes-after-message": conn_seed([start(), canned("bytes-after"), start()]),
    "connect-tunnel": conn_seed([start("CONNECT"), recv("HTTP/1.1 200 OK\r\n\r\n\x16\x03\x01"), start()]),
    "connect-refused": conn_seed([start("CONNECT"), recv("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 2\r\n\r\nno"), start(), canned("200-length")]),
    "switching-protocols": conn_seed([start(), canned("101")]),
    "early-hints": conn_seed([start(), canned("103"), canned("200-length"), start(), canned("304")]),
    "pause-demand": conn_seed([start(), recv("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nab"), PAUSE, recv("cd"), DEMAND, recv("ef"), start(), canned("200-length")]),
    "pause-eof": conn_seed([start(), recv("HTTP/1.1 200 OK\r\n\r\nab"), PAUSE, EOF, DEMAND]),
    "idle-timeout": conn_seed([start(), timeout("idle"), start()]),
    "total-timeout-mid-body": conn_seed([start(), recv("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nab"), timeout("total")]),
    "cancel": conn_seed([start("POST", "chunked"), part(b"x"), CANCEL, CANCEL]),
    "socket-error": conn_seed([start(), recv("HTTP/1.1 200 OK\r\n"), error(1)]),
    "idle-error": conn_seed([start(), canned("200-length"), error(0)]),
    "unsolicited-bytes": conn_seed([start(), canned("200-length"), recv("HTTP/1.1 200 OK\r\n\r\n")]),
    "idle-eof": conn_seed([start(), canned("204"), EOF, start()]),
    "maximum-uses-1": conn_seed([start(), canned("200-length"), start()], uses=1),
    "maximum-uses-2": conn_seed([start(), canned("200-length"), start(), canned("200-chunked"), start()], uses=2),
    "body-overflow": conn_seed([start("POST", "length", 3), part(b"abcd")]),
    "body-short": conn_seed([start("POST", "length", 5), part(b"ab"), end()]),
    "head-with-length": conn_seed([start("HEAD"), recv("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), start(), canned("200-length")]),
    "truncated-body": conn_seed([start(), canned("truncated"), EOF]),
    "keep-alive-close-response": conn_seed([start(), canned("keep-alive-close")]),
    "invalid-target": conn_seed([start(bad_target=True), start(), canned("200-length")]),
    "http10-chunked": conn_seed([start("POST", "chunked", http10=True), start()]),
    "conflicting-length": conn_seed([start("POST", "length", 5, cl7=True), start("POST", "length", 7, cl7=True), part(b"1234567"), canned("200-length")]),
    "te-field": conn_seed([start("PUT", "chunked", te=True, host_field=True), part(b"abc"), end(), canned("200-length")]),
    "zero-length": conn_seed([start("POST", "zero"), canned("200-length"), start("DELETE", "zero", expect=True), canned("204")]),
    "large-body": conn_seed([start(), big(b"HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n" + bytes(rng.randrange(256) for _ in range(3000))), start(), canned("200-length")]),
    "chunked-split": conn_seed([start(), recv("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nT: v\r\n\r\n", pieces=20), start(), canned("200-length")]),
    "lenient-bare-lf": conn_seed([start(), recv("HTTP/1.1 200 OK\nContent-Length: 2\n\nok"), start(), canned("200-length")], config=LENIENT),
    "small-limits": conn_seed([start(), recv("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\nContent-Length: 1\r\n\r\nx")], config=SMALL),
    "parse-error": conn_seed([start(), recv("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx"), start()]),
}
reset("FuzzConnection")
for name, data in sorted(connection.items()):
    write("FuzzConnection", name, data)

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

# ---------------------------------------------------------------------------------------------
# FuzzEventStream (Server-Sent Events): 1 configuration byte (bound: 1 MiB, 16, 64, 1000; bit 2:
# resume from ID "r"), 1 mode byte, 3 cuts, the stream. Its own generator, like the later seeds.
sse = random.Random(20261201)


def sse_cuts():
    return struct.pack("<HHH", *(sse.randrange(0, 0x10000) for _ in range(3)))


sse_streams = {
    "simple": (0, b"data: hello\n\n"),
    "multiline": (0, b"data: YHOO\ndata: +2\ndata: 10\n\n"),
    "types-and-ids": (4, b"event: add\nid: 1\ndata: a\n\ndata: b\n\nid\nevent: remove\ndata: c\n\n"),
    "line-ends": (0, b"data: a\rdata: b\r\ndata: c\n\r\nevent: e\rdata: d\r\r"),
    "bom": (0, b"\xef\xbb\xbfdata: x\n\n\xef\xbb\xbfdata: y\n\n"),
    "partial-bom": (0, b"\xef\xbbdata: x\n\ndata: y\n\n"),
    "comments": (0, b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n"),
    "no-colon": (0, b"data\n\ndata\ndata\n\ndata:"),
    "retry": (0, b"retry: 10\nretry: 1a\nretry:\nretry: 99999999999999999999999\ndata: x\n\n"),
    "nul-id": (4, b"id: 1\n\nid: a\x00b\ndata: x\n\n"),
    "invalid-utf8": (0, b"data: a\xffb\nevent: \xc3\n\n"),
    "over-bound": (1, b"data: a\n\ndata: 01234567890\n\ndata: never\n\n"),
    "accumulated": (1, b"data: 0123\ndata: 4567\ndata: 89\n\n"),
    "long-comment": (1, b":" + b"c" * 100 + b"\ndata: ok\n\n"),
}
reset("FuzzEventStream")
for i, (name, (config, stream)) in enumerate(sorted(sse_streams.items())):
    write("FuzzEventStream", name, bytes([config, i % 4]) + sse_cuts() + stream)

# ---------------------------------------------------------------------------------------------
# FuzzSOCKSReply (the SOCKS5 client handshake): 1 configuration byte (bit 0 credentials, bits
# 1-2 destination, bit 3 the proxy closes at the end), 1 mode byte, 3 cuts, the proxy's bytes.
# Its own generator, like the later seeds.
socks = random.Random(20261128)


def socks_cuts():
    return struct.pack("<HHH", *(socks.randrange(0, 0x10000) for _ in range(3)))


V4_REPLY = bytes([5, 0, 0, 1, 10, 0, 0, 7, 0x1F, 0x90])
socks_replies = {
    "no-auth-v4": (0, b"\x05\x00" + V4_REPLY),
    "no-auth-v6-bound": (2, b"\x05\x00" + bytes([5, 0, 0, 4]) + bytes(15) + b"\x01\x04\x38"),
    "no-auth-name-bound": (4, b"\x05\x00" + bytes([5, 0, 0, 3, 5]) + b"proxy\x04\x38"),
    "auth-ok": (1, b"\x05\x02\x01\x00" + V4_REPLY),
    "auth-offered-not-wanted": (1, b"\x05\x00" + V4_REPLY),
    "auth-rejected": (1, b"\x05\x02\x01\x01"),
    "auth-bad-version": (1, b"\x05\x02\x05\x00"),
    "leftover-http": (5, b"\x05\x02\x01\x00" + V4_REPLY + b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
    "no-acceptable": (0, b"\x05\xff"),
    "gssapi": (0, b"\x05\x01"),
    "unoffered-userpass": (0, b"\x05\x02"),
    "socks4": (0, b"\x00\x5a\x00\x00\x00\x00\x00\x00"),
    "http-proxy": (0, b"HTTP/1.1 400 Bad Request\r\n\r\n"),
    "refused": (0, b"\x05\x00\x05\x05\x00\x01" + bytes(6)),
    "unassigned": (0, b"\x05\x00\x05\x09\x00\x01" + bytes(6)),
    "bad-atyp": (0, b"\x05\x00\x05\x00\x00\x02" + bytes(6)),
    "closed-mid-reply": (8, b"\x05\x00\x05\x00\x00\x03\x10abc"),
    "closed-at-once": (9, b""),
    "longest-name": (0, b"\x05\x00" + bytes([5, 0, 0, 3, 255]) + b"a" * 255 + b"\x00\x09"),
}
reset("FuzzSOCKSReply")
for i, (name, (config, stream)) in enumerate(sorted(socks_replies.items())):
    write("FuzzSOCKSReply", name, bytes([config, i % 4]) + socks_cuts() + stream)

# FuzzCookies: 1 configuration byte (bit 0: cookie file; bit 1: https; bits 2-3: host), then
# Set-Cookie lines separated by LF, or a cookie file.
cookie_seeds = {
    "rfc-examples": (0, b"SID=31d4d96e407aad42\nlang=en-US; Path=/; Domain=example.com\nSID=1; Path=/; Secure; HttpOnly"),
    "https-prefixes": (2, b"__Host-a=1; Secure; Path=/\n__Secure-b=2; Secure\n__Host-c=3; Secure; Path=/; Domain=example.com"),
    "dates": (2, b"a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT\nb=2; Expires=Sunday, 06-Nov-94 08:49:37 GMT\nc=3; Expires=Sun Nov  6 08:49:37 2094; Max-Age=5"),
    "hostile": (0, b"a=b\x00c\n=\nx=1; Domain=com\ny=1; Domain=evil.org\nz=1; SameSite=None\n__Secure-q=1"),
    "suffixes": (12, b"a=1; Domain=co.uk\nb=1; Domain=example.co.uk\nc=1; Domain=.c.example.co.uk; Path=/dir"),
    "ip-host": (8, b"a=1; Domain=127.0.0.1\nb=1; Domain=0.0.1\nc=1; Max-Age=0"),
    "curl-file": (1, b"# Netscape HTTP Cookie File\n\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc\n#HttpOnly_127.0.0.1\tFALSE\t/app\tFALSE\t4102444800\ttoken\tsecret\n.example.com\tTRUE\t/\tTRUE\t4102444800\td\t1\nexample.org\tFALSE\t/\tFALSE\t4102444800\tempty\n"),
    "bad-file": (1, b"too\tfew\na.com\tMAYBE\t/\tFALSE\t0\tn\tv\r\n..a\tFALSE\t/\tFALSE\t0\tn\tv\na.com\tFALSE\t/\tFALSE\t99999999999999\tn\tv\n"),
}
reset("FuzzCookies")
for name, (config, data) in sorted(cookie_seeds.items()):
    write("FuzzCookies", name, bytes([config]) + data)

for t in ("FuzzResponseParser", "FuzzChunkedDecoder", "FuzzContentDecoder", "FuzzRequestRoundTrip", "FuzzURL", "FuzzConnection", "FuzzEventStream", "FuzzSOCKSReply", "FuzzCookies"):
    print(t, len(os.listdir(os.path.join(HERE, "Corpus", t))), "seeds")

# ---------------------------------------------------------------------------------------------
# FuzzCacheControl: 1 cut selector byte (0: no cut), then a Cache-Control value.
cache_control_values = {
    "typical": "public, max-age=3600",
    "private": "private, max-age=0, must-revalidate",
    "no-store": "no-store",
    "qualified-no-cache": 'no-cache="Set-Cookie, X-A", max-age=5',
    "request": "max-stale, min-fresh=10, only-if-cached, no-cache",
    "quoted-pair": 'private="a\\"b", max-age="7"',
    "hostile-empty": "=, ==, max-age=5,,",
    "hostile-unterminated": 'max-age="60, no-store',
    "huge-number": "max-age=" + "9" * 40,
    "negative": "max-age=-1, s-maxage=1.5",
    "upper": "MAX-AGE=10, No-Cache, IMMUTABLE",
    "many": ", ".join("x%d=%d" % (i, i) for i in range(80)),
}
reset("FuzzCacheControl")
for i, (name, value) in enumerate(sorted(cache_control_values.items())):
    write("FuzzCacheControl", name, bytes([i % 3]) + value.encode())


# FuzzDiskCacheEntry: a whole entry file (Sources/Courier/Cache/DiskCacheEntry.swift's layout).
def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def disk_entry(url, variant, names, stored, status, fields, body):
    def s(text):
        b = text.encode()
        return struct.pack("<I", len(b)) + b
    meta = s(url) + s(variant) + struct.pack("<Q", len(names)) + b"".join(s(n) for n in names)
    meta += struct.pack("<d", stored) + struct.pack("<Q", status) + struct.pack("<Q", len(fields))
    meta += b"".join(s(n) + s(v) for n, v in fields)
    return b"CRCE" + bytes([1, 0, 0, 0]) + struct.pack("<IQQ", len(meta), len(body), fnv1a(meta + body)) + meta + body


reset("FuzzDiskCacheEntry")
plain = disk_entry("http://c.test/a", "", [], 1700000000.5, 200, [("Cache-Control", "max-age=60"), ("ETag", '"v1"')], b"hello")
write("FuzzDiskCacheEntry", "plain", plain)
write("FuzzDiskCacheEntry", "vary", disk_entry("https://c.test:8443/p?q=1", "accept-language:en\n", ["accept-language"], 0.0, 404,
                                               [("Vary", "Accept-Language"), ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")], b""))
write("FuzzDiskCacheEntry", "torn", plain[:-3])
write("FuzzDiskCacheEntry", "flipped", plain[:40] + bytes([plain[40] ^ 0xFF]) + plain[41:])
write("FuzzDiskCacheEntry", "empty", b"")
for t in ("FuzzCacheControl", "FuzzDiskCacheEntry"):
    print(t, len(os.listdir(os.path.join(HERE, "Corpus", t))), "seeds")
