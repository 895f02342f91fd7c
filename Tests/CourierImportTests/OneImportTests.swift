import Courier
import Testing

// This file imports `Courier` and nothing else (besides Testing), on purpose: it proves that
// everything the public API and `SessionConfiguration` need is re-exported (issue 9, item 2.6).
// Every type below is named explicitly, so a missing re-export fails to compile here.

@Suite("One import configures everything")
struct OneImportTests {
    @Test func sessionConfigurationEveryProperty() throws {
        var configuration = SessionConfiguration()
        // The transport.
        var client: HTTPClientConfiguration = HTTPClientConfiguration()
        var tls: TLSConfiguration = .clientDefault
        tls.trustRoots = [TrustRoot.system]
        tls.minimumVersion = TLSVersion.tls1_2
        tls.maximumVersion = nil
        tls.verification = CertificateVerification.full
        tls.applicationProtocols = ["http/1.1"]
        client.tls = tls
        var timeouts: HTTPClientTimeouts = .default
        timeouts.connect = TimeAmount.seconds(5)
        timeouts.tlsHandshake = .seconds(5)
        timeouts.idleRead = .milliseconds(30_000)
        timeouts.total = nil
        client.timeouts = timeouts
        client.maximumConnectionsPerHost = 4
        client.idleConnectionTimeout = .seconds(30)
        client.maximumUsesPerConnection = 100
        var redirects: RedirectConfiguration = .default
        redirects.maximum = 16
        redirects.allowHTTPSToHTTP = false
        redirects.follow = true
        client.redirects = redirects
        client.redirects = RedirectConfiguration.disabled
        client.decompression = true
        var limits: ContentDecoderLimits = .default
        limits.maxDecodedBytes = 1 << 30
        client.decompressionLimits = limits
        client.proxy = ProxyConfiguration.none
        client.serverTrustEvaluator = nil
        var parser: HTTPParserConfiguration = .default
        parser.maxFieldCount = 128
        client.parser = parser
        client.poolWaitTimeout = .seconds(10)
        client.eventLoopThreads = 1
        client.busyPoll = nil
        configuration.client = client
        // The session layer.
        var headers = HTTPFields()
        try headers.append(name: "X-Client", value: "one-import")
        configuration.httpAdditionalHeaders = headers
        configuration.timeoutIntervalForResource = 600
        configuration.maximumInMemoryBodySize = 1 << 20
        configuration.downloadWriteBufferSize = 1 << 20
        configuration.progressInterval = 0.1
        let temporary: URL = configuration.temporaryDirectory
        configuration.temporaryDirectory = temporary
        configuration.responseCache = MemoryResponseCache(capacity: 1 << 20)
        #expect(configuration.client.redirects.follow == false)
        #expect(RedirectConfiguration().maximum == 16)
    }

    @Test func requestsSerializersAndMultipart() throws {
        let url = try #require(URL(string: "https://alice:pw@example.com/v1/items"))
        var request = Request(url: url, method: HTTPMethod.POST, timeoutInterval: 30, totalTimeoutInterval: 60)
        try request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.body = RequestBody.data(Data("{}".utf8))
        #expect(request.totalTimeoutInterval == 60)

        let http = HTTPRequestSerializer()
        _ = JSONRequestSerializer(http: http)
        _ = PropertyListRequestSerializer(http: http)
        let serialized = try http.request(method: .GET, urlString: "https://example.com/x", parameters: ["a": 1])
        #expect(serialized.url.query == "a=1")
        _ = HTTPResponseSerializer()
        _ = JSONResponseSerializer()
        _ = StringResponseSerializer()
        struct Item: Decodable, Sendable { var id: Int }
        _ = PropertyListResponseSerializer<Item>()
        _ = DecodableResponseSerializer(Item.self)

        let form = MultipartFormData()
        try form.appendPart(data: Data("v".utf8), name: "k")
        let body: RequestBody = form.makeBody()
        #expect(body.length == form.contentLength)

        // A body stream of the transport, with its wait (TimeAmount) and bytes (ByteBuffer).
        struct Pieces: HTTPClientBodyStream {
            var left = 1
            mutating func next() throws -> ByteBuffer? {
                defer { left -= 1 }
                return left > 0 ? ByteBuffer(string: "x") : nil
            }
            var waitAfterEmptyPiece: TimeAmount? { .milliseconds(5) }
        }
        _ = RequestBody.stream(length: 1) { Pieces() }
    }

