import CourierHTTP1
import CourierTLS

/// Why a Digest challenge cannot be answered or an answer cannot be built (RFC 7616). The
/// description names the scheme, algorithm or field at fault, never a credential.
public struct DigestAuthorizationError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// The challenge asks for something Courier does not compute (another scheme, an
        /// unknown `algorithm`, `qop=auth-int` only) or lacks `realm` or `nonce`.
        case unsupportedChallenge
        /// The user name contains a control character: it could end the header line
        /// (CR, LF) or is not allowed in a quoted-string (RFC 9110 §5.6.4).
        case controlCharacterInUsername
        /// A value to be sent in a quoted-string (realm, nonce, opaque, uri) contains a
        /// control character (RFC 9110 §5.6.4).
        case controlCharacterInParameter
    }

    public let reason: Reason
    /// What was refused: `Digest algorithm=SHA-512`, `uri`, …
    public let detail: String

    public init(reason: Reason, detail: String) {
        self.reason = reason
        self.detail = detail
    }

    static func unsupported(_ detail: String) -> DigestAuthorizationError {
        DigestAuthorizationError(reason: .unsupportedChallenge, detail: detail)
    }

    public var description: String { "DigestAuthorizationError.\(reason.rawValue): \(detail)" }
}

/// The value of an `Authorization` or `Proxy-Authorization` field answering a Digest challenge
/// (RFC 7616 §3.4): `Digest username="…", realm="…", uri="…", algorithm=…, nonce="…",
/// nc=…, cnonce="…", qop=auth, response="…", opaque="…"`.
///
/// - `response` is `KD(H(A1), nonce ":" nc ":" cnonce ":" qop ":" H(A2))` with
///   `A1 = username ":" realm ":" password` (for a `-sess` algorithm, `H(A1) ":" nonce ":"
///   cnonce`) and `A2 = method ":" uri` (RFC 7616 §3.4.1–§3.4.3). A challenge without `qop`
///   gets the RFC 2069 form `KD(H(A1), nonce ":" H(A2))` and no `nc`, `cnonce` or `qop`.
/// - `userhash=true` challenges get `username="H(username ":" realm)"` (RFC 7616 §3.4.4).
///   Otherwise a user name outside US-ASCII is sent as `username*` in the RFC 8187 form
///   (RFC 7616 §3.4); the hashes always use its UTF-8 bytes.
/// - Every quoted-string value is escaped (`\"`, `\\`, RFC 9110 §5.6.4).
///
/// - Parameters:
///   - uri: the request-target of the request (RFC 9112 §3.2), `path?query` for origin-form.
///   - nonceCount: how many requests, this one included, carried this nonce (RFC 7616 §3.4:
///     sent as 8 hex digits).
///   - cnonce: an opaque client nonce (``makeDigestClientNonce()``).
/// - Throws: ``DigestAuthorizationError`` for a user name or a quoted value with a control
///   character (CR and LF would inject a header line).
public func digestAuthorizationValue(
    challenge: DigestChallenge, username: String, password: String, method: String, uri: String,
    nonceCount: UInt32, cnonce: String
) throws(DigestAuthorizationError) -> String {
    if username.utf8.contains(where: DigestText.isControl) {
        throw DigestAuthorizationError(reason: .controlCharacterInUsername, detail: "username")
    }
    let hash = challenge.algorithm.hash
    let colon: [UInt8] = [UInt8(ascii: ":")]
    func h(_ parts: [[UInt8]]) -> [UInt8] { Array(hash.hexHash(Array(parts.joined(separator: colon))).utf8) }

    let user = Array(username.utf8)
    let count = DigestText.nonceCount(nonceCount)
    var ha1 = h([user, challenge.realm, Array(password.utf8)])
    if challenge.algorithm.isSession { ha1 = h([ha1, challenge.nonce, Array(cnonce.utf8)]) }
    let ha2 = h([Array(method.utf8), Array(uri.utf8)])
    let response = challenge.usesQop
        ? h([ha1, challenge.nonce, Array(count.utf8), Array(cnonce.utf8), Array("auth".utf8), ha2])
        : h([ha1, challenge.nonce, ha2])

    var fields: [String] = []
    if challenge.userhash {
        fields.append("username=" + (try DigestText.quoted(h([user, challenge.realm]), "username")))
    } else if username.utf8.allSatisfy({ $0 < 0x80 }) {
        fields.append("username=" + (try DigestText.quoted(user, "username")))
    } else {
        fields.append("username*=UTF-8''" + DigestText.extValue(user))
    }
    fields.append("realm=" + (try DigestText.quoted(challenge.realm, "realm")))
    fields.append("uri=" + (try DigestText.quoted(Array(uri.utf8), "uri")))
    fields.append("algorithm=" + challenge.algorithm.token)
    fields.append("nonce=" + (try DigestText.quoted(challenge.nonce, "nonce")))
    if challenge.usesQop {
        fields.append("nc=" + count)
        fields.append("cnonce=" + (try DigestText.quoted(Array(cnonce.utf8), "cnonce")))
        fields.append("qop=auth")
    }
    fields.append("response=\"" + String(decoding: response, as: UTF8.self) + "\"")
    if let opaque = challenge.opaque { fields.append("opaque=" + (try DigestText.quoted(opaque, "opaque"))) }
    if challenge.userhash { fields.append("userhash=true") }
    return "Digest " + fields.joined(separator: ", ")
}

/// A fresh client nonce for ``digestAuthorizationValue(challenge:username:password:method:uri:nonceCount:cnonce:)``:
/// 16 random bytes in hex (RFC 7616 §3.4: "an opaque quoted ASCII-only string value").
public func makeDigestClientNonce() -> String {
    var generator = SystemRandomNumberGenerator()
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for _ in 0..<16 {
        let byte = UInt8.random(in: 0...255, using: &generator)
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// The text forms a Digest answer is written in.
enum DigestText {
    static func isControl(_ b: UInt8) -> Bool { (b < 0x20 && b != 0x09) || b == 0x7F }

    /// `quoted-string` (RFC 9110 §5.6.4): `"` and `\` escaped as quoted-pairs.
    static func quoted(_ bytes: [UInt8], _ name: String) throws(DigestAuthorizationError) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
            guard !isControl(byte) else { throw DigestAuthorizationError(reason: .controlCharacterInParameter, detail: name) }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    /// `nc`: the count as 8 lowercase hex digits (RFC 7616 §3.4).
    static func nonceCount(_ count: UInt32) -> String {
        let hex = String(count, radix: 16)
        return String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }

    /// The `value-chars` of an RFC 8187 §3.2.1 ext-value: attr-char as is, every other byte
    /// percent-encoded.
    static func extValue(_ bytes: [UInt8]) -> String {
        let attr = Set("!#$&+-.^_`|~".utf8)
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            let alnum = (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
            if alnum || attr.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
