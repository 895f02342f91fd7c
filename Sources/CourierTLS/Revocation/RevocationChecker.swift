import CCourierOpenSSL

/// What a client ``TLSContext`` does about revocation: the OCSP status request and its
/// callback (must-staple always, a required staple when the ``RevocationPolicy`` says so), and
/// the policy's CRLs. Made once per context and kept alive by it; immutable afterwards.
final class RevocationChecker: @unchecked Sendable {
    let policy: RevocationPolicy
    /// The loaded CRLs; nil when the policy names none.
    let revocationLists: CertificateRevocationLists?

    /// Loads the policy's CRL files (a configuration error if one cannot be read, as is a
    /// negative clock skew). Asking for revocation checks with verification
    /// ``CertificateVerification/none`` is a configuration error too: nothing would be checked,
    /// and a revoked certificate would pass silently.
    init(policy: RevocationPolicy, verification: CertificateVerification) throws(TLSError) {
        guard policy.ocspClockSkewSeconds >= 0 else {
            throw TLSError(.configuration, message: "the OCSP clock skew must not be negative (\(policy.ocspClockSkewSeconds) s)")
        }
        guard verification != .none || !policy.isEnabled else {
            throw TLSError(.configuration, message: "revocation checks (CRL files, a required OCSP staple) need certificate verification; it is off")
        }
        self.policy = policy
        self.revocationLists = policy.crlFiles.isEmpty
            ? nil : try CertificateRevocationLists(files: policy.crlFiles, scope: policy.crlScope)
    }

    /// Configures `ctx`. With verification ``CertificateVerification/none`` nothing is checked,
    /// so nothing is installed. `self` must outlive `ctx`.
    func install(on ctx: OpaquePointer, verification: CertificateVerification) {
        guard verification != .none else { return }
        revocationLists?.install(on: ctx)
        // SSL_CTX_set_tlsext_status_type(ctx, TLSEXT_STATUSTYPE_ocsp): every session sends
        // status_request, so a must-staple server can staple (RFC 7633 §4.2.3).
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_TLSEXT_STATUS_REQ_TYPE, Int(TLSEXT_STATUSTYPE_ocsp), nil)
        // SSL_CTX_set_tlsext_status_arg / _cb are macros over SSL_CTX_ctrl / SSL_CTX_callback_ctrl.
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_TLSEXT_STATUS_REQ_CB_ARG, 0, Unmanaged.passUnretained(self).toOpaque())
        let callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, arg in
            // Safe: `arg` is this checker, alive as long as the SSL_CTX (see `install`); `ssl` is the
            // session whose handshake is running on this thread.
            guard let ssl, let arg else { return 0 }
            let checker = Unmanaged<RevocationChecker>.fromOpaque(arg).takeUnretainedValue()
            guard let verdict = OCSPStapling.verdict(
                for: ssl, required: checker.policy.requireStapledOCSP,
                clockSkewSeconds: checker.policy.ocspClockSkewSeconds)
            else { return 1 }
            StapleVerdict.record(verdict, on: ssl)
            return 0  // OpenSSL aborts the handshake with bad_certificate_status_response (113)
        }
        // SSL_CTX_callback_ctrl takes `void (*)(void)`; OpenSSL calls it back with the status
        // callback's real signature, so the cast only changes the type Swift sees.
        _ = SSL_CTX_callback_ctrl(ctx, SSL_CTRL_SET_TLSEXT_STATUS_REQ_CB,
                                  unsafeBitCast(callback, to: (@convention(c) () -> Void).self))
    }
}
