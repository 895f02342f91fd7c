import Glibc

/// What a client's `serverHostname` names, which decides SNI and the certificate check.
enum ServerIdentity: Equatable {
    /// A DNS name: sent as SNI (RFC 6066 §3) and matched against DNS subjectAltNames (RFC 6125).
    case dns(String)
    /// An IP literal: never sent as SNI ("Literal IPv4 and IPv6 addresses are not permitted in
    /// HostName", RFC 6066 §3) and matched against IP subjectAltNames.
    case ip(String)

    /// Classifies a host as written in a URL: "example.com", "127.0.0.1", "::1" or "[::1]".
    /// An IPv6 zone ("fe80::1%eth0") is dropped; a trailing dot on a DNS name is dropped (SNI
    /// carries names without it). Returns nil for an empty name.
    init?(_ host: String) throws(TLSError) {
        var name = Substring(host)
        let bracketed = name.hasPrefix("[") && name.hasSuffix("]") && name.count >= 2
        if bracketed { name = name.dropFirst().dropLast() }
        let address = name.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first ?? name
        if Self.isIPLiteral(String(address)) {
            self = .ip(String(address))
            return
        }
        if bracketed { throw TLSError(.configuration, message: "\(host) is not an IPv6 address") }
        if name.hasSuffix(".") { name = name.dropLast() }
        if name.isEmpty { return nil }
        self = .dns(String(name))
    }

    /// Whether `text` parses as a dotted-quad IPv4 or an IPv6 address.
    static func isIPLiteral(_ text: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return true }
        var v6 = in6_addr()
        return inet_pton(AF_INET6, text, &v6) == 1
    }
}
