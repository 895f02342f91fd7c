#!/usr/bin/env python3
"""The soak's upstream behind nginx (proxy_pass): one response per connection, with the fault the
request names in its query (`/up/<anything>?id=ID&fault=FAULT&len=N`).

Faults (chosen by the soak driver from its seeded plan; every one that takes effect is written to
the log as `ID<TAB>FAULT<TAB>DETAIL`, one line, flushed):

  none      200, Content-Length N, N bytes
  chunked   200, chunked, N bytes in pieces
  slow      waits 50-300 ms, then like `none`
  reset     reads the request, then resets the connection (RST, no response byte)
  close     reads the request, then closes without a response byte
  truncate  head with Content-Length N, about half the body, then closes
  stall     reads the request, then sends nothing for STALL seconds, then closes

Python 3 standard library only. Listens on 127.0.0.1 only.
"""
import argparse
import asyncio
import os
import random
import signal
import socket
import struct
from urllib.parse import parse_qs, urlsplit

BODY_BYTE = b"u"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--stall", type=float, default=5.0)
    args = parser.parse_args()
    asyncio.run(serve(args))


async def serve(args):
    log = open(args.log, "w", buffering=1)
    quit_on_signals()

    async def handle(reader, writer):
        try:
            await respond(reader, writer, log, args.stall)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", args.port, backlog=1024, reuse_address=True)
    async with server:
        await server.serve_forever()


def quit_on_signals():
    """SIGTERM/SIGINT end the process at once and quietly (run.sh stops it that way, also in
    the middle of a run); the log is line-buffered, so every fault written is on disk."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: os._exit(0))


def record(log, request_id, fault, detail=""):
    log.write(f"{request_id}\t{fault}\t{detail}\n")


async def respond(reader, writer, log, stall):
    head = await reader.readuntil(b"\r\n\r\n")
    target = head.split(b" ", 2)[1].decode("latin-1")
    query = parse_qs(urlsplit(target).query)
    request_id = query.get("id", ["?"])[0]
    fault = query.get("fault", ["none"])[0]
    length = int(query.get("len", ["0"])[0])
    body = BODY_BYTE * length

    if fault == "reset":
        record(log, request_id, fault)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
        return
    if fault == "close":
        record(log, request_id, fault)
        writer.close()
        return
    if fault == "stall":
        record(log, request_id, fault, f"{stall}s")
        await asyncio.sleep(stall)
        writer.close()
        return
    if fault == "slow":
        delay = random.Random(request_id).uniform(0.05, 0.3)
        record(log, request_id, fault, f"{delay:.3f}s")
        await asyncio.sleep(delay)
    if fault == "chunked":
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                     b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        piece = 1000
        for start in range(0, length, piece):
            chunk = body[start:start + piece]
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        writer.close()
        return
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n" % length)
    if fault == "truncate":
        sent = length // 2
        record(log, request_id, fault, f"{sent}/{length}")
        writer.write(head + body[:sent])
        await writer.drain()
        writer.close()
        return
    writer.write(head + body)
    await writer.drain()
    writer.close()


if __name__ == "__main__":
    main()
