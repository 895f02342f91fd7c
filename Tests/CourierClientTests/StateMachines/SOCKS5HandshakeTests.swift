import CourierTLS
import CourierTestSupport
import Testing
@testable import CourierClient

/// The SOCKS5 client handshake (RFC 1928, RFC 1929) as a value: what it sends, what it makes of
/// every reply, fed whole, split at every byte and one byte at a time.
@Suite("SOCKS5Handshake")
struct SOCKS5HandshakeTests {
    /// What one run produced: every message sent after the greeting, the outcome, and all bytes
    /// handed on after the reply (joined across the pieces they came in).
    struct Run: Equatable, CustomStringConvertible {
        var sent: [[UInt8]] = []
        var outcome: String = "needMoreData"
        var leftover: [UInt8] = []
        var description: String { "sent \(sent) → \(outcome), leftover \(leftover)" }
    }

    static func run(_ handshake: SOCKS5Handshake, _ pieces: [[UInt8]], eof: Bool = false) -> Run {
        var handshake = handshake
        var run = Run()
        func apply(_ actions: [SOCKS5Handshake.Action]) {
            for action in actions {
                switch action {
                case .send(let bytes): run.sent.append(bytes)
                case .needMoreData: run.outcome = "needMoreData"
                case .done(let bound, let port, let leftover):
                    run.outcome = "done \(bound):\(port)"
                    run.leftover += leftover
                case .fail(let error): run.outcome = "fail \(error)"
                }
            }
        }
        for piece in pieces {
            apply(handshake.receive(piece))
        }
        if eof { apply([handshake.receiveEOF()]) }
        return run
    }

    /// Runs `reply` whole, split at every byte and bytewise; every run must equal the whole one,
    /// which is returned.
    static func everyFeeding(_ handshake: SOCKS5Handshake, _ reply: [UInt8], eof: Bool = false) -> Run {
        let whole = run(handshake, [reply], eof: eof)
        for feeding in Feeding.all(count: reply.count) {
            let other = run(handshake, feeding.pieces(reply), eof: eof)
            #expect(other == whole, "\(feeding)")
        }
        return whole
    }

