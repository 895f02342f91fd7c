import CourierCore
import CourierHTTP1

extension HTTPClient {
    /// Runs `request` and returns once the final response head arrived (after redirects);
    /// the body follows as ``HTTPClientResponse/body``, an `AsyncSequence` read as the caller
    /// iterates it (``HTTPClientResponse/Body/collect(upTo:)`` reads it whole).
    ///
    /// Cancelling the calling Swift task cancels the request at once, in whatever phase it is
    /// (as ``HTTPRequestExecution/cancel()`` does: a connection with the request in flight is closed),
    /// and the call throws a ``ClientError`` with code ``ClientError/Code/cancelled``. A task
    /// already cancelled when it calls this starts no request at all.
    public func execute(_ request: HTTPClientRequest) async throws(ClientError) -> HTTPClientResponse {
        let stream = ResponseStream(client: self, request: request)
        let head = await withTaskCancellationHandler {
            await withCheckedContinuation { waiter in stream.start(waiter) }
        } onCancel: {
            stream.cancel(ClientError(.cancelled, detail: "the Swift task was cancelled"))
        }
        TSanHandoff.acquire(stream)  // the head was written by the loop that resumed us
        return HTTPClientResponse(head: try head.get(), stream: stream)
    }
}
