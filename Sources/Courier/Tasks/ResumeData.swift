import FoundationEssentials

/// What an interrupted download needs to continue (`NSURLSessionDownloadTaskResumeData`): the
/// request, the partial file, how many bytes it holds, and the validator that proves the
/// server's representation is still the same one (RFC 9110 §13.1.5: If-Range with a strong
/// ETag, or with Last-Modified). Opaque to callers: they get it as `Data`.
struct ResumeData: Codable, Sendable, Hashable {
    static let currentVersion = 1

    var version = ResumeData.currentVersion
    var url: String
    var method: String
    var headers: [[String]]
    var timeoutInterval: Double
    /// The partial file and how many bytes of it are valid.
    var temporaryFilePath: String
    var bytesReceived: Int64
    /// A strong ETag or a Last-Modified date, sent back in If-Range.
    var validator: String

    func encoded() -> Data? { try? JSONEncoder().encode(self) }

    static func decode(_ data: Data) -> ResumeData? {
        guard let resume = try? JSONDecoder().decode(ResumeData.self, from: data), resume.version == currentVersion,
              resume.bytesReceived >= 0 else { return nil }
        return resume
    }

    /// A validator usable in If-Range: a strong ETag (a weak one must not be used, §13.1.5), or
    /// else Last-Modified.
    static func validator(of response: Response) -> String? {
        if let etag = response.headers[first: "ETag"]?.trimmingOWS, etag.hasPrefix("\""), etag.count >= 2 {
            return etag
        }
        return response.headers[first: "Last-Modified"]?.trimmingOWS
    }

    /// Parses `Content-Range: bytes first-last/complete` (RFC 9110 §14.4): (first, complete or -1).
    static func contentRangeStart(_ value: String?) -> (first: Int64, complete: Int64)? {
        guard let value = value?.trimmingOWS, value.lowercased().hasPrefix("bytes ") else { return nil }
        // 1*DIGIT only: Int64("+5") would accept a sign the grammar does not have.
        func number(_ text: Substring) -> Int64? {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int64(text)
        }
        let parts = value.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let range = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard range.count == 2, let first = number(range[0]), let last = number(range[1]), last >= first else { return nil }
        let complete = parts[1] == "*" ? -1 : (number(parts[1]) ?? -2)
        guard complete == -1 || complete > last else { return nil }
        return (first, complete)
    }
}
