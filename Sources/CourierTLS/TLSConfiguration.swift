/// How much of the peer's certificate a client checks.
public enum CertificateVerification: Sendable, Hashable {
    /// Chain to a trust root, validity period, and the server's name or IP address (RFC 9110 §4.3.4,
    /// RFC 6125). The default.
    case full
    /// Chain and validity period, but not the name. Only when configured explicitly.
    case noHostnameVerification
    /// Nothing is checked (`SSL_VERIFY_NONE`); the chain is still exported so a pinning policy can
    /// judge it. Only when configured explicitly.
    case none
}

/// Where trusted root certificates come from.
public enum TrustRoot: Sendable, Hashable {
    /// The system store (`X509_STORE_set_default_paths`; on Debian `/etc/ssl/certs`), parsed once per
    /// process, off the event loops, and shared by the contexts that use it.
    case system
    /// A PEM file holding one or more CA certificates.
    case file(String)
    /// A directory of CA certificates named by subject hash (`openssl rehash`).
    case directory(String)
    /// Certificates held in memory, added to the context's `X509_STORE` as trust anchors — the
    /// counterpart of `SecTrustSetAnchorCertificates`, which certificate pinning uses.
    ///
    /// Any of them may end a chain, whether or not it is self-signed: a context with this root
    /// sets `X509_V_FLAG_PARTIAL_CHAIN`, so a pinned leaf or intermediate is an anchor by itself.
    /// That flag applies to the whole store, so certificates from the other sources of the same
    /// configuration (a CA file holding an intermediate, say) can then end a chain too. An
    /// empty list is a configuration error.
    case certificates([TLSCertificate])
}

/// Client-side TLS settings. A value type: the connection pool keys connections by it, and a
/// ``TLSContext`` is built from it once and shared.
public struct TLSConfiguration: Sendable, Hashable {
    /// Where trust anchors come from; several sources add up.
    public var trustRoots: [TrustRoot] = [.system]
    /// The lowest version offered. TLS 1.2 unless raised.
    public var minimumVersion: TLSVersion = .tls1_2
    /// The highest version offered; nil means the highest OpenSSL supports.
    public var maximumVersion: TLSVersion? = nil
    /// How the server's certificate is checked.
    public var verification: CertificateVerification = .full
    /// A PEM file with the client certificate (leaf first, then intermediates) for mutual TLS.
    public var certificateChainFile: String? = nil
    /// The PEM private key matching ``certificateChainFile``.
    public var privateKeyFile: String? = nil
    /// The password of an encrypted ``privateKeyFile`` (PKCS#8 or traditional PEM encryption).
    /// Nothing is ever prompted for: an encrypted key without it, or with a wrong one, fails to
    /// load with a ``TLSError`` saying so.
    public var privateKeyPassword: String? = nil
    /// ALPN protocol names offered, most preferred first (RFC 7301). Empty: no ALPN extension.
    public var applicationProtocols: [String] = ["http/1.1"]
    /// An opaque label that keeps connections made under different trust policies apart — in a
    /// client's connection pool, which keys on the whole configuration. OpenSSL never sees it.
    /// (The `Courier` layer's pinning policies set it, so a connection judged without pins is
    /// never reused for a host that is pinned now.)
    public var poolPartition: String? = nil
    /// Revocation checking: CRL files and a required stapled OCSP response, both opt-in; a
    /// must-staple certificate (RFC 7633) is always held to its staple. See ``RevocationPolicy``.
    public var revocation: RevocationPolicy = .default

    public init() {}

    /// System trust store, TLS 1.2 minimum, full verification, ALPN `http/1.1`.
    public static var clientDefault: TLSConfiguration { TLSConfiguration() }
}

/// Server-side TLS settings, used by the loopback test and demo servers.
public struct TLSServerConfiguration: Sendable, Hashable {
    /// A PEM file with the server certificate, leaf first, then intermediates (sent as is).
    public var certificateChainFile: String
    /// The PEM private key matching the leaf.
    public var privateKeyFile: String
    /// If set, a PEM file of CAs: the server requires a client certificate and verifies it
    /// against these.
    public var clientCAFile: String? = nil
    /// The lowest version accepted.
    public var minimumVersion: TLSVersion = .tls1_2
    /// The highest version accepted; nil means the highest OpenSSL supports.
    public var maximumVersion: TLSVersion? = nil
    /// ALPN protocols the server may select, in server preference order. When the client offers
    /// none of them, the server answers without ALPN.
    public var applicationProtocols: [String] = ["http/1.1"]

    public init(certificateChainFile: String, privateKeyFile: String) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
    }
}
