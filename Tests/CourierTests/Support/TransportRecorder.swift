import CourierClient
import CourierCore
import CourierHTTP1
import Dispatch

/// A transport delegate that keeps the status, body and error and lets a test wait for the end
/// (for tests that use CourierClient's `HTTPClient` directly).
final class TransportRecorder: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: the client calls one method at a time from its loop; the test reads the
    // fields only after `wait()` returned (the semaphore orders the accesses).
    private(set) var status: Int?
    private(set) var body: [UInt8] = []
    private(set) var error: ClientError?
    private(set) var sentHead = false
    private let done = DispatchSemaphore(value: 0)

    init() {}

    func didSendRequestHead(_ execution: HTTPRequestExecution, _ head: HTTPRequestHead) { sentHead = true }
    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) { status = head.status }
    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        body += part.readableBytesArray()
        return .more
    }
    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) { done.signal() }
    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        self.error = error
        done.signal()
    }

    func wait(seconds: Int = 30) -> Bool { done.wait(timeout: .now() + .seconds(seconds)) == .success }

    var bodyString: String { String(decoding: body, as: UTF8.self) }
}
