/// The parts of RFC 3986's grammar the request encoder checks before it writes a scheme, a host
/// or a port: the rules are transcribed as written, and anything they do not match is refused.
///
/// `CourierClient`'s URL parser does more (it also normalises); this is only what a head needs.
/// The byte classes are `package`: the URL parser uses these, so each rule is written once.
package enum URIGrammar {
    /// The bytes a rule reads: a view of a string's UTF-8 storage (`String.withUTF8`), so checking
    /// a request's host or target copies nothing.
    typealias URIBytes = Slice<UnsafeBufferPointer<UInt8>>

    /// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"` (§2.3).
    package static func isUnreserved(_ b: UInt8) -> Bool {
        let letter = ByteClass.lower(b) &- UInt8(ascii: "a") < 26
        return letter || isDigit(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_")
            || b == UInt8(ascii: "~")
    }

    /// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="` (§2.2).
    package static func isSubDelim(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    /// A byte a `reg-name` may hold literally: `unreserved / sub-delims` (§3.2.2); `%` only as
    /// the start of a pct-encoded triplet, which ``isRegName(_:)`` checks.
    static func isRegNameByte(_ b: UInt8) -> Bool { isUnreserved(b) || isSubDelim(b) }

    package static func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    /// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (§3.1).
    static func isScheme(_ s: some Collection<UInt8>) -> Bool {
        guard let first = s.first, ByteClass.lower(first) &- UInt8(ascii: "a") < 26 else { return false }
        return s.dropFirst().allSatisfy { b in
            ByteClass.lower(b) &- UInt8(ascii: "a") < 26 || isDigit(b) || b == UInt8(ascii: "+")
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        }
    }

    /// `reg-name = *( unreserved / pct-encoded / sub-delims )`, `pct-encoded = "%" HEXDIG HEXDIG`
    /// (§3.2.2, §2.1). An IPv4address (§3.2.2) is a reg-name too, so it needs no rule of its own.
    static func isRegName(_ s: URIBytes) -> Bool {
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: "%") {
                guard i + 2 < s.endIndex, ByteClass.hexValue(s[i + 1]) != nil, ByteClass.hexValue(s[i + 2]) != nil
                else { return false }
                i += 3
            } else {
                guard isRegNameByte(s[i]) else { return false }
                i += 1
            }
        }
        return true
    }

    /// `uri-host = IP-literal / IPv4address / reg-name`, not empty (an HTTP request always names
    /// its host, RFC 9110 §4.2.1), where `IP-literal = "[" ( IPv6address / IPvFuture ) "]"`.
    static func isHost(_ s: URIBytes) -> Bool {
        guard let first = s.first else { return false }
        if first == UInt8(ascii: "[") {
            guard s.count >= 2, s.last == UInt8(ascii: "]") else { return false }
            let inside = s.dropFirst().dropLast()
            return isIPv6Address(inside) || isIPvFuture(inside)
        }
        return isRegName(s)
    }

    /// `uri-host [ ":" port ]` with `port = *DIGIT` (§3.2.2, §3.2.3): the `Host` field value of
    /// RFC 9110 §7.2.
    static func isHostAndPort(_ s: URIBytes) -> Bool {
        // The port starts after the last ":" that is not inside an IP-literal's brackets.
        let close = s.lastIndex(of: UInt8(ascii: "]")) ?? s.startIndex
        guard let colon = s[close...].lastIndex(of: UInt8(ascii: ":")) else { return isHost(s) }
        return isHost(s[..<colon]) && s[(colon + 1)...].allSatisfy(isDigit)
    }

    /// `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )` (§3.2.2).
    static func isIPvFuture(_ s: URIBytes) -> Bool {
        guard s.first.map(ByteClass.lower) == UInt8(ascii: "v"), let dot = s.firstIndex(of: UInt8(ascii: ".")) else {
            return false
        }
        let version = s[(s.startIndex + 1)..<dot]
        let rest = s[(dot + 1)...]
        return !version.isEmpty && version.allSatisfy { ByteClass.hexValue($0) != nil } && !rest.isEmpty
            && rest.allSatisfy { isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") }
    }

    /// `IPv6address` (§3.2.2): eight 16-bit pieces (`h16 = 1*4HEXDIG`), the last two of which may
    /// be an IPv4address (`ls32`), with at most one `::` standing for one or more zero pieces.
    /// The nine alternatives of the ABNF come down to: without `::` exactly 8 pieces, with it at
    /// most 7, an IPv4address only at the end.
    static func isIPv6Address(_ s: URIBytes) -> Bool {
        let colon = UInt8(ascii: ":")
        var pieces = 0
        var sawDoubleColon = false
        var i = s.startIndex
        if s.starts(with: [colon, colon]) {
            sawDoubleColon = true
            i += 2
            if i == s.endIndex { return true }  // "::"
        } else if s.first == colon {
            return false  // a single leading ":"
        }
        while i < s.endIndex {
            let end = s[i...].firstIndex(of: colon) ?? s.endIndex
            let piece = s[i..<end]
            if end == s.endIndex, piece.contains(UInt8(ascii: ".")) {
                guard isIPv4Address(piece) else { return false }
                pieces += 2
            } else {
                guard (1...4).contains(piece.count), piece.allSatisfy({ ByteClass.hexValue($0) != nil }) else { return false }
                pieces += 1
            }
            if end == s.endIndex { break }
            // After a piece: ":" then another piece, or "::" (once), which may end the address.
            if end + 1 < s.endIndex, s[end + 1] == colon {
                guard !sawDoubleColon else { return false }
                sawDoubleColon = true
                i = end + 2
                if i == s.endIndex { break }
            } else {
                i = end + 1
                guard i < s.endIndex else { return false }  // a trailing single ":"
            }
        }
        return sawDoubleColon ? pieces <= 7 : pieces == 8
    }

    /// `IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet`, where a dec-octet is
    /// 0–255 without leading zeros (§3.2.2).
    static func isIPv4Address(_ s: URIBytes) -> Bool {
        let octets = s.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { octet in
            guard (1...3).contains(octet.count), octet.allSatisfy(isDigit) else { return false }
            if octet.count > 1, octet.first == UInt8(ascii: "0") { return false }
            return octet.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 255
        }
    }
}
