import CourierHTTP1

/// Byte classes and small algorithms of RFC 3986, on UTF-8 bytes.
///
/// Everything here is ASCII-only: the URL parser refuses every non-ASCII byte before it looks at
/// structure, so these functions never see one in a URL that is accepted.
enum URISyntax {
    static func isAlpha(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
    }

    static func isDigit(_ b: UInt8) -> Bool { URIGrammar.isDigit(b) }

    /// The value of a hex digit, or nil.
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `unreserved` (RFC 3986 §2.3), as the request encoder checks it.
    static func isUnreserved(_ b: UInt8) -> Bool { URIGrammar.isUnreserved(b) }

    /// `sub-delims` (RFC 3986 §2.2), as the request encoder checks it.
    static func isSubDelim(_ b: UInt8) -> Bool { URIGrammar.isSubDelim(b) }

    /// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (§3.1), for bytes after the first.
    static func isSchemeTail(_ b: UInt8) -> Bool {
        isAlpha(b) || isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }

    /// A byte that may appear literally in a path, query or fragment as this client sends it:
    /// visible US-ASCII except `#`. This is wider than RFC 3986's `pchar` on purpose: real URLs
    /// carry `[`, `]`, `|`, `{`, `}` and `"` in queries, curl passes them on unchanged, and none of
    /// them can break the request line. Space, controls, DEL and non-ASCII are refused earlier.
    static func isTargetByte(_ b: UInt8) -> Bool {
        b > 0x20 && b < 0x7F && b != UInt8(ascii: "#")
    }

    static func lower(_ b: UInt8) -> UInt8 {
        (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) ? b | 0x20 : b
    }

    static func lowercased(_ bytes: some Sequence<UInt8>) -> String {
        String(decoding: bytes.map(lower), as: UTF8.self)
    }

    /// Decodes `%XX` escapes. The caller has already checked that every `%` starts a valid escape.
    static func percentDecoded(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                let h = bytes.index(after: i)
                let l = bytes.index(after: h)
                out.append(hexValue(bytes[h])! << 4 | hexValue(bytes[l])!)
                i = bytes.index(after: l)
            } else {
                out.append(b)
                i = bytes.index(after: i)
            }
        }
        return out
    }

    /// `remove_dot_segments` of RFC 3986 §5.2.4, step by step as the RFC writes it.
    static func removeDotSegments(_ path: [UInt8]) -> [UInt8] {
        var input = path
        var i = 0  // start of the input buffer still to process
        var output: [UInt8] = []
        output.reserveCapacity(path.count)
        let slash = UInt8(ascii: "/")

        func remaining(is literal: String) -> Bool { input[i...].elementsEqual(literal.utf8) }
        func remaining(startsWith literal: String) -> Bool { input[i...].starts(with: literal.utf8) }
        func removeLastOutputSegment() {
            if let last = output.lastIndex(of: slash) {
                output.removeSubrange(last...)
            } else {
                output.removeAll()
            }
        }

        while i < input.count {
            if remaining(startsWith: "../") {  // A
                i += 3
            } else if remaining(startsWith: "./") {  // A
                i += 2
            } else if remaining(startsWith: "/./") {  // B: replace "/./" with "/"
                i += 2
            } else if remaining(is: "/.") {  // B: replace "/." with "/"
                i += 1
                input[i] = slash
            } else if remaining(startsWith: "/../") {  // C
                i += 3
                removeLastOutputSegment()
            } else if remaining(is: "/..") {  // C
                i += 2
                input[i] = slash
                removeLastOutputSegment()
            } else if remaining(is: ".") || remaining(is: "..") {  // D
                i = input.count
            } else {  // E: move the first segment, with its leading "/", to the output
                var j = i
                if input[j] == slash { j += 1 }
                while j < input.count, input[j] != slash { j += 1 }
                output.append(contentsOf: input[i..<j])
                i = j
            }
        }
        return output
    }
}
