import CourierClient
import CourierCore
import Synchronization

/// Security policies per host: a default policy, policies for exact hosts, and policies for
/// every subdomain of a domain (`*.example.com`).
///
/// Lookup (``policy(forHost:)``): host names compare case-insensitively, without a trailing dot
/// or IPv6 brackets; an exact entry wins, then the most specific wildcard (`*.api.example.com`
/// before `*.example.com`), then the default. A wildcard matches one or more labels in front of
/// its domain (`a.example.com`, `a.b.example.com`) but not the domain itself, and never an IP
/// literal.
///
/// A session uses a table in two places, both needed: ``apply(to:base:)`` gives each `https`
/// request its host's TLS configuration, and ``evaluator`` (carried by each of the session's
/// requests as their `serverTrustEvaluator`, or installed as a client's) judges each new
/// connection by its host's policy. Changes apply to
/// connections made afterwards; pooled connections were judged when they were made.
///
/// Thread-safe: the entries live in a `Mutex`, and the evaluator reads them on the event loop
/// that made the connection.
public final class SecurityPolicyTable: Sendable {
    private struct Entries {
        var defaultPolicy: SecurityPolicy
        var exact: [String: SecurityPolicy] = [:]
        /// Keyed by the domain after `*.`.
        var wildcard: [String: SecurityPolicy] = [:]
    }

    private let entries: Mutex<Entries>

    /// A table whose hosts all use `defaultPolicy` until told otherwise.
    public init(default defaultPolicy: SecurityPolicy = .default) {
        entries = Mutex(Entries(defaultPolicy: defaultPolicy))
    }

    /// The policy for hosts with no entry of their own.
    public var defaultPolicy: SecurityPolicy {
        get { entries.withLock { $0.defaultPolicy } }
        set { entries.withLock { $0.defaultPolicy = newValue } }
    }

    /// Sets the policy for `host`: an exact host name or IP literal, or `*.domain` for every
    /// subdomain of `domain`.
    ///
    /// - Throws: `CourierError(.invalidSecurityPolicy)` for a pattern that is empty, has a `*`
    ///   anywhere but as the whole first label, or is a wildcard over a single label (`*.com`)
    ///   or an IP literal.
    public func setPolicy(_ policy: SecurityPolicy, forHost host: String) throws(CourierError) {
        let pattern = try Self.pattern(host)
        entries.withLock { entries in
            switch pattern {
            case .exact(let name): entries.exact[name] = policy
            case .wildcard(let domain): entries.wildcard[domain] = policy
            }
        }
    }

    /// Removes the entry for `host` (written as it was set); its hosts fall back to the next
    /// match. Returns the policy that was removed.
    @discardableResult
    public func removePolicy(forHost host: String) -> SecurityPolicy? {
        guard let pattern = try? Self.pattern(host) else { return nil }
        return entries.withLock { entries in
            switch pattern {
            case .exact(let name): entries.exact.removeValue(forKey: name)
            case .wildcard(let domain): entries.wildcard.removeValue(forKey: domain)
            }
        }
    }

    /// The policy that applies to `host` (see the type's documentation for the lookup order).
    public func policy(forHost host: String) -> SecurityPolicy {
        // Most tables have only a default: no need to normalise the name (per request).
        if let only = entries.withLock({ $0.exact.isEmpty && $0.wildcard.isEmpty ? $0.defaultPolicy : nil }) { return only }
        let name = Self.normalise(host)
        return entries.withLock { entries in
            if let policy = entries.exact[name] { return policy }
            if !Self.isIPLiteral(name) {
                var rest = Substring(name)
                while let dot = rest.firstIndex(of: ".") {
                    rest = rest[rest.index(after: dot)...]
                    if let policy = entries.wildcard[String(rest)] { return policy }
                }
            }
            return entries.defaultPolicy
        }
    }

    /// A `serverTrustEvaluator` that judges each connection by the policy for its host
    /// (``SecurityPolicy/evaluate(_:at:)``) and throws the ``TrustFailure``, which becomes the
    /// cause of the client's `serverTrustRejected` error.
    public var evaluator: ServerTrustEvaluator {
        { [self] context in
            try policy(forHost: context.host).evaluate(context)
            return true
        }
    }

    /// Prepares `request` for its host's policy: an `https` request gets
    /// ``SecurityPolicy/tlsConfiguration(base:at:)`` as its TLS configuration (which then holds
    /// for the whole redirect chain, see `HTTPClientRequest.tls`); another scheme is left alone,
    /// unless the policy pins.
    ///
    /// - Throws: `CourierError(.invalidSecurityPolicy)` when the host's policy pins and the
    ///   request is not `https` (``SecurityPolicy/validate(forScheme:)``).
    public func apply(to request: inout HTTPClientRequest, base: TLSConfiguration) throws(CourierError) {
        let policy = policy(forHost: request.url.host)
        try policy.validate(forScheme: request.url.scheme.rawValue)
        if request.url.scheme == .https {
            // Unchanged settings stay nil: the request then shares the client's pool key.
            let tls = policy.tlsConfiguration(base: base)
            request.tls = tls == base ? nil : tls
        }
    }

    // MARK: Host patterns

    private enum Pattern {
        case exact(String)
        case wildcard(String)
    }

    private static func pattern(_ host: String) throws(CourierError) -> Pattern {
        var name = normalise(host)
        let invalid = CourierError(.invalidSecurityPolicy, detail: "\"\(host)\" is not a host name, IP literal or *.domain pattern")
        guard !name.isEmpty else { throw invalid }
        // Patterns must be written the way request hosts are (so they can match at all): an IPv6
        // literal in its canonical form (RFC 5952), names as ASCII (A-labels), no port or scheme.
        if name.contains(":") {
            guard let literal = try? HTTPURL("http://[\(name)]/"), literal.hostKind == .ipv6 else { throw invalid }
            name = literal.host
        } else {
            guard name.utf8.allSatisfy({ byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x2A
            }) else { throw invalid }
        }
        guard name.hasPrefix("*.") else {
            guard !name.contains("*") else { throw invalid }
            return .exact(name)
        }
        let domain = String(name.dropFirst(2))
        guard !domain.isEmpty, !domain.contains("*"), domain.contains("."), !domain.hasPrefix("."), !domain.contains(".."),
            !isIPLiteral(domain)
        else { throw invalid }
        return .wildcard(domain)
    }

    /// Lower case, no IPv6 brackets, no trailing dot.
    static func normalise(_ host: String) -> String {
        var name = Substring(host.lowercased())
        if name.hasPrefix("["), name.hasSuffix("]"), name.count >= 2 { name = name.dropFirst().dropLast() }
        if name.hasSuffix(".") { name = name.dropLast() }
        return String(name)
    }

    /// Dotted-quad IPv4 or anything with a colon (IPv6): never matched by a wildcard.
    static func isIPLiteral(_ name: String) -> Bool {
        if name.contains(":") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }
}
