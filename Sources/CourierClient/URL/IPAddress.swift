/// Strict IP address text parsing and formatting, shared by the URL parser and `no_proxy`
/// matching.
enum IPAddress {
    /// `IPv4address` of RFC 3986 §3.2.2: exactly four decimal octets 0–255 without leading zeros.
    ///
    /// Stricter than `inet_aton`, which also reads `127.1`, `0x7f.0.0.1` and `0177.0.0.1`; the URL
    /// parser refuses those forms instead of guessing (see ``HTTPURLError/Reason/invalidIPv4Address``).
    static func parseIPv4(_ s: some Collection<UInt8>) -> [UInt8]? {
        var octets: [UInt8] = []
        var value = 0
        var digits = 0
        var leadingZero = false
        for b in s {
            if URISyntax.isDigit(b) {
                if digits == 0 { leadingZero = b == UInt8(ascii: "0") } else if leadingZero { return nil }
                digits += 1
                value = value * 10 + Int(b - UInt8(ascii: "0"))
                guard digits <= 3, value <= 255 else { return nil }
            } else if b == UInt8(ascii: ".") {
                guard digits > 0, octets.count < 3 else { return nil }
                octets.append(UInt8(value))
                value = 0
                digits = 0
            } else {
                return nil
            }
        }
        guard digits > 0, octets.count == 3 else { return nil }
        octets.append(UInt8(value))
        return octets
    }

    /// `IPv6address` of RFC 3986 §3.2.2 (RFC 4291 §2.2 text forms, including a trailing dotted
    /// IPv4 part), as 16 bytes. No zone ID, no brackets.
    static func parseIPv6(_ s: some Collection<UInt8>) -> [UInt8]? {
        let text = Array(s)
        let colon = UInt8(ascii: ":")
        guard !text.isEmpty else { return nil }
        var groups: [UInt16] = []
        var compressAt: Int?
        var i = 0
        if text.starts(with: [colon, colon]) {
            compressAt = 0
            i = 2
        } else if text[0] == colon {
            return nil
        }
        while i < text.count {
            guard groups.count < 8 else { return nil }
            let end = text[i...].firstIndex(of: colon) ?? text.count
            let piece = text[i..<end]
            if piece.contains(UInt8(ascii: ".")) {
                // A dotted IPv4 tail: must be last and fill exactly two groups.
                guard end == text.count, groups.count <= 6, let v4 = parseIPv4(piece) else { return nil }
                groups.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                groups.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                i = end
                break
            }
            guard (1...4).contains(piece.count) else { return nil }
            var value: UInt16 = 0
            for b in piece {
                guard let h = URISyntax.hexValue(b) else { return nil }
                value = value << 4 | UInt16(h)
            }
            groups.append(value)
            i = end
            if i == text.count { break }
            i += 1  // the colon
            if i < text.count, text[i] == colon {
                guard compressAt == nil else { return nil }
                compressAt = groups.count
                i += 1
            } else if i == text.count {
                return nil  // a single trailing colon
            }
        }
        if let compressAt {
            guard groups.count <= 7 else { return nil }
            groups.insert(contentsOf: repeatElement(0, count: 8 - groups.count), at: compressAt)
        } else {
            guard groups.count == 8 else { return nil }
        }
        return groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// The RFC 5952 §4 text of a 16-byte address: lowercase hex, no leading zeros, the longest
    /// run of two or more zero groups (the first, on a tie) written as `::`.
    static func formatIPv6(_ bytes: [UInt8]) -> String {
        precondition(bytes.count == 16)
        let groups = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var bestStart = -1, bestLength = 0
        var runStart = -1
        for i in 0...8 {
            if i < 8, groups[i] == 0 {
                if runStart < 0 { runStart = i }
            } else if runStart >= 0 {
                if i - runStart > bestLength { bestStart = runStart; bestLength = i - runStart }
                runStart = -1
            }
        }
        if bestLength < 2 { bestStart = -1 }
        var out = ""
        var i = 0
        while i < 8 {
            if i == bestStart {
                out += "::"
                i += bestLength
                continue
            }
            if !out.isEmpty, !out.hasSuffix(":") { out += ":" }
            out += String(groups[i], radix: 16)
            i += 1
        }
        return out
    }

    static func formatIPv4(_ bytes: [UInt8]) -> String {
        bytes.map { String($0) }.joined(separator: ".")
    }
}
