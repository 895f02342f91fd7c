/// The ways every parser and decoder test feeds its input: whole, split in two at every byte
/// position, and one byte at a time (the HTTP parser's, the decoders' and the event-stream
/// parser's tests share it).
public enum Feeding: CustomStringConvertible, Sendable {
    case whole
    case split(at: Int)
    case bytewise

    /// The input cut into the pieces this feeding delivers.
    public func pieces(_ input: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole: return [input]
        case .split(let k): return [Array(input[..<k]), Array(input[k...])]
        case .bytewise: return input.map { [$0] }
        }
    }

    /// Every feeding for an input of `count` bytes.
    public static func all(count: Int) -> [Feeding] {
        [.whole, .bytewise] + (0...count).map { .split(at: $0) }
    }

    public var description: String {
        switch self {
        case .whole: return "whole"
        case .split(let k): return "split@\(k)"
        case .bytewise: return "bytewise"
        }
    }
}
