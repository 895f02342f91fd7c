import CCourierOpenSSL
import CourierCore

/// Where a handshake stands after a call to ``TLSEngine/handshake()``.
public enum TLSHandshakeState: Sendable, Hashable {
    /// More ciphertext from the peer is needed; drain pending ciphertext first.
    case inProgress
    /// The handshake finished and the peer was verified as configured.
    case complete
}

/// What ``TLSEngine/readPlaintext(into:maxBytes:)`` produced.
public enum TLSReadResult: Sendable, Hashable {
    /// This many plaintext bytes were appended to the buffer.
    case bytes(Int)
    /// No plaintext is available until more ciphertext is fed.
    case wantMoreCiphertext
    /// The peer sent close_notify: the stream ended cleanly (RFC 8446 §6.1).
    case closed
}

/// One TLS session as a sans-I/O engine over two OpenSSL memory BIOs.
///
/// The transport drives it:
/// 1. bytes read from the socket go in through `feedCiphertext`, and a read of 0 (EOF) through
///    ``feedEOF()``; nothing may be fed after EOF;
/// 2. ``handshake()`` until it returns `.complete`, then ``readPlaintext(into:maxBytes:)`` and
///    `writePlaintext`;
/// 3. after **every** call, including calls that throw, ``drainCiphertext(into:)`` while
///    ``hasPendingCiphertext`` and write the bytes to the socket: a failed handshake leaves its
///    fatal alert there, ``close()`` leaves close_notify, and reading can produce replies (a TLS
///    1.3 KeyUpdate response).
///
/// Not thread-safe: an engine belongs to one connection on one event loop and must only be used
/// from that loop's thread (OpenSSL's `SSL*` is not safe for concurrent use). It is deliberately
/// not `Sendable`. After any failure the engine is dead: every later call throws the same error.
public final class TLSEngine {
    /// The context the session was made from (kept alive with the session).
    public let context: TLSContext
    /// The `SSL*`; it owns both BIOs. Freed in `deinit`.
    private let ssl: OpaquePointer
    /// The read BIO: ciphertext from the peer, written by `feedCiphertext`.
    private let rbio: OpaquePointer
    /// The write BIO: ciphertext for the peer, read by `drainCiphertext`.
    private let wbio: OpaquePointer

    private enum State {
        case handshaking
        case established
        case failed(TLSError)
    }
    private var state: State = .handshaking
    /// The peer's close_notify arrived.
    private var receivedCloseNotify = false
    /// `close()` was called; writing is over.
    private var closeRequested = false
    /// The socket reached EOF.
    private var eofFed = false
    private var cachedInfo: TLSConnectionInfo?
    /// The peer's chains, read once (by the connection info or a new session, whichever asks first).
    private var cachedChains: (peer: [TLSCertificate], verified: [TLSCertificate])?
    /// The session offered for resumption (``offer(_:)``): its chains stand in for the ones a
    /// resumed handshake does not carry.
    private var offeredSession: TLSSession?
    /// Receives each session the server issues for later resumption (TLS 1.2: during the
    /// handshake; TLS 1.3: NewSessionTicket messages after it, read with application data).
    /// nil: the sessions are dropped. Called on the engine's thread, from inside an engine call;
    /// it must not call the engine.
    public var onNewSession: ((TLSSession) -> Void)?
    /// Receives the sessions this connection offered or was issued when it fails with a fatal
    /// error other than a bare EOF (a TLS alert, a bad record): they are to be forgotten
    /// (RFC 5246 §7.2.2). Called once, on the engine's thread.
    public var onSessionsInvalidated: (([TLSSession]) -> Void)?
    /// The sessions handed to ``onNewSession``.
    private var issuedSessions: [TLSSession] = []

