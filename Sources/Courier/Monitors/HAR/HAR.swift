/// The HTTP Archive format, version 1.2 (W3C Web Performance WG draft, "HTTP Archive (HAR)
/// format"): the document ``HARRecorder`` writes. Fields keep the specification's names; a field
/// the specification makes optional is nil when absent, and sizes and timings it allows to be
/// unknown are -1.
public enum HAR {
    /// The root object: `{"log": …}`.
    public struct Document: Codable, Sendable {
        public var log: Log
    }

    public struct Log: Codable, Sendable {
        /// "1.2".
        public var version: String
        public var creator: Creator
        public var entries: [Entry]
    }

    public struct Creator: Codable, Sendable {
        public var name: String
        public var version: String
    }

    /// One request and its response.
    public struct Entry: Codable, Sendable {
        /// When the request started (ISO 8601, with milliseconds).
        public var startedDateTime: String
        /// The request's total time in milliseconds: the sum of the timings that apply (`ssl`
        /// excluded: it is part of `connect`).
        public var time: Double
        public var request: Request
        public var response: Response
        /// Nothing is recorded about the cache (the object is required, its fields optional).
        public var cache: Cache
        public var timings: Timings
        /// Why the request failed, when it did (a custom field: their names start with `_`).
        public var _error: String?
    }

    public struct Request: Codable, Sendable {
        public var method: String
        public var url: String
        public var httpVersion: String
        public var cookies: [Cookie]
        public var headers: [Header]
        public var queryString: [QueryParameter]
        public var postData: PostData?
        /// -1: the session does not see the head as written.
        public var headersSize: Int
        /// The body's length, 0 without one, -1 when unknown (a stream).
        public var bodySize: Int
    }

    public struct Response: Codable, Sendable {
        /// 0 when no response arrived.
        public var status: Int
        public var statusText: String
        public var httpVersion: String
        public var cookies: [Cookie]
        public var headers: [Header]
        public var content: Content
        /// The `Location` of a redirect, else "".
        public var redirectURL: String
        public var headersSize: Int
        /// The body as transferred (before content decoding), -1 when unknown.
        public var bodySize: Int
    }

    public struct Content: Codable, Sendable {
        /// The decoded body's length.
        public var size: Int
        public var mimeType: String
        /// The body, when the recorder keeps bodies: text, or base64 with `encoding`.
        public var text: String?
        public var encoding: String?
    }

    public struct Cache: Codable, Sendable {}

    /// Milliseconds per phase; -1 where the phase did not apply (`blocked`, `dns`, `connect`,
    /// `ssl`). `send`, `wait` and `receive` are never -1.
    public struct Timings: Codable, Sendable {
        public var blocked: Double
        public var dns: Double
        public var connect: Double
        public var send: Double
        public var wait: Double
        public var receive: Double
        public var ssl: Double
    }

    public struct Header: Codable, Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public struct Cookie: Codable, Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public struct QueryParameter: Codable, Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public struct PostData: Codable, Sendable {
        public var mimeType: String
        public var text: String
    }
}
