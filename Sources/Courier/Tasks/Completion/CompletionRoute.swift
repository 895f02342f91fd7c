import FoundationEssentials

/// How a finished task reaches whoever waits for it: the one completion concept of a task.
///
/// A task ends with a ``RawOutcome`` (on whatever thread ended it, often an event loop). Then:
/// - **Handed off** (async callers): when nothing needs the completion queue — no completion or
///   metrics hook, no event subscriber, no completion group, no response cache — the outcome is
///   handed to the awaiting Swift task at once, which serializes it itself. One thread hop.
/// - **Through the queues** (closure callers, or when observers need the result): `finish`
///   serializes and returns what observers see plus the caller's callback, which runs on the
///   completion queue. `finish` runs on the processing (serialization) queue first — a slow
///   serializer must not hold up every other completion, AFNetworking's reason for that queue —
///   unless the serializer is inexpensive (``ResponseSerializer/isInexpensive``): then it runs on
///   the completion queue, saving a hop.
struct CompletionRoute: Sendable {
    /// Serializes the outcome; returns what observers see and the caller's callback.
    let finish: @Sendable (RawOutcome) -> FinishedTask
    /// `finish` is cheap enough for the completion queue.
    let inexpensive: Bool
    /// An awaiting Swift task that takes the raw outcome when nothing else needs the completion
    /// queue (nil: always through the queues).
    let handOff: (@Sendable (RawOutcome) -> Void)?

    init(finish: @escaping @Sendable (RawOutcome) -> FinishedTask, inexpensive: Bool, handOff: (@Sendable (RawOutcome) -> Void)? = nil) {
        self.finish = finish
        self.inexpensive = inexpensive
        self.handOff = handOff
    }

    /// A data or upload task's completion: `serializer` turns the outcome into the caller's
    /// ``DataResponse``.
    static func serializing<Serializer: ResponseSerializer>(
        with serializer: Serializer, handler: (@Sendable (DataResponse<Serializer.Output>) -> Void)?,
        handOff: (@Sendable (RawOutcome) -> Void)? = nil
    ) -> CompletionRoute {
        CompletionRoute(finish: { raw in
            let response = raw.dataResponse(serializedBy: serializer)
            let value: (any Sendable)? = try? response.result.get()
            return FinishedTask(serializedObject: value, error: response.error) { handler?(response) }
        }, inexpensive: serializer.isInexpensive, handOff: handOff)
    }

    /// A download task's completion.
    static func download(handler: (@Sendable (DownloadResponse) -> Void)?) -> CompletionRoute {
        CompletionRoute(finish: { raw in
            let result: Result<URL, CourierError>
            if let error = raw.error {
                result = .failure(error)
            } else if let url = raw.fileURL {
                result = .success(url)
            } else {
                result = .failure(CourierError(.noResponse, failingURL: raw.request.url, detail: "the download produced no file"))
            }
            let response = DownloadResponse(
                request: raw.request, response: raw.response, fileURL: raw.fileURL, resumeData: raw.resumeData, metrics: raw.metrics, result: result)
            return FinishedTask(serializedObject: raw.fileURL, error: response.error) { handler?(response) }
        }, inexpensive: true)
    }
}

/// What `finish` made of an outcome: what observers see, and the caller's callback to run.
struct FinishedTask: Sendable {
    var serializedObject: (any Sendable)?
    var error: CourierError?
    var deliver: @Sendable () -> Void
}

extension RawOutcome {
    /// The outcome as the caller sees it, serialized by `serializer` (on the calling thread).
    func dataResponse<Serializer: ResponseSerializer>(serializedBy serializer: Serializer) -> DataResponse<Serializer.Output> {
        let result: Result<Serializer.Output, CourierError>
        if let error {
            result = .failure(error)
        } else if let response {
            do throws(CourierError) { result = .success(try serializer.serialize(response: response, data: data)) } catch {
                result = .failure(error.with(response: response, body: data, failingURL: request.url))
            }
        } else {
            result = .failure(CourierError(.noResponse, failingURL: request.url, detail: "the task ended without a response"))
        }
        return DataResponse(request: request, response: response, data: data, metrics: metrics, result: result)
    }
}
