#if canImport(Glibc)
import Glibc
#endif
import CCourierOpenSSL

/// TLS settings for a ``ScriptedServer``: the certificate chain and key it serves and, for
/// mutual TLS, the CA client certificates must chain to.
///
/// File names are looked up in the `Certificates/` matrix (see ``TestCertificates``); an absolute
/// path is used as is.
public struct ServerTLS: Sendable, Hashable {
    /// Protocol versions the server may negotiate.
    public enum Version: Sendable, Hashable {
        case tls1_2
        case tls1_3

        var openSSLValue: Int {
            switch self {
            case .tls1_2: Int(TLS1_2_VERSION)
            case .tls1_3: Int(TLS1_3_VERSION)
            }
        }
    }

    /// PEM file with the leaf first, then intermediates (e.g. `valid-chain.pem`).
    public var certificateChain: String
    /// PEM private key of the leaf (e.g. `valid.key`).
    public var privateKey: String
    /// When set, the server requires a client certificate that chains to this CA (mTLS).
    public var clientCA: String?
    public var minimumVersion: Version
    /// nil: the newest OpenSSL supports.
    public var maximumVersion: Version?
    /// A DER OCSPResponse stapled to every handshake whose client asks for one (RFC 6066 §8),
    /// as it is: the server does not check it. nil: nothing is stapled.
    public var ocspResponse: [UInt8]?
    /// OpenSSL's security level for the server (`SSL_CTX_set_security_level`); nil keeps the
    /// default. 0 lets the server present the weak certificates of the matrix (an RSA-1024 key,
    /// a SHA-1 signature), which OpenSSL refuses to load at level 1 and above.
    public var securityLevel: Int32?

    public init(
        certificateChain: String = "valid-chain.pem",
        privateKey: String = "valid.key",
        clientCA: String? = nil,
        minimumVersion: Version = .tls1_2,
        maximumVersion: Version? = nil,
        ocspResponse: [UInt8]? = nil,
        securityLevel: Int32? = nil
    ) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.clientCA = clientCA
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.ocspResponse = ocspResponse
        self.securityLevel = securityLevel
    }
}

/// An error setting up or running server-side TLS, with OpenSSL's error queue as text.
public struct TestTLSError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let details: String

    init(_ operation: String) {
        self.operation = operation
        self.details = TestTLSError.drainErrorQueue()
    }

    public var description: String { "\(operation) failed: \(details)" }

    /// Empties this thread's OpenSSL error queue into one line.
    static func drainErrorQueue() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error" : messages.joined(separator: "; ")
    }
}

/// A configured `SSL_CTX` for the server side.
///
// @unchecked Sendable: the SSL_CTX is fully configured in `init` and afterwards only used to
// create SSL objects (`SSL_new`), which OpenSSL documents as safe from many threads.
final class TLSServerContext: @unchecked Sendable {
    let context: OpaquePointer
    /// The OCSP staple, read by the status callback; freed in `deinit`, after the context.
    private let staple: OCSPStaple?

    init(_ settings: ServerTLS) throws(TestTLSError) {
        _ = ignoreSIGPIPE
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TestTLSError("SSL_CTX_new") }
        self.context = context
        self.staple = settings.ocspResponse.map(OCSPStaple.init)
        staple?.install(on: context)
        ERR_clear_error()
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, settings.minimumVersion.openSSLValue, nil)
        if let maximum = settings.maximumVersion {
            SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, maximum.openSSLValue, nil)
        }
        if let level = settings.securityLevel { SSL_CTX_set_security_level(context, level) }
        // SSL_MODE_AUTO_RETRY is on by default in 1.1.1+; blocking I/O needs nothing else.
        guard SSL_CTX_use_certificate_chain_file(context, TestCertificates.path(settings.certificateChain)) == 1 else {
            throw TestTLSError("loading certificate chain \(settings.certificateChain)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, TestCertificates.path(settings.privateKey), SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(context) == 1
        else {
            throw TestTLSError("loading private key \(settings.privateKey)")
        }
        if let clientCA = settings.clientCA {
            let path = TestCertificates.path(clientCA)
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                throw TestTLSError("loading client CA \(clientCA)")
            }
            // Tell clients which CAs we accept (CertificateRequest certificate_authorities).
            if let names = SSL_load_client_CA_file(path) { SSL_CTX_set_client_CA_list(context, names) }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        }
    }

    deinit { SSL_CTX_free(context) }
}

