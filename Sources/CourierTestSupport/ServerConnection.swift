#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import CourierHTTP1

/// Why a ``ServerConnection`` primitive could not run.
public struct ServerConnectionError: Error, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        /// The connection was already closed (by the handler, the peer or the server).
        case closed
        /// The server is shutting down.
        case serverStopped
        /// A read or write failed (the peer reset the connection, for example).
        case io
        /// The request could not be parsed or ended early.
        case badRequest
        /// A ``ServerConnection/stall(until:timeout:)`` timed out.
        case timedOut
    }

    public let reason: Reason
    public let details: String

    init(_ reason: Reason, _ details: String = "") {
        self.reason = reason
        self.details = details
    }

    public var description: String { details.isEmpty ? reason.rawValue : "\(reason.rawValue): \(details)" }
}

/// One accepted connection, as a route handler sees it: write primitives that let a test script
/// exactly what bytes go out and when, and how the connection ends.
///
/// A connection lives on its own thread; handlers run on that thread and are the only callers
/// of these methods, so the class is deliberately not `Sendable`. Every wait in here ends when
/// the server shuts down (the call then throws ``ServerConnectionError/Reason/serverStopped``).
public final class ServerConnection {
    /// The connection's index in accept order (0 for the first).
    public let id: Int
    /// Close the connection (FIN) after the current handler returns, and announce it with
    /// `Connection: close` in responses built by ``respond(status:reason:headers:body:)``.
    public var closeAfterResponse = false
    /// Whether the connection is TLS.
    public var isTLS: Bool { tls != nil }
    /// The SNI name the client sent (TLS only).
    public private(set) var tlsServerName: String?
    /// The negotiated TLS version, e.g. `"TLSv1.3"` (TLS only, after the handshake).
    public private(set) var tlsVersion: String?
    /// The verified client certificate's subject (mTLS only).
    public private(set) var peerCertificateSubject: String?
    /// Whether the connection has been closed or reset.
    public private(set) var isClosed = false

    let fd: Int32
    private let core: ServerCore
    private var tls: TLSServerSession?
    private var parser = HTTPRequestParser()
    private var buffer = ByteBuffer(capacity: 16 * 1024)
    /// The request being handled: its log position, keep-alive flag and method.
    private var current: (logIndex: Int, keepAlive: Bool, method: String)?
    /// The current request's body has not been read yet (manual body reading).
    public private(set) var hasPendingRequestBody = false
    private var requestsOnConnection = 0
    private var chunkedResponseOpen = false

    init(id: Int, fd: Int32, core: ServerCore) {
        self.id = id
        self.fd = fd
        self.core = core
    }

    // MARK: - Writing

    /// Sends raw bytes, exactly as given.
    public func send(_ bytes: [UInt8]) throws(ServerConnectionError) {
        guard !isClosed else { throw ServerConnectionError(.closed) }
        let result: ServerConnectionError? = bytes.withUnsafeBytes { raw in
            do {
                if let tls { try tls.write(raw) } else { try Socket.sendAll(fd, raw) }
                return nil
            } catch {
                return ServerConnectionError(.io, "\(error)")
            }
        }
        if let result { throw result }
    }

    /// Sends the UTF-8 bytes of `string`, exactly as given.
    public func send(_ string: String) throws(ServerConnectionError) {
        try send(Array(string.utf8))
    }

