import FoundationEssentials

/// What a data or upload task hands its completion handler (AFNetworking's
/// `(NSURLResponse *, id responseObject, NSError *)`, as one value).
public struct DataResponse<Value: Sendable>: Sendable {
    /// The last request made (after redirects).
    public let request: Request
    public let response: Response?
    /// The body as received (also when serialization failed).
    public let data: Data?
    public let metrics: TaskMetrics?
    public let result: Result<Value, CourierError>

    public var value: Value? { try? result.get() }
    public var error: CourierError? { if case .failure(let error) = result { error } else { nil } }
}

/// What a download task hands its completion handler: the file's final location or the error,
/// and resume data when the download can be continued. A file saved with a content coding left
/// undone holds the bytes as received; ``undecodedContentCodings`` names the codings.
public struct DownloadResponse: Sendable {
    public let request: Request
    public let response: Response?
    public let fileURL: URL?
    public let resumeData: Data?
    public let metrics: TaskMetrics?
    public let result: Result<URL, CourierError>

    public var error: CourierError? { if case .failure(let error) = result { error } else { nil } }
    /// The content codings still applied to the saved file, in the order the server applied
    /// them (``Response/undecodedContentCodings``, RFC 9110 §8.4); empty when there were none
    /// or Courier undid them.
    public var undecodedContentCodings: [String] { response?.undecodedContentCodings ?? [] }
}

/// A progress callback: the progress's state at the time of delivery.
public typealias ProgressHandler = @Sendable (TaskProgress.Snapshot) -> Void

/// The body as it is, without validation (the plain `dataTask` of NSURLSession).
struct RawDataSerializer: ResponseSerializer {
    func serialize(response: Response, data: Data?) throws(CourierError) -> Data { data ?? Data() }
    var isInexpensive: Bool { true }
}
