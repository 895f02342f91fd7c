import CourierTestSupport
import Glibc

/// The committed certificate matrix in `Sources/CourierTestSupport/Certificates` (see the header
/// of `make-certs.sh` there), located by ``TestCertificates`` so no machine path is written down.
enum Certificates {
    /// The path of one file in the matrix.
    static func path(_ name: String) -> String { TestCertificates.path(name) }

    /// The text of one file in the matrix.
    static func text(_ name: String) -> String {
        guard let text = TestFiles.text(at: path(name)) else { fatalError("cannot read \(path(name))") }
        return text
    }

    /// The DER bytes of every certificate in a PEM file, decoded from the base64 in the test
    /// (independently of OpenSSL).
    static func der(_ name: String) -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        var base64 = ""
        var inside = false
        for line in text(name).split(separator: "\n") {
            if line.hasPrefix("-----BEGIN CERTIFICATE-----") {
                inside = true
                base64 = ""
            } else if line.hasPrefix("-----END CERTIFICATE-----") {
                inside = false
                blocks.append(decodeBase64(base64))
            } else if inside {
                base64 += line.trimmingSpaces
            }
        }
        return blocks
    }
}

extension Substring {
    var trimmingSpaces: String { String(self.filter { $0 != " " && $0 != "\r" }) }
}

/// Standard base64 (RFC 4648 §4), ignoring padding.
func decodeBase64(_ text: String) -> [UInt8] {
    func value(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(c - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(c - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
    var out: [UInt8] = []
    var accumulator: UInt32 = 0
    var bits = 0
    for c in text.utf8 {
        guard let v = value(c) else { continue }
        accumulator = (accumulator << 6) | v
        bits += 6
        if bits >= 8 {
            bits -= 8
            out.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
        }
    }
    return out
}
