import FoundationEssentials

/// The text forms of a certificate's SHA-256 fingerprint (the digest of its DER encoding):
/// hex, 64 digits, bare or as 32 colon-separated pairs (`AB:CD:…`, what
/// `openssl x509 -fingerprint -sha256` prints after the `=`), in either case; or `sha256/` and
/// the base64 of the 32 bytes (the form public-key pins are written in, RFC 7469 §2.1.1).
enum CertificateFingerprint {
    /// Parses one fingerprint (surrounding spaces ignored) into its 32 bytes.
    static func parse(_ text: String) throws(CourierError) -> [UInt8] {
        let body = Array(text.utf8.drop { isSpace($0) }.reversed().drop { isSpace($0) }.reversed())
        let prefixLength = PublicKeyPin.prefix.utf8.count
        let digest: [UInt8]?
        if String(decoding: body.prefix(prefixLength), as: UTF8.self).lowercased() == PublicKeyPin.prefix {
            digest = Data(base64Encoded: String(decoding: body.dropFirst(prefixLength), as: UTF8.self)).map(Array.init)
        } else if body.contains(UInt8(ascii: ":")) {
            digest = hex(body, separated: true)
        } else {
            digest = hex(body, separated: false)
        }
        guard let digest, digest.count == 32 else {
            throw CourierError(
                .invalidSecurityPolicy,
                detail: "\"\(text)\" is not a SHA-256 certificate fingerprint: expected 64 hex digits, bare or as colon-separated pairs, or \"sha256/\" and the base64 of the 32-byte digest")
        }
        return digest
    }

    /// The fingerprint as upper-case colon-separated hex pairs, as OpenSSL prints it.
    static func string(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 3)
        for (i, byte) in digest.enumerated() {
            if i > 0 { text.append(UInt8(ascii: ":")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Hex pairs, either contiguous or each pair followed by exactly one ':' but the last; nil
    /// for anything else (a stray or doubled colon, an odd digit, a non-hex byte).
    private static func hex(_ bytes: [UInt8], separated: Bool) -> [UInt8]? {
        var digest: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if separated && i > 0 {
                guard bytes[i] == UInt8(ascii: ":") else { return nil }
                i += 1
            }
            guard i + 1 < bytes.count, let high = nibble(bytes[i]), let low = nibble(bytes[i + 1]) else { return nil }
            digest.append(high << 4 | low)
            i += 2
        }
        return digest
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
