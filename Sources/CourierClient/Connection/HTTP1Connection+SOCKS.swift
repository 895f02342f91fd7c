import CourierCore
import CourierPosix

/// The SOCKS5 tunnel (RFC 1928, RFC 1929): after the TCP connect to the proxy and before TLS,
/// in the place of an HTTP proxy's CONNECT. ``SOCKS5Handshake`` decides; this file sends what
/// it says, feeds it what is read and hands the bytes after its reply to TLS or HTTP.
///
/// The handshake is part of connecting to the origin: it is bounded by the connect deadline
/// the TCP connect started under (without a connect timeout, by the TLS handshake timeout, as a
/// CONNECT exchange is). For `socks5` the origin's name is resolved here first (the first
/// address `getaddrinfo` gives, as curl does), within the same deadline.
extension HTTP1Connection {

    func startSOCKS(_ proxy: ProxyServer) {
        phase = .proxyHandshake
        let fallback = timeouts.tlsHandshake.map { Deadline.after($0) }
        armSetupTimer(connectDeadline ?? fallback, code: .connectTimeout, phase: .proxy, detail: "SOCKS5 handshake")
        let destination: SOCKS5Address?
        do {
            destination = try proxy.socksDestination(host: key.origin.host)
        } catch {
            setupFailed(ClientError(.invalidRequest, phase: .proxy, cause: error, detail: error.description))
            return
        }
        if let destination {
            beginSOCKS(destination)
            return
        }
        // `socks5`: this client resolves the name and sends the proxy an address.
        socksLookup = pool.resolver.resolve(host: key.origin.host, port: key.origin.port, on: loop) { [self] result in
            socksLookup = nil
            // Failed, timed out or closed meanwhile.
            guard phase == .proxyHandshake, socks == nil else { return }
            switch result {
            case .success(let addresses):
                guard let address = addresses.lazy.compactMap({ try? SOCKS5Address(host: $0.host) }).first(where: Self.isAddress) else {
                    setupFailed(ClientError(.resolutionFailed, phase: .proxy, detail: "\(key.origin.host) has no IP address"))
                    return
                }
                beginSOCKS(address)
            case .failure(.cancelled):
                return
            case .failure(let error):
                setupFailed(ClientError(.resolutionFailed, phase: .proxy, cause: error, detail: error.description))
            }
        }
    }

    private static func isAddress(_ address: SOCKS5Address) -> Bool {
        if case .domain = address { return false }
        return true
    }

    private func beginSOCKS(_ destination: SOCKS5Address) {
        guard let port = UInt16(exactly: key.origin.port) else {
            setupFailed(ClientError(.invalidURL, phase: .proxy, detail: "port \(key.origin.port)"))
            return
        }
        let handshake: SOCKS5Handshake
        do {
            handshake = try SOCKS5Handshake(destination: destination, port: port, credentials: key.proxy?.credentials)
        } catch {
            setupFailed(ClientError(.invalidRequest, phase: .proxy, cause: error, detail: error.description))
            return
        }
        socks = handshake
        writePlain(ByteBuffer(bytes: handshake.greeting))
        // Bytes may have arrived already (a proxy that answers before it is asked).
        if readBuffer.readableBytes > 0 { continueSOCKS(eof: false) }
    }

    /// Feeds what was read (and the end of the input) to the handshake and carries out its actions.
    func continueSOCKS(eof: Bool) {
        // Still resolving (`socks5`): the bytes wait in the read buffer.
        guard var handshake = socks else {
            if eof { setupFailed(ClientError(.proxyHandshakeFailed, cause: SOCKSError.closedDuringHandshake, detail: SOCKSError.closedDuringHandshake.description)) }
            return
        }
        var actions: [SOCKS5Handshake.Action] = []
        if readBuffer.readableBytes > 0 {
            // The handshake copies the bytes; the pointer does not outlive the call.
            actions = readBuffer.withUnsafeReadableBytes { handshake.receive($0) }
            readBuffer.clear()
        }
        if eof, !handshake.isFinished { actions.append(handshake.receiveEOF()) }
        socks = handshake
        for action in actions {
            switch action {
            case .send(let bytes):
                writePlain(ByteBuffer(bytes: bytes))
            case .needMoreData:
                return
            case .fail(let error):
                setupFailed(ClientError(.proxyHandshakeFailed, cause: error, detail: error.description))
                return
            case .done(_, _, let leftover):
                socksFinished(leftover: leftover)
                return
            }
        }
    }

    /// The tunnel is open: the bytes after the reply are the origin's, for TLS or HTTP.
    private func socksFinished(leftover: [UInt8]) {
        socks = nil
        if let setupTimer { loop.cancelTimer(setupTimer) }
        setupTimer = nil
        if key.origin.scheme == .https {
            cipherIn = ByteBuffer(bytes: leftover)
            armSetupTimer(timeouts.tlsHandshake.map { Deadline.after($0) }, code: .tlsHandshakeTimeout, detail: "TLS handshake")
            startTLS()
        } else {
            // As after a CONNECT: the response parser reads them once a request is under way.
            readBuffer.writeBytes(leftover)
            becomeReady()
        }
    }
}
