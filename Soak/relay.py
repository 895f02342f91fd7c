#!/usr/bin/env python3
"""The soak's fault-injecting TCP relay: listens on 127.0.0.1:PORT and forwards each connection
to 127.0.0.1:TARGET (nginx), injecting faults into some requests.

It reads the request heads the client sends (GET without a body; the soak never pipelines), takes
the request id from the `id=` query parameter, and decides a fault from a seeded RNG keyed by
(seed, id, how many times this id was seen) — so a retried request gets a decision of its own and
a run is reproducible. Every fault that takes effect is written to the log as
`ID<TAB>FAULT<TAB>DETAIL`, one line, flushed:

  relay-rst      the request is not forwarded; the client connection is reset (RST)
  relay-close    the request is not forwarded; the client connection is closed (FIN)
  relay-stall    the request is swallowed; nothing more is forwarded until the client closes
  relay-delay    the request is forwarded after 20-300 ms
  relay-cut      the response is forwarded up to a random byte, then the connection is closed
                 (FIN or RST); logged only if the response was really cut short
  relay-idle-rst once the response has been forwarded and the connection stayed quiet for 5-50 ms,
                 it is reset (RST), as a middlebox dropping an idle connection does; logged
                 only if no new request came first (the id is the one whose response it followed)

Python 3 standard library only.
"""
import argparse
import asyncio
import os
import random
import signal
import socket
import struct
from urllib.parse import parse_qs, urlsplit


class Closed(Exception):
    pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--target", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--seed", default="1")
    # Per request: probability of each fault (the rest pass untouched).
    parser.add_argument("--rst", type=float, default=0.01)
    parser.add_argument("--close", type=float, default=0.01)
    parser.add_argument("--cut", type=float, default=0.01)
    parser.add_argument("--delay", type=float, default=0.03)
    parser.add_argument("--stall", type=float, default=0.001)
    parser.add_argument("--idle-rst", type=float, default=0.02)
    args = parser.parse_args()
    asyncio.run(Relay(args).serve())


