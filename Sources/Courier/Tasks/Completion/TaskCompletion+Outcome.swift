import FoundationEssentials

extension TaskCompletion {
    /// Everything a task produced, before serialization: what its ``Route`` takes to whoever
    /// waits for it.
    struct Outcome: Sendable {
        var request: Request
        var response: Response?
        var data: Data?
        var fileURL: URL?
        var error: CourierError?
        var metrics: TaskMetrics
        var resumeData: Data?
    }
}

extension TaskCompletion.Outcome {
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
