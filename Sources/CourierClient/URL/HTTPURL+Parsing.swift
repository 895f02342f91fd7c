extension HTTPURL {
    /// Parses an absolute `http`, `https` or `http+unix` URL.
    ///
    /// - Throws: ``HTTPURLError`` naming the first problem found. Bytes that could inject
    ///   anything (controls, space, non-ASCII) and malformed percent-escapes are checked over the
    ///   whole string first, fragment included, before any structure is read.
    public init(_ string: String) throws(HTTPURLError) {
        func fail(_ reason: HTTPURLError.Reason) -> HTTPURLError { HTTPURLError(reason: reason, input: string) }
        let bytes = Array(string.utf8)
        guard !bytes.isEmpty else { throw fail(.empty) }
        if let reason = HTTPURL.firstForbiddenByte(bytes) { throw fail(reason) }

        // scheme ":" (RFC 3986 §3.1)
        let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?"), hash = UInt8(ascii: "#")
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, URISyntax.isAlpha(bytes[0]),
            bytes[1..<colon].allSatisfy(URISyntax.isSchemeTail)
        else { throw fail(.missingScheme) }
        guard let scheme = HTTPScheme(rawValue: URISyntax.lowercased(bytes[..<colon])) else {
            throw fail(.unsupportedScheme)
        }
        // "//" authority (§3.2)
        guard bytes[(colon + 1)...].starts(with: [slash, slash]) else { throw fail(.missingAuthority) }
        let authorityStart = colon + 3
        let authorityEnd =
            bytes[authorityStart...].firstIndex { $0 == slash || $0 == question || $0 == hash } ?? bytes.count
        // path, "?" query, "#" fragment (§3.3–3.5)
        let pathEnd = bytes[authorityEnd...].firstIndex { $0 == question || $0 == hash } ?? bytes.count
        var query: String?
        if pathEnd < bytes.count, bytes[pathEnd] == question {
            let queryEnd = bytes[(pathEnd + 1)...].firstIndex(of: hash) ?? bytes.count
            query = String(decoding: bytes[(pathEnd + 1)..<queryEnd], as: UTF8.self)
        }
        // The fragment is dropped; its bytes were checked above.

        let authority: Authority
        do {
            authority = try Authority.parse(bytes[authorityStart..<authorityEnd], scheme: scheme)
        } catch {
            throw fail(error.reason)
        }

        let rawPath = bytes[authorityEnd..<pathEnd]
        let path = rawPath.isEmpty ? "/" : String(decoding: URISyntax.removeDotSegments(Array(rawPath)), as: UTF8.self)
        self.init(
            scheme: scheme, host: authority.host, hostKind: authority.kind, explicitPort: authority.port, path: path,
            query: query, rawUserInfo: authority.rawUserInfo, authorityHost: authority.authorityHost)
    }

    /// The reason for the first byte no URL may contain, or nil: non-ASCII, space, a control
    /// byte or DEL; then, once none of those is present, a `%` without two hex digits after it.
    static func firstForbiddenByte(_ bytes: [UInt8]) -> HTTPURLError.Reason? {
        for b in bytes {
            if b >= 0x80 { return .nonASCII }
            if b == 0x20 { return .space }
            if b < 0x20 || b == 0x7F { return .controlCharacter }
        }
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, URISyntax.hexValue(bytes[i + 1]) != nil,
                    URISyntax.hexValue(bytes[i + 2]) != nil
                else { return .invalidPercentEncoding }
                i += 3
            } else {
                i += 1
            }
        }
        return nil
    }

    /// The reason a part of a URL was refused; the caller adds the whole input.
    struct Refusal: Error {
        let reason: HTTPURLError.Reason
        init(_ reason: HTTPURLError.Reason) { self.reason = reason }
    }

    /// `authority = [ userinfo "@" ] host [ ":" port ]` (RFC 3986 §3.2).
    struct Authority {
        var rawUserInfo: String?
        var host: String
        var kind: HostKind
        var authorityHost: String
        var port: Int?

        static func parse(_ bytes: ArraySlice<UInt8>, scheme: HTTPScheme) throws(Refusal) -> Authority {
            let at = UInt8(ascii: "@"), colon = UInt8(ascii: ":")
            var hostStart = bytes.startIndex
            var rawUserInfo: String?
            // The last "@" ends the user information: an unencoded "@" before it is then refused
            // as part of the user information rather than read as part of the host.
            if let atIndex = bytes.lastIndex(of: at) {
                let userInfo = bytes[bytes.startIndex..<atIndex]
                guard
                    userInfo.allSatisfy({
                        URISyntax.isUnreserved($0) || URISyntax.isSubDelim($0) || $0 == colon || $0 == UInt8(ascii: "%")
                    }),
                    String(validating: URISyntax.percentDecoded(userInfo), as: UTF8.self) != nil
                else { throw Refusal(.invalidUserInfo) }
                rawUserInfo = String(decoding: userInfo, as: UTF8.self)
                hostStart = atIndex + 1
            }

            let hostPort = bytes[hostStart...]
            var portStart: Int?
            var authority: Authority
            if hostPort.first == UInt8(ascii: "[") {
                guard let close = hostPort.firstIndex(of: UInt8(ascii: "]")) else { throw Refusal(.invalidIPv6Address) }
                let literal = bytes[(hostStart + 1)..<close]
                if literal.contains(UInt8(ascii: "%")) { throw Refusal(.zoneIDNotSupported) }
                guard scheme != .unix, let address = IPAddress.parseIPv6(literal) else { throw Refusal(.invalidIPv6Address) }
                let text = IPAddress.formatIPv6(address)
                authority = Authority(host: text, kind: .ipv6, authorityHost: "[\(text)]")
                if close + 1 < bytes.endIndex {
                    guard bytes[close + 1] == colon else { throw Refusal(.invalidHost) }
                    portStart = close + 2
                }
            } else {
                let hostEnd = hostPort.firstIndex(of: colon) ?? bytes.endIndex
                if hostEnd < bytes.endIndex { portStart = hostEnd + 1 }
                let name = bytes[hostStart..<hostEnd]
                guard !name.isEmpty else { throw Refusal(.emptyHost) }
                authority = try scheme == .unix ? socketPath(name) : hostName(name)
            }

            if let portStart, portStart < bytes.endIndex {
                guard scheme != .unix else { throw Refusal(.invalidUnixSocketPath) }
                var port = 0
                for b in bytes[portStart...] {
                    guard URISyntax.isDigit(b) else { throw Refusal(.invalidPort) }
                    port = port * 10 + Int(b - UInt8(ascii: "0"))
                    guard port <= 65535 else { throw Refusal(.invalidPort) }
                }
                guard port > 0 else { throw Refusal(.invalidPort) }
                authority.port = port
            }
            authority.rawUserInfo = rawUserInfo
            return authority
        }

        /// A reg-name or IPv4 address (RFC 3986 §3.2.2).
        static func hostName(_ name: ArraySlice<UInt8>) throws(Refusal) -> Authority {
            if name.contains(UInt8(ascii: "%")) { throw Refusal(.percentEncodedHostNotSupported) }
            guard name.allSatisfy({ URISyntax.isUnreserved($0) || URISyntax.isSubDelim($0) }) else {
                throw Refusal(.invalidHost)
            }
            if IPAddress.parseIPv4(name) != nil {
                let text = String(decoding: name, as: UTF8.self)
                return Authority(host: text, kind: .ipv4, authorityHost: text)
            }
            if looksNumeric(name) { throw Refusal(.invalidIPv4Address) }
            let text = URISyntax.lowercased(name)
            return Authority(host: text, kind: .name, authorityHost: text)
        }

        /// Whether a name's last label is a number (decimal, or `0x` hex) — what `inet_aton` and
        /// the WHATWG URL parser would read as an IPv4 address. No top-level domain is numeric.
        static func looksNumeric(_ name: ArraySlice<UInt8>) -> Bool {
            var labels = name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }  // "1.2.3.4." (FQDN dot)
            guard let last = labels.last, !last.isEmpty else { return false }
            if last.allSatisfy(URISyntax.isDigit) { return true }
            if last.count >= 2, URISyntax.lower(last[last.startIndex]) == UInt8(ascii: "0"),
                URISyntax.lower(last[last.startIndex + 1]) == UInt8(ascii: "x"),
                last.dropFirst(2).allSatisfy({ URISyntax.hexValue($0) != nil })
            {
                return true
            }
            return false
        }

        /// The percent-encoded socket path of an `http+unix` URL.
        static func socketPath(_ name: ArraySlice<UInt8>) throws(Refusal) -> Authority {
            guard
                name.allSatisfy({
                    URISyntax.isUnreserved($0) || URISyntax.isSubDelim($0) || $0 == UInt8(ascii: "%")
                })
            else { throw Refusal(.invalidHost) }
            let decoded = URISyntax.percentDecoded(name)
            guard !decoded.isEmpty, !decoded.contains(where: { $0 < 0x20 || $0 == 0x7F }),
                let path = String(validating: decoded, as: UTF8.self)
            else { throw Refusal(.invalidUnixSocketPath) }
            return Authority(host: path, kind: .unixSocket, authorityHost: String(decoding: name, as: UTF8.self))
        }

        init(host: String, kind: HostKind, authorityHost: String) {
            self.host = host
            self.kind = kind
            self.authorityHost = authorityHost
        }
    }
}
