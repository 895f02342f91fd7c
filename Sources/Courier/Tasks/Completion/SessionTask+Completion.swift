import Dispatch
import FoundationEssentials

extension SessionTask {
    /// The task ended (once): progress finals, the registry, then the completion — handed to
    /// an awaiting Swift task, or finished and delivered through the queues (``TaskCompletion``).
    func complete(_ ending: TaskCompletion.Ending<DownloadSink>) {
        if let uploadReporter { uploadReporter.finish { _ in } } else { _ = uploadProgress.update { $0.isFinished = true } }
        let finishDownload: (inout TaskProgress.Snapshot) -> Void = { progress in
            if let size = ending.finalSize, progress.totalUnitCount < 0 { progress.totalUnitCount = size }
        }
        if let downloadReporter { downloadReporter.finish(finishDownload) } else {
            _ = downloadProgress.update { finishDownload(&$0); $0.isFinished = true }
        }
        manager.taskEnded(self)
        let outcome = ending.outcome
        // A task ends once, so the completion is still there.
        let route = takeCompletionRoute()
        let deliver: @Sendable () -> Void = { [self] in
            if let handOff = route?.handOff, !manager.completionQueueIsNeeded(for: self) {
                manager.completionHandedOff()
                handOff(outcome)
                return
            }
            let finish: @Sendable () -> TaskCompletion.Finished = { [self] in
                let finished = route?.finish(outcome) ?? TaskCompletion.Finished(serializedObject: nil, error: outcome.error, deliver: {})
                if let error = finished.error { core.withLock { $0.error = error } }
                return finished
            }
            manager.serializationQueue.async { [self] in
                let finished = finish()
                manager.deliverOnCompletionQueue(of: self, outcome: outcome, finished: finished)
            }
        }
        if let sink = ending.abandonSink {
            sink.abandon(keepFile: ending.keepFile, then: deliver)
        } else {
            deliver()
        }
    }
}
