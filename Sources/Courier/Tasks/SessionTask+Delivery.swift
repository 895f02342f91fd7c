import CourierClient
import CourierCore
import Dispatch
import FoundationEssentials

extension SessionTask {
    /// The response's body length as the caller will see it: unknown (-1) when the transport
    /// undoes a content coding (the decoded size is unknown), 0 when the response cannot have a
    /// body. A body whose codings are left undone arrives as sent, so Content-Length holds.
    func expectedBodyLength(_ response: Response, request: Request) -> Int64 {
        if request.method == .HEAD || response.statusCode == 204 || response.statusCode == 304 { return 0 }
        if response.hasContentCoding, response.undecodedContentCodings.isEmpty { return -1 }
        return response.expectedContentLength
    }

    /// How `response`, the answer to `request`, is received: its progress total and, for a
    /// download, the file it is written to.
    func prepareDelivery(_ response: Response, request: Request) throws(CourierError) -> TaskDelivery<DownloadSink> {
        let length = expectedBodyLength(response, request: request)
        guard kind == .download, let download else {
            return TaskDelivery(response: response, sink: nil, resumeOffset: 0, total: length, validator: nil)
        }
        let offset = core.withLock { $0.machine.resumeOffset }
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
        return TaskDelivery(response: response, sink: sink, resumeOffset: keep, total: total, validator: validator)
    }

    /// The download's body is complete: its file is closed, then moved where the
    /// `downloadTaskDidFinishDownloading` hook or the task's destination says.
    func finishDownload(_ sink: DownloadSink) {
        sink.finish { [self] failure in
            if let failure {
                run(core.withLock { $0.machine.downloadFinished(.failure(failure)) })
                return
            }
            let temporary = URL(fileURLWithPath: sink.path)
            manager.report(.downloaded) { .downloaded(self, temporary) }
            let move: @Sendable (URL?) -> Void = { [self] chosen in
                manager.serializationQueue.async { [self] in
                    let moved = moveDownload(from: temporary, chosen: chosen)
                    run(core.withLock { $0.machine.downloadFinished(moved) })
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
