import Testing

/// The ways every parser and decoder test feeds its input: whole, split in two at every byte
/// position, and one byte at a time.
enum Feeding: CustomStringConvertible {
    case whole
    case split(at: Int)
    case bytewise

    /// The input cut into the pieces this feeding delivers.
    func pieces(_ input: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole: return [input]
        case .split(let k): return [Array(input[..<k]), Array(input[k...])]
        case .bytewise: return input.map { [$0] }
        }
    }

    /// Every feeding for an input of `count` bytes.
    static func all(count: Int) -> [Feeding] {
        [.whole, .bytewise] + (0...count).map { .split(at: $0) }
    }

    var description: String {
        switch self {
        case .whole: return "whole"
        case .split(let k): return "split@\(k)"
        case .bytewise: return "bytewise"
        }
    }
}

/// Runs `run` over every feeding of `input` and expects the same result from each; returns the
/// result of the whole feeding.
@discardableResult
func expectSameForEveryFeeding<Result: Equatable>(
    _ input: [UInt8],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ run: ([[UInt8]]) -> Result
) -> Result {
    let reference = run(Feeding.whole.pieces(input))
    for feeding in Feeding.all(count: input.count) {
        let result = run(feeding.pieces(input))
        #expect(result == reference, "feeding \(feeding) differs from whole", sourceLocation: sourceLocation)
        if result != reference { break }
    }
    return reference
}
