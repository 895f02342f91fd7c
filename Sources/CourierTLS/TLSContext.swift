import CCourierOpenSSL
import Glibc

/// OpenSSL option bits (`SSL_OP_*` are cast macros Swift does not import; values from `ssl.h`).
enum SSLOption {
    static let noCompression: UInt64 = 1 << 17
    static let noRenegotiation: UInt64 = 1 << 30
}

/// A configured OpenSSL `SSL_CTX`, built once and shared by every session made from it.
///
/// Immutable after creation and safe to share across threads: nothing mutates the `SSL_CTX`
/// after `init` returns, and `SSL_new` (the only use) takes OpenSSL's internal lock on the
/// context's reference count. The context is freed in `deinit`; sessions hold their own
/// reference (`SSL_new` up-refs it) and keep this object alive as well.
public final class TLSContext: @unchecked Sendable {
    /// The client configuration this context was built from (``TLSConfiguration/clientDefault``
    /// for a server context).
    public let configuration: TLSConfiguration
    /// The server configuration, for a server context.
    public let serverConfiguration: TLSServerConfiguration?
    /// Whether sessions from this context are servers.
    public var isServer: Bool { serverConfiguration != nil }

    /// The `SSL_CTX*`. Not mutated after `init` (see the type's comment).
    let ctx: OpaquePointer
    /// A server's ALPN list in wire format (length-prefixed names), read by the selection
    /// callback through its `arg` pointer; allocated here and freed in `deinit`, after the
    /// context, so it outlives every session.
    private let serverALPN: UnsafeMutableRawBufferPointer?
    /// A client's revocation checks; the status and verification callbacks point at it, so it
    /// lives as long as the context.
    private let revocation: RevocationChecker?

