import CourierCore
import CourierHTTP1

/// What becomes of one response's body while a redirect is decided (RFC 9110 §15.4): a value
/// state machine that ``HTTPRequestExecution`` feeds with the response's events and the redirect
/// handler's answer, and that returns what to do. `Next` is the request to make when the
/// redirect is followed.
///
/// A response the execution does not redirect passes through. A redirect the configuration follows
/// without a handler is discarded (its body is read to the end, so the connection can be
/// reused) and then followed. A redirect put to a handler is *held*: the first body part stops
/// reading (at most what already arrived is kept), and its end is remembered, until the answer
/// says follow (discard, then follow) or stop (deliver the held head, part and end).
struct RedirectHold<Next> {
    enum State {
        /// Parts go to the delegate.
        case passing
        /// The handler has not answered yet.
        case deciding(held: ByteBuffer?, trailers: HTTPFields?, paused: Bool)
        /// The redirect is followed once the body has ended.
        case discarding(then: Next)
    }

    enum PartAction: Equatable {
        /// Give it to the delegate.
        case deliver
        /// Kept; stop reading the socket.
        case holdAndPause
        /// Dropped (the body of a redirect that is followed).
        case drop
    }

    enum EndAction {
        /// The response is complete: finish the request.
        case finish
        /// Kept until the answer.
        case wait
        /// Make the next request.
        case follow(Next)
    }

    enum AnswerAction {
        /// The body had ended: make the next request now.
        case follow(Next)
        /// Read the rest of the body and drop it; `resume`: reading was paused.
        case discard(resume: Bool)
        /// Stop: deliver the 3xx head, then `held`, then finish with `trailers` if the body ended;
        /// `resume`: reading was paused and should resume after `held` if the delegate wants more.
        case deliver(held: ByteBuffer?, trailers: HTTPFields?, resume: Bool)
        /// No decision was pending (an answer after the request ended or moved on).
        case ignore
    }

    private(set) var state: State = .passing {
        didSet { isPassing = if case .passing = state { true } else { false } }
    }

    /// `state` is `.passing`: kept as a flag, because every response reads it (once per body part
    /// and at the end) and reading a payload enum out of the execution copies it.
    private(set) var isPassing = true

    var isDeciding: Bool {
        if case .deciding = state { return true }
        return false
    }

    /// A new response: the previous one's state is gone.
    mutating func reset() {
        if !isPassing { state = .passing }
    }

    /// A redirect followed without asking anyone.
    mutating func follow(_ next: Next) { state = .discarding(then: next) }

    /// A redirect put to the handler.
    mutating func startDeciding() { state = .deciding(held: nil, trailers: nil, paused: false) }

    mutating func bodyPart(_ part: ByteBuffer) -> PartAction {
        if isPassing { return .deliver }
        switch state {
        case .passing:
            return .deliver
        case .discarding:
            return .drop
        case .deciding(var held, let trailers, _):
            // Reading stops after this part; should one more arrive first, it is kept too
            // (appended), never dropped.
            if var kept = held {
                kept.writeBuffer(part)
                held = kept
            } else {
                held = part
            }
            state = .deciding(held: held, trailers: trailers, paused: true)
            return .holdAndPause
        }
    }

    mutating func end(trailers: HTTPFields) -> EndAction {
        if isPassing { return .finish }
        switch state {
        case .passing:
            return .finish
        case .discarding(let next):
            state = .passing
            return .follow(next)
        case .deciding(let held, _, let paused):
            state = .deciding(held: held, trailers: trailers, paused: paused)
            return .wait
        }
    }

    /// The handler said follow `next` (after the execution checked it).
    mutating func answerFollow(_ next: Next) -> AnswerAction {
        guard case .deciding(_, let trailers, let paused) = state else { return .ignore }
        // The held part belongs to the redirect's body, which is not delivered.
        if trailers != nil {
            state = .passing
            return .follow(next)
        }
        state = .discarding(then: next)
        return .discard(resume: paused)
    }

    /// The handler said stop.
    mutating func answerStop() -> AnswerAction {
        guard case .deciding(let held, let trailers, let paused) = state else { return .ignore }
        state = .passing
        return .deliver(held: held, trailers: trailers, resume: paused && trailers == nil)
    }
}
