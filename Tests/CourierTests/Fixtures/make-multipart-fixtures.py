#!/usr/bin/env python3
"""Writes the expected multipart/form-data bodies used by MultipartFixtureTests.

The bytes are spelled out here from RFC 2046 §5.1.1 and RFC 7578 (AFNetworking's framing:
"--B" CRLF before the first part, CRLF "--B" CRLF between parts, CRLF "--B--" CRLF at the
end; Content-Disposition before Content-Type; name/filename escapes per RFC 7578 §4.2 and
WHATWG: '"' -> %22, CR -> %0D, LF -> %0A). They are not produced by the code under test.
Run from anywhere: files are written next to this script.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
B = b"TestBoundary+0123456789ABCDEF"
CRLF = b"\r\n"


def body(parts):
    """parts: list of (header lines as bytes, content bytes)."""
    out = b""
    for i, (headers, content) in enumerate(parts):
        out += (b"--" + B + CRLF) if i == 0 else (CRLF + b"--" + B + CRLF)
        for line in headers:
            out += line + CRLF
        out += CRLF + content
    if parts:
        out += CRLF + b"--" + B + b"--" + CRLF
    return out


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


sample_text = b"Plain text file.\nSecond line, with a trailing newline.\n"
write("multipart-sample.txt", sample_text)

binary = bytes(range(256))
stream_content = b"0123456789" * 100  # 1,000 bytes, the test's stream makes the same

write("multipart-fields.bin", body([
    ([b'Content-Disposition: form-data; name="username"'], b"alice"),
    ([b'Content-Disposition: form-data; name="note"'], b"hello\r\nworld"),
    ([b'Content-Disposition: form-data; name="empty"'], b""),
]))

write("multipart-data-file.bin", body([
    ([b'Content-Disposition: form-data; name="avatar"; filename="a.png"', b"Content-Type: image/png"], binary),
]))

write("multipart-file.bin", body([
    ([b'Content-Disposition: form-data; name="document"; filename="multipart-sample.txt"', b"Content-Type: text/plain"], sample_text),
]))

write("multipart-stream.bin", body([
    ([b'Content-Disposition: form-data; name="log"; filename="stream.bin"', b"Content-Type: application/octet-stream"], stream_content),
]))

write("multipart-custom-headers.bin", body([
    ([b'Content-Disposition: form-data; name="meta"', b"Content-Type: application/json", b"X-Custom: 1"], b'{"a":1}'),
    ([b"Content-Type: text/plain"], b"no disposition"),
]))

write("multipart-unicode.bin", body([
    ([('Content-Disposition: form-data; name="名前"').encode("utf-8")], "ünïcødé".encode("utf-8")),
    ([b'Content-Disposition: form-data; name="say %22hi%22%0D%0Anow"'], b"x"),
    ([('Content-Disposition: form-data; name="cv"; filename="résumé %22v2%22.pdf"').encode("utf-8"), b"Content-Type: application/pdf"], b"%PDF"),
]))

write("multipart-mixed.bin", body([
    ([b'Content-Disposition: form-data; name="title"'], b"Holiday"),
    ([b'Content-Disposition: form-data; name="document"; filename="multipart-sample.txt"', b"Content-Type: text/plain"], sample_text),
    ([b'Content-Disposition: form-data; name="log"; filename="stream.bin"', b"Content-Type: application/octet-stream"], stream_content),
    ([b'Content-Disposition: form-data; name="avatar"; filename="a.png"', b"Content-Type: image/png"], binary),
]))
