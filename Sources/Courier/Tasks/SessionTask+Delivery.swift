import CourierClient
import CourierCore
import Dispatch
import FoundationEssentials

/// How a task's response is received: the head, the file for a download, the progress total.
struct Delivery {
    var response: Response
    var sink: DownloadSink?
    var resumeOffset: Int64
    var total: Int64
    var validator: String?

    func install(into core: inout TaskCore) {
        core.response = response
        core.sink = sink
        core.resumeOffset = resumeOffset
        core.validator = validator
        core.body = Data()
        core.bodyBytes = 0
    }

    func announce(_ task: SessionTask) {
        _ = task.downloadProgress.update { progress in
            progress.completedUnitCount = resumeOffset
            progress.totalUnitCount = total
        }
    }
}

/// A task's result before serialization.
enum TaskPayload: Sendable {
    case data(Data)
    case file(URL)
}

/// Everything a task produced, handed to its finisher off the event loops.
struct RawOutcome: Sendable {
    var request: Request
    var response: Response?
    var data: Data?
    var fileURL: URL?
    var error: CourierError?
    var metrics: TaskMetrics
    var resumeData: Data?
}

/// A finisher's answer: what observers see, and the caller's completion to run.
struct FinishedTask: Sendable {
    var serializedObject: (any Sendable)?
    var error: CourierError?
    var deliver: @Sendable () -> Void
}

/// Serializes (on the session's serialization queue) and prepares the caller's completion.
typealias TaskFinisher = @Sendable (RawOutcome) -> FinishedTask

extension SessionTask {
    /// The response's body length as the caller will see it: unknown (-1) when the transport
    /// undoes a content coding (the decoded size is unknown), 0 when the response cannot have a
    /// body. A body whose codings are left undone arrives as sent, so Content-Length holds.
    func expectedBodyLength(_ response: Response, request: Request) -> Int64 {
        if request.method == .HEAD || response.statusCode == 204 || response.statusCode == 304 { return 0 }
        if response.hasContentCoding, response.undecodedContentCodings.isEmpty { return -1 }
        return response.expectedContentLength
    }

    func prepareDelivery(_ response: Response) throws(CourierError) -> Delivery {
        let (request, offset) = core.withLock { ($0.currentRequest, $0.resumeOffset) }
        let length = expectedBodyLength(response, request: request)
        guard kind == .download, let download else {
            return Delivery(response: response, sink: nil, resumeOffset: 0, total: length, validator: nil)
        }
        var keep: Int64 = 0
        var total = length
        if offset > 0 {
            switch response.statusCode {
            case 206:
                guard let range = ResumeData.contentRangeStart(response.headers[first: "Content-Range"]), range.first == offset else {
                    throw CourierError(.invalidResumeData, response: response, failingURL: request.url,
                                       detail: "the server resumed at a different offset than the \(offset) bytes already downloaded")
                }
                keep = offset
                let (sum, overflow) = offset.addingReportingOverflow(length)
                total = range.complete >= 0 ? range.complete : (length >= 0 && !overflow ? sum : -1)
            case 200:
                break  // the representation changed (If-Range failed): start over
            default:
                // 416, 412, 5xx, …: the partial file stays as it is, for another try.
                throw CourierError(.invalidResumeData, response: response, failingURL: request.url,
                                   detail: "the server answered the resumed request with \(response.statusCode), not 206 or 200")
            }
        }
        let sink = try DownloadSink(
            path: download.temporaryPath, keepingFirst: keep, limit: manager.configuration.downloadWriteBufferSize,
            onDrain: { [weak self] in self?.sinkDrained() },
            onFailure: { [weak self] error in self?.cancel(with: error) })
        let validator = response.hasContentCoding ? nil : ResumeData.validator(of: response)
        return Delivery(response: response, sink: sink, resumeOffset: keep, total: total, validator: validator)
    }

    /// The delivered response is complete.
    func finishDelivery() {
        let (sink, body) = core.withLock { core in
            core.finishing = core.sink != nil
            return (core.sink, core.body)
        }
        guard kind == .download, let sink else {
            complete(.success(.data(body)))
            return
        }
        sink.finish { [self] failure in
            if let failure {
                complete(.failure(failure))
                return
            }
            let temporary = URL(fileURLWithPath: sink.path)
            let move: @Sendable (URL?) -> Void = { [self] chosen in
                manager.serializationQueue.async { [self] in
                    switch moveDownload(from: temporary, chosen: chosen) {
                    case .success(let url): complete(.success(.file(url)))
                    case .failure(let error): complete(.failure(error))
                    }
                }
            }
            // The hook, like every hook, runs on the completion queue; the move does not.
            if let hook = manager.hook(\.downloadTaskDidFinishDownloading) {
                manager.completionQueue.async { [self] in move(hook(self, temporary)) }
            } else {
                move(nil)
            }
        }
    }

