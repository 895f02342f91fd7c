import CourierClient
import FoundationEssentials

// One attempt of a task — one HTTP request — as the task state machine tracks it.
extension TaskStateMachine {
    /// One HTTP request of the task.
    struct Attempt {
        var number: Int
        var transport: TransportState
        var step: Step
        /// We answered a body part with `.pause` and owe the transport `resumeReading()`.
        var transportPaused = false
    }

    enum TransportState {
        /// `execute` has not returned the handle yet.
        case launching
        case running(Transport)
        /// The transport reported the end of the response (its metrics are recorded).
        case ended

        var handle: Transport? { if case .running(let transport) = self { transport } else { nil } }
    }

    /// What the attempt does with its response.
    enum Step {
        case awaitingHead
        /// A hook decides about the head. What body arrives meanwhile is held (reading pauses at
        /// the first part); `ended`: the transport finished the response meanwhile.
        case deciding(held: ByteBuffer?)
        /// Read and drop this response's body, then make ``pendingRequest``.
        case discarding
        /// The response is a `304 Not Modified` that revalidated the stored response (RFC 9111
        /// §4.3.4): its (empty) body is dropped and the task ends with the stored body.
        case servingStored
        /// The response is the task's. `writingHeld`: a part held while deciding is being
        /// handed to the download sink; the end waits for it.
        case delivering(writingHeld: Bool)
    }
}

// How an attempt's transport is adopted, paused and resumed.
extension TaskStateMachine {
    /// The handle `execute` returned, once the attempt has it.
    func adopt(_ transport: Transport, into attempt: inout Attempt) {
        if case .launching = attempt.transport { attempt.transport = .running(transport) }
    }

    /// `.pause` (and a debt of `resumeReading()`) when the task may not read now.
    func pauseUnlessReadable(_ attempt: inout Attempt) -> HTTPClientBodyDemand {
        if mayRead(attempt) { return .more }
        attempt.transportPaused = true
        return .pause
    }

    /// The transport to resume when it is paused and nothing holds it any more.
    func resumeIfAllowed(_ attempt: inout Attempt) -> Transport? {
        guard attempt.transportPaused, mayRead(attempt), let transport = attempt.transport.handle else { return nil }
        attempt.transportPaused = false
        return transport
    }
}
