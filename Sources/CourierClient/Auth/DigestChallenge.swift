import CourierHTTP1
import CourierTLS

/// The `algorithm` of a Digest challenge (RFC 7616 §3.3, §6.1): a hash function, and whether
/// the session variant (`-sess`, which folds the nonce and cnonce into A1, §3.4.2) is asked for.
public struct DigestAlgorithm: Hashable, Sendable, CustomStringConvertible {
    public let hash: HashFunction
    public let isSession: Bool

    public init(hash: HashFunction, isSession: Bool = false) {
        self.hash = hash
        self.isSession = isSession
    }

    public static let md5 = DigestAlgorithm(hash: .md5)
    public static let md5Session = DigestAlgorithm(hash: .md5, isSession: true)
    public static let sha256 = DigestAlgorithm(hash: .sha256)
    public static let sha256Session = DigestAlgorithm(hash: .sha256, isSession: true)
    public static let sha512_256 = DigestAlgorithm(hash: .sha512_256)
    public static let sha512_256Session = DigestAlgorithm(hash: .sha512_256, isSession: true)

    /// The algorithm a challenge's `algorithm` token names (case-insensitive), or nil for one
    /// Courier does not compute. A challenge without the parameter means MD5 (RFC 7616 §3.3).
    public init?(token: String) {
        var name = token.uppercased()
        let isSession = name.hasSuffix("-SESS")
        if isSession { name.removeLast(5) }
        guard let hash = HashFunction(rawValue: name) else { return nil }
        self.init(hash: hash, isSession: isSession)
    }

    /// The token sent back in the `algorithm` parameter (RFC 7616 §3.4).
    public var token: String { hash.rawValue + (isSession ? "-sess" : "") }
    public var description: String { token }

    /// Preference among several Digest challenges (RFC 7616 §3.7: the client uses the first
    /// one it supports, in the server's order of preference; Courier prefers the strongest hash
    /// it can compute): higher is preferred.
    public var strength: Int {
        switch hash {
        case .md5: 1
        case .sha256: 2
        case .sha512_256: 3
        }
    }
}

/// A Digest challenge (RFC 7616 §3.3) read from an ``AuthChallenge`` whose scheme is `Digest`.
public struct DigestChallenge: Hashable, Sendable {
    /// `realm`: exact bytes, hashed into A1 (RFC 7616 §3.4.2).
    public let realm: [UInt8]
    /// `nonce`: exact bytes.
    public let nonce: [UInt8]
    /// `opaque`, echoed unchanged (RFC 7616 §3.3).
    public let opaque: [UInt8]?
    public let algorithm: DigestAlgorithm
    /// The `qop` options offered (RFC 7616 §3.3), lowercased; empty when the server sent none
    /// (the RFC 2069 compatibility form, RFC 7616 §3.4.1 paragraph "If the qop parameter is not
    /// present").
    public let qopOptions: [String]
    /// `stale=true`: the previous request's nonce was out of date, its credentials good
    /// (RFC 7616 §3.3); the client retries with the new nonce without asking for credentials.
    public let isStale: Bool
    /// `userhash=true`: the server accepts a hashed user name (RFC 7616 §3.4.4).
    public let userhash: Bool

    /// Reads a Digest challenge.
    ///
    /// - Throws: ``DigestAuthorizationError`` `.unsupportedChallenge` when the scheme is not
    ///   Digest, `realm` or `nonce` is missing (RFC 7616 §3.3), the `algorithm` is not one
    ///   ``DigestAlgorithm`` computes, or `qop` offers neither `auth` nor nothing (Courier does
    ///   not compute `auth-int`).
    public init(_ challenge: AuthChallenge) throws(DigestAuthorizationError) {
        guard challenge.hasScheme("Digest") else { throw .unsupported("scheme \(challenge.scheme)") }
        guard let realm = challenge[parameter: "realm"]?.valueBytes else { throw .unsupported("Digest without realm") }
        guard let nonce = challenge[parameter: "nonce"]?.valueBytes else { throw .unsupported("Digest without nonce") }
        let algorithmToken = challenge[parameter: "algorithm"]?.value ?? "MD5"
        guard let algorithm = DigestAlgorithm(token: algorithmToken) else {
            throw .unsupported("Digest algorithm=\(algorithmToken)")
        }
        // qop = "qop" EQUAL quoted-string: a comma-separated list of qop-values (RFC 7616 §3.3).
        let qopOptions = challenge[parameter: "qop"].map { parameter in
            parameter.value.split(separator: ",").map { $0.trimmingWhitespace().lowercased() }.filter { !$0.isEmpty }
        } ?? []
        if challenge[parameter: "qop"] != nil, !qopOptions.contains("auth") {
            throw .unsupported("Digest qop=\(qopOptions.joined(separator: ","))")
        }
        self.realm = realm
        self.nonce = nonce
        self.opaque = challenge[parameter: "opaque"]?.valueBytes
        self.algorithm = algorithm
        self.qopOptions = qopOptions
        self.isStale = challenge[parameter: "stale"]?.value.lowercased() == "true"
        self.userhash = challenge[parameter: "userhash"]?.value.lowercased() == "true"
    }

    /// Whether the response carries `qop=auth` (with `nc` and `cnonce`) or uses the RFC 2069
    /// form the server asked for by sending no `qop`.
    public var usesQop: Bool { !qopOptions.isEmpty }

    /// The realm as text (UTF-8; invalid sequences replaced).
    public var realmText: String { String(decoding: realm, as: UTF8.self) }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var s = self
        while let first = s.first, first == " " || first == "\t" { s.removeFirst() }
        while let last = s.last, last == " " || last == "\t" { s.removeLast() }
        return s
    }
}
