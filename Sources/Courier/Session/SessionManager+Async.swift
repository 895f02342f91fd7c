import CourierCore
import FoundationEssentials

/// Tasks for `async` callers: each call makes a task, resumes it and returns what its
/// completion handler would get — the typed value (or error) together with the request, the
/// response, the body and the metrics (Alamofire's `DataResponse`); ``DataResponse/reply()``
/// turns that into the ``Reply`` (value, response, metrics) or the thrown error, as
/// ``HTTPSessionManager``'s `async` calls return it. Cancelling the calling Swift task cancels
/// the task.
extension SessionManager {
    /// URLSession's `data(for:)`, typed by `serializer` and validated by it (or by the request's
    /// own ``Request/validation``).
    public func data<Serializer: ResponseSerializer>(
        for request: Request, serializer: Serializer, uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil
    ) async -> DataResponse<Serializer.Output> {
        await awaitResponse(RequestValidatedSerializer(serializer, for: request)) { completion in
            makeDataTask(request, completion: completion, uploadProgress: uploadProgress, downloadProgress: downloadProgress)
        }
    }

    /// The body as received, unvalidated (URLSession's `data(for:)`).
    public func data(for request: Request, downloadProgress: ProgressHandler? = nil) async -> DataResponse<Data> {
        await data(for: request, serializer: RawDataSerializer(), downloadProgress: downloadProgress)
    }

    /// Uploads `body` (URLSession's `upload(for:from:)`), typed by `serializer`.
    public func upload<Serializer: ResponseSerializer>(
        for request: Request, from body: Data, serializer: Serializer, progress: ProgressHandler? = nil
    ) async -> DataResponse<Serializer.Output> {
        var request = request
        request.body = .data(body)
        return await upload(request, serializer: serializer, progress: progress)
    }

    /// Uploads a file, streamed from disk with its exact length (URLSession's
    /// `upload(for:fromFile:)`), typed by `serializer`.
    public func upload<Serializer: ResponseSerializer>(
        for request: Request, fromFile fileURL: URL, serializer: Serializer, progress: ProgressHandler? = nil
    ) async -> DataResponse<Serializer.Output> {
        var request = request
        request.body = .file(fileURL)
        return await upload(request, serializer: serializer, progress: progress)
    }

    /// Streams the body to a file and moves it where `destination` says (URLSession's
    /// `download(for:)`); the response carries the file's URL, resume data when it failed part
    /// way, and the metrics.
    public func download(
        for request: Request, options: DownloadOptions = [.createIntermediateDirectories, .removePreviousFile],
        progress: ProgressHandler? = nil, destination: (@Sendable (URL, Response) -> URL)? = nil
    ) async -> DownloadResponse {
        await awaitCompletion { deliver in
            downloadTask(with: request, options: options, progress: progress, destination: destination, completionHandler: deliver)
        }
    }

    private func upload<Serializer: ResponseSerializer>(
        _ request: Request, serializer: Serializer, progress: ProgressHandler?
    ) async -> DataResponse<Serializer.Output> {
        await awaitResponse(RequestValidatedSerializer(serializer, for: request)) { completion in
            makeUploadTask(request, completion: completion, progress: progress)
        }
    }
}
