/// An HTTP version: `HTTP/1.0` or `HTTP/1.1` (RFC 9112 §2.3).
///
/// The parsers report the version a message is processed as: a peer's `HTTP/1.2` … `HTTP/1.9`
/// is HTTP/1.1 (RFC 9110 §2.5).
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    public let major: UInt8
    public let minor: UInt8

    public init(major: UInt8, minor: UInt8) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }
}
