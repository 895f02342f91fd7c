import CourierClient
import FoundationEssentials

/// How a server's TLS identity is judged: chain and host-name validation, optionally with
/// certificate or public-key pinning (AFNetworking's `AFSecurityPolicy`).
///
/// Pinning adds to chain and name validation; it never replaces them unless
/// ``allowInvalidCertificates`` is set. A policy acts twice: ``tlsConfiguration(base:)`` is what
/// a request's TLS settings must be (OpenSSL verifies the chain and name during the handshake),
/// and ``evaluate(_:at:)`` judges the connection afterwards, before any request byte is sent
/// (install ``evaluator`` or ``SecurityPolicyTable/evaluator`` as the client's
/// `serverTrustEvaluator`). Both are needed: a request made without the policy's TLS
/// configuration is judged on what that configuration verified.
///
/// An unsafe policy cannot exist: the properties are read-only, and the initialisers and
/// setters throw `CourierError(.invalidSecurityPolicy)` for
/// - invalid certificates allowed with domain-name validation but nothing pinned (AFNetworking
///   refuses it at evaluation: with no chain validation and no pin, the name in a certificate
///   anyone can make proves nothing);
/// - a pinning mode with an empty pin set.
///
/// Backup pins: RFC 7469 §4.3 advises always pinning at least one key that is not in the current
/// chain (a spare key kept offline), so a lost or compromised key does not lock clients out
/// until they are updated. A pin set without a backup is allowed, but clients then depend on the
/// current key alone; ``pinsExpire`` bounds how long such a mistake can last.
public struct SecurityPolicy: Sendable, Hashable {
    /// What the server is pinned to.
    public private(set) var pinningMode: SSLPinningMode
    /// The pinned certificates. In ``SSLPinningMode/certificate`` mode some certificate of the
    /// chain must be one of them, and they are trust anchors; in ``SSLPinningMode/publicKey``
    /// mode their public keys are pinned.
    public private(set) var pinnedCertificates: Set<TLSCertificate>
    /// Pinned certificates given by their SHA-256 fingerprint (32 bytes each, the digest of the
    /// DER encoding) rather than in full. In ``SSLPinningMode/certificate`` mode a certificate of
    /// the chain whose fingerprint is here counts as pinned, like one of ``pinnedCertificates``.
    /// Unlike those, a fingerprint cannot be a trust anchor: the chain must verify on its own
    /// (or ``allowInvalidCertificates`` be set).
    public private(set) var pinnedCertificateFingerprints: Set<[UInt8]>
    /// The pinned SPKI SHA-256 digests (32 bytes each, RFC 7469 §2.4), backup pins included:
    /// any certificate of the chain may match one.
    public private(set) var pinnedPublicKeyHashes: Set<[UInt8]>
    /// The subset of ``pinnedPublicKeyHashes`` given as backup pins, kept apart for reporting.
    public private(set) var backupPublicKeyHashes: Set<[UInt8]>
    /// Accept a chain OpenSSL would reject (expired, untrusted, self-signed): the TLS
    /// configuration turns verification off and the policy judges the leaf alone (its pin and,
    /// with ``validatesDomainName``, its name). Default false. Meant for development servers; a
    /// policy with it must pin or not validate the domain name.
    public private(set) var allowInvalidCertificates: Bool
    /// Check that the leaf certificate names the host (RFC 6125 §6). Default true.
    public private(set) var validatesDomainName: Bool
    /// When the pins stop being enforced (HPKP's max-age, RFC 7469 §2.1.2): from this date on,
    /// the policy validates the chain and the name only, like ``default`` (with
    /// ``validatesDomainName`` as set), and ``allowInvalidCertificates`` is no longer honoured —
    /// the pins were what made it safe. An app that is not updated therefore falls back to
    /// ordinary validation instead of failing for ever once its pinned keys are rotated. nil:
    /// the pins never expire.
    public private(set) var pinsExpire: Date?
    /// Revocation checking required of the server, on top of what the request's TLS settings
    /// already ask (the two are combined with ``RevocationPolicy/union(_:)``, so a policy never
    /// weakens them): CRL files (RFC 5280) and a required stapled OCSP response (RFC 6960,
    /// RFC 6066 §8), like Alamofire's `RevocationTrustEvaluator`. A must-staple certificate
    /// (RFC 7633) is held to its staple whatever this says. A revoked certificate fails the
    /// handshake: ``TrustFailure/certificateVerificationFailed(host:_:)`` with
    /// `CertificateVerificationFailure.revoked`. Default ``RevocationPolicy/default`` (nothing
    /// beyond must-staple).
    public private(set) var revocation: RevocationPolicy = .default