    @Test func securityPolicyAndManagers() throws {
        let policy = try SecurityPolicy(publicKeyPins: ["sha256/" + String(repeating: "A", count: 43) + "="])
        #expect(policy.pinningMode == SSLPinningMode.publicKey)
        let table = SecurityPolicyTable(default: .default)
        try table.setPolicy(policy, forHost: "example.com")
        let evaluator: ServerTrustEvaluator = table.evaluator
        _ = evaluator
        var configuration = SessionConfiguration()
        configuration.client.eventLoopThreads = 1
        let manager = try HTTPSessionManager(
            baseURL: URL(string: "https://example.com/v1"), configuration: configuration, securityPolicy: .default)
        manager.requestSerializer = JSONRequestSerializer()
        manager.responseSerializer = JSONResponseSerializer().erased
        manager.session.updateHooks { hooks in
            hooks.taskWillPerformHTTPRedirection = { _, _, next in next }
            hooks.taskDidComplete = { _, error in _ = error?.phase }
        }
        manager.session.invalidate(cancelingTasks: true)
        // A manager on a client of the caller's (shared clients).
        let client: HTTPClient = try HTTPClient(configuration: configuration.client)
        let onShared = try HTTPSessionManager(baseURL: URL(string: "https://example.com/v1"), client: client)
        _ = SharedServerTrustEvaluator(evaluator)
        var request = try onShared.request(method: .GET, path: "items", parameters: nil) { request in
            request.validation = ResponseValidator(acceptableStatusCodes: [200])
            request.redirects = RedirectConfiguration.disabled
            try request.setBasicAuthorization(Credential(user: "a", password: "b"))
        }
        request.timeoutInterval = 5
        #expect(request.validation != nil)
        onShared.invalidate(cancelingTasks: true)
        client.shutdown()
    }

    @Test func errorsByPhase() {
        for phase in CourierError.Phase.allCases {
            let error = CourierError(.transport, phase: phase)
            switch error.phase {
            case .serialize, .adapt, .resolve, .connect, .tls, .trust, .send, .receive, .parse, .decode, .redirect, .validate,
                .decodeBody, .file, .cancelled:
                #expect(error.phase == phase)
            }
        }
        for phase in ClientError.Phase.allCases {
            switch ClientError(.ioError, phase: phase).phase {
            case .resolve, .connect, .tls, .send, .receive, .parse, .decode, .redirect, .proxy, .pool, .cancelled:
                break
            }
        }
        // The errors a CourierError may wrap are all nameable.
        let causes: [any Error] = [
            ClientError(.totalTimeout), RedirectError.tooManyRedirects(17),
            HTTPURLError(reason: .invalidHost, input: "http://[/"), BasicAuthorizationError(reason: .colonInUsername),
        ]
        #expect(causes.count == 4)
        let trust: TrustFailure? = nil
        let verification: CertificateVerificationFailure = .expired
        #expect(trust == nil && verification == .expired)
        #expect(CourierError.Code.resourceTimeout.defaultPhase == .receive)
        let metrics: HTTPClientMetrics? = nil
        let address: SocketAddress? = metrics?.remoteAddress
        let start: Deadline? = metrics?.fetchStart
        #expect(address == nil && start == nil)
        let source: ResolutionSource? = metrics?.resolution
        let dns: DNSCacheConfiguration? = HTTPClientConfiguration().dnsCache
        #expect(source == nil && dns?.ttl == .seconds(60))
    }

    @Test func reachabilityTypes() throws {
        let manager = try ReachabilityManager(address: "127.0.0.1")
        let status: ReachabilityStatus = manager.status
        _ = status.isReachable
        let error: ReachabilityError? = nil
        #expect(error == nil)
    }
    /// The delegate-based transport (what `courier bench` drives) is nameable with `import Courier`.
    @Test func delegateTransportTypes() throws {
        final class Probe: HTTPClientResponseDelegate {
            var status = 0
            func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) { status = head.status }
            func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand { .more }
            func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {}
            func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {}
        }
        let body: HTTPClientRequestBody = .string("x")
        let request = try HTTPClientRequest(method: .POST, url: "http://127.0.0.1:9/", body: body)
        #expect(request.body != nil)
        let group = try EventLoopGroup(numberOfThreads: 1)
        defer { group.shutdown() }
        let loop: EventLoop = group.next()
        #expect(loop.submitAndWait { loop.inEventLoop })
        #expect(Probe().status == 0)
    }
}
