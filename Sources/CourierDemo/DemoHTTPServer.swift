import CourierCore
import CourierHTTP1
import CourierTLS
import Glibc
import Synchronization

/// A request as the demo's routes see it: the head and the whole body.
struct DemoRequest {
    let method: String
    let path: String
    let headers: HTTPFields
    let body: [UInt8]
}

/// The demo's own loopback HTTP/1.1 server, plain or HTTPS: one blocking thread per connection,
/// requests parsed by CourierHTTP1's `HTTPRequestParser`, TLS by CourierTLS's memory-BIO
/// `TLSEngine` over the socket. Small on purpose: keep-alive, Content-Length or chunked request
/// bodies, whatever the routes write back. It is not part of the library.
final class DemoHTTPServer: Sendable {
    typealias Handler = @Sendable (DemoRequest, DemoConnection) throws -> Void

    let port: Int
    let baseURL: String
    private let listener: Int32
    private let tls: TLSContext?
    private let state = Mutex<State>(State())

    private struct State {
        var routes: [String: Handler] = [:]
        var connections: Set<Int32> = []
        var stopped = false
    }

    /// Listens on 127.0.0.1 (a kernel-chosen port); with `tls`, every connection is HTTPS.
    init(tls: TLSServerConfiguration? = nil) throws {
        self.tls = try tls.map { try TLSContext(server: $0) }
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw DemoServerError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            // Safe: sockaddr_in is the layout bind/getsockname expect for AF_INET, valid here.
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(listener, raw, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, raw, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw DemoServerError("cannot listen on 127.0.0.1: \(errno)")
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        baseURL = tls == nil ? "http://127.0.0.1:\(port)" : "https://localhost:\(port)"
        let server = self
        spawnThread { server.acceptLoop() }
    }

    /// Serves `path` (the request target without its query) with `handler`.
    func route(_ path: String, _ handler: @escaping Handler) {
        state.withLock { $0.routes[path] = handler }
    }

    /// Stops accepting and closes every open connection.
    func shutdown() {
        let open = state.withLock { state -> Set<Int32> in
            state.stopped = true
            return state.connections
        }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        for fd in open { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(fd)
                return true
            }
            guard accepted else { close(fd); return }
            spawnThread { [self] in
                serve(fd)
                state.withLock { _ = $0.connections.remove(fd) }
                close(fd)
            }
        }
    }

    private func serve(_ fd: Int32) {
        guard let connection = try? DemoConnection(fd: fd, tls: tls) else { return }
        var parser = HTTPRequestParser()
        var buffer = ByteBuffer()
        var head: HTTPRequestHeadView?
        var body: [UInt8] = []
        while true {
            let event: HTTPRequestParserEvent
            do { event = try parser.next(&buffer) } catch { return }
            switch event {
            case .needMoreData:
                guard connection.receive(into: &buffer) else { return }
            case .head(let view):
                head = view
                body = []
                if view.headers[first: "Expect"]?.lowercased() == "100-continue" {
                    guard (try? connection.send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))) != nil else { return }
                }
            case .body(let part):
                body.append(contentsOf: part.readableBytesArray())
            case .end:
                guard let view = head else { return }
                let target = view.target.string
                let path = String(target.prefix { $0 != "?" })
                let request = DemoRequest(method: view.method.rawValue, path: path, headers: view.headers.owned(), body: body)
                let handler = state.withLock { $0.routes[path] }
                do {
                    if let handler {
                        try handler(request, connection)
                    } else {
                        try connection.respond(status: 404, headers: [("Content-Type", "text/plain")], body: "no route for \(path)\n")
                    }
                } catch {
                    return
                }
                guard view.isKeepAlive else { return }
                head = nil
            }
        }
    }
}

/// One accepted connection, plain or TLS, on its own thread.
final class DemoConnection {
    let fd: Int32
    private let engine: TLSEngine?

    init(fd: Int32, tls: TLSContext?) throws {
        self.fd = fd
        engine = try tls.map { try TLSEngine(serverContext: $0) }
        guard let engine else { return }
        while true {
            let state = try engine.handshake()
            try flush()
            if state == .complete { break }
            guard readCiphertext() else { throw DemoServerError("the client left during the handshake") }
        }
    }

    /// Appends what arrives next to `buffer`; false at the end of the stream.
    func receive(into buffer: inout ByteBuffer) -> Bool {
        guard let engine else { return readSocket(into: &buffer) }
        while true {
            switch (try? engine.readPlaintext(into: &buffer, maxBytes: 64 * 1024)) ?? .closed {
            case .bytes(let count) where count > 0: return true
            case .bytes, .wantMoreCiphertext:
                guard (try? flush()) != nil, readCiphertext() else { return false }
            case .closed: return false
            }
        }
    }

    func send(_ bytes: [UInt8]) throws {
        guard let engine else { return try writeSocket(bytes) }
        try bytes.withUnsafeBytes { raw in try engine.writePlaintext(raw) }
        try flush()
    }

    func respond(status: Int = 200, headers: [(String, String)], body: String) throws {
        let bytes = Array(body.utf8)
        try send(head(status: status, headers: headers + [("Content-Length", "\(bytes.count)")]) + bytes)
    }

    func sendHead(headers: [(String, String)]) throws {
        try send(head(status: 200, headers: headers))
    }

    func sendChunkedHead(headers: [(String, String)]) throws {
        try send(head(status: 200, headers: headers + [("Transfer-Encoding", "chunked")]))
    }

    func sendChunk(_ bytes: [UInt8]) throws {
        try send(Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + [13, 10])
    }

    func endChunks() throws {
        try send(Array("0\r\n\r\n".utf8))
    }

    /// Sends nothing until `released` is set or the client goes away (`/slow`).
    func stall(until release: Release) {
        while !release.flag.load(ordering: .acquiring) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { return }
            if poller.revents != 0 {
                var byte: UInt8 = 0
                if recv(fd, &byte, 1, Int32(MSG_PEEK)) <= 0 { return }
            }
        }
    }

    private func head(status: Int, headers: [(String, String)]) -> [UInt8] {
        let reason = status == 200 ? "OK" : status == 404 ? "Not Found" : "Status"
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    private func flush() throws {
        guard let engine, engine.hasPendingCiphertext else { return }
        var out = ByteBuffer()
        engine.drainCiphertext(into: &out)
        try writeSocket(out.readableBytesArray())
    }

    private func readCiphertext() -> Bool {
        var buffer = ByteBuffer()
        guard readSocket(into: &buffer) else {
            engine?.feedEOF()
            return false
        }
        engine?.feedCiphertext(buffer)
        return true
    }

    private func readSocket(into buffer: inout ByteBuffer) -> Bool {
        let fd = self.fd
        let count = buffer.withUnsafeMutableWritableBytes(minimumCapacity: 64 * 1024) { region -> Int in
            // Safe: recv writes at most region.count bytes into the buffer's own writable region.
            var n: Int
            repeat { n = recv(fd, region.baseAddress, region.count, 0) } while n < 0 && errno == EINTR
            return max(0, n)
        }
        return count > 0
    }

    private func writeSocket(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                // Safe: `raw` is valid for the closure's duration and offset < count.
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw DemoServerError("send: \(errno)")
                }
                offset += n
            }
        }
    }
}

struct DemoServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` on a new detached thread.
func spawnThread(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { raw in
        // Safe: `raw` is the retained Box passed below, released exactly once here.
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    if created == 0 { pthread_detach(thread) } else { Unmanaged<Box>.fromOpaque(box).release() }
}
