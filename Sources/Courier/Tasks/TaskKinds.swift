import FoundationEssentials
import Synchronization

/// A task whose response body is collected in memory (`NSURLSessionDataTask`).
public final class DataTask: SessionTask, @unchecked Sendable {}

/// A data task whose request carries a body from memory, a file or a stream
/// (`NSURLSessionUploadTask`). Its ``SessionTask/uploadProgress`` counts body bytes sent.
public final class UploadTask: SessionTask, @unchecked Sendable {}

/// A task whose response body is streamed to a file (`NSURLSessionDownloadTask`), never held in
/// memory. An interrupted download can be resumed from ``resumeData``.
public final class DownloadTask: SessionTask, @unchecked Sendable {
    /// Resume data, once the task failed or was cancelled after receiving part of a body that
    /// has a validator (a strong ETag or Last-Modified). Pass it to
    /// ``SessionManager/downloadTask(withResumeData:progress:destination:completionHandler:)``.
    public var resumeData: Data? { core.withLock { $0.machine.resumeData } }

    /// Cancels the task and hands over resume data when the task has ended (nil when the
    /// download cannot be resumed), on the completion queue.
    public func cancel(byProducingResumeData handler: @escaping @Sendable (Data?) -> Void) {
        core.withLock { $0.resumeDataHandlers.append(handler) }
        cancel()
        // Already completed: the completion will not call the handlers any more.
        let late = core.withLock { core -> (Data?, [@Sendable (Data?) -> Void])? in
            guard core.completionDelivered else { return nil }
            let handlers = core.resumeDataHandlers
            core.resumeDataHandlers = []
            return (core.machine.resumeData, handlers)
        }
        if let (data, handlers) = late {
            manager.completionQueue.async { for handler in handlers { handler(data) } }
        }
    }
}

/// Where a download goes and how to resume it.
struct DownloadPlan: Sendable {
    /// Names the final location from the temporary file and the response; nil leaves the file at
    /// its temporary location.
    var destination: (@Sendable (URL, Response) -> URL)?
    var options: DownloadOptions
    /// The temporary file the body is written to.
    var temporaryPath: String
}

/// How a finished download is moved to its destination.
public struct DownloadOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Create missing parent directories of the destination.
    public static let createIntermediateDirectories = DownloadOptions(rawValue: 1)
    /// Replace a file already at the destination (otherwise the move fails).
    public static let removePreviousFile = DownloadOptions(rawValue: 2)
}
