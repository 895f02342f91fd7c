import CourierCore
import CourierHTTP1
import Testing
@testable import CourierClient

/// The same response bytes, whole, split at every byte, and one byte at a time, must give the
/// same actions (after joining adjacent body parts and dropping `.wait(.read)`).
@Suite("HTTP1ConnectionStateMachine: split feeding")
struct HTTP1ConnectionSplitFeedingTests {
    struct Scenario: CustomStringConvertible, Sendable {
        var name: String
        var method: HTTPMethod = .GET
        var body: HTTP1ConnectionStateMachine.RequestBodyKind = .none
        var expectContinue = false
        var response: String
        var eofAtEnd = false
        /// The summary of the whole-buffer run, checked so the comparison cannot pass vacuously.
        var expected: [String]
        var description: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "content-length", response: "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nA: b\r\n\r\nhello world",
            expected: ["head 200", "body hello world", "end keepAlive"]),
        Scenario(
            name: "chunked+trailers",
            response: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: v\r\n\r\n",
            expected: ["head 200", "body abc0123456789abcdef", "end T=v keepAlive"]),
        Scenario(
            name: "until-close", response: "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nstreamed until close", eofAtEnd: true,
            expected: ["head 200", "body streamed until close", "end close"]),
        Scenario(
            name: "head", method: .HEAD, response: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n",
            expected: ["head 200", "end keepAlive"]),
        Scenario(
            name: "interim", response: "HTTP/1.1 103 Early Hints\r\nLink: <x>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
            expected: ["head 204", "end keepAlive"]),
        Scenario(
            name: "continue", method: .PUT, body: .knownLength(3), expectContinue: true,
            response: "HTTP/1.1 100 Continue\r\n\r\n",
            expected: ["sendRequestBody"]),
        Scenario(
            name: "early-final", method: .PUT, body: .knownLength(3), expectContinue: true,
            response: "HTTP/1.1 417 Expectation Failed\r\nContent-Length: 4\r\n\r\nnope",
            expected: ["head 417 stop", "body nope", "end close"]),
        Scenario(
            name: "truncated", response: "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort", eofAtEnd: true,
            expected: ["head 200", "body short", "fail remoteClosedDuringBody close"]),
        Scenario(
            name: "parse-error", response: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx",
            expected: ["fail parse close"]),
    ]

    static func run(_ s: Scenario, pieces: [Int]) -> [ConnAction] {
        var h = ConnectionHarness()
        _ = h.start(ConnectionHarness.get(method: s.method), body: s.body, expectContinue: s.expectContinue)
        var actions = h.receive(s.response, pieces: pieces)
        if s.eofAtEnd { actions += h.eof() }
        return normalized(actions)
    }

    @Test(arguments: scenarios)
    func sameActionsForEverySplit(scenario: Scenario) {
        let n = scenario.response.utf8.count
        let whole = Self.run(scenario, pieces: [n])
        #expect(summary(whole) == scenario.expected)
        for i in 1..<n {
            let split = Self.run(scenario, pieces: [i, n - i])
            #expect(split == whole, "split at \(i)")
        }
        #expect(Self.run(scenario, pieces: Array(repeating: 1, count: n)) == whole, "bytewise")
    }
}
