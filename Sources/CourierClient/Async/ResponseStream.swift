import CourierCore
import CourierHTTP1
import Synchronization

/// Runs one `async` request: the delegate of its ``HTTPRequestExecution`` on one side, the caller
/// awaiting the head and the body's iterator on the other. The logic is
/// ``ResponseStreamStateMachine``; this type holds it under a lock and performs its actions
/// (in ``perform(_:)``, after the lock is released).
///
/// Lifetime: the execution holds this object (its delegate) until the request ends, and this object
/// holds the execution only until then, so the cycle ends with the request.
final class ResponseStream: HTTPClientResponseDelegate, Sendable {
    typealias HeadWaiter = CheckedContinuation<Result<HTTPClientResponseHead, ClientError>, Never>
    typealias BodyWaiter = CheckedContinuation<Result<ByteBuffer?, ClientError>, Never>
    typealias Machine = ResponseStreamStateMachine<HeadWaiter, BodyWaiter>

    private struct Locked {
        var machine: Machine
        /// The transport request while it runs.
        var execution: HTTPRequestExecution?
        /// A cancellation came before the execution existed: cancel it as soon as it does.
        var cancelWhenStarted = false
    }

    private let client: HTTPClient
    private let request: HTTPClientRequest
    private let locked = Mutex(Locked(machine: Machine()))

    init(client: HTTPClient, request: HTTPClientRequest) {
        self.client = client
        self.request = request
    }

    // MARK: Events from the caller

    func start(_ waiter: HeadWaiter) {
        perform(locked.withLock { $0.machine.start(waiter) })
    }

    /// False for a second iterator: the body is single-pass.
    func makeIterator() -> Bool {
        locked.withLock { $0.machine.makeIterator() }
    }

    var iteratorMade: Bool { locked.withLock { $0.machine.iteratorMade } }

    func next() -> Machine.Next {
        let next = locked.withLock { $0.machine.next() }
        if case .part(_, resumeReading: true) = next { perform(.resumeReading) }
        return next
    }

    func waitForPart(_ waiter: BodyWaiter) {
        perform(locked.withLock { $0.machine.waitForPart(waiter) })
    }

    func cancel(_ error: ClientError) {
        perform(locked.withLock { $0.machine.cancel(error) })
    }

    var trailers: HTTPFields? { locked.withLock { $0.machine.trailers } }
    var metrics: HTTPClientMetrics? { locked.withLock { $0.machine.metrics } }

    // MARK: Events from the execution (on its loop)

    func didReceiveHead(_ execution: HTTPRequestExecution, _ head: HTTPClientResponseHead) {
        perform(locked.withLock { $0.machine.receivedHead(head) })
    }

    func didReceiveBodyPart(_ execution: HTTPRequestExecution, _ part: ByteBuffer) -> HTTPClientBodyDemand {
        let (action, demand) = locked.withLock { $0.machine.receivedBodyPart(part) }
        perform(action)
        return demand
    }

    func didFinish(_ execution: HTTPRequestExecution, trailers: HTTPFields, metrics: HTTPClientMetrics) {
        perform(locked.withLock { locked in
            locked.execution = nil
            return locked.machine.finished(trailers: trailers, metrics: metrics)
        })
    }

    func didFail(_ execution: HTTPRequestExecution, error: ClientError, metrics: HTTPClientMetrics) {
        perform(locked.withLock { locked in
            locked.execution = nil
            return locked.machine.failed(error, metrics: metrics)
        })
    }

    // MARK: The one place that acts

    private func perform(_ action: Machine.Action) {
        switch action {
        case .none:
            break
        case .startRequest:
            let execution = client.execute(request, delegate: self)
            let cancelNow = locked.withLock { locked -> Bool in
                // It may already have ended (a client shut down fails it on this thread).
                if locked.cancelWhenStarted { return true }
                switch locked.machine.state {
                case .waitingForHead, .streaming:
                    locked.execution = execution
                    return false
                case .failed:
                    // Cancelled between `start` and here: the cancel's own look for the execution
                    // may come after this one and find none, so it is cancelled here (a request
                    // that failed on its own has finished already; cancelling it does nothing).
                    return true
                case .idle, .finished:
                    return false
                }
            }
            if cancelNow { execution.cancel() }
        case .succeedHead(let waiter, let head):
            TSanHandoff.release(self)
            waiter.resume(returning: .success(head))
        case .failHead(let waiter, let error):
            TSanHandoff.release(self)
            waiter.resume(returning: .failure(error))
        case .resumeBody(let waiter, let result):
            TSanHandoff.release(self)
            waiter.resume(returning: result)
        case .resumeBodyAndReading(let waiter, let part):
            locked.withLock { $0.execution }?.resumeReading()
            TSanHandoff.release(self)
            waiter.resume(returning: .success(part))
        case .resumeReading:
            locked.withLock { $0.execution }?.resumeReading()
        case .cancelRequest(let headWaiter, let bodyWaiter, let error):
            let execution = locked.withLock { locked -> HTTPRequestExecution? in
                if locked.execution == nil { locked.cancelWhenStarted = true }
                return locked.execution
            }
            execution?.cancel()
            TSanHandoff.release(self)
            headWaiter?.resume(returning: .failure(error))
            bodyWaiter?.resume(returning: .failure(error))
        }
    }
}