    static func handshake(_ destination: SOCKS5Address = .domain(Array("example.com".utf8)), port: UInt16 = 443,
                          credentials: ProxyCredentials? = nil) -> SOCKS5Handshake {
        do {
            return try SOCKS5Handshake(destination: destination, port: port, credentials: credentials)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    static let alice = ProxyCredentials(username: "alice", password: "s3cret")
    static let successV4: [UInt8] = [5, 0, 0, 1, 10, 0, 0, 7, 0x1F, 0x90]
    static let request: [UInt8] = [5, 1, 0, 3, 11] + Array("example.com".utf8) + [0x01, 0xBB]
    static let authentication: [UInt8] = [1, 5] + Array("alice".utf8) + [6] + Array("s3cret".utf8)

    // MARK: Messages sent

    @Test func greetingOffersNoAuthenticationOnlyWithoutCredentials() {
        #expect(Self.handshake().greeting == [5, 1, 0])
        #expect(Self.handshake(credentials: Self.alice).greeting == [5, 2, 0, 2])
    }

    @Test func requestCarriesEachAddressType() {
        let v4 = Self.run(Self.handshake(.ipv4([127, 0, 0, 1]), port: 80), [[5, 0]])
        #expect(v4.sent == [[5, 1, 0, 1, 127, 0, 0, 1, 0, 80]])
        let v6 = Self.run(Self.handshake(.ipv6(Array(repeating: 0, count: 15) + [1]), port: 65535), [[5, 0]])
        #expect(v6.sent == [[5, 1, 0, 4] + Array(repeating: 0, count: 15) + [1, 0xFF, 0xFF]])
        let name = Self.run(Self.handshake(), [[5, 0]])
        #expect(name.sent == [Self.request])
        #expect(name.outcome == "needMoreData")
    }

    @Test func addressFromHost() throws {
        #expect(try SOCKS5Address(host: "10.1.2.3") == .ipv4([10, 1, 2, 3]))
        #expect(try SOCKS5Address(host: "::1") == .ipv6(Array(repeating: 0, count: 15) + [1]))
        #expect(try SOCKS5Address(host: "example.com") == .domain(Array("example.com".utf8)))
        #expect(throws: SOCKSError.emptyDomainName) { try SOCKS5Address(host: "") }
        #expect(throws: SOCKSError.domainNameTooLong(bytes: 256)) { try SOCKS5Address(host: String(repeating: "a", count: 256)) }
        #expect(try SOCKS5Address(host: String(repeating: "a", count: 255)) == .domain(Array(repeating: UInt8(ascii: "a"), count: 255)))
    }

    // MARK: Successful handshakes

    @Test func noAuthentication() {
        let run = Self.everyFeeding(Self.handshake(), [5, 0] + Self.successV4)
        #expect(run == Run(sent: [Self.request], outcome: "done 10.0.0.7:8080", leftover: []))
    }

    @Test func usernamePassword() {
        let run = Self.everyFeeding(Self.handshake(credentials: Self.alice), [5, 2, 1, 0] + Self.successV4)
        #expect(run == Run(sent: [Self.authentication, Self.request], outcome: "done 10.0.0.7:8080", leftover: []))
    }

    /// Credentials were offered, the proxy wanted none: straight to the request.
    @Test func credentialsOfferedButNotWanted() {
        let run = Self.everyFeeding(Self.handshake(credentials: Self.alice), [5, 0] + Self.successV4)
        #expect(run.sent == [Self.request])
        #expect(run.outcome == "done 10.0.0.7:8080")
    }

    @Test func boundAddressOfEveryType() {
        let v6 = Self.everyFeeding(Self.handshake(), [5, 0, 5, 0, 0, 4] + Array(repeating: 0, count: 15) + [1, 0, 1])
        #expect(v6.outcome == "done 0:0:0:0:0:0:0:1:1")
        let name = Self.everyFeeding(Self.handshake(), [5, 0, 5, 0, 0, 3, 5] + Array("proxy".utf8) + [0x04, 0x38])
        #expect(name.outcome == "done proxy:1080")
        let empty = Self.everyFeeding(Self.handshake(), [5, 0, 5, 0, 0, 3, 0, 0, 0])
        #expect(empty.outcome == "done :0")
        let longest = Self.everyFeeding(Self.handshake(), [5, 0, 5, 0, 0, 3, 255] + Array(repeating: 0x61, count: 255) + [0, 9])
        #expect(longest.outcome == "done \(String(repeating: "a", count: 255)):9")
    }

    /// The bytes after the reply belong to the tunnel (the TLS handshake, the HTTP response):
    /// every one of them is handed on, however the input was cut.
    @Test func bytesAfterTheReplyAreKept() {
        let http = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        let run = Self.everyFeeding(Self.handshake(credentials: Self.alice), [5, 2, 1, 0] + Self.successV4 + http)
        #expect(run.outcome == "done 10.0.0.7:8080")
        #expect(run.leftover == http)
        // After `done`, later bytes come back as leftover too, and the end of input changes nothing.
        var handshake = Self.handshake()
        _ = handshake.receive([5, 0] + Self.successV4)
        #expect(handshake.receive([1, 2, 3]) == [.done(bound: .ipv4([10, 0, 0, 7]), port: 8080, leftover: [1, 2, 3])])
        #expect(handshake.receiveEOF() == .done(bound: .ipv4([10, 0, 0, 7]), port: 8080, leftover: []))
        #expect(handshake.isFinished)
    }

    // MARK: Hostile and failing replies

    struct Hostile: Sendable, CustomTestStringConvertible {
        var name: String
        var credentials: Bool = false
        var reply: [UInt8]
        var error: SOCKSError
        var testDescription: String { name }
    }

    static let hostile: [Hostile] = [
        .init(name: "SOCKS4 answer", reply: [0, 0x5A, 0, 0, 0, 0, 0, 0], error: .unsupportedVersion(0)),
        .init(name: "version 4 method reply", reply: [4, 0], error: .unsupportedVersion(4)),
        .init(name: "HTTP proxy answering", reply: Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8), error: .unsupportedVersion(0x48)),
        .init(name: "no acceptable methods", reply: [5, 0xFF], error: .noAcceptableMethods),
        .init(name: "GSSAPI chosen", reply: [5, 1], error: .unexpectedMethod(1)),
        .init(name: "username/password not offered", reply: [5, 2], error: .unexpectedMethod(2)),
        .init(name: "unknown method", reply: [5, 0x80], error: .unexpectedMethod(0x80)),
        .init(name: "auth reply version 5", credentials: true, reply: [5, 2, 5, 0], error: .unsupportedAuthenticationVersion(5)),
        .init(name: "auth rejected", credentials: true, reply: [5, 2, 1, 1], error: .authenticationFailed(status: 1)),
        .init(name: "auth rejected 0xFF", credentials: true, reply: [5, 2, 1, 0xFF], error: .authenticationFailed(status: 0xFF)),
        .init(name: "reply version 4", reply: [5, 0, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0], error: .unsupportedVersion(4)),
        .init(name: "ATYP 0", reply: [5, 0, 5, 0, 0, 0, 1, 2, 3, 4, 0, 0], error: .unsupportedAddressType(0)),
        .init(name: "ATYP 2", reply: [5, 0, 5, 0, 0, 2, 1, 2, 3, 4, 0, 0], error: .unsupportedAddressType(2)),
        .init(name: "ATYP 0xFF", reply: [5, 0, 5, 0, 0, 0xFF], error: .unsupportedAddressType(0xFF)),
    ] + (UInt8(1)...UInt8(10)).map { code in
        .init(name: "reply code \(code)", reply: [5, 0, 5, code, 0, 1, 0, 0, 0, 0, 0, 0], error: .requestFailed(SOCKS5Reply(code: code)))
    } + [
        .init(name: "reply code 0xFF", reply: [5, 0, 5, 0xFF], error: .requestFailed(.unassigned(0xFF))),
    ]

    @Test(arguments: hostile)
    func hostileReplyEndsInTypedError(_ c: Hostile) {
        let handshake = Self.handshake(credentials: c.credentials ? Self.alice : nil)
        // Trailing junk after the failing byte changes nothing.
        let run = Self.everyFeeding(handshake, c.reply + [9, 9, 9])
        #expect(run.outcome == "fail \(c.error)")
        #expect(run.leftover.isEmpty)
        // A failed handshake stays failed.
        var failed = handshake
        _ = failed.receive(c.reply)
        #expect(failed.receive([5, 0]) == [.fail(c.error)])
        #expect(failed.receiveEOF() == .fail(c.error))
        #expect(failed.isFinished)
    }

    @Test func replyCodesMapToTypedReplies() {
        let expected: [SOCKS5Reply] = [
            .generalFailure, .connectionNotAllowed, .networkUnreachable, .hostUnreachable, .connectionRefused, .ttlExpired,
            .commandNotSupported, .addressTypeNotSupported,
        ]
        for (index, reply) in expected.enumerated() {
            #expect(SOCKS5Reply(code: UInt8(index + 1)) == reply)
            #expect(reply.code == UInt8(index + 1))
        }
        #expect(SOCKS5Reply(code: 9) == .unassigned(9))
        #expect(SOCKS5Reply(code: 9).code == 9)
    }

    /// The proxy closing before the reply is complete, after every prefix of a good exchange.
    @Test func closeAtEveryPointBeforeTheReplyFails() {
        let exchange: [UInt8] = [5, 2, 1, 0] + Self.successV4
        for length in 0..<exchange.count {
            let run = Self.everyFeeding(Self.handshake(credentials: Self.alice), Array(exchange[..<length]), eof: true)
            #expect(run.outcome == "fail \(SOCKSError.closedDuringHandshake)", "after \(length) bytes")
        }
        let complete = Self.everyFeeding(Self.handshake(credentials: Self.alice), exchange, eof: true)
        #expect(complete.outcome == "done 10.0.0.7:8080")
    }

    @Test func emptyPiecesChangeNothing() {
        var handshake = Self.handshake()
        #expect(handshake.receive([]) == [.needMoreData])
        #expect(handshake.receive([5]) == [.needMoreData])
        #expect(handshake.receive([]) == [.needMoreData])
        #expect(handshake.receive([0]) == [.send(Self.request), .needMoreData])
    }

    // MARK: Input no handshake can carry

    @Test func inputTooLongForSOCKS5IsRefused() {
        let long = String(repeating: "x", count: 256)
        let max = String(repeating: "x", count: 255)
        let name = SOCKS5Address.domain(Array("h".utf8))
        #expect(throws: SOCKSError.usernameTooLong(bytes: 256)) {
            try SOCKS5Handshake(destination: name, port: 1, credentials: ProxyCredentials(username: long, password: "p"))
        }
        #expect(throws: SOCKSError.passwordTooLong(bytes: 256)) {
            try SOCKS5Handshake(destination: name, port: 1, credentials: ProxyCredentials(username: "u", password: long))
        }
        #expect(throws: SOCKSError.emptyUsername) {
            try SOCKS5Handshake(destination: name, port: 1, credentials: ProxyCredentials(username: "", password: "p"))
        }
        // Multi-byte characters count in bytes: 128 × "é" is 256 bytes.
        #expect(throws: SOCKSError.usernameTooLong(bytes: 256)) {
            try SOCKS5Handshake(destination: name, port: 1, credentials: ProxyCredentials(username: String(repeating: "é", count: 128), password: ""))
        }
        #expect(throws: SOCKSError.domainNameTooLong(bytes: 256)) {
            try SOCKS5Handshake(destination: .domain(Array(long.utf8)), port: 1, credentials: nil)
        }
        #expect(throws: SOCKSError.emptyDomainName) { try SOCKS5Handshake(destination: .domain([]), port: 1, credentials: nil) }
        #expect(throws: SOCKSError.unsupportedAddressType(1)) { try SOCKS5Handshake(destination: .ipv4([1, 2, 3]), port: 1, credentials: nil) }
        #expect(throws: SOCKSError.unsupportedAddressType(4)) { try SOCKS5Handshake(destination: .ipv6([1]), port: 1, credentials: nil) }
        // The limits themselves are fine, and an empty password is sent as PLEN 0 (as curl does).
        let edge = Self.handshake(.domain(Array(max.utf8)), credentials: ProxyCredentials(username: max, password: max))
        let run = Self.run(edge, [[5, 2]])
        #expect(run.sent == [[1, 255] + Array(max.utf8) + [255] + Array(max.utf8)])
        let noPassword = Self.run(Self.handshake(credentials: ProxyCredentials(username: "u", password: "")), [[5, 2]])
        #expect(noPassword.sent == [[1, 1, UInt8(ascii: "u"), 0]])
    }

    @Test func errorsDescribeThemselves() {
        #expect(SOCKSError.requestFailed(.connectionRefused).description.contains("connection refused (5)"))
        #expect(SOCKSError.authenticationFailed(status: 1).description.contains("rejected the credentials"))
        // A domain is printed escaped.
        #expect(SOCKS5Address.domain([0x0A, 0x61]).description == "\\na")
    }
}

