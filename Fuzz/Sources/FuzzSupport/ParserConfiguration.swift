import CourierHTTP1

extension HTTPParserConfiguration {
    /// Reads a parser configuration from four bytes:
    ///
    /// - byte 0, flags: bit 0 `allowObsFold`, bit 1 `allowBareLF`, bit 2
    ///   `allowContentLengthWithTransferEncoding`, bit 3 small limits (bytes 1–3 apply only then).
    /// - byte 1: `maxHeaderBytes` = 64 << (b % 11) (64 B … 64 KiB); `maxFieldCount` from the high
    ///   nibble (1, 2, 3, 4, 8, 16, 256).
    /// - byte 2: `maxChunkSizeDigits` = 1 + low nibble; `maxChunkExtensionBytes` from the high
    ///   nibble (0, 1, 2, 8, 64, 4096).
    /// - byte 3: `maxBodyBytes` (low two bits: none, 0, 0…63, 1 KiB); `chunkFloodThreshold`
    ///   = 1 + bits 2–4; `minimumMeanChunkBytes` = bits 5–7.
    public static func fuzzed(_ reader: inout FuzzReader) -> HTTPParserConfiguration {
        let flags = reader.u8()
        let a = reader.u8()
        let b = reader.u8()
        let c = reader.u8()
        var configuration = HTTPParserConfiguration()
        configuration.allowObsFold = flags & 1 != 0
        configuration.allowBareLF = flags & 2 != 0
        configuration.allowContentLengthWithTransferEncoding = flags & 4 != 0
        guard flags & 8 != 0 else { return configuration }

        configuration.maxHeaderBytes = 64 << Int(a % 11)
        let fieldCounts = [1, 2, 3, 4, 8, 16, 256]
        configuration.maxFieldCount = fieldCounts[Int(a >> 4) % fieldCounts.count]
        configuration.maxChunkSizeDigits = 1 + Int(b & 15)
        let extensionLimits = [0, 1, 2, 8, 64, 4096]
        configuration.maxChunkExtensionBytes = extensionLimits[Int(b >> 4) % extensionLimits.count]
        switch c & 3 {
        case 0: configuration.maxBodyBytes = nil
        case 1: configuration.maxBodyBytes = 0
        case 2: configuration.maxBodyBytes = UInt64(c >> 2)
        default: configuration.maxBodyBytes = 1024
        }
        configuration.chunkFloodThreshold = 1 + Int((c >> 2) & 7)
        configuration.minimumMeanChunkBytes = Int(c >> 5)
        return configuration
    }

    /// A one-line summary for failure reports.
    public var fuzzSummary: String {
        "obsFold=\(allowObsFold) bareLF=\(allowBareLF) clWithTE=\(allowContentLengthWithTransferEncoding) "
            + "maxHeaderBytes=\(maxHeaderBytes) maxFieldCount=\(maxFieldCount) "
            + "maxChunkSizeDigits=\(maxChunkSizeDigits) maxChunkExtensionBytes=\(maxChunkExtensionBytes) "
            + "maxBodyBytes=\(maxBodyBytes.map(String.init) ?? "nil") "
            + "chunkFlood=\(chunkFloodThreshold)/\(minimumMeanChunkBytes)"
    }
}

/// Checks that a parsed field section holds only what the grammar allows: token names, values
/// with no CR, LF, NUL or other controls (HTAB aside) and no leading or trailing whitespace.
public func checkFieldSection(_ fields: HTTPHeaderView, maxFieldCount: Int, what: String) {
    fuzzCheck(fields.count <= maxFieldCount, "\(what): \(fields.count) fields, limit \(maxFieldCount)")
    for field in fields {
        field.name.withUnsafeBytes { name in
            fuzzCheck(
                !name.isEmpty && name.allSatisfy(isTokenByte),
                "\(what): field name \(escaped(name)) is not a token")
        }
        field.value.withUnsafeBytes { value in
            fuzzCheck(
                value.allSatisfy { ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 },
                "\(what): field value \(escaped(value)) has a control byte")
            if let first = value.first, let last = value.last {
                fuzzCheck(
                    first != 0x20 && first != 0x09 && last != 0x20 && last != 0x09,
                    "\(what): field value \(escaped(value)) is not trimmed")
            }
        }
    }
}

/// `tchar` (RFC 9110 §5.6.2), written out independently of the library's bit masks.
public func isTokenByte(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return "!#$%&'*+-.^_`|~".utf8.contains(b)
    }
}

/// Whether a parsed message leaves the connection reusable (RFC 9112 §9.3), worked out
/// independently from the fields the head shows: no `close` option in any Connection field,
/// a body not delimited by close and not a tunnel, not both Content-Length and
/// Transfer-Encoding, and HTTP/1.1 (or a later 1.x) or a `keep-alive` option.
public func expectedKeepAlive(version: HTTPVersion, fields: HTTPHeaderView, framing: BodyFraming) -> Bool {
    expectedKeepAlive(
        version: version,
        fields: fields.map { field in (field.name.withUnsafeBytes { Array($0) }, field.value.withUnsafeBytes { Array($0) }) },
        framing: framing)
}

/// The same for a head the client owns (``HTTPFields``).
public func expectedKeepAlive(version: HTTPVersion, fields: HTTPFields, framing: BodyFraming) -> Bool {
    expectedKeepAlive(version: version, fields: fields.map { (Array($0.name.utf8), Array($0.value.utf8)) }, framing: framing)
}

private func expectedKeepAlive(version: HTTPVersion, fields: [([UInt8], [UInt8])], framing: BodyFraming) -> Bool {
    func lowered(_ bytes: some Sequence<UInt8>) -> [UInt8] { bytes.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 } }
    var close = false
    var keepAlive = false
    var sawLength = false
    var sawCoding = false
    for (name, value) in fields {
        switch lowered(name) {
        case Array("connection".utf8):
            let options = value.split { $0 == UInt8(ascii: ",") || $0 == 0x20 || $0 == 0x09 }
            for option in options {
                if lowered(option) == Array("close".utf8) { close = true }
                if lowered(option) == Array("keep-alive".utf8) { keepAlive = true }
            }
        case Array("content-length".utf8):
            sawLength = true
        case Array("transfer-encoding".utf8):
            sawCoding = true
        default:
            break
        }
    }
    if close || framing == .untilClose || framing == .tunnel || (sawLength && sawCoding) { return false }
    // RFC 9110 §2.5: a 1.x minor version above 1 is processed as HTTP/1.1.
    return (version.major == 1 && version.minor >= 1) || keepAlive
}
