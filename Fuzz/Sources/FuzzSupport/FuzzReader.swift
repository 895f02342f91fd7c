/// Reads configuration values from the front of a fuzz input.
///
/// Reading past the end yields zeros (and empty byte runs), so every input, however short,
/// picks some configuration and the fuzzer never has to learn a minimum length.
public struct FuzzReader {
    public let bytes: [UInt8]
    public private(set) var position = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Bytes not read yet.
    public var remaining: Int { bytes.count - position }

    public var isAtEnd: Bool { position >= bytes.count }

    /// The next byte, or 0 past the end.
    public mutating func u8() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next two bytes, little-endian.
    public mutating func u16() -> UInt16 {
        let low = UInt16(u8())
        return low | UInt16(u8()) << 8
    }

    /// Up to `count` bytes (fewer at the end of the input).
    public mutating func take(_ count: Int) -> [UInt8] {
        let n = Swift.max(0, Swift.min(count, remaining))
        defer { position += n }
        return Array(bytes[position..<(position + n)])
    }

    /// A run whose length is the next byte, capped at `maximum`.
    public mutating func lengthPrefixed(maximum: Int = 255) -> [UInt8] {
        take(Swift.min(Int(u8()), maximum))
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        take(remaining)
    }
}

/// How an input is cut into pieces before it is fed to an incremental parser.
public enum Feeding: Sendable, Equatable, CustomStringConvertible {
    /// Cut at these positions (sorted, each within 0...count; empty pieces are allowed and
    /// deliberate: feeding an empty piece must not change anything).
    case cuts([Int])
    /// One byte at a time.
    case bytewise

    /// Inputs longer than this are never fed one byte at a time (it would only be slow).
    public static let bytewiseLimit = 2048

    /// Reads a feeding from `reader`: one mode byte (its low two bits: 1, 2 or 3 cuts, or
    /// bytewise) and three 16-bit cut selectors. `count` is the length of the stream that will
    /// be cut. The mode byte's upper six bits are returned for the caller's own use.
    public static func read(from reader: inout FuzzReader, count: Int) -> (feeding: Feeding, modeBits: UInt8) {
        let mode = reader.u8()
        let selectors = [reader.u16(), reader.u16(), reader.u16()]
        let kind = Int(mode & 3)
        if kind == 3 && count <= bytewiseLimit {
            return (.bytewise, mode >> 2)
        }
        let n = Swift.min(kind + 1, 3)
        let cuts = selectors.prefix(n).map { Int($0) % (count + 1) }.sorted()
        return (.cuts(cuts), mode >> 2)
    }

    /// The pieces of `input` this feeding delivers, in order. Their concatenation is `input`.
    public func pieces(_ input: [UInt8]) -> [ArraySlice<UInt8>] {
        switch self {
        case .bytewise:
            return input.indices.map { input[$0..<($0 + 1)] }
        case .cuts(let cuts):
            var pieces: [ArraySlice<UInt8>] = []
            var start = 0
            for cut in cuts {
                let c = Swift.min(Swift.max(cut, start), input.count)
                pieces.append(input[start..<c])
                start = c
            }
            pieces.append(input[start...])
            return pieces
        }
    }

    public var description: String {
        switch self {
        case .bytewise: return "bytewise"
        case .cuts(let cuts): return "cuts\(cuts)"
        }
    }
}
