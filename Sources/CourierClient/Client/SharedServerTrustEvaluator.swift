/// A ``ServerTrustEvaluator`` with an identity, so that requests can carry one of their own
/// (``HTTPClientRequest/serverTrustEvaluator``) and the pool can tell evaluators apart.
///
/// Closures cannot be compared, so the pool compares these objects by identity: two requests
/// share a connection only when they carry the same object (or both carry none). Make one per
/// policy owner (a session manager makes one for its security policies) and reuse it for every
/// request, or each request gets connections of its own.
public final class SharedServerTrustEvaluator: Sendable, Hashable {
    /// The decision, as for ``HTTPClientConfiguration/serverTrustEvaluator``.
    public let evaluate: ServerTrustEvaluator

    public init(_ evaluate: @escaping ServerTrustEvaluator) {
        self.evaluate = evaluate
    }

    public static func == (lhs: SharedServerTrustEvaluator, rhs: SharedServerTrustEvaluator) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
