import CCourierOpenSSL

/// The CRLs of a ``RevocationPolicy``, loaded once per ``TLSContext`` and handed to every chain
/// verification of that context (RFC 5280 §6.3).
///
/// The CRLs are not added to the context's `X509_STORE`: that store may be shared (the system
/// trust store), and a CRL there would change verification for every other context. Instead the
/// context's certificate-verification callback gives them to each `X509_STORE_CTX`
/// (`X509_STORE_CTX_set0_crls`) and sets the CRL flags on it, then runs `X509_verify_cert` as
/// OpenSSL would.
///
/// Immutable after `init`, so safe to share: verifications on several threads only read the
/// stack, and OpenSSL takes its own (atomic) reference on a CRL it uses.
final class CertificateRevocationLists: @unchecked Sendable {
    /// The `STACK_OF(X509_CRL)`, owning its CRLs; freed in `deinit`.
    let stack: OpaquePointer
    /// `X509_V_FLAG_CRL_CHECK`, plus `X509_V_FLAG_CRL_CHECK_ALL` for the whole chain.
    let flags: UInt

    /// Loads every CRL in `files` (PEM). A file that cannot be read or holds no CRL is a
    /// configuration error, not an empty list: a typo must not turn revocation checking into
    /// a check that fails every connection for an unclear reason, or into none at all.
    init(files: [String], scope: RevocationPolicy.CRLScope) throws(TLSError) {
        guard let stack = OPENSSL_sk_new_null() else {
            throw OpenSSLErrorQueue.error(.configuration, "cannot allocate a CRL list")
        }
        self.stack = stack
        self.flags = UInt(X509_V_FLAG_CRL_CHECK) | (scope == .wholeChain ? UInt(X509_V_FLAG_CRL_CHECK_ALL) : 0)
        for file in files { try load(file) }
    }

    deinit {
        while let crl = OPENSSL_sk_pop(stack) { X509_CRL_free(OpaquePointer(crl)) }
        OPENSSL_sk_free(stack)
    }

    private func load(_ file: String) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let bio = BIO_new_file(file, "r") else {
            throw OpenSSLErrorQueue.error(.configuration, "cannot open CRL file \(file)")
        }
        defer { BIO_free(bio) }
        var count = 0
        while let crl = PEM_read_bio_X509_CRL(bio, nil, nil, nil) {
            guard OPENSSL_sk_push(stack, UnsafeRawPointer(crl)) > 0 else {
                X509_CRL_free(crl)
                throw OpenSSLErrorQueue.error(.configuration, "cannot keep a CRL of \(file)")
            }
            count += 1
        }
        // The loop ends at the end of the file (only PEM_R_NO_START_LINE queued) or at a
        // malformed block (anything else queued).
        let drained = OpenSSLErrorQueue.drain()
        let cleanEnd = drained.entries.allSatisfy {
            ERR_GET_LIB($0.code) == ERR_LIB_PEM && ERR_GET_REASON($0.code) == PEM_R_NO_START_LINE
        }
        guard count > 0, cleanEnd else {
            throw TLSError(.configuration, message: "cannot read a CRL from \(file): \(drained.message)")
        }
    }

    /// Makes every chain verification of `ctx` use these CRLs. `self` must outlive `ctx` (the
    /// ``TLSContext`` holds both and frees the context first).
    func install(on ctx: OpaquePointer) {
        SSL_CTX_set_cert_verify_callback(ctx, { storeContext, arg in
            // Safe: `arg` is this object, which the TLSContext keeps alive as long as the SSL_CTX;
            // `storeContext` is OpenSSL's for the duration of the call and is not kept.
            guard let storeContext, let arg else { return 0 }
            let lists = Unmanaged<CertificateRevocationLists>.fromOpaque(arg).takeUnretainedValue()
            // set0: the store context borrows the stack; X509_STORE_CTX_cleanup does not free it.
            X509_STORE_CTX_set0_crls(storeContext, lists.stack)
            X509_STORE_CTX_set_flags(storeContext, lists.flags)
            return X509_verify_cert(storeContext)
        }, Unmanaged.passUnretained(self).toOpaque())
    }
}
