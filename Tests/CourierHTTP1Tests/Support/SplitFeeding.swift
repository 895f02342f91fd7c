import CourierTestSupport
import Testing

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