/// A DER OCSP response a test server staples (`SSL_CTX_set_tlsext_status_cb`).
final class OCSPStaple: @unchecked Sendable {
    /// Immutable after `init`; the callback only copies it.
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Makes `context` staple the response. `self` must outlive `context`.
    func install(on context: OpaquePointer) {
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_TLSEXT_STATUS_REQ_CB_ARG, 0, Unmanaged.passUnretained(self).toOpaque())
        let callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, arg in
            // Safe: `arg` is this staple, alive as long as the context; `ssl` is the session being
            // accepted on this thread. OpenSSL takes ownership of the OPENSSL_malloc'd copy.
            guard let ssl, let arg else { return SSL_TLSEXT_ERR_ALERT_FATAL }
            let staple = Unmanaged<OCSPStaple>.fromOpaque(arg).takeUnretainedValue()
            guard !staple.bytes.isEmpty, let copy = CRYPTO_malloc(staple.bytes.count, #file, #line) else {
                return SSL_TLSEXT_ERR_NOACK
            }
            staple.bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            // SSL_set_tlsext_status_ocsp_resp
            _ = SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_STATUS_REQ_OCSP_RESP, staple.bytes.count, copy)
            return SSL_TLSEXT_ERR_OK
        }
        // SSL_CTX_set_tlsext_status_cb: the callback's real type is restored by OpenSSL's call.
        _ = SSL_CTX_callback_ctrl(context, SSL_CTRL_SET_TLSEXT_STATUS_REQ_CB,
                                  unsafeBitCast(callback, to: (@convention(c) () -> Void).self))
    }
}

/// One server-side TLS connection over a blocking socket. Used only on its connection's thread.
final class TLSServerSession {
    let ssl: OpaquePointer
    private let context: TLSServerContext

    init(context: TLSServerContext, fd: Int32) throws(TestTLSError) {
        guard let ssl = SSL_new(context.context) else { throw TestTLSError("SSL_new") }
        self.ssl = ssl
        self.context = context
        SSL_set_fd(ssl, fd)
    }

    deinit { SSL_free(ssl) }

    /// Runs the server handshake (blocking).
    func accept() throws(TestTLSError) {
        ERR_clear_error()
        guard SSL_accept(ssl) == 1 else { throw TestTLSError("TLS handshake") }
    }

    /// The SNI host name the client sent, if any.
    var serverName: String? {
        guard let name = SSL_get_servername(ssl, Int32(TLSEXT_NAMETYPE_host_name)) else { return nil }
        return String(cString: name)
    }

    /// The negotiated protocol, e.g. "TLSv1.3".
    var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// The subject of the client certificate, if one was presented and verified.
    var peerSubject: String? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        guard let name = X509_get_subject_name(certificate) else { return nil }
        var buffer = [CChar](repeating: 0, count: 512)
        X509_NAME_oneline(name, &buffer, Int32(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reads decrypted bytes. Returns 0 at EOF, with or without close_notify.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TestTLSError) -> Int {
        ERR_clear_error()
        var count = 0
        if SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 { return count }
        let error = SSL_get_error(ssl, 0)
        if error == SSL_ERROR_ZERO_RETURN { return 0 }
        if error == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 { return 0 }
        throw TestTLSError("SSL_read")
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(TestTLSError) {
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            var written = 0
            guard SSL_write_ex(ssl, bytes.baseAddress! + offset, bytes.count - offset, &written) == 1 else {
                throw TestTLSError("SSL_write")
            }
            offset += written
        }
    }

    /// Sends close_notify (does not wait for the peer's).
    func sendCloseNotify() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }
}
