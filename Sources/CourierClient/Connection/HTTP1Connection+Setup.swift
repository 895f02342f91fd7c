#if canImport(Glibc)
import Glibc
#endif
import CourierCore
import CourierHTTP1
import CourierPosix
import CourierTLS

/// Establishing a connection: Happy Eyeballs (or a Unix path), a CONNECT tunnel through a proxy,
/// the TLS handshake; then the pool hears `connectionEstablished` or `connectionFailed`.
extension HTTP1Connection {

    /// Connects, tunnels and handshakes; reports to the pool when ready or failed.
    func start() {
        loop.assertInEventLoop()
        // The pool may have closed this connection (shutdown) before its start job ran.
        guard phase == .connecting, connector == nil else { return }
        let now = Deadline.now()
        establishment.resolveStart = now
        establishment.connectStart = now
        connectDeadline = timeouts.connect.map { now + $0 }
        let deadline = connectDeadline ?? .distantFuture
        let completion: (Result<ConnectedSocket, ConnectError>) -> Void = { [self] result in
            connector = nil
            switch result {
            case .success(let socket): self.connected(socket)
            case .failure(let error): setupFailed(Self.clientError(error))
            }
        }
        if let proxy = key.proxy {
            connector = Connector.connect(host: proxy.host, port: proxy.port, deadline: deadline, on: loop, resolver: pool.resolver, completion)
        } else if let path = key.origin.scheme == .unix ? key.origin.host : nil {
            connector = Connector.connect(unixPath: path, deadline: deadline, on: loop, resolver: pool.resolver, completion)
        } else {
            connector = Connector.connect(host: key.origin.host, port: key.origin.port, deadline: deadline, on: loop, resolver: pool.resolver, completion)
        }
    }

    static func clientError(_ error: ConnectError) -> ClientError {
        switch error {
        case .timeout: ClientError(.connectTimeout, cause: error)
        case .cancelled: ClientError(.cancelled, cause: error)
        case .resolution: ClientError(.resolutionFailed, cause: error, detail: error.description)
        case .connectionFailed: ClientError(.connectionFailed, cause: error, detail: error.description)
        }
    }

    func connected(_ connected: ConnectedSocket) {
        guard phase == .connecting else { connected.socket.close(); return }
        establishment.resolveEnd = connected.resolved
        establishment.resolution = connected.resolution
        establishment.connectEnd = connected.connected
        establishment.remoteAddress = connected.remoteAddress
        establishment.localAddress = connected.socket.localAddress
        socket = connected.socket
        do {
            registration = try loop.register(connected.socket.descriptor, interest: .read, handler: self)
            interest = .read
        } catch {
            setupFailed(ClientError(.connectionFailed, cause: error))
            return
        }
        let handshakeDeadline = timeouts.tlsHandshake.map { Deadline.after($0) }
        if let proxy = key.proxy, proxy.scheme.isSOCKS {
            startSOCKS(proxy)
        } else if key.proxy != nil && key.origin.scheme == .https {
            armSetupTimer(handshakeDeadline, code: .tlsHandshakeTimeout, detail: "proxy CONNECT")
            startProxyTunnel()
        } else if key.origin.scheme == .https {
            armSetupTimer(handshakeDeadline, code: .tlsHandshakeTimeout, detail: "TLS handshake")
            startTLS()
        } else {
            becomeReady()
        }
    }

    func armSetupTimer(_ deadline: Deadline?, code: ClientError.Code, phase: ClientError.Phase? = nil, detail: String) {
        guard let deadline, setupTimer == nil else { return }
        setupTimer = loop.scheduleTimer(at: deadline) { [self] in
            setupTimer = nil
            setupFailed(ClientError(code, phase: phase, detail: detail))
        }
    }

    /// RFC 9110 §9.3.6: `CONNECT host:port`, with Basic proxy credentials when configured.
    func startProxyTunnel() {
        phase = .proxyHandshake
        // The target's host is a uri-host (RFC 3986 §3.2.2): an IPv6 address goes in brackets.
        let uriHost = key.origin.host.contains(":") ? "[\(key.origin.host)]" : key.origin.host
        let authority = "\(uriHost):\(key.origin.port)"
        var head = HTTPRequestHead(method: .CONNECT, target: .authority(host: uriHost, port: key.origin.port))
        if let credentials = key.proxy?.credentials {
            do {
                let value = try basicAuthorizationValue(username: credentials.username, password: credentials.password)
                try head.headers.append(name: "Proxy-Authorization", value: value)
            } catch {
                setupFailed(ClientError(.invalidRequest, phase: .proxy, cause: error))
                return
            }
        }
        var bytes = ByteBuffer()
        do {
            try HTTPRequestEncoder.encodeHead(head, host: authority, framing: .none, into: &bytes)
        } catch {
            setupFailed(ClientError(.invalidRequest, phase: .proxy, cause: error))
            return
        }
        var parser = HTTPResponseParser(configuration: configuration.parser)
        parser.requestMethod = .CONNECT
        proxyParser = parser
        writePlain(bytes)
    }

