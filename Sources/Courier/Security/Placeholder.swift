// TEMPORARY: replaced by the security branch.
import CourierClient
import CourierTLS
import Synchronization
public struct SecurityPolicy: Sendable {
    public static let `default` = SecurityPolicy()
}
public final class SecurityPolicyTable: Sendable {
    init(default policy: SecurityPolicy) {}
    var evaluator: ServerTrustEvaluator { { _ in true } }
    func apply(to request: inout HTTPClientRequest, base: TLSConfiguration) throws(CourierError) {}
}