    /// No pinning; a valid chain and a matching host name are required.
    public static let `default` = SecurityPolicy(
        unchecked: .none, certificates: [], hashes: [], backups: [], allowInvalid: false, validatesDomainName: true,
        expires: nil)

    init(
        unchecked mode: SSLPinningMode, certificates: Set<TLSCertificate>, fingerprints: Set<[UInt8]> = [],
        hashes: Set<[UInt8]>, backups: Set<[UInt8]>, allowInvalid: Bool, validatesDomainName: Bool, expires: Date?
    ) {
        self.pinningMode = mode
        self.pinnedCertificates = certificates
        self.pinnedCertificateFingerprints = fingerprints
        self.pinnedPublicKeyHashes = hashes
        self.backupPublicKeyHashes = backups
        self.allowInvalidCertificates = allowInvalid
        self.validatesDomainName = validatesDomainName
        self.pinsExpire = expires
    }

    /// A policy pinning `pinnedCertificates` (AFNetworking's
    /// `policyWithPinningMode:withPinnedCertificates:`). In ``SSLPinningMode/publicKey`` mode
    /// their public keys are pinned.
    ///
    /// - Throws: `CourierError(.invalidSecurityPolicy)` for an unsafe or unusable combination
    ///   (see the type's documentation).
    public init(
        pinningMode: SSLPinningMode, pinnedCertificates: Set<TLSCertificate> = [],
        allowInvalidCertificates: Bool = false, validatesDomainName: Bool = true, pinsExpire: Date? = nil
    ) throws(CourierError) {
        self.init(
            unchecked: pinningMode, certificates: pinnedCertificates,
            hashes: Set(pinnedCertificates.map(\.spkiSHA256)), backups: [],
            allowInvalid: allowInvalidCertificates, validatesDomainName: validatesDomainName, expires: pinsExpire)
        try check()
    }

    /// A public-key pinning policy from pins in text form: `"sha256/BASE64"` or bare
    /// `"BASE64"` of the SPKI SHA-256 (`openssl x509 -pubkey -noout | openssl pkey -pubin
    /// -outform der | openssl dgst -sha256 -binary | base64`). A certificate of the chain must
    /// match one pin of either list; `backupPins` are kept apart only for reporting (RFC 7469
    /// §4.3 advises at least one, see the type's documentation).
    ///
    /// - Throws: `CourierError(.invalidSecurityPolicy)` for a malformed pin or an empty pin set.
    public init(
        publicKeyPins: [String], backupPins: [String] = [], allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true, pinsExpire: Date? = nil
    ) throws(CourierError) {
        let (hashes, backups) = try Self.parse(publicKeyPins, backupPins)
        self.init(
            unchecked: .publicKey, certificates: [], hashes: hashes, backups: backups,
            allowInvalid: allowInvalidCertificates, validatesDomainName: validatesDomainName, expires: pinsExpire)
        try check()
    }

    // MARK: Setters (each keeps the policy safe or throws and leaves it unchanged)

    /// Changes the pinning mode.
    public mutating func setPinningMode(_ mode: SSLPinningMode) throws(CourierError) {
        try update { $0.pinningMode = mode }
    }

    /// Replaces the pinned certificates; the pinned public keys become theirs (as in
    /// AFNetworking, where `setPinnedCertificates:` recomputes the pinned keys).
    public mutating func setPinnedCertificates(_ certificates: Set<TLSCertificate>) throws(CourierError) {
        try update {
            $0.pinnedCertificates = certificates
            $0.pinnedPublicKeyHashes = Set(certificates.map(\.spkiSHA256))
            $0.backupPublicKeyHashes = []
        }
    }

    /// Replaces the public-key pins (text form as in ``init(publicKeyPins:backupPins:allowInvalidCertificates:validatesDomainName:pinsExpire:)``).
    public mutating func setPublicKeyPins(_ pins: [String], backupPins: [String] = []) throws(CourierError) {
        let (hashes, backups) = try Self.parse(pins, backupPins)
        try update {
            $0.pinnedPublicKeyHashes = hashes
            $0.backupPublicKeyHashes = backups
        }
    }

