import CCourierOpenSSL
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

    /// How a DNS name is matched, in the handshake (`SSL_set_hostflags`) and by
    /// ``TLSCertificate/matches(host:)`` alike: against the DNS subjectAltNames only
    /// (`X509_CHECK_FLAG_NEVER_CHECK_SUBJECT`: without it OpenSSL falls back to the subject's
    /// Common Name when there is no DNS subjectAltName, and a client must not use that CN-ID,
    /// RFC 9525 §6.3, RFC 9110 §4.3.4), and a wildcard only as the whole left-most label
    /// (`X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS`, RFC 9525 §6.3). IP literals never match a CN.
    static let dnsCheckFlags = UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT)

    /// Whether `text` parses as a dotted-quad IPv4 or an IPv6 address.
    static func isIPLiteral(_ text: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return true }
        var v6 = in6_addr()
        return inet_pton(AF_INET6, text, &v6) == 1
    }
}
