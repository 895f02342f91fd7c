import FoundationEssentials

extension TaskCompletion {
    /// How a task's ``Outcome`` reaches whoever waits for it, by one of the two ways
    /// ``TaskCompletion`` describes. Made with the task, so it is typed by the task's serializer
    /// (no casts).
    struct Route: Sendable {
        /// Through the queues: serializes the outcome (on the processing queue) and returns what
        /// observers see and the caller's callback (run on the completion queue).
        let finish: @Sendable (Outcome) -> Finished
        /// Handed off: an awaiting Swift task that takes the outcome itself when nothing needs the
        /// completion queue (nil: always through the queues).
        let handOff: (@Sendable (Outcome) -> Void)?

        init(finish: @escaping @Sendable (Outcome) -> Finished, handOff: (@Sendable (Outcome) -> Void)? = nil) {
            self.finish = finish
            self.handOff = handOff
        }

        /// A data or upload task's completion: `serializer` turns the outcome into the caller's
        /// ``DataResponse``.
        static func serializing<Serializer: ResponseSerializer>(
            with serializer: Serializer, handler: (@Sendable (DataResponse<Serializer.Output>) -> Void)?,
            handOff: (@Sendable (Outcome) -> Void)? = nil
        ) -> Route {
            Route(finish: { outcome in
                let response = outcome.dataResponse(serializedBy: serializer)
                let value: (any Sendable)? = try? response.result.get()
                return Finished(serializedObject: value, error: response.error) { handler?(response) }
            }, handOff: handOff)
        }

        /// A download task's completion.
        static func download(handler: (@Sendable (DownloadResponse) -> Void)?) -> Route {
            Route(finish: { outcome in
                let result: Result<URL, CourierError>
                if let error = outcome.error {
                    result = .failure(error)
                } else if let url = outcome.fileURL {
                    result = .success(url)
                } else {
                    result = .failure(CourierError(.noResponse, failingURL: outcome.request.url, detail: "the download produced no file"))
                }
                let response = DownloadResponse(
                    request: outcome.request, response: outcome.response, fileURL: outcome.fileURL, resumeData: outcome.resumeData,
                    metrics: outcome.metrics, result: result)
                return Finished(serializedObject: outcome.fileURL, error: response.error) { handler?(response) }
            })
        }
    }
}