    /// Sends a complete response with `Content-Length` (unless `headers` already frame the body),
    /// and `Connection: close` when the connection will close afterwards. A response to HEAD
    /// gets the headers only.
    public func respond(
        status: Int = 200, reason: String? = nil, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws(ServerConnectionError) {
        var head = responseHead(status: status, reason: reason, headers: headers, framing: .contentLength(body.count))
        if current?.method != "HEAD" { head.append(contentsOf: body) }
        if status >= 200 { markResponseComplete() }
        try send(head)
    }

    /// ``respond(status:reason:headers:body:)`` with a text body.
    public func respond(
        status: Int = 200, reason: String? = nil, headers: [(String, String)] = [], body: String
    ) throws(ServerConnectionError) {
        try respond(status: status, reason: reason, headers: headers, body: Array(body.utf8))
    }

    /// Sends a response head only, with the given fields as they are (no framing added).
    public func sendHead(status: Int = 200, reason: String? = nil, headers: [(String, String)] = []) throws(ServerConnectionError) {
        try send(responseHead(status: status, reason: reason, headers: headers, framing: .asGiven))
    }

    /// Sends a head with `Transfer-Encoding: chunked`; follow with ``sendChunk(_:)`` and ``endChunks(trailers:)``.
    public func sendChunkedHead(status: Int = 200, reason: String? = nil, headers: [(String, String)] = []) throws(ServerConnectionError) {
        try send(responseHead(status: status, reason: reason, headers: headers, framing: .chunked))
        chunkedResponseOpen = true
    }

    /// Sends one chunk (`size CRLF data CRLF`). An empty array sends nothing (it would end the body).
    public func sendChunk(_ bytes: [UInt8]) throws(ServerConnectionError) {
        guard !bytes.isEmpty else { return }
        var out = Array(String(bytes.count, radix: 16).utf8) + [13, 10]
        out += bytes
        out += [13, 10]
        try send(out)
    }

    /// Sends the last chunk and the trailer section.
    public func endChunks(trailers: [(String, String)] = []) throws(ServerConnectionError) {
        var out = "0\r\n"
        for (name, value) in trailers { out += "\(name): \(value)\r\n" }
        out += "\r\n"
        chunkedResponseOpen = false
        markResponseComplete()
        try send(out)
    }

    /// Sends a whole chunked response: head, each chunk, last chunk and trailers.
    public func sendChunked(
        status: Int = 200, headers: [(String, String)] = [], chunks: [[UInt8]], trailers: [(String, String)] = []
    ) throws(ServerConnectionError) {
        try sendChunkedHead(status: status, headers: headers)
        for chunk in chunks { try sendChunk(chunk) }
        try endChunks(trailers: trailers)
    }

    /// Sends `bytes` a few at a time, pausing `milliseconds` between pieces (a slow server).
    public func drip(_ bytes: [UInt8], every milliseconds: Int, bytesPerStep: Int = 1) throws(ServerConnectionError) {
        var offset = 0
        let step = max(1, bytesPerStep)
        while offset < bytes.count {
            let end = min(bytes.count, offset + step)
            try send(Array(bytes[offset..<end]))
            offset = end
            if offset < bytes.count { try stall(forMilliseconds: milliseconds) }
        }
    }

    /// Sends `100 Continue` (RFC 9110 §10.1.1), for routes that read bodies manually.
    public func sendContinue() throws(ServerConnectionError) {
        try send("HTTP/1.1 100 Continue\r\n\r\n")
    }

    /// Counts the connection as idle from the moment its final response is on its way, before
    /// the handler returns: a client may reuse the connection as soon as it has read the response,
    /// and ``ScriptedServer/closeIdleConnections(timeout:)`` must not miss it in that window.
    /// (A response written with raw ``send(_:)-([UInt8])`` is not recognised as complete.)
    private func markResponseComplete() {
        _ = core.registry.setIdle(id, true)
    }

    // MARK: - Waiting

    /// Blocks until `event` is signalled. Throws if the server shuts down first, or after `timeout`.
    public func stall(until event: TestEvent, timeout: Duration = .seconds(60)) throws(ServerConnectionError) {
        let signalled = TestEvent.wait(anyOf: [event, core.stopped], timeout: timeout)
        if core.stopped.isSignaled { throw ServerConnectionError(.serverStopped) }
        if !signalled { throw ServerConnectionError(.timedOut, "stall(until:) after \(timeout)") }
    }

    /// Blocks for `milliseconds`, or until the server shuts down (then throws).
    public func stall(forMilliseconds milliseconds: Int) throws(ServerConnectionError) {
        if core.stopped.wait(timeout: .milliseconds(milliseconds)) {
            throw ServerConnectionError(.serverStopped)
        }
    }

    /// Reads and discards what the peer sends until it closes the connection (EOF, or a reset),
    /// for at most `timeout`: how a handler streaming an endless response (Server-Sent Events)
    /// sees the client hang up. Returns false when the time passed or the server shut down first.
    /// Reads the socket directly, past TLS: afterwards the connection is only good for closing.
    public func waitForPeerClose(timeout: Duration = .seconds(10)) -> Bool {
        guard !isClosed else { return true }
        let deadline = ContinuousClock.now + timeout
        Socket.setReceiveTimeout(fd, milliseconds: 50)
        defer { Socket.setReceiveTimeout(fd, milliseconds: 0) }
        var scratch = [UInt8](repeating: 0, count: 4096)
        while !core.stopped.isSignaled {
            let n = scratch.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n > 0 { continue }
            switch errno {
            case EINTR: continue
            case EAGAIN: if ContinuousClock.now >= deadline { return false }
            default: return true
            }
        }
        return false
    }

    // MARK: - Request bodies (manual routes)

    /// Reads the rest of the current request's body (after ``sendContinue()`` for an
    /// `Expect: 100-continue` request), records it, and returns it.
    public func readRequestBody() throws(ServerConnectionError) -> [UInt8] {
        guard hasPendingRequestBody, let current else { return [] }
        let (body, trailers) = try readBody()
        hasPendingRequestBody = false
        core.log.update(current.logIndex) {
            $0.body = body
            $0.trailers = trailers
        }
        return body
    }

    // MARK: - Ending

    /// Closes the connection: for TLS, sends close_notify first unless `sendCloseNotify` is false
    /// (a truncation); then FIN. Later writes throw ``ServerConnectionError/Reason/closed``.
    public func close(sendCloseNotify: Bool = true) {
        guard !isClosed else { return }
        if sendCloseNotify { tls?.sendCloseNotify() }
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        lingeringDrain()
        release()
    }

    /// Resets the connection: `SO_LINGER {1, 0}` then close, so the peer gets RST (ECONNRESET).
    public func reset() {
        guard !isClosed else { return }
        Socket.setAbortiveClose(fd)
        release()
    }

    /// Reads and discards what the peer still sends, for a short while, so unread request bytes
    /// do not turn our FIN into an RST that destroys the response in flight.
    private func lingeringDrain() {
        Socket.setReceiveTimeout(fd, milliseconds: 250)
        var scratch = [UInt8](repeating: 0, count: 4096)
        var total = 0
        while total < 1 << 20 {
            let n = scratch.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            total += n
        }
    }

    /// Unregisters and closes the fd. The only place it is closed.
    private func release() {
        isClosed = true
        let closed = core.registry.remove(id)
        tls = nil
        Glibc.close(fd)
        core.connectionClosed()
        closed?.signal()
    }

    // MARK: - Serving (the connection thread)

    /// Runs the connection: hook, TLS handshake, then requests until it closes.
    func run() {
        defer { if !isClosed { close() } }
        if let hook = core.acceptHook {
            do { try hook(self) } catch { return }
            if isClosed { return }
        }
        if let context = core.tlsContext {
            do {
                let session = try TLSServerSession(context: context, fd: fd)
                tls = session
                try session.accept()
                tlsServerName = session.serverName
                tlsVersion = session.protocolVersion
                peerCertificateSubject = session.peerSubject
                core.handshakeFinished(ok: true)
            } catch {
                core.handshakeFinished(ok: false)
                tls = nil
                reset()
                return
            }
        }
        while !isClosed {
            guard serveOneRequest() else { return }
        }
    }

    /// Reads one request and runs its handler. Returns false when the connection is done.
    private func serveOneRequest() -> Bool {
        let head: HTTPRequestHeadView
        do {
            guard let next = try readHead() else { return false }
            head = next
        } catch {
            try? respond(status: 400, headers: [("Connection", "close")], body: "\(error)")
            return false
        }
        var request = RecordedRequest(
            method: head.method.rawValue,
            target: head.target.string,
            version: head.version.description,
            headers: head.headers.map { (name: $0.name.string, value: $0.value.string) },
            body: [],
            trailers: [],
            wasChunked: head.framing == .chunked,
            connectionID: id,
            indexOnConnection: requestsOnConnection,
            tlsServerName: tlsServerName)
        requestsOnConnection += 1
        let route = core.route(for: request.path)
        let expectsContinue = head.version == .http1_1
            && head.framing != .none
            && (request.header("Expect").map { RecordedRequest.equalsIgnoringCase($0, "100-continue") } ?? false)
        hasPendingRequestBody = true
        current = (logIndex: -1, keepAlive: head.isKeepAlive, method: request.method)
        closeAfterResponse = false
        do {
            if route.bodyReading == .automatic || head.framing == .none {
                if expectsContinue { try sendContinue() }
                let (body, trailers) = try readBody()
                request.body = body
                request.trailers = trailers
                hasPendingRequestBody = false
            }
        } catch {
            return false
        }
        current!.logIndex = core.record(request)
        do {
            try route.handler(request, self)
        } catch {
            // A handler that throws (including on a write to a vanished peer) ends the connection.
            if !isClosed { close() }
            return false
        }
        if isClosed { return false }
        if hasPendingRequestBody || closeAfterResponse || !head.isKeepAlive || chunkedResponseOpen {
            close()
            return false
        }
        return true
    }

    /// Reads until the next request head. Returns nil when the peer closes between requests or
    /// the server asks this idle connection to close.
    private func readHead() throws -> HTTPRequestHeadView? {
        while true {
            let atBoundary = buffer.readableBytes == 0 && parser.isAtMessageBoundary
            if atBoundary && !core.registry.setIdle(id, true) { return nil }
            switch try parser.next(&buffer) {
            case .head(let head):
                _ = core.registry.setIdle(id, false)
                return head
            case .needMoreData:
                let more = try fill()
                _ = core.registry.setIdle(id, false)
                if !more { return nil }
                if core.registry.closeRequested(id) && atBoundary { return nil }
            case .body, .end:
                continue
            }
        }
    }

    /// Reads the current request's body to its end.
    private func readBody() throws(ServerConnectionError) -> ([UInt8], [(name: String, value: String)]) {
        var body: [UInt8] = []
        while true {
            let event: HTTPRequestParserEvent
            do { event = try parser.next(&buffer) } catch { throw ServerConnectionError(.badRequest, "\(error)") }
            switch event {
            case .body(let piece):
                body += piece.readableBytesArray()
            case .end(let trailers):
                return (body, trailers.map { (name: $0.name.string, value: $0.value.string) })
            case .needMoreData:
                guard try fill() else { throw ServerConnectionError(.badRequest, "connection closed inside the request body") }
            case .head:
                throw ServerConnectionError(.badRequest, "unexpected head")
            }
        }
    }

    /// Reads more bytes into the buffer. Returns false at EOF.
    private func fill() throws(ServerConnectionError) -> Bool {
        guard !isClosed else { throw ServerConnectionError(.closed) }
        if buffer.readableBytes == 0 { buffer.clear() }
        var failure: ServerConnectionError?
        let n = buffer.withUnsafeMutableWritableBytes(minimumCapacity: 16 * 1024) { region -> Int in
            do {
                if let tls { return try tls.read(into: region) }
                return try Socket.receive(fd, into: region)
            } catch {
                failure = ServerConnectionError(.io, "\(error)")
                return 0
            }
        }
        if let failure { throw failure }
        return n > 0
    }

    // MARK: - Response heads

    private enum Framing {
        case contentLength(Int)
        case chunked
        case asGiven
    }

    private func responseHead(status: Int, reason: String?, headers: [(String, String)], framing: Framing) -> [UInt8] {
        func has(_ name: String) -> Bool { headers.contains { RecordedRequest.equalsIgnoringCase($0.0, name) } }
        var text = "HTTP/1.1 \(status) \(reason ?? Self.reasonPhrase(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        switch framing {
        case .contentLength(let count):
            if !has("Content-Length") && !has("Transfer-Encoding") && status >= 200 && status != 204 && status != 304 {
                text += "Content-Length: \(count)\r\n"
            }
        case .chunked:
            if !has("Transfer-Encoding") { text += "Transfer-Encoding: chunked\r\n" }
        case .asGiven:
            break
        }
        // A final response sent while the request body is unread ends the connection: the
        // client may or may not send the body, so the stream cannot be resynchronised.
        let willClose = closeAfterResponse || !(current?.keepAlive ?? true) || hasPendingRequestBody
        if willClose && status >= 200 {
            closeAfterResponse = true
            if !has("Connection") { text += "Connection: close\r\n" }
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 417: "Expectation Failed"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
