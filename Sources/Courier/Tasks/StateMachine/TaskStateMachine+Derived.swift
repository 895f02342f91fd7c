import CourierClient
import CourierCore
import FoundationEssentials

// What the task state machine works out from its state, without changing it.
extension TaskStateMachine {
    /// The public state (`NSURLSessionTaskState`).
    var state: SessionTask.State {
        switch phase {
        case .idle: .suspended
        case .canceling: .canceling
        case .completed: .completed
        case .preparing, .running, .retrying, .finishing: suspended ? .suspended : .running
        }
    }

    var hasStarted: Bool { if case .idle = phase { false } else { true } }

    /// The request the session is to prepare (``TaskAction/prepare``), while it does.
    var preparingRequest: Request? { if case .preparing = phase { pendingRequest } else { nil } }

    /// Whether the transport may deliver body now.
    func mayRead(_ attempt: Attempt) -> Bool {
        if suspended || sinkBusy { return false }
        if case .deciding = attempt.step { return false }
        if case .delivering(writingHeld: true) = attempt.step { return false }
        return true
    }

    /// The running attempt numbered `number`, if the task is still on it.
    func current(_ number: Int) -> Attempt? {
        if case .running(let attempt) = phase, attempt.number == number { return attempt }
        return nil
    }

    var cancelledError: CourierError {
        CourierError(.cancelled, failingURL: originalRequest.url)
    }

    /// Resume data when a download failed after part of a body that has a validator (a strong
    /// ETag or Last-Modified, RFC 9110 §13.1.5) and no content coding; nil when it cannot be
    /// continued (or when the file itself failed).
    func makeResumeData(after failure: CourierError) -> Data? {
        let fileProblem = failure.code == .fileWriteFailed || failure.code == .fileMoveFailed
        let received = resumeOffset + bodyBytes
        guard !fileProblem, let validator, let downloadPath, currentRequest.method == .GET, let response,
              response.statusCode == 200 || response.statusCode == 206, received > 0 else { return nil }
        let resume = ResumeData(
            url: currentRequest.location.string, method: currentRequest.method.rawValue,
            headers: currentRequest.headers.map { [$0.name, $0.value] }, timeoutInterval: currentRequest.timeoutInterval,
            temporaryFilePath: downloadPath, bytesReceived: received, validator: validator)
        return resume.encoded()
    }
}

/// What a body part did: the transport's demand, and what to perform.
struct BodyPartOutcome<Transport: AnyObject & Sendable, Sink: AnyObject & Sendable> {
    var demand: HTTPClientBodyDemand
    var actions: TaskActions<Transport, Sink>
}
