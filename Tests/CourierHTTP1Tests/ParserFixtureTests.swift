import CourierTestSupport
import CourierHTTP1
import Testing

/// Every fixture case, fed whole, split at every byte, and one byte at a time.
@Suite("Parser fixtures")
struct ParserFixtureTests {
    static let responses = Fixture.load("responses.txt")
    static let requests = Fixture.load("requests.txt")

    @Test("response fixtures", arguments: responses)
    func response(_ fixture: Fixture) {
        let log = expectSameForEveryFeeding(fixture.input) { runResponseParser(fixture, $0) }
        #expect(log.lines == fixture.expected, "\n\(log)")
    }

    /// Chunks joined in place (unique buffer) and chunks delivered one by one (shared buffer)
    /// give the same events, errors and offsets.
    @Test("joining chunks in place changes nothing observable", arguments: responses.filter { $0.input.count < 400 })
    func joinedChunks(_ fixture: Fixture) {
        let log = expectSameForEveryFeeding(fixture.input) { runResponseParser(fixture, $0, sharingBuffer: true) }
        #expect(log.lines == fixture.expected, "\n\(log)")
    }

    @Test("request fixtures", arguments: requests)
    func request(_ fixture: Fixture) {
        let log = expectSameForEveryFeeding(fixture.input) { runRequestParser(fixture, $0) }
        #expect(log.lines == fixture.expected, "\n\(log)")
    }

    /// Each error code is produced by at least one fixture, so every error and limit is exercised.
    @Test func everyErrorCodeIsExercised() {
        var seen = Set<HTTPParserError.Code>()
        for fixture in Self.responses {
            seen.formUnion(runResponseParser(fixture, [fixture.input]).errors.map(\.code))
        }
        for fixture in Self.requests {
            seen.formUnion(runRequestParser(fixture, [fixture.input]).errors.map(\.code))
        }
        let missing = Set(HTTPParserError.Code.allCases).subtracting(seen)
        #expect(missing.isEmpty, "no fixture produces \(missing.map(\.rawValue).sorted())")
    }
}