    func continueProxyTunnel(eof: Bool) {
        guard var parser = proxyParser else { return }
        while true {
            let event: HTTPResponseParserEvent
            do {
                event = eof ? try parser.finish(&readBuffer) : try parser.next(&readBuffer)
            } catch {
                setupFailed(ClientError(.parse, phase: .proxy, cause: error))
                return
            }
            switch event {
            case .needMoreData:
                proxyParser = parser
                if eof { setupFailed(ClientError(.remoteClosedBeforeResponse, phase: .proxy, detail: "the proxy closed during CONNECT")) }
                return
            case .informational:
                continue
            case .head(let head), .switchingProtocols(let head):
                guard (200...299).contains(head.status) else {
                    setupFailed(ClientError(.unexpectedResponse, phase: .proxy, detail: "the proxy refused CONNECT with status \(head.status)"))
                    return
                }
                // The rest of the read buffer already belongs to the tunnel.
                proxyParser = nil
                if key.origin.scheme == .https {
                    cipherIn = readBuffer
                    readBuffer = ByteBuffer()
                    startTLS()
                } else {
                    becomeReady()
                }
                return
            case .body, .end:
                setupFailed(ClientError(.unexpectedResponse, phase: .proxy, detail: "the proxy sent a body with its CONNECT answer"))
                return
            }
        }
    }

    func startTLS() {
        phase = .tlsHandshake
        establishment.tlsStart = .now()
        let tlsConfiguration = key.tls ?? configuration.tls
        if let context = pool.cachedTLSContext(for: tlsConfiguration) {
            beginHandshake(context)
            return
        }
        // The first connection with this configuration: the context is built off the loop (it
        // reads files); the setup timer keeps running meanwhile.
        pool.buildTLSContext(for: tlsConfiguration, on: loop) { [self] result in
            // Failed, timed out or closed while the context was built.
            guard phase == .tlsHandshake, tls == nil else { return }
            switch result {
            case .success(let context): beginHandshake(context)
            case .failure(let error): setupFailed(ClientError(.tls, cause: error, detail: "\(error)"))
            }
        }
    }

    func beginHandshake(_ context: TLSContext) {
        let engine: TLSEngine
        do {
            engine = try TLSEngine(context: context, serverHostname: key.origin.host)
        } catch {
            setupFailed(ClientError(.tls, cause: error, detail: "\(error)"))
            return
        }
        tls = engine
        if let sessions = pool.tlsSessions {
            let sessionKey = TLSSessionKey(host: key.origin.host, port: key.origin.port,
                                           serverName: engine.serverName, configuration: context.configuration)
            if let session = sessions.take(for: sessionKey) { engine.offer(session) }
            engine.onNewSession = { session in sessions.store(session, for: sessionKey) }
            engine.onSessionsInvalidated = { invalid in sessions.remove(invalid, for: sessionKey) }
        }
        if cipherIn.readableBytes > 0 { engine.feedCiphertext(cipherIn); cipherIn.clear() }
        // Bytes read while the context was being built went to the plaintext buffer (no engine
        // yet): they are the server's first ciphertext.
        if readBuffer.readableBytes > 0 { engine.feedCiphertext(readBuffer); readBuffer.clear() }
        continueTLS()
    }

    func continueTLS() {
        guard let tls else { return }
        do {
            let state = try tls.handshake()
            flushTLS()
            if state == .complete {
                establishment.tlsEnd = .now()
                establishment.tlsInfo = tls.connectionInfo
                // The evaluator the key names (the requests' own), else the client's.
                if let evaluator = key.trustEvaluator?.evaluate ?? configuration.serverTrustEvaluator {
                    // Fail closed: an evaluator that cannot see the connection cannot accept it.
                    guard let info = tls.connectionInfo else {
                        setupFailed(ClientError(.serverTrustRejected, detail: "no TLS connection information for \(key.origin.host)"))
                        return
                    }
                    let context = ServerTrustContext(host: key.origin.host, port: key.origin.port, connection: info)
                    let detail = "the server trust evaluator rejected \(key.origin.host)"
                    do {
                        guard try evaluator(context) else {
                            setupFailed(ClientError(.serverTrustRejected, detail: detail))
                            return
                        }
                    } catch {
                        // The evaluator's reason (a pinning failure, say) is the cause.
                        setupFailed(ClientError(.serverTrustRejected, cause: error, detail: detail))
                        return
                    }
                }
                becomeReady()
                // Application data may have arrived with the last handshake flight.
                readTLSPlaintext()
            }
        } catch {
            flushTLS()
            setupFailed(ClientError(.tls, cause: error, detail: error.description))
        }
    }

    func becomeReady() {
        // A nested write failure may have failed and closed the connection meanwhile.
        guard phase != .closed else { return }
        if let setupTimer { loop.cancelTimer(setupTimer) }
        setupTimer = nil
        phase = .ready
        pool.connectionEstablished(self)
    }

    func setupFailed(_ error: ClientError) {
        guard phase != .closed && phase != .ready else { return }
        connector?.cancel()
        connector = nil
        closeSocket()
        pool.connectionFailed(self, error: error)
    }
}
