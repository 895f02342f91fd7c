import CourierCore
import CourierHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// A normalised record of what an incremental parser or decoder produced, so that two feedings
/// of the same bytes can be compared: consecutive body pieces are merged (how a body is cut
/// depends on how the input was cut), everything else is an opaque line of text.
public struct EventLog: Equatable, CustomStringConvertible {
    public enum Entry: Equatable {
        case event(String)
        case body([UInt8])
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    /// Adds a non-body entry.
    public mutating func add(_ line: String) {
        entries.append(.event(line))
    }

    /// Adds body bytes, merging them into the previous entry when that is body too.
    public mutating func body(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        if case .body(var existing)? = entries.last {
            entries.removeLast()
            existing.append(contentsOf: bytes)
            entries.append(.body(existing))
        } else {
            entries.append(.body(Array(bytes)))
        }
    }

    public mutating func body(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { body($0) }
    }

    public var description: String {
        entries.map { entry in
            switch entry {
            case .event(let line): return "  " + line
            case .body(let bytes): return "  body(\(bytes.count)) " + escaped(bytes.prefix(256)) + (bytes.count > 256 ? "…" : "")
            }
        }.joined(separator: "\n")
    }
}

/// Renders bytes losslessly as printable ASCII: visible characters as themselves, everything
/// else (and the backslash) as `\xNN`.
public func escaped<C: Sequence>(_ bytes: C) -> String where C.Element == UInt8 {
    var out = ""
    for b in bytes {
        if b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\\") {
            out.unicodeScalars.append(Unicode.Scalar(b))
        } else {
            let hex = Array("0123456789abcdef".unicodeScalars)
            out += "\\x"
            out.unicodeScalars.append(hex[Int(b >> 4)])
            out.unicodeScalars.append(hex[Int(b & 15)])
        }
    }
    return out
}

public func escaped(_ buffer: ByteBuffer) -> String {
    buffer.withUnsafeReadableBytes { escaped($0) }
}

public func escaped(_ bytes: HTTPBytes) -> String {
    bytes.withUnsafeBytes { escaped($0) }
}

/// Renders a header or trailer section byte-exactly, in order.
public func render(_ fields: HTTPHeaderView) -> String {
    "[" + fields.map { escaped($0.name) + ": " + escaped($0.value) }.joined(separator: ", ") + "]"
}

/// Checks a property of the code under test. On failure, prints what failed (release-mode
/// Swift traps print nothing) and traps, which libFuzzer records as a crash with the input.
@inline(__always)
public func fuzzCheck(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() {
        fuzzFail(message(), file: file, line: line)
    }
}

/// Prints `message` to stderr and traps.
public func fuzzFail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    let text = "\n==== FUZZ PROPERTY FAILED (\(file):\(line)) ====\n\(message)\n"
    var bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + written, $0.count - written) }
        if n <= 0 { break }
        written += n
    }
    bytes.removeAll()
    preconditionFailure("fuzz property failed")
}

/// Compares the logs of two feedings and fails, showing both, when they differ.
public func expectSameLog(
    _ reference: EventLog, _ other: EventLog, feeding: Feeding, input: [UInt8],
    file: StaticString = #fileID, line: UInt = #line
) {
    guard reference != other else { return }
    var firstDifference = 0
    while firstDifference < Swift.min(reference.entries.count, other.entries.count),
        reference.entries[firstDifference] == other.entries[firstDifference]
    {
        firstDifference += 1
    }
    fuzzFail(
        """
        feeding \(feeding) differs from feeding whole (first difference at entry \(firstDifference))
        input (\(input.count) bytes): \(escaped(input.prefix(512)))
        whole:
        \(reference)
        \(feeding):
        \(other)
        """, file: file, line: line)
}
