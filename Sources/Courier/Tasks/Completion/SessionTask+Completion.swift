import Dispatch
import FoundationEssentials

extension SessionTask {
    /// The task ended (once): progress finals, the registry, then the completion — handed to
    /// an awaiting Swift task, or finished and delivered through the queues (``TaskCompletion``).
    func complete(_ ending: TaskCompletion.Ending<DownloadSink>) {
        let finishDownload: (inout TaskProgress.Snapshot) -> Void = { progress in
            if let size = ending.finalSize, progress.totalUnitCount < 0 { progress.totalUnitCount = size }
        }
        // A last progress update queued for a handler must arrive before the completion, so the
        // completion then takes the queues too.
        let uploadQueued = uploadReporter?.finish { _ in } ?? false
        let downloadQueued = downloadReporter?.finish(finishDownload) ?? false
        if uploadReporter == nil || downloadReporter == nil {
            let (upload, download) = (uploadReporter == nil, downloadReporter == nil)
            core.withLock { core in
                if upload { core.upload.update { $0.isFinished = true } }
                if download { core.download.update { finishDownload(&$0); $0.isFinished = true } }
            }
        }
        // A task ends once, so the completion is still there.
        let route = takeCompletionRoute()
        let canHandOff = route?.handOff != nil && ending.abandonSink == nil && !uploadQueued && !downloadQueued
        let handedOff = manager.taskEnded(self, canHandOff: canHandOff)
        if handedOff, let handOff = route?.handOff {
            handOff(ending.outcome)
        } else if let sink = ending.abandonSink {
            let outcome = ending.outcome
            sink.abandon(keepFile: ending.keepFile) { [self] in finishThroughQueues(outcome, route: route) }
        } else {
            finishThroughQueues(ending.outcome, route: route)
        }
    }

    /// The completion through the queues: finished (serialized) on the processing queue, then
    /// delivered with the hooks on the completion queue (``TaskCompletion``).
    private func finishThroughQueues(_ outcome: TaskCompletion.Outcome, route: TaskCompletion.Route?) {
        manager.serializationQueue.async { [self] in
            let finished = route?.finish(outcome) ?? TaskCompletion.Finished(serializedObject: nil, error: outcome.error, deliver: {})
            if let error = finished.error { core.withLock { $0.error = error } }
            manager.deliverOnCompletionQueue(of: self, outcome: outcome, finished: finished)
        }
    }
}