def reset(writer):
    """Closes with RST: SO_LINGER with a zero timeout, then close."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    writer.transport.abort()


class Connection:
    def __init__(self):
        self.request_id = None
        # Bytes of the current response still allowed through before a cut; None: no cut.
        self.cut_after = None
        self.cut_reset = False
        # A request was swallowed: nothing more is forwarded until the client closes.
        self.stalled = False
        # relay-idle-rst: the quiet time after the response that ends in a reset, and its timer.
        self.idle_reset_after = None
        self.idle_timer = None


class Relay:
    def __init__(self, args):
        self.args = args
        self.seen = {}
        self.log = None

    def record(self, request_id, fault, detail=""):
        self.log.write(f"{request_id}\t{fault}\t{detail}\n")

    def decide(self, request_id):
        occurrence = self.seen.get(request_id, 0)
        self.seen[request_id] = occurrence + 1
        rng = random.Random(f"{self.args.seed}/{request_id}/{occurrence}")
        draw = rng.random()
        a = self.args
        for fault, p in (("relay-rst", a.rst), ("relay-close", a.close), ("relay-cut", a.cut),
                         ("relay-delay", a.delay), ("relay-stall", a.stall), ("relay-idle-rst", a.idle_rst)):
            if draw < p:
                return fault, rng
            draw -= p
        return None, rng

    async def serve(self):
        self.log = open(self.args.log, "w", buffering=1)
        # SIGTERM/SIGINT end the process at once and quietly (run.sh stops it that way, also in
        # the middle of a run); the log is line-buffered, so every fault written is on disk.
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: os._exit(0))
        server = await asyncio.start_server(self.handle, "127.0.0.1", self.args.port, backlog=1024,
                                            reuse_address=True)
        async with server:
            await server.serve_forever()

    async def handle(self, client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.args.target)
        except OSError:
            reset(client_writer)
            return
        state = Connection()
        up = asyncio.create_task(self.upstream(client_reader, client_writer, server_writer, state))
        down = asyncio.create_task(self.downstream(server_reader, client_writer, server_writer, state))
        await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        for task in (up, down):
            task.cancel()
        await asyncio.gather(up, down, return_exceptions=True)
        if state.idle_timer is not None:
            state.idle_timer.cancel()
        server_writer.close()
        if not client_writer.transport.is_closing():
            client_writer.close()

    async def upstream(self, client_reader, client_writer, server_writer, state):
        """Client to server: request heads, each judged once."""
        pending = b""
        try:
            while True:
                data = await client_reader.read(65536)
                if not data:
                    return
                pending += data
                while b"\r\n\r\n" in pending:
                    head, pending = pending.split(b"\r\n\r\n", 1)
                    await self.forward(head + b"\r\n\r\n", client_reader, client_writer, server_writer, state)
        except (ConnectionError, Closed):
            return

    async def forward(self, head, client_reader, client_writer, server_writer, state):
        target = head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else ""
        request_id = parse_qs(urlsplit(target).query).get("id", ["?"])[0]
        # No pipelining: a new request means the previous response is complete.
        state.request_id = request_id
        state.cut_after = None
        state.idle_reset_after = None
        if state.idle_timer is not None:
            state.idle_timer.cancel()
            state.idle_timer = None
        fault, rng = self.decide(request_id)
        if fault == "relay-rst":
            self.record(request_id, fault)
            reset(client_writer)
            raise Closed()
        if fault == "relay-close":
            self.record(request_id, fault)
            client_writer.close()
            raise Closed()
        if fault == "relay-stall":
            self.record(request_id, fault)
            # A stall, not a close: nginx closing the idle server side (its keep-alive timeout)
            # must not end the client's connection now.
            state.stalled = True
            while await client_reader.read(65536):
                pass
            raise Closed()
        if fault == "relay-delay":
            delay = rng.uniform(0.02, 0.3)
            self.record(request_id, fault, f"{delay:.3f}s")
            await asyncio.sleep(delay)
        if fault == "relay-cut":
            state.cut_after = rng.randint(0, 2000)
            state.cut_reset = rng.random() < 0.5
        if fault == "relay-idle-rst":
            state.idle_reset_after = rng.uniform(0.005, 0.05)
        server_writer.write(head)
        await server_writer.drain()

    def arm_idle_reset(self, state, client_writer, server_writer):
        """(Re)starts the quiet-time timer after response bytes went to the client."""
        if state.idle_timer is not None:
            state.idle_timer.cancel()

        def fire():
            state.idle_timer = None
            self.record(state.request_id, "relay-idle-rst", f"after {state.idle_reset_after * 1000:.0f} ms quiet")
            reset(client_writer)
            server_writer.close()

        state.idle_timer = asyncio.get_running_loop().call_later(state.idle_reset_after, fire)

    async def downstream(self, server_reader, client_writer, server_writer, state):
        """Server to client, cutting a response short when its request was chosen."""
        try:
            while True:
                data = await server_reader.read(65536)
                if not data:
                    if state.stalled:
                        await asyncio.Event().wait()  # until the stalled client gives up
                    return
                if state.cut_after is not None and len(data) > state.cut_after:
                    keep = state.cut_after
                    client_writer.write(data[:keep])
                    self.record(state.request_id, "relay-cut", f"after {keep} more bytes, {'rst' if state.cut_reset else 'fin'}")
                    if state.cut_reset:
                        await asyncio.sleep(0)
                        reset(client_writer)
                    else:
                        await client_writer.drain()
                        client_writer.close()
                    return
                if state.cut_after is not None:
                    state.cut_after -= len(data)
                client_writer.write(data)
                if state.idle_reset_after is not None:
                    self.arm_idle_reset(state, client_writer, server_writer)
                await client_writer.drain()
        except ConnectionError:
            return


if __name__ == "__main__":
    main()
