import CourierCore
import FoundationEssentials
import Synchronization

/// Tasks for `async` callers: each call makes a task, resumes it and returns what its
/// completion handler would get — the typed value (or error) together with the request, the
/// response, the body and the metrics (Alamofire's `DataResponse`). Cancelling the calling Swift
/// task cancels the task.
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
        await awaitTask { deliver in
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

    /// Runs the task `make` builds for an `async` caller: the outcome is handed to this Swift
    /// task when nothing needs the completion queue (one thread hop from the event loop) and
    /// serialized here; otherwise it comes through the queues already serialized, after the hooks
    /// ran (``CompletionRoute``). Cancelling the Swift task cancels the task.
    func awaitResponse<Serializer: ResponseSerializer, Task: SessionTask>(
        _ serializer: Serializer, _ make: (CompletionRoute) -> Task
    ) async -> DataResponse<Serializer.Output> {
        let arrival: AsyncArrival<Serializer.Output> = await awaitTask { deliver in
            // A task's completion takes exactly one of the two routes.
            make(CompletionRoute.serializing(
                with: serializer, handler: { deliver(.serialized($0)) }, handOff: { deliver(.raw($0)) }))
        }
        switch arrival {
        case .raw(let raw): return raw.dataResponse(serializedBy: serializer)
        case .serialized(let serialized): return serialized
        }
    }

    /// Makes a task with `make` (given what its completion calls), resumes it and waits for that
    /// call; cancelling the Swift task cancels the task, whenever it happens.
    private func awaitTask<Value: Sendable>(_ make: (_ deliver: @escaping @Sendable (Value) -> Void) -> SessionTask) async -> Value {
        let box = CancellationBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = make { continuation.resume(returning: $0) }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// How a task's outcome reaches an `async` caller: raw (to serialize in the caller's Swift task)
/// or already serialized (it went through the completion queue).
enum AsyncArrival<Value: Sendable>: Sendable {
    case raw(RawOutcome)
    case serialized(DataResponse<Value>)
}

/// Connects Swift task cancellation with a session task: the cancellation handler may run
/// before the task exists (it is then cancelled as soon as it does), or at any time after.
final class CancellationBox: Sendable {
    private struct State {
        var task: SessionTask?
        var cancelled = false
    }

    private let state = Mutex(State())

    func set(_ task: SessionTask) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> SessionTask? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
