import CourierClient

extension SecurityPolicy {
    /// The Courier error for a transport failure that is a trust decision, or nil for any other
    /// failure:
    /// - `ClientError.Code.serverTrustRejected` (the evaluator rejected the server): the
    ///   ``TrustFailure`` it threw, or the `ClientError` itself when it only returned false;
    /// - `ClientError.Code.tls` caused by a certificate verification failure during the
    ///   handshake (expired, untrusted root, wrong name, …):
    ///   ``TrustFailure/certificateVerificationFailed(host:_:)``.
    ///
    /// Either way the result is `CourierError(.serverTrustRejected, phase: .trust)` with the
    /// reason as `underlying`. `host` (the request's) is put into a verification failure, which
    /// does not carry it.
    public static func courierError(from error: ClientError, host: String? = nil) -> CourierError? {
        if error.code == .serverTrustRejected {
            if let failure = error.cause as? TrustFailure {
                return CourierError(.serverTrustRejected, phase: .trust, underlying: failure, detail: failure.description)
            }
            return CourierError(.serverTrustRejected, phase: .trust, underlying: error, detail: error.detail)
        }
        if error.code == .tls, let tls = error.cause as? TLSError,
            case .certificateVerificationFailed(let reason) = tls.reason
        {
            let failure = TrustFailure.certificateVerificationFailed(host: host, reason)
            return CourierError(.serverTrustRejected, phase: .trust, underlying: failure, detail: failure.description)
        }
        return nil
    }
}
