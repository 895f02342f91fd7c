extension TaskCompletion {
    /// How a task ended, as its state machine reports it (`TaskAction.complete`): the
    /// ``Outcome``, a download sink to close first, and the body's final size for progress.
    struct Ending<Sink: AnyObject & Sendable> {
        var outcome: Outcome
        /// A failed download's sink, closed before the completion runs.
        var abandonSink: Sink?
        /// Keep the partial file (resume data points at it).
        var keepFile: Bool
        /// The final size when the task succeeded (progress totals that were unknown take it).
        var finalSize: Int64?
    }
}