/// Connections through different proxies, proxy kinds or proxy users are never shared: the
/// proxy, whole, is part of the pool key.
@Suite("SOCKS5 pool keys")
struct SOCKSPoolKeyTests {
    @Test func everyProxyPropertySeparatesKeys() throws {
        let origin = try HTTPURL("https://example.com/").origin
        func key(_ proxy: ProxyServer?) -> PoolKey { PoolKey(origin: origin, tls: TLSConfiguration(), proxy: proxy) }
        let alice = ProxyCredentials(username: "alice", password: "a")
        let proxies: [ProxyServer?] = [
            nil,
            try ProxyServer(host: "127.0.0.1", port: 1080),
            try ProxyServer(host: "127.0.0.1", port: 1080, scheme: .socks5),
            try ProxyServer(host: "127.0.0.1", port: 1080, scheme: .socks5h),
            try ProxyServer(host: "127.0.0.1", port: 1081, scheme: .socks5h),
            try ProxyServer(host: "127.0.0.2", port: 1080, scheme: .socks5h),
            try ProxyServer(host: "127.0.0.1", port: 1080, credentials: alice, scheme: .socks5h),
            try ProxyServer(host: "127.0.0.1", port: 1080, credentials: ProxyCredentials(username: "alice", password: "b"), scheme: .socks5h),
            try ProxyServer(host: "127.0.0.1", port: 1080, credentials: ProxyCredentials(username: "bob", password: "a"), scheme: .socks5h),
        ]
        let keys = proxies.map(key)
        #expect(Set(keys).count == keys.count)
        // The same settings made twice share.
        #expect(key(try ProxyServer(parsing: "socks5h://alice:a@127.0.0.1:1080")) == keys[6])
        // The description names the kind and never the credentials.
        #expect(keys[6].description.hasSuffix(" via socks5h://127.0.0.1:1080"))
        #expect(!keys[6].description.contains("alice"))
    }
}
