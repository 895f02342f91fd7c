import CourierClient
import FoundationEssentials

extension SecurityPolicy {
    /// The TLS settings a request must use under this policy: `base` with its verification
    /// mode and trust roots decided by the policy.
    ///
    /// - verification `.full` (chain, validity, host name); `.noHostnameVerification` when
    ///   ``validatesDomainName`` is false; `.none` when ``allowInvalidCertificates`` is set (the
    ///   policy then checks the leaf's name itself and pins against the leaf).
    /// - ``SSLPinningMode/certificate``: the pinned certificates are added as trust anchors
    ///   (`TrustRoot.certificates`, like AFNetworking's `SecTrustSetAnchorCertificates`), so a
    ///   pinned self-signed certificate, private CA, or leaf verifies without turning
    ///   verification off. Unlike AFNetworking, `base`'s roots (the system store, usually) stay:
    ///   that changes no decision — ``evaluate(_:at:)`` still requires a pinned certificate in
    ///   the verified chain — but a server with a publicly trusted, unpinned chain then fails
    ///   with ``TrustFailure/noPinnedCertificateInChain(host:chainSubjects:)``, which names the
    ///   chain, instead of an opaque "untrusted root" from the handshake.
    /// - revocation: `base`'s combined with ``revocation`` (the stricter of both; OpenSSL checks
    ///   it during the handshake).
    ///
    /// The anchors are sorted, so equal policies give equal configurations (one pool key, one
    /// OpenSSL context).
    public func tlsConfiguration(base: TLSConfiguration, at date: Date = Date()) -> TLSConfiguration {
        var configuration = base
        configuration.revocation = base.revocation.union(revocation)
        let (mode, allowInvalid, validatesDomainName) = effective(at: date)
        if mode != .none {
            // Connections judged by these pins are never shared with connections made before the
            // policy applied (the trust evaluator runs once per connection, at its handshake).
            configuration.poolPartition = poolPartition(mode: mode, allowInvalid: allowInvalid, validatesDomainName: validatesDomainName)
        }
        if allowInvalid {
            configuration.verification = .none
        } else {
            configuration.verification = validatesDomainName ? .full : .noHostnameVerification
            if mode == .certificate && !pinnedCertificates.isEmpty {
                let anchors = pinnedCertificates.sorted { $0.der.lexicographicallyPrecedes($1.der) }
                configuration.trustRoots.append(.certificates(anchors))
            }
        }
        return configuration
    }

    /// Judges a TLS connection, after the handshake and before any request byte.
    ///
    /// 1. Which certificates count: the chain OpenSSL verified; with
    ///    ``allowInvalidCertificates``, only the leaf the server sent — nothing verified the
    ///    rest, and a man in the middle could append any public certificate to its own leaf, so
    ///    only the leaf (whose key the handshake proved) may satisfy a pin.
    /// 2. With ``validatesDomainName``, the leaf must name `context.host` (checked here too, not
    ///    only by OpenSSL, so the check holds whatever TLS configuration the connection used).
    /// 3. Pinning: ``SSLPinningMode/certificate`` — some certificate counted is DER-equal to a
    ///    pinned one or has a pinned SHA-256 fingerprint; ``SSLPinningMode/publicKey`` — some certificate counted has its SPKI
    ///    SHA-256 in ``pinnedPublicKeyHashes``; ``SSLPinningMode/none`` — accepted. After
    ///    ``pinsExpire`` the pins are not checked.
    ///
    /// - Throws: the ``TrustFailure`` naming the reason.
    public func evaluate(_ context: ServerTrustContext, at date: Date = Date()) throws(TrustFailure) {
        let host = context.host
        let (mode, allowInvalid, validatesDomainName) = effective(at: date)
        let counted: [TLSCertificate]
        if allowInvalid {
            guard let leaf = context.connection.peerChain.first else { throw .noCertificate(host: host) }
            counted = [leaf]
        } else {
            guard !context.connection.verifiedChain.isEmpty else { throw .chainNotVerified(host: host) }
            counted = context.connection.verifiedChain
        }
        if validatesDomainName, let leaf = counted.first, !leaf.matches(host: host) {
            throw .hostnameMismatch(host: host, certificateSubject: leaf.subject)
        }
        switch mode {
        case .none:
            return
        case .certificate:
            guard counted.contains(where: pins) else {
                if pinnedCertificates.isEmpty {
                    throw .noPinnedFingerprintInChain(
                        host: host, seenFingerprints: counted.map { CertificateFingerprint.string($0.sha256Fingerprint) })
                }
                throw .noPinnedCertificateInChain(host: host, chainSubjects: counted.map(\.subject))
            }
        case .publicKey:
            guard counted.contains(where: { pinnedPublicKeyHashes.contains($0.spkiSHA256) }) else {
                throw .noPinnedPublicKeyInChain(host: host, seenPins: counted.map { PublicKeyPin.base64($0.spkiSHA256) })
            }
        }
    }

    /// This policy as a client's `serverTrustEvaluator` (for a client that talks to hosts under
    /// one policy; see ``SecurityPolicyTable`` for per-host policies). Throws the ``TrustFailure``.
    public var evaluator: ServerTrustEvaluator {
        { context in
            try self.evaluate(context)
            return true
        }
    }

    /// AFNetworking's rule: a pinning policy is only for `https`. Pins over plain `http` would
    /// protect nothing, so that configuration is refused rather than silently ignored.
    ///
    /// - Throws: `CourierError(.invalidSecurityPolicy)` when the policy pins and `scheme` is not
    ///   `https` (compared case-insensitively).
    public func validate(forScheme scheme: String) throws(CourierError) {
        guard isPinning, scheme.lowercased() != "https" else { return }
        throw CourierError(
            .invalidSecurityPolicy, phase: .serialize,
            detail: "a \(pinningMode.rawValue)-pinning security policy can only be used with https, not \(scheme)")
    }

    /// A stable label for the pins in force and how they are applied.
    private func poolPartition(mode: SSLPinningMode, allowInvalid: Bool, validatesDomainName: Bool) -> String {
        let pins: [[UInt8]] = mode == .certificate
            ? pinnedCertificates.map(\.sha256Fingerprint) + pinnedCertificateFingerprints : Array(pinnedPublicKeyHashes)
        let text = pins.map { Data($0).base64EncodedString() }.sorted().joined(separator: ",")
        return "courier-pins/\(mode)/\(allowInvalid ? "any" : "valid")/\(validatesDomainName ? "name" : "noname")/\(text)"
    }
}