    /// Moves a finished download to the destination the hook chose or the task names.
    private func moveDownload(from temporary: URL, chosen: URL?) -> Result<URL, CourierError> {
        guard let download, let response = self.response else { return .success(temporary) }
        let target = chosen ?? download.destination?(temporary, response)
        guard let target, target.standardizedFileURL != temporary.standardizedFileURL else { return .success(temporary) }
        let files = FileManager.default
        do {
            if download.options.contains(.createIntermediateDirectories) {
                try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            if download.options.contains(.removePreviousFile), files.fileExists(atPath: target.path) {
                try files.removeItem(at: target)
            }
            try files.moveItem(at: temporary, to: target)
            return .success(target)
        } catch {
            return .failure(CourierError(.fileMoveFailed, underlying: error, response: response, failingURL: originalRequest.url,
                                         detail: "could not move the download to \(target.path)"))
        }
    }

    // MARK: Completion

    /// Ends the task exactly once: progress finals, resume data, registry, then serialization off
    /// the loops and the callbacks on the completion queue.
    func complete(_ outcome: Result<TaskPayload, CourierError>) {
        struct Ending {
            var raw: RawOutcome
            var sink: DownloadSink?
            var keepFile: Bool
            var total: Int64
        }
        let now = Date()
        let ending = core.withLock { core -> Ending? in
            guard !core.completed else { return nil }
            core.completed = true
            core.state = .completed
            let client = core.clientTask
            core.clientTask = nil
            _ = client
            let metrics = TaskMetrics(
                transactionMetrics: core.transactions, taskStart: core.startDate ?? now, taskEnd: now, redirectCount: core.redirectCount)
            core.metrics = metrics
            var raw = RawOutcome(request: core.currentRequest, response: core.response, data: nil, fileURL: nil, error: nil, metrics: metrics)
            var keepFile = false
            switch outcome {
            case .success(.data(let data)):
                raw.data = data
            case .success(.file(let url)):
                raw.fileURL = url
            case .failure(let error):
                let full = error.with(response: core.response, body: kind == .download ? nil : core.body, failingURL: core.currentRequest.url)
                core.error = full
                raw.error = full
                raw.data = kind == .download ? nil : core.body
                let fileProblem = error.code == .fileWriteFailed || error.code == .fileMoveFailed
                if kind == .download, !fileProblem, let validator = core.validator, let sink = core.sink, core.currentRequest.method == .GET,
                   let response = core.response, response.statusCode == 200 || response.statusCode == 206 {
                    let received = core.resumeOffset + core.bodyBytes
                    if received > 0 {
                        let resume = ResumeData(
                            url: core.currentRequest.url.absoluteString, method: core.currentRequest.method.rawValue,
                            headers: core.currentRequest.headers.map { [$0.name, $0.value] },
                            timeoutInterval: core.currentRequest.timeoutInterval, temporaryFilePath: sink.path,
                            bytesReceived: received, validator: validator)
                        core.resumeData = resume.encoded()
                        raw.resumeData = core.resumeData
                        keepFile = core.resumeData != nil
                    }
                }
            }
            return Ending(raw: raw, sink: kind == .download && outcome.isFailure ? core.sink : nil, keepFile: keepFile,
                          total: core.resumeOffset + core.bodyBytes)
        }
        guard let ending else { return }
        let succeeded = !outcome.isFailure
        if let uploadReporter { uploadReporter.finish { _ in } } else { _ = uploadProgress.update { $0.isFinished = true } }
        let finishDownload: (inout TaskProgress.Snapshot) -> Void = { progress in
            if succeeded, progress.totalUnitCount < 0 { progress.totalUnitCount = ending.total }
        }
        if let downloadReporter { downloadReporter.finish(finishDownload) } else {
            _ = downloadProgress.update { finishDownload(&$0); $0.isFinished = true }
        }
        manager.taskEnded(self)
        let deliver: @Sendable () -> Void = { [self] in
            manager.serializationQueue.async { [self] in
                // A task ends once (`ending` above), so the finisher is still there.
                let finished = takeFinisher()?(ending.raw)
                    ?? FinishedTask(serializedObject: nil, error: ending.raw.error, deliver: {})
                if let error = finished.error { core.withLock { $0.error = error } }
                manager.deliverCompletion(of: self, raw: ending.raw, finished: finished)
            }
        }
        if let sink = ending.sink {
            sink.abandon(keepFile: ending.keepFile, then: deliver)
        } else {
            deliver()
        }
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { true } else { false } }
}

extension Response {
    /// Whether Content-Encoding names a coding other than identity (RFC 9110 §8.4).
    var hasContentCoding: Bool {
        headers.values(for: "Content-Encoding").contains { value in
            value.split(separator: ",").contains { $0.trimmingOWS.lowercased() != "identity" && !$0.trimmingOWS.isEmpty }
        }
    }
}
