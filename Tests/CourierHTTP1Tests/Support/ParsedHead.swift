import CourierCore
import CourierHTTP1

struct NoHead: Error {}

/// Parses `text` (fed whole) with a response parser and returns the first final head.
func parseResponseHead(_ text: String, method: HTTPMethod = .GET) throws -> HTTPResponseHead {
    var parser = HTTPResponseParser()
    parser.requestMethod = method
    var buffer = ByteBuffer(string: text)
    while case let event = try parser.next(&buffer), event != .needMoreData {
        if case .head(let head) = event { return head }
    }
    throw NoHead()
}
