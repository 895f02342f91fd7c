/// Whether a client checks that the server's certificate has not been revoked, and how. Opt-in,
/// like curl's `--cert-status` and `--crlfile` and Alamofire's `RevocationTrustEvaluator`.
///
/// Two sources of revocation status are supported, and both work offline (Courier never fetches
/// a CRL or asks an OCSP responder itself):
/// - **CRL files** (RFC 5280 §5): the configured CRLs are handed to OpenSSL's chain verification
///   (`X509_V_FLAG_CRL_CHECK`, or `X509_V_FLAG_CRL_CHECK_ALL` with ``CRLScope/wholeChain``). A
///   certificate listed in its issuer's CRL fails with
///   ``CertificateVerificationFailure/revoked``; when a CRL is needed and none from the issuer is
///   configured, or it is expired, not yet valid or badly signed (RFC 5280 §6.3.3), with
///   ``CertificateVerificationFailure/revocationStatusUnknown``.
/// - **A stapled OCSP response** (RFC 6066 §8, RFC 6960): the client always asks for one
///   (`status_request`). With ``requireStapledOCSP`` the server must staple a response that
///   verifies (signed by the leaf's issuer or by a responder it delegated to, RFC 6960 §4.2.2.2),
///   covers the leaf, is current (thisUpdate/nextUpdate, RFC 6960 §4.2.2.1, with
///   ``ocspClockSkewSeconds`` of tolerance) and says "good".
///
/// **Must-staple is always honoured**, whatever this policy says: a leaf whose TLS feature
/// extension (RFC 7633 §4.2) lists `status_request` is accepted only with a good stapled
/// response (RFC 7633 §4.2.3: "the client MUST treat a certificate with a 'status_request' TLS
/// feature as invalid" without a valid staple). Only ``CertificateVerification/none`` skips it,
/// as it skips every check.
public struct RevocationPolicy: Sendable, Hashable {
    /// Which certificates of the chain a CRL must vouch for.
    public enum CRLScope: Sendable, Hashable {
        /// The leaf only (`X509_V_FLAG_CRL_CHECK`): curl's `--crlfile`.
        case leaf
        /// Every certificate of the chain up to the anchor (`X509_V_FLAG_CRL_CHECK_ALL`): each
        /// issuer's CRL must be configured.
        case wholeChain
    }

    /// PEM files holding one or more CRLs each (`-----BEGIN X509 CRL-----`). Empty: no CRL check.
    /// They are read when the ``TLSContext`` is built — once per configuration in a client, which
    /// caches its contexts — so a file replaced later is not read again; to use a new CRL, name a
    /// new file (which makes a new configuration, hence a new context and new connections).
    public var crlFiles: [String]
    /// Which certificates the CRLs are checked for; used only when ``crlFiles`` is not empty.
    public var crlScope: CRLScope
    /// Require a good stapled OCSP response for every server, not only for must-staple leaves
    /// (curl's `--cert-status`).
    public var requireStapledOCSP: Bool
    /// The tolerance, in seconds, for clock differences when checking an OCSP response's
    /// thisUpdate and nextUpdate (OpenSSL's `OCSP_check_validity`). A response without nextUpdate
    /// (RFC 6960 §4.2.2.1: "newer revocation information is available all the time") is
    /// accepted for a day after its thisUpdate. Negative values are a configuration error.
    public var ocspClockSkewSeconds: Int

    /// No CRL, no required staple; must-staple honoured (see the type's documentation).
    public init(
        crlFiles: [String] = [], crlScope: CRLScope = .leaf, requireStapledOCSP: Bool = false,
        ocspClockSkewSeconds: Int = 300
    ) {
        self.crlFiles = crlFiles
        self.crlScope = crlScope
        self.requireStapledOCSP = requireStapledOCSP
        self.ocspClockSkewSeconds = ocspClockSkewSeconds
    }

    /// No revocation checking beyond must-staple.
    public static var `default`: RevocationPolicy { RevocationPolicy() }

    /// Whether the policy asks for any check beyond must-staple.
    public var isEnabled: Bool { !crlFiles.isEmpty || requireStapledOCSP }

    /// The stricter of two policies: every CRL of both (the whole chain if either wants it), a
    /// staple required if either requires it, the smaller clock skew. Used where two layers each
    /// contribute a policy (a request's TLS settings and a security policy), so neither can
    /// weaken the other.
    public func union(_ other: RevocationPolicy) -> RevocationPolicy {
        var files = crlFiles
        for file in other.crlFiles where !files.contains(file) { files.append(file) }
        return RevocationPolicy(
            crlFiles: files,
            crlScope: crlScope == .wholeChain || other.crlScope == .wholeChain ? .wholeChain : .leaf,
            requireStapledOCSP: requireStapledOCSP || other.requireStapledOCSP,
            ocspClockSkewSeconds: min(ocspClockSkewSeconds, other.ocspClockSkewSeconds))
    }
}
