import Courier
import CourierClient
import CourierCore
import CourierTestSupport
import CourierTLS
import FoundationEssentials
import Testing

/// Regressions for what a review of the security policy, multipart and serializers found.
@Suite(.serialized) struct PolicyReviewRegressionTests {
    typealias H = PinningHarness

    /// A pin set for a host after a connection to it was pooled applies to the next request:
    /// the pooled connection was judged without the pins and must not be reused.
    @Test func aPinSetLaterIsNotBypassedByAPooledConnection() throws {
        let table = SecurityPolicyTable()
        try H.withServer("valid-chain.pem", "valid.key", table: table) { client, server in
            let url = "https://localhost:\(server.port)/hello"
            #expect(try H.fetch(client, table, url).status == 200)
            #expect(client.openConnectionCount == 1, "an idle connection is pooled")
            let wrong = "sha256/" + Data(repeating: 9, count: 32).base64EncodedString()
            try table.setPolicy(try SecurityPolicy(publicKeyPins: [wrong]), forHost: "localhost")
            let pinned = try H.fetch(client, table, url)
            #expect(pinned.error?.code == .serverTrustRejected, "a new connection was made and judged by the pins")
            #expect(server.requests.count == 1, "no request reached the server under the wrong pin")
        }
    }

    /// Once pins expire the policy is exactly the default one: hostname checking comes back too.
    @Test func expiredPinsRestoreHostnameVerification() throws {
        let policy = try SecurityPolicy(
            publicKeyPins: [try H.pin("wronghost.pem")], validatesDomainName: false, pinsExpire: Date(timeIntervalSince1970: 0))
        #expect(policy.tlsConfiguration(base: H.base).verification == .full)
        #expect(policy.tlsConfiguration(base: H.base).poolPartition == nil, "no pins in force: the shared pool")
        let live = try SecurityPolicy(publicKeyPins: [try H.pin("wronghost.pem")], validatesDomainName: false)
        #expect(live.tlsConfiguration(base: H.base).verification == .noHostnameVerification)
        #expect(live.tlsConfiguration(base: H.base).poolPartition != nil)
    }

    /// Host patterns are written the way request hosts are, or refused (they could never match).
    @Test func hostPatternsAreCanonicalOrRefused() throws {
        let table = SecurityPolicyTable()
        let pinned = try SecurityPolicy(publicKeyPins: [try H.pin("valid.pem")])
        try table.setPolicy(pinned, forHost: "[2001:DB8:0:0:0:0:0:1]")
        #expect(table.policy(forHost: "2001:db8::1") == pinned, "IPv6 patterns are canonicalised (RFC 5952)")
        for bad in ["bücher.example", "api.example.com:443", "https://api.example.com", "a b.example", "user@host"] {
            #expect(throws: CourierError.self, "\(bad)") { try table.setPolicy(pinned, forHost: bad) }
        }
    }

    /// A request body stream that stays empty (waiting for another thread) is asked again with a
    /// pause once it keeps coming back empty, instead of spinning the event loop.
    @Test func aStreamThatStaysEmptyDoesNotSpinTheLoop() throws {
        struct Late: HTTPClientBodyStream {
            let ready: TestEvent
            let calls: Counter
            var sent = false
            mutating func next() throws -> ByteBuffer? {
                calls.add(1)
                guard !sent else { return nil }
                guard ready.isSignaled else { return ByteBuffer() }
                sent = true
                return ByteBuffer(string: "late")
            }
        }
        try withSession { manager, server in
            server.route("/up") { request, connection in try connection.respond(body: request.body) }
            let ready = TestEvent()
            let calls = Counter()
            var request = Request(url: url(server, "/up"), method: .POST)
            request.body = .stream(length: 4) { Late(ready: ready, calls: calls) }
            let outcome = Outcome<DataResponse<Data>>()
            manager.dataTask(with: request) { outcome.set($0) }.resume()
            #expect(waitUntil(timeout: .seconds(5)) { calls.value > 20 }, "the stream is being asked")
            let before = calls.value
            _ = TestEvent().wait(timeout: .milliseconds(100))
            let during = calls.value - before
            ready.signal()
            let response = try #require(outcome.wait())
            #expect(response.value == Data("late".utf8))
            // At most ~1 ask per millisecond once it kept coming back empty (a spin would be millions).
            #expect(during < 1_000, "\(during) asks in 100 ms")
        }
    }

    /// A typed Encodable inside untyped containers is written by the encoder, not refused.
    @Test func typedValuesInsideContainersAreEncoded() throws {
        struct Item: Encodable, Sendable { var a: Int }
        let json = try JSONRequestSerializer(outputFormatting: .sortedKeys).encode([Item(a: 1), Item(a: 2)])
        #expect(String(decoding: json, as: UTF8.self) == #"[{"a":1},{"a":2}]"#)
        let keyed = try JSONRequestSerializer(outputFormatting: .sortedKeys).encode(["items": [Item(a: 3)]] as [String: any Sendable])
        #expect(String(decoding: keyed, as: UTF8.self) == #"{"items":[{"a":3}]}"#)
        let plist = try PropertyListRequestSerializer().encode([Item(a: 4)])
        #expect(String(decoding: plist, as: UTF8.self).contains("<integer>4</integer>"))
    }

    /// A huge AFNetworking-style packet rate does not trap.
    @Test func aHugeThrottleRateIsClamped() {
        let form = MultipartFormData()
        form.throttleBandwidth(packetSize: 1 << 62, delay: 0.001)
        #expect(form.bytesPerSecond == Int.max)
    }

    /// AFNetworking sends `Data` parameters of a multipart request as they are.
    @Test func dataParametersOfAMultipartRequestAreSentRaw() throws {
        try withHTTPManager(baseURL: "http://multipart.test/") { manager in
            let request = try manager.multipartRequest(
                path: "up", parameters: ["avatar": Data([0x00, 0xFF, 0x0D, 0x0A]), "name": "n", "tags": ["a"]] as Parameters) { _ in }
            guard case .stream(let length, let makeStream) = request.body else {
                Issue.record("not a streamed body")
                return
            }
            var stream = makeStream()
            var bytes: [UInt8] = []
            while let piece = try stream.next() { bytes += piece.readableBytesArray() }
            #expect(Int64(bytes.count) == length)
            let text = String(decoding: bytes, as: UTF8.self)
            let raw: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0xFF, 0x0D, 0x0A, 0x0D, 0x0A]
            #expect(bytes.indices.contains { bytes[$0...].starts(with: raw) }, "the bytes follow the part head as they are")
            #expect(text.contains(#"name="avatar""#) && text.contains(#"name="name""#) && text.contains(#"name="tags[]""#))
        }
    }
}