    /// Builds a client context.
    public init(configuration: TLSConfiguration) throws(TLSError) {
        let revocation = try RevocationChecker(policy: configuration.revocation, verification: configuration.verification)
        OpenSSLErrorQueue.clear()
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw OpenSSLErrorQueue.error(.configuration, "SSL_CTX_new failed")
        }
        self.ctx = ctx
        self.configuration = configuration
        self.serverConfiguration = nil
        self.serverALPN = nil
        self.revocation = revocation
        // From here on `deinit` frees the context if a step below throws.
        try applyCommon(minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        // Security level 2 at least (OpenSSL 3.2's default; some builds still default to 1): RSA,
        // DSA and DH keys below 2048 bits, EC keys below 224 bits and SHA-1 signatures in the
        // server's chain fail verification as `weakKey` / `weakSignatureAlgorithm`.
        if SSL_CTX_get_security_level(ctx) < 2 { SSL_CTX_set_security_level(ctx, 2) }
        try loadTrustRoots(configuration.trustRoots)
        SSL_CTX_set_verify(ctx, configuration.verification == .none ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nil)
        revocation.install(on: ctx, verification: configuration.verification)
        // Resumption: OpenSSL hands every session the server issues to the engine's callback
        // (`TLSEngine.sessionIssued`), which gives it to the client's session cache if it has one.
        // SSL_CTX_set_session_cache_mode is a macro over SSL_CTX_ctrl; the internal store stays
        // off (a client never looks sessions up there; it would only grow).
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE), nil)
        SSL_CTX_sess_set_new_cb(ctx) { ssl, session in TLSEngine.sessionIssued(ssl, session) }
        if configuration.certificateChainFile != nil || configuration.privateKeyFile != nil {
            guard let chain = configuration.certificateChainFile, let key = configuration.privateKeyFile else {
                throw TLSError(.configuration, message: "a client certificate needs both a chain file and a key file")
            }
            try useCertificate(chainFile: chain, keyFile: key, password: configuration.privateKeyPassword)
        }
        if !configuration.applicationProtocols.isEmpty {
            let wire = try Self.alpnWireFormat(configuration.applicationProtocols)
            // SSL_CTX_set_alpn_protos returns 0 on success, unlike most of OpenSSL.
            let rc = wire.withUnsafeBufferPointer { SSL_CTX_set_alpn_protos(ctx, $0.baseAddress, UInt32($0.count)) }
            guard rc == 0 else { throw OpenSSLErrorQueue.error(.configuration, "SSL_CTX_set_alpn_protos failed") }
        }
    }

    /// Builds a server context (used by the loopback test and demo servers).
    public init(server: TLSServerConfiguration) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let ctx = SSL_CTX_new(TLS_server_method()) else {
            throw OpenSSLErrorQueue.error(.configuration, "SSL_CTX_new failed")
        }
        self.ctx = ctx
        self.configuration = .clientDefault
        self.serverConfiguration = server
        self.revocation = nil
        if server.applicationProtocols.isEmpty {
            self.serverALPN = nil
        } else {
            let wire: [UInt8]
            do { wire = try Self.alpnWireFormat(server.applicationProtocols) } catch {
                SSL_CTX_free(ctx)
                throw error
            }
            // The wire list plus a zero length byte as terminator (names are never empty), so the
            // C callback needs only the pointer.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: wire.count + 1, alignment: 1)
            buffer.copyBytes(from: wire)
            buffer[wire.count] = 0
            self.serverALPN = buffer
        }
        try applyCommon(minimum: server.minimumVersion, maximum: server.maximumVersion)
        try useCertificate(chainFile: server.certificateChainFile, keyFile: server.privateKeyFile)
        // A session id context is required when client certificates are verified and sessions are
        // cached; any constant works for a single-purpose server.
        let sid: [UInt8] = Array("courier".utf8)
        SSL_CTX_set_session_id_context(ctx, sid, UInt32(sid.count))
        if let caFile = server.clientCAFile {
            guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                throw OpenSSLErrorQueue.error(.configuration, "cannot load client CA file \(caFile)")
            }
            guard let names = SSL_load_client_CA_file(caFile) else {
                throw OpenSSLErrorQueue.error(.configuration, "cannot read client CA names from \(caFile)")
            }
            SSL_CTX_set_client_CA_list(ctx, names)  // takes ownership of `names`
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        } else {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        }
        if let serverALPN {
            SSL_CTX_set_alpn_select_cb(ctx, { _, out, outLength, offered, offeredLength, arg in
                // Safe: `arg` is `serverALPN`, alive as long as the context; `offered` is valid for
                // the duration of the callback, and OpenSSL copies the selection before returning.
                guard let arg, let out, let outLength, let offered else { return SSL_TLSEXT_ERR_NOACK }
                let client = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
                guard let choice = selectALPN(
                    server: arg.assumingMemoryBound(to: UInt8.self), client: client)
                else { return SSL_TLSEXT_ERR_NOACK }
                out.pointee = UnsafePointer(client.baseAddress!.advanced(by: choice.lowerBound))
                outLength.pointee = UInt8(choice.count)
                return SSL_TLSEXT_ERR_OK
            }, serverALPN.baseAddress)
        }
    }

    deinit {
        SSL_CTX_free(ctx)
        serverALPN?.deallocate()
    }

    /// Version bounds, modes and options shared by client and server contexts.
    private func applyCommon(minimum: TLSVersion, maximum: TLSVersion?) throws(TLSError) {
        // SSL_CTX_set_min/max_proto_version are macros over SSL_CTX_ctrl; 0 means "highest".
        guard SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, minimum.openSSLValue, nil) == 1,
            SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MAX_PROTO_VERSION, maximum?.openSSLValue ?? 0, nil) == 1
        else { throw OpenSSLErrorQueue.error(.configuration, "cannot set the protocol version range") }
        if let maximum, maximum < minimum {
            throw TLSError(.configuration, message: "maximum version \(maximum) is below minimum \(minimum)")
        }
        // Partial writes: SSL_write_ex returns after each record. Moving buffer: a retried write
        // may pass a different address for the same bytes. No auto chain: the certificate chain
        // file is sent as is, rather than completed (up to the root) from the trust store.
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_MODE,
                         Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_NO_AUTO_CHAIN), nil)
        // SSL_OP_IGNORE_UNEXPECTED_EOF is deliberately not set: a FIN without close_notify must
        // surface as `.unexpectedEOF` so the HTTP layer can decide whether truncation matters.
        _ = SSL_CTX_set_options(ctx, SSLOption.noCompression | SSLOption.noRenegotiation)
    }

    /// Fills the context's certificate store. The system store is parsed once per process
    /// (``SystemTrustStore``): a context that trusts only it shares that `X509_STORE`; one that
    /// adds other roots gets its own store, seeded from the shared one.
    private func loadTrustRoots(_ roots: [TrustRoot]) throws(TLSError) {
        if roots.contains(.system) {
            let system = try SystemTrustStore.shared.get()
            if roots.allSatisfy({ $0 == .system }) {
                // Nothing else goes into this store, so it can be the shared one (up-ref'd).
                SSL_CTX_set1_cert_store(ctx, system.store)
                return
            }
            guard let own = SSL_CTX_get_cert_store(ctx) else {
                throw OpenSSLErrorQueue.error(.configuration, "the context has no certificate store")
            }
            try system.addCertificates(to: own)
        }
        for root in roots {
            switch root {
            case .system:
                continue  // above
            case .file(let path):
                guard SSL_CTX_load_verify_file(ctx, path) == 1 else {
                    throw OpenSSLErrorQueue.error(.configuration, "cannot load CA file \(path)")
                }
            case .directory(let path):
                // OpenSSL reads a hashed directory lazily and does not check it exists; do so here
                // so a typo is a configuration error rather than an untrusted-root failure later.
                var info = stat()
                guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw TLSError(.configuration, message: "CA directory \(path) does not exist")
                }
                guard SSL_CTX_load_verify_dir(ctx, path) == 1 else {
                    throw OpenSSLErrorQueue.error(.configuration, "cannot use CA directory \(path)")
                }
            case .certificates(let certificates):
                try addAnchors(certificates)
            }
        }
    }

    /// Adds in-memory trust anchors (``TrustRoot/certificates(_:)``) and accepts chains that end
    /// at any of them (`X509_V_FLAG_PARTIAL_CHAIN`), not only at a self-signed root.
    private func addAnchors(_ certificates: [TLSCertificate]) throws(TLSError) {
        guard !certificates.isEmpty else {
            throw TLSError(.configuration, message: "an in-memory trust root needs at least one certificate")
        }
        guard let store = SSL_CTX_get_cert_store(ctx) else {
            throw OpenSSLErrorQueue.error(.configuration, "the context has no certificate store")
        }
        for certificate in certificates {
            let x509 = try certificate.makeX509()
            defer { X509_free(x509) }
            // X509_STORE_add_cert takes its own reference; a duplicate is ignored (OpenSSL ≥ 1.1.1).
            guard X509_STORE_add_cert(store, x509) == 1 else {
                throw OpenSSLErrorQueue.error(.configuration, "cannot add trust anchor \(certificate.subject)")
            }
        }
        guard let parameters = SSL_CTX_get0_param(ctx),
            X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) == 1
        else { throw OpenSSLErrorQueue.error(.configuration, "cannot allow partial chains") }
    }

    /// Loads a PEM certificate chain and its key, and checks that they match. An encrypted key
    /// is opened with `password`; without one it fails to load (OpenSSL's default would prompt
    /// on the terminal, which a library must never do).
    private func useCertificate(chainFile: String, keyFile: String, password: String? = nil) throws(TLSError) {
        guard SSL_CTX_use_certificate_chain_file(ctx, chainFile) == 1 else {
            throw OpenSSLErrorQueue.error(.configuration, "cannot load certificate chain \(chainFile)")
        }
        // The callback hands OpenSSL the password passed as its user data, or refuses (0).
        SSL_CTX_set_default_passwd_cb(ctx) { buffer, size, _, userdata in
            guard let buffer, let userdata, size > 0 else { return 0 }
            // Safe: `userdata` is the NUL-terminated copy of the password that `withCString`
            // below keeps alive while the key loads, and at most `size` bytes are written.
            let password = userdata.assumingMemoryBound(to: CChar.self)
            let length = min(strlen(password), Int(size))
            memcpy(buffer, password, length)
            return Int32(length)
        }
        let loaded = (password ?? "").withCString { text in
            // Safe: OpenSSL only reads it, from the callback, during the load below; it is
            // unset before `withCString` ends.
            SSL_CTX_set_default_passwd_cb_userdata(ctx, password == nil ? nil : UnsafeMutableRawPointer(mutating: text))
            defer { SSL_CTX_set_default_passwd_cb_userdata(ctx, nil) }
            return SSL_CTX_use_PrivateKey_file(ctx, keyFile, SSL_FILETYPE_PEM) == 1
        }
        guard loaded else {
            let drained = OpenSSLErrorQueue.drain()
            // OpenSSL already compares the key with the certificate while loading it.
            if drained.contains(library: ERR_LIB_X509, reason: X509_R_KEY_VALUES_MISMATCH)
                || drained.contains(library: ERR_LIB_X509, reason: X509_R_KEY_TYPE_MISMATCH)
            {
                throw TLSError(.configuration, message: "private key \(keyFile) does not match certificate \(chainFile): \(drained.message)")
            }
            // OpenSSL 3 reports a missing and a wrong password alike (the provider's bad
            // decrypt); which it was, the caller knows.
            if drained.contains(library: ERR_LIB_PROV, reason: PROV_R_BAD_DECRYPT)
                || drained.contains(library: ERR_LIB_EVP, reason: EVP_R_BAD_DECRYPT)
                || drained.contains(library: ERR_LIB_PEM, reason: PEM_R_BAD_DECRYPT)
                || drained.contains(library: ERR_LIB_PEM, reason: PEM_R_BAD_PASSWORD_READ)
            {
                let what = password?.isEmpty ?? true ? "is encrypted and no password was given" : "did not decrypt with the password given"
                throw TLSError(.configuration, message: "private key \(keyFile) \(what): \(drained.message)")
            }
            throw TLSError(.configuration, message: "cannot load private key \(keyFile): \(drained.message)")
        }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            throw OpenSSLErrorQueue.error(.configuration, "private key \(keyFile) does not match certificate \(chainFile)")
        }
    }

    /// Encodes ALPN names as RFC 7301 §3.1 wants them: each name prefixed by its length in one byte.
    static func alpnWireFormat(_ names: [String]) throws(TLSError) -> [UInt8] {
        var wire: [UInt8] = []
        for name in names {
            let bytes = Array(name.utf8)
            guard !bytes.isEmpty, bytes.count <= 255 else {
                throw TLSError(.configuration, message: "invalid ALPN protocol name \"\(name)\"")
            }
            wire.append(UInt8(bytes.count))
            wire += bytes
        }
        return wire
    }
}

/// The server's ALPN choice: its most preferred protocol that the client offered (RFC 7301 §3.2).
/// `server` is a wire-format list ended by a zero length byte; `client` is the client's wire list.
/// Returns the range of the chosen name inside `client`.
func selectALPN(server: UnsafePointer<UInt8>, client: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
    var s = server
    while s.pointee != 0 {
        let length = Int(s.pointee)
        let name = UnsafeBufferPointer(start: s + 1, count: length)
        var i = 0
        while i < client.count {
            let clientLength = Int(client[i])
            let end = i + 1 + clientLength
            guard end <= client.count else { break }
            if clientLength == length, client[(i + 1)..<end].elementsEqual(name) { return (i + 1)..<end }
            i = end
        }
        s += 1 + length
    }
    return nil
}
