import CourierHTTP1

/// One parser case from a fixture file (see Fixtures/README.md for the format).
struct Fixture: CustomStringConvertible, Sendable {
    var name: String
    var configuration = HTTPParserConfiguration()
    var method: HTTPMethod = .GET
    var input: [UInt8] = []
    var eof = false
    var expected: [String] = []

    var description: String { name }

    /// Loads every case from a fixture file next to the tests.
    static func load(_ file: String) -> [Fixture] {
        let path = fixturesDirectory + "/" + file
        guard let text = readFile(path) else {
            Issue.record("cannot read fixture \(path)")
            return []
        }
        var cases: [Fixture] = []
        var current: Fixture?
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if line.hasPrefix("=== ") {
                if let c = current { cases.append(c) }
                current = Fixture(name: String(line.dropFirst(4)))
            } else if line.hasPrefix("< ") {
                current?.input += unescape(String(line.dropFirst(2)))
            } else if line.hasPrefix("> ") {
                current?.expected.append(String(line.dropFirst(2)))
            } else if line == "eof" {
                current?.eof = true
            } else if line.hasPrefix("config:") {
                for word in line.dropFirst(7).split(separator: " ") { current?.apply(String(word)) }
            }
        }
        if let c = current { cases.append(c) }
        return cases
    }

    mutating func apply(_ word: String) {
        let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
        let value = parts.count > 1 ? parts[1] : ""
        switch parts[0] {
        case "allowObsFold": configuration.allowObsFold = true
        case "allowBareLF": configuration.allowBareLF = true
        case "allowContentLengthWithTransferEncoding": configuration.allowContentLengthWithTransferEncoding = true
        case "maxHeaderBytes": configuration.maxHeaderBytes = Int(value)!
        case "maxFieldCount": configuration.maxFieldCount = Int(value)!
        case "maxChunkSizeDigits": configuration.maxChunkSizeDigits = Int(value)!
        case "maxChunkExtensionBytes": configuration.maxChunkExtensionBytes = Int(value)!
        case "maxBodyBytes": configuration.maxBodyBytes = UInt64(value)!
        case "chunkFloodThreshold": configuration.chunkFloodThreshold = Int(value)!
        case "minimumMeanChunkBytes": configuration.minimumMeanChunkBytes = Int(value)!
        case "method": method = HTTPMethod(value)!
        default: Issue.record("unknown fixture config \(word)")
        }
    }

    /// `\r`, `\n`, `\t`, `\0`, `\\` and `\xHH` escapes; everything else is literal.
    static func unescape(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        let b = Array(s.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "\\"), i + 1 < b.count {
                switch b[i + 1] {
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "0"): out.append(0)
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "x"):
                    out.append(UInt8(String(decoding: b[(i + 2)..<(i + 4)], as: UTF8.self), radix: 16)!)
                    i += 2
                default: out.append(b[i + 1])
                }
                i += 2
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return out
    }

    /// Renders bytes for an event log: printable ASCII as is, the rest escaped.
    static func escape<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var s = ""
        for byte in bytes {
            switch byte {
            case 13: s += "\\r"
            case 10: s += "\\n"
            case 9: s += "\\t"
            case UInt8(ascii: "\\"): s += "\\\\"
            case UInt8(ascii: "\""): s += "\\\""
            case 0x20..<0x7F: s.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                s += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return s
    }
}

let fixturesDirectory: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(2)
    return parts.joined(separator: "/") + "/Fixtures"
}()

import Testing
#if canImport(Glibc)
import Glibc
#endif

func readFile(_ path: String) -> String? {
    readFileBytes(path).map { String(decoding: $0, as: UTF8.self) }
}

/// The bytes of a file, unchanged (for binary fixtures), or nil when it cannot be opened.
func readFileBytes(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    return bytes
}