    /// Creates a client session. `serverHostname` decides SNI and the name check:
    /// a DNS name is sent as SNI and verified with `SSL_set1_host` against the DNS subjectAltNames
    /// only, never the subject CN (``ServerIdentity/dnsCheckFlags``); an IP literal (IPv4, or IPv6
    /// with or without brackets) is not sent as SNI and is verified against IP subjectAltNames;
    /// nil sends no SNI and checks no name. The name is checked only with `.full` verification.
    public init(context: TLSContext, serverHostname: String?) throws(TLSError) {
        precondition(!context.isServer, "TLSEngine(context:serverHostname:) needs a client context")
        (self.ssl, self.rbio, self.wbio) = try Self.makeSSL(context)
        self.context = context
        SSL_set_connect_state(ssl)
        // The new-session callback finds the engine here (unretained: the engine frees the SSL,
        // so no callback outlives it).
        _ = SSL_set_ex_data(ssl, Self.engineIndex, Unmanaged.passUnretained(self).toOpaque())
        guard let serverHostname, let identity = try ServerIdentity(serverHostname) else { return }
        let checkName = context.configuration.verification == .full
        switch identity {
        case .dns(let name):
            // SSL_set_tlsext_host_name is a macro over SSL_ctrl; OpenSSL copies the string.
            let sni = name.withCString {
                SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0))
            }
            guard sni == 1 else { throw OpenSSLErrorQueue.error(.configuration, "invalid SNI host name \(name)") }
            if checkName {
                SSL_set_hostflags(ssl, ServerIdentity.dnsCheckFlags)
                guard SSL_set1_host(ssl, name) == 1 else {
                    throw OpenSSLErrorQueue.error(.configuration, "invalid host name \(name)")
                }
            }
        case .ip(let address):
            if checkName {
                guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), address) == 1 else {
                    throw OpenSSLErrorQueue.error(.configuration, "invalid IP address \(address)")
                }
            }
        }
    }

    /// Creates a server session (used by the loopback test and demo servers).
    public init(serverContext: TLSContext) throws(TLSError) {
        precondition(serverContext.isServer, "TLSEngine(serverContext:) needs a server context")
        (self.ssl, self.rbio, self.wbio) = try Self.makeSSL(serverContext)
        self.context = serverContext
        SSL_set_accept_state(ssl)
    }

    private static func makeSSL(_ context: TLSContext) throws(TLSError) -> (OpaquePointer, OpaquePointer, OpaquePointer) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.ctx) else { throw OpenSSLErrorQueue.error(.configuration, "SSL_new failed") }
        guard let rbio = BIO_new(BIO_s_mem()), let wbio = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw OpenSSLErrorQueue.error(.configuration, "BIO_new failed")
        }
        SSL_set_bio(ssl, rbio, wbio)  // the SSL now owns both BIOs
        return (ssl, rbio, wbio)
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs too
    }

    // MARK: - Resumption

    /// The ex_data slot of a client `SSL` that points at its engine (allocated once per process).
    static let engineIndex: Int32 = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL, 0, nil, nil, nil, nil)

    /// Offers `session` for resumption (RFC 5077 ticket, RFC 8446 §4.2.11 PSK). Call before the
    /// first ``handshake()``. The server may decline; the handshake is then a full one.
    /// Resumed or not, the connection's chains are reported (``connectionInfo``), and whatever
    /// judges the server above (pinning) judges it again.
    public func offer(_ session: TLSSession) {
        guard case .handshaking = state, SSL_is_server(ssl) == 0 else { return }
        // A copy: OpenSSL marks the `SSL`'s session not resumable when the connection ends in a
        // fatal error, a peer FIN without close_notify included; the cached one must not be.
        guard let copy = SSL_SESSION_dup(session.pointer) else { OpenSSLErrorQueue.clear(); return }
        if SSL_set_session(ssl, copy) == 1 { offeredSession = session }  // takes its own reference
        SSL_SESSION_free(copy)
        OpenSSLErrorQueue.clear()
    }

    /// Whether the handshake resumed an offered session (`SSL_session_reused`).
    public var isSessionReused: Bool { SSL_session_reused(ssl) == 1 }

    /// The new-session callback's work: hands a copy of `session` to ``onNewSession``. A copy,
    /// because `session` stays the `SSL`'s own and OpenSSL marks it not resumable if this
    /// connection later ends in a fatal error (a peer FIN without close_notify included).
    fileprivate func received(_ session: OpaquePointer) {
        guard let onNewSession, let copy = SSL_SESSION_dup(session) else { return }
        let chains = peerChains()
        let issued = TLSSession(owning: copy, peerChain: chains.peer, verifiedChain: chains.verified)
        issuedSessions.append(issued)
        onNewSession(issued)
    }

    // MARK: - Ciphertext in

    /// Feeds bytes read from the socket.
    public func feedCiphertext(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let count = Swift.min(bytes.count - offset, Int(Int32.max))
            // A memory BIO accepts everything (it grows); it fails only when out of memory.
            let written = BIO_write(rbio, bytes.baseAddress! + offset, Int32(count))
            precondition(written == Int32(count), "BIO_write to a memory BIO failed (out of memory)")
            offset += count
        }
    }

    /// Feeds the readable bytes of `buffer` (read from the socket).
    public func feedCiphertext(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { feedCiphertext($0) }
    }

    /// Signals that the socket read end-of-file. Once the fed bytes are used up, OpenSSL sees EOF:
    /// without the peer's close_notify that is ``TLSError/Reason/unexpectedEOF`` (or
    /// ``TLSError/Reason/peerClosedDuringHandshake``).
    public func feedEOF() {
        eofFed = true
        // BIO_set_mem_eof_return(rbio, 0): an empty read BIO now reports EOF instead of "retry".
        _ = BIO_ctrl(rbio, BIO_C_SET_BUF_MEM_EOF_RETURN, 0, nil)
    }

    // MARK: - Ciphertext out

    /// Whether ciphertext is waiting to be written to the socket.
    public var hasPendingCiphertext: Bool { BIO_ctrl_pending(wbio) > 0 }

    /// The number of ciphertext bytes waiting to be written to the socket.
    public var pendingCiphertextCount: Int { Int(BIO_ctrl_pending(wbio)) }

    /// Appends all pending ciphertext to `buffer`.
    public func drainCiphertext(into buffer: inout ByteBuffer) {
        let pending = Int(BIO_ctrl_pending(wbio))
        guard pending > 0 else { return }
        buffer.withUnsafeMutableWritableBytes(minimumCapacity: pending) { region in
            // Safe: the region has at least `pending` writable bytes; BIO_read copies at most that.
            Int(BIO_read(wbio, region.baseAddress, Int32(Swift.min(pending, Int(Int32.max)))))
        }
    }

    // MARK: - Handshake

    /// Whether the handshake has completed.
    public var isHandshakeComplete: Bool {
        if case .established = state { return true }
        return false
    }

    /// Advances the handshake with the ciphertext fed so far. Drain pending ciphertext after every
    /// call, also when it throws (a fatal alert may be waiting).
    public func handshake() throws(TLSError) -> TLSHandshakeState {
        switch state {
        case .failed(let error): throw error
        case .established: return .complete
        case .handshaking: break
        }
        OpenSSLErrorQueue.clear()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 {
            if let mismatch = alpnMismatch() { throw fail(mismatch) }
            state = .established
            return .complete
        }
        let code = SSL_get_error(ssl, rc)
        switch code {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .inProgress
        case SSL_ERROR_ZERO_RETURN:
            throw fail(OpenSSLErrorQueue.error(.peerClosedDuringHandshake, "the peer sent close_notify during the handshake"))
        default:
            throw fail(handshakeFailure(code))
        }
    }

    /// Classifies a failed `SSL_do_handshake`.
    private func handshakeFailure(_ code: Int32) -> TLSError {
        let drained = OpenSSLErrorQueue.drain()
        if let verdict = StapleVerdict.recorded(on: ssl) {
            return TLSError(.certificateVerificationFailed(verdict.failure), message: "\(verdict.message); \(drained.message)",
                            peerAlert: drained.peerAlert)
        }
        let verifyResult = Int32(truncatingIfNeeded: SSL_get_verify_result(ssl))
        if verifyResult != X509_V_OK, (SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER) != 0 {
            let failure = CertificateVerificationFailure(verifyResult: verifyResult)
            return TLSError(.certificateVerificationFailed(failure),
                            message: "\(verifyErrorString(verifyResult)) (\(verifyResult)); \(drained.message)",
                            peerAlert: drained.peerAlert)
        }
        if drained.isProtocolVersionMismatch {
            return TLSError(.protocolVersionMismatch, message: messageOr(drained, "no protocol version in common"), peerAlert: drained.peerAlert)
        }
        // OpenSSL itself rejects a ServerHello whose ALPN protocol the client did not offer.
        if drained.contains(sslReason: SSL_R_BAD_EXTENSION, in: "tls_parse_stoc_alpn") {
            return TLSError(.alpnMismatch, message: "the server selected an ALPN protocol that was not offered: \(drained.message)")
        }
        if drained.peerAlert == nil,
            drained.contains(sslReason: SSL_R_UNEXPECTED_EOF_WHILE_READING) || (code == SSL_ERROR_SYSCALL && eofFed)
        {
            return TLSError(.peerClosedDuringHandshake, message: messageOr(drained, "the peer closed the connection during the handshake"))
        }
        return TLSError(.handshakeFailed, message: messageOr(drained, "handshake failed (SSL_get_error \(code))"),
                        peerAlert: drained.peerAlert)
    }

    /// The server must select an offered protocol (RFC 7301 §3.2). OpenSSL 3.0 already rejects
    /// anything else during the handshake (see `handshakeFailure`); this re-check keeps the
    /// guarantee independent of the OpenSSL version.
    private func alpnMismatch() -> TLSError? {
        guard SSL_is_server(ssl) == 0, let selected = selectedALPN() else { return nil }
        if context.configuration.applicationProtocols.contains(selected) { return nil }
        return TLSError(.alpnMismatch, message: "the server selected ALPN protocol \"\(selected)\", which was not offered")
    }

    private func selectedALPN() -> String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    // MARK: - Plaintext

    /// Decrypts up to `maxBytes` bytes of plaintext straight into `buffer`'s writable space
    /// (growing it when it has less than `maxBytes`). Reads record after record until `maxBytes`,
    /// no more ciphertext, or the end of the stream. Drain pending ciphertext afterwards.
    ///
    /// - Returns: `.bytes(n)` when plaintext was appended; `.wantMoreCiphertext` when none is
    ///   available; `.closed` after the peer's close_notify (and on every later call).
    /// - Throws: ``TLSError/Reason/unexpectedEOF`` when the socket ended without close_notify;
    ///   ``TLSError/Reason/protocolError`` for a bad record or an alert from the peer. When
    ///   plaintext was read before the failure, the bytes are returned first and the next call
    ///   throws.
    public func readPlaintext(into buffer: inout ByteBuffer, maxBytes: Int) throws(TLSError) -> TLSReadResult {
        precondition(maxBytes > 0, "maxBytes must be positive")
        switch state {
        case .failed(let error): throw error
        case .handshaking: throw TLSError(.invalidState, message: "readPlaintext before the handshake completed")
        case .established: break
        }
        if receivedCloseNotify { return .closed }
        // Nothing to decrypt: answer without touching the buffer (no growth for an idle read).
        if !eofFed, BIO_ctrl_pending(rbio) == 0, SSL_has_pending(ssl) == 0 { return .wantMoreCiphertext }

        var failure: TLSError? = nil
        let total = buffer.withUnsafeMutableWritableBytes(minimumCapacity: maxBytes) { region -> Int in
            let limit = Swift.min(region.count, maxBytes)
            var total = 0
            while total < limit {
                OpenSSLErrorQueue.clear()
                var n = 0
                // Safe: [total, limit) lies inside the writable region, which stays valid for the call.
                let rc = SSL_read_ex(ssl, region.baseAddress! + total, limit - total, &n)
                if rc == 1 {
                    total += n
                    continue
                }
                let code = SSL_get_error(ssl, rc)
                switch code {
                case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                    break
                case SSL_ERROR_ZERO_RETURN:
                    receivedCloseNotify = true
                default:
                    failure = readFailure(code)
                }
                break
            }
            return total
        }
        if let failure { _ = fail(failure) }
        if total > 0 { return .bytes(total) }
        if let failure { throw failure }
        return receivedCloseNotify ? .closed : .wantMoreCiphertext
    }

    /// Classifies a failed `SSL_read_ex`.
    private func readFailure(_ code: Int32) -> TLSError {
        let drained = OpenSSLErrorQueue.drain()
        if drained.peerAlert == nil,
            drained.contains(sslReason: SSL_R_UNEXPECTED_EOF_WHILE_READING) || (code == SSL_ERROR_SYSCALL && eofFed)
        {
            return TLSError(.unexpectedEOF, message: messageOr(drained, "the peer closed the connection without close_notify"))
        }
        // In TLS 1.3 the client finishes its handshake before the server has judged the client
        // certificate (RFC 8446 §4.4.2.4), so the server's verdict arrives as an alert on the first
        // read: report it as the handshake failure it is.
        if let alert = drained.peerAlert, Self.handshakeAlerts.contains(alert) {
            return TLSError(.handshakeFailed, message: messageOr(drained, "the peer rejected the handshake"), peerAlert: alert)
        }
        return TLSError(.protocolError, message: messageOr(drained, "read failed (SSL_get_error \(code))"),
                        peerAlert: drained.peerAlert)
    }

    /// Alerts that reject the handshake (RFC 8446 §6.2): handshake_failure, bad_certificate,
    /// unsupported_certificate, certificate_revoked, certificate_expired, certificate_unknown,
    /// unknown_ca, access_denied, certificate_required.
    private static let handshakeAlerts: Set<UInt8> = [40, 42, 43, 44, 45, 46, 48, 49, 116]

    /// Encrypts all of `bytes` into pending ciphertext (a memory BIO never blocks).
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(TLSError) {
        switch state {
        case .failed(let error): throw error
        case .handshaking: throw TLSError(.invalidState, message: "writePlaintext before the handshake completed")
        case .established: break
        }
        if closeRequested { throw TLSError(.invalidState, message: "writePlaintext after close()") }
        var offset = 0
        while offset < bytes.count {
            OpenSSLErrorQueue.clear()
            var n = 0
            // Safe: [offset, count) lies inside `bytes`, valid for the call.
            let rc = SSL_write_ex(ssl, bytes.baseAddress! + offset, bytes.count - offset, &n)
            if rc == 1 {
                offset += n
                continue
            }
            let code = SSL_get_error(ssl, rc)
            let drained = OpenSSLErrorQueue.drain()
            throw fail(TLSError(.protocolError, message: messageOr(drained, "write failed (SSL_get_error \(code))"),
                                peerAlert: drained.peerAlert))
        }
    }

    /// Encrypts the readable bytes of `buffer` into pending ciphertext.
    public func writePlaintext(_ buffer: ByteBuffer) throws(TLSError) {
        try buffer.withUnsafeReadableBytes { (bytes) throws(TLSError) in try writePlaintext(bytes) }
    }

    // MARK: - Close

    /// Queues close_notify (RFC 8446 §6.1); drain pending ciphertext afterwards. Later writes
    /// throw; reading may continue until the peer's close_notify. Does nothing before the
    /// handshake completed or after a failure (the connection is simply dropped then).
    public func close() {
        guard !closeRequested else { return }
        closeRequested = true
        guard case .established = state else { return }
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)  // 0: close_notify queued, the peer's not yet seen; both are fine here
        OpenSSLErrorQueue.clear()
    }

    /// Whether the peer's close_notify arrived.
    public var isClosedByPeer: Bool { receivedCloseNotify }

    // MARK: - Session details

    /// What the handshake negotiated and the peer's certificates; nil before the handshake
    /// completed. Computed once, then cached.
    public var connectionInfo: TLSConnectionInfo? {
        guard case .established = state else { return nil }
        if let cachedInfo { return cachedInfo }
        let info = makeConnectionInfo()
        cachedInfo = info
        return info
    }

    /// The SNI name: on a server, what the client sent (available once the ClientHello arrived);
    /// on a client, what it sends.
    public var serverName: String? {
        guard let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else { return nil }
        return String(cString: name)
    }

    /// The chain the peer sent and the one OpenSSL verified, read once. A resumed handshake
    /// carries no certificates and verifies nothing: the offered session's chains are used.
    private func peerChains() -> (peer: [TLSCertificate], verified: [TLSCertificate]) {
        if let cachedChains { return cachedChains }
        var peerChain: [TLSCertificate] = []
        if SSL_is_server(ssl) != 0, let leaf = SSL_get0_peer_certificate(ssl) {
            // A server's SSL_get_peer_cert_chain omits the client's leaf.
            peerChain.append(TLSCertificate(x509: leaf))
        }
        peerChain += Self.certificates(SSL_get_peer_cert_chain(ssl))
        var verifiedChain = SSL_get_verify_result(ssl) == X509_V_OK ? Self.certificates(SSL_get0_verified_chain(ssl)) : []
        if isSessionReused, let offeredSession {
            if verifiedChain.isEmpty { verifiedChain = offeredSession.verifiedChain }
            if peerChain.isEmpty { peerChain = offeredSession.peerChain }
        }
        cachedChains = (peerChain, verifiedChain)
        return (peerChain, verifiedChain)
    }

    private func makeConnectionInfo() -> TLSConnectionInfo {
        let (peerChain, verifiedChain) = peerChains()
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) } ?? ""
        let version = String(cString: SSL_get_version(ssl))
        return TLSConnectionInfo(
            version: version,
            negotiatedVersion: TLSVersion(openSSLValue: SSL_version(ssl)),
            cipher: cipher,
            alpn: selectedALPN(),
            peerChain: peerChain,
            verifiedChain: verifiedChain,
            serverName: serverName,
            sessionReused: isSessionReused)
    }

    /// Exports a `STACK_OF(X509)` (borrowed).
    private static func certificates(_ stack: OpaquePointer?) -> [TLSCertificate] {
        guard let stack else { return [] }
        let count = Int(OPENSSL_sk_num(stack))
        var result: [TLSCertificate] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            if let x = OPENSSL_sk_value(stack, Int32(i)) { result.append(TLSCertificate(x509: OpaquePointer(x))) }
        }
        return result
    }

    // MARK: - Failure

    /// Records `error` as the engine's final state and returns it for throwing.
    private func fail(_ error: TLSError) -> TLSError {
        state = .failed(error)
        if error.reason != .unexpectedEOF, error.reason != .peerClosedDuringHandshake, let onSessionsInvalidated {
            let sessions = issuedSessions + (offeredSession.map { [$0] } ?? [])
            self.onSessionsInvalidated = nil
            if !sessions.isEmpty { onSessionsInvalidated(sessions) }
        }
        return error
    }

    private func messageOr(_ drained: OpenSSLErrorQueue.Drained, _ fallback: String) -> String {
        drained.message.isEmpty ? fallback : drained.message
    }
}

extension TLSEngine {
    /// OpenSSL's new-session callback for client contexts (``TLSContext``): a session the server
    /// issued goes (copied) to its engine's ``onNewSession``. Returns 0: OpenSSL keeps the
    /// reference it passed, and releases it with the `SSL`.
    static func sessionIssued(_ ssl: OpaquePointer?, _ session: OpaquePointer?) -> Int32 {
        // Safe: the ex_data slot holds the engine that owns `ssl`, alive for the duration of the
        // engine call this callback runs inside (on the engine's thread).
        guard let ssl, let session, let raw = SSL_get_ex_data(ssl, engineIndex) else { return 0 }
        let engine = Unmanaged<TLSEngine>.fromOpaque(raw).takeUnretainedValue()
        engine.received(session)
        return 0
    }
}
