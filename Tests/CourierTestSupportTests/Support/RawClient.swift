#if canImport(Glibc)
import Glibc
#endif
import CCourierOpenSSL
import CourierCore
import CourierHTTP1
import CourierTestSupport

/// A failure in the raw test client, with errno or OpenSSL's error text.
struct RawClientError: Error, CustomStringConvertible {
    let description: String
    var errno: Int32 = 0
}

/// A parsed response as the raw client read it.
struct RawResponse {
    var informational: [Int] = []
    var status = 0
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var bodyString: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// A tiny blocking client socket for exercising the test servers: it writes exactly what a
/// test says and reads with a receive timeout, so a broken server fails a test instead of
/// hanging it. Optionally speaks TLS through OpenSSL directly (no CourierTLS involved).
final class RawClient {
    let fd: Int32
    private var ssl: OpaquePointer?
    private var sslContext: OpaquePointer?
    private var buffer = ByteBuffer()
    private var parser = HTTPResponseParser()
    private var closed = false

    init(port: Int, host: String = "127.0.0.1", receiveTimeoutMilliseconds: Int = 10_000) throws {
        let isV6 = host.contains(":")
        fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError(description: "socket", errno: errno) }
        Self.setTimeout(fd, receiveTimeoutMilliseconds)
        let rc: Int32
        if isV6 {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &sin6.sin6_addr)
            rc = Self.connect(fd, to: &sin6)
        } else {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &sin.sin_addr)
            rc = Self.connect(fd, to: &sin)
        }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw RawClientError(description: "connect \(host):\(port)", errno: e)
        }
    }

    init(unixPath: String, receiveTimeoutMilliseconds: Int = 10_000) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError(description: "socket", errno: errno) }
        Self.setTimeout(fd, receiveTimeoutMilliseconds)
        var sun = sockaddr_un()
        sun.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(unixPath.utf8)
        withUnsafeMutableBytes(of: &sun.sun_path) { $0.copyBytes(from: bytes) }
        let rc = Self.connect(fd, to: &sun)
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw RawClientError(description: "connect \(unixPath)", errno: e)
        }
    }

    deinit { close() }

    /// `connect(2)` to a `sockaddr_in`, `sockaddr_in6` or `sockaddr_un`.
    private static func connect<Address>(_ fd: Int32, to address: inout Address) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }

    static func setTimeout(_ fd: Int32, _ milliseconds: Int) {
        var tv = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func close() {
        guard !closed else { return }
        closed = true
        if let ssl { SSL_free(ssl) }
        if let sslContext { SSL_CTX_free(sslContext) }
        ssl = nil
        sslContext = nil
        Glibc.close(fd)
    }

    // MARK: TLS

    /// Runs a TLS client handshake that trusts `ca`, checks `host`, and optionally presents a
    /// client certificate.
    func startTLS(host: String = "localhost", ca: String = "ca.pem", certificate: String? = nil, key: String? = nil) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw tlsError("SSL_CTX_new") }
        sslContext = context
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        guard SSL_CTX_load_verify_locations(context, TestCertificates.path(ca), nil) == 1 else { throw tlsError("load CA") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let certificate, let key {
            guard SSL_CTX_use_certificate_chain_file(context, TestCertificates.path(certificate)) == 1,
                  SSL_CTX_use_PrivateKey_file(context, TestCertificates.path(key), SSL_FILETYPE_PEM) == 1
            else { throw tlsError("client certificate") }
        }
        guard let ssl = SSL_new(context) else { throw tlsError("SSL_new") }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        _ = host.withCString {
            SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0))
        }
        SSL_set1_host(ssl, host)
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else { throw tlsError("SSL_connect") }
    }

    var isTLS: Bool { ssl != nil }

    private func tlsError(_ what: String) -> RawClientError {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            messages.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return RawClientError(description: "\(what): \(messages.joined(separator: "; "))")
    }

    /// The last read's outcome: how a TLS stream ended.
    enum End: Equatable {
        case cleanEOF
        /// TLS: the peer's close_notify.
        case closeNotify
        /// TLS: EOF without close_notify (OpenSSL 3: SSL_ERROR_SSL "unexpected eof").
        case truncated
        case error(Int32)
    }

    // MARK: I/O

    func send(_ string: String) throws { try send(Array(string.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        if let ssl {
            var written = 0
            ERR_clear_error()
            guard bytes.withUnsafeBytes({ SSL_write_ex(ssl, $0.baseAddress, $0.count, &written) }) == 1 else {
                throw tlsError("SSL_write")
            }
            return
        }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawClientError(description: "send", errno: errno) }
            offset += n
        }
    }

    /// Reads some bytes: `.success(bytes)` (empty at EOF) or how the read failed.
    func readSome() -> Result<[UInt8], RawClientError> {
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        if let ssl {
            var count = 0
            ERR_clear_error()
            let ok = scratch.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, $0.count, &count) }
            if ok == 1 { return .success(Array(scratch[0..<count])) }
            let error = SSL_get_error(ssl, 0)
            lastEnd = error == SSL_ERROR_ZERO_RETURN ? .closeNotify : (error == SSL_ERROR_SSL ? .truncated : .error(errno))
            if error == SSL_ERROR_ZERO_RETURN { return .success([]) }
            return .failure(tlsError("SSL_read (error \(error))"))
        }
        let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 {
            lastEnd = .error(errno)
            return .failure(RawClientError(description: "recv", errno: errno))
        }
        if n == 0 { lastEnd = .cleanEOF }
        return .success(Array(scratch[0..<n]))
    }

    private(set) var lastEnd: End?

    /// Reads until EOF. Returns the bytes and how the stream ended.
    func readToEnd() -> ([UInt8], End) {
        var all: [UInt8] = []
        while true {
            switch readSome() {
            case .success(let bytes) where bytes.isEmpty: return (all, lastEnd ?? .cleanEOF)
            case .success(let bytes): all += bytes
            case .failure: return (all, lastEnd ?? .error(0))
            }
        }
    }

    /// Reads exactly `count` bytes (or fewer at EOF).
    func read(count: Int) throws -> [UInt8] {
        var all = buffer.readableBytesArray()
        buffer.clear()
        while all.count < count {
            let bytes = try readSome().get()
            if bytes.isEmpty { break }
            all += bytes
        }
        if all.count > count {
            buffer.writeBytes(all[count...])
            all = Array(all[..<count])
        }
        return all
    }

    /// Reads one response (after any 1xx) with Courier's response parser.
    func readResponse(method: HTTPMethod = .GET) throws -> RawResponse {
        parser.requestMethod = method
        var response = RawResponse()
        var sawEOF = false
        while true {
            let event = sawEOF ? try parser.finish(&buffer) : try parser.next(&buffer)
            switch event {
            case .informational(let head):
                response.informational.append(head.status)
            case .head(let head), .switchingProtocols(let head):
                response.status = head.status
                response.headers = head.headers.map { ($0.name.string, $0.value.string) }
                if case .switchingProtocols = event { return response }
            case .body(let piece):
                response.body += piece.readableBytesArray()
            case .end:
                // After a 2xx to CONNECT the stream is a tunnel: start a fresh parser for
                // whatever is spoken inside it.
                if parser.isUpgraded { parser = HTTPResponseParser() }
                return response
            case .needMoreData:
                if sawEOF { throw RawClientError(description: "EOF before a response") }
                let bytes = try readSome().get()
                if bytes.isEmpty { sawEOF = true } else { buffer.writeBytes(bytes) }
            }
        }
    }

    /// Sends a simple request and reads its response.
    func get(_ path: String, host: String = "test", extraHeaders: String = "") throws -> RawResponse {
        try send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\(extraHeaders)\r\n")
        return try readResponse()
    }
}