    /// Replaces the pinned certificate fingerprints (text forms as in
    /// ``init(certificateFingerprints:allowInvalidCertificates:validatesDomainName:pinsExpire:)``);
    /// ``pinnedCertificates`` stay pinned too.
    public mutating func setPinnedCertificateFingerprints(_ fingerprints: [String]) throws(CourierError) {
        let parsed = try Self.parseFingerprints(fingerprints)
        try update { $0.pinnedCertificateFingerprints = parsed }
    }

    /// See ``allowInvalidCertificates``.
    public mutating func setAllowInvalidCertificates(_ allow: Bool) throws(CourierError) {
        try update { $0.allowInvalidCertificates = allow }
    }

    /// See ``validatesDomainName``.
    public mutating func setValidatesDomainName(_ validates: Bool) throws(CourierError) {
        try update { $0.validatesDomainName = validates }
    }

    /// See ``pinsExpire``. Never makes a policy unsafe, so it does not throw.
    public mutating func setPinsExpire(_ date: Date?) {
        pinsExpire = date
    }

    /// See ``revocation``.
    ///
    /// - Throws: ``CourierError`` `.invalidSecurityPolicy` when the policy allows invalid
    ///   certificates: the chain is then not verified, so no revocation check could run, and a
    ///   revoked certificate would pass without a word.
    public mutating func setRevocation(_ revocation: RevocationPolicy) throws(CourierError) {
        try update { $0.revocation = revocation }
    }

    // MARK: Queries

    /// Whether the policy pins at all (mode other than ``SSLPinningMode/none``).
    public var isPinning: Bool { pinningMode != .none }

    /// Whether the pins are enforced at `date` (pinning, and ``pinsExpire`` not reached).
    public func pinsAreEnforced(at date: Date = Date()) -> Bool {
        guard isPinning else { return false }
        if let pinsExpire, date >= pinsExpire { return false }
        return true
    }

    /// The pin of a certificate's public key in text form, `sha256/BASE64`, for writing a pin set.
    public static func publicKeyPin(of certificate: TLSCertificate) -> String {
        PublicKeyPin.string(certificate.spkiSHA256)
    }

    /// The settings in force at `date` (see ``pinsExpire``): once pins have expired, the policy
    /// is exactly ``default`` — the relaxations (invalid certificates, no name check) were only
    /// safe because of the pins.
    func effective(at date: Date) -> (mode: SSLPinningMode, allowInvalid: Bool, validatesDomainName: Bool) {
        if isPinning && !pinsAreEnforced(at: date) { return (.none, false, true) }
        return (pinningMode, allowInvalidCertificates, validatesDomainName)
    }

    // MARK: Validation

    mutating func update(_ change: (inout SecurityPolicy) -> Void) throws(CourierError) {
        var copy = self
        change(&copy)
        try copy.check()
        self = copy
    }

    /// AFNetworking's safety rule, applied when a policy is made instead of when it is used.
    func check() throws(CourierError) {
        switch pinningMode {
        case .none:
            break
        case .certificate where pinnedCertificates.isEmpty && pinnedCertificateFingerprints.isEmpty:
            throw CourierError(.invalidSecurityPolicy, detail: "certificate pinning needs at least one pinned certificate or fingerprint")
        case .publicKey where pinnedPublicKeyHashes.isEmpty:
            throw CourierError(.invalidSecurityPolicy, detail: "public-key pinning needs at least one pin")
        case .certificate, .publicKey:
            break
        }
        if allowInvalidCertificates && revocation.isEnabled {
            throw CourierError(
                .invalidSecurityPolicy,
                detail: "revocation checks need a verified chain, and allowing invalid certificates turns verification off")
        }
        if allowInvalidCertificates && validatesDomainName && !isPinning {
            throw CourierError(
                .invalidSecurityPolicy,
                detail: "allowing invalid certificates while validating the domain name needs pinning: without a verified chain or a pin, the name in a certificate proves nothing")
        }
    }

    private static func parse(_ pins: [String], _ backups: [String]) throws(CourierError) -> (Set<[UInt8]>, Set<[UInt8]>) {
        var all = Set<[UInt8]>()
        var backupSet = Set<[UInt8]>()
        for pin in pins { all.insert(try PublicKeyPin.parse(pin)) }
        for pin in backups {
            let digest = try PublicKeyPin.parse(pin)
            all.insert(digest)
            backupSet.insert(digest)
        }
        return (all, backupSet)
    }
}
