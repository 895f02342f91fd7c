import CourierClient
import FoundationEssentials

extension SessionManager {
    // MARK: Data tasks

    /// A task that collects the body in memory and hands it over unvalidated (`dataTaskWithRequest:`).
    public func dataTask(
        with request: Request, uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil,
        completionHandler: @escaping @Sendable (DataResponse<Data>) -> Void
    ) -> DataTask {
        dataTask(with: request, serializer: RawDataSerializer(), uploadProgress: uploadProgress,
                 downloadProgress: downloadProgress, completionHandler: completionHandler)
    }

    /// A task whose body is validated and turned into a value by `serializer`, off the event loops
    /// (`dataTaskWithRequest:uploadProgress:downloadProgress:completionHandler:`).
    public func dataTask<Serializer: ResponseSerializer>(
        with request: Request, serializer: Serializer, uploadProgress: ProgressHandler? = nil,
        downloadProgress: ProgressHandler? = nil, completionHandler: @escaping @Sendable (DataResponse<Serializer.Output>) -> Void
    ) -> DataTask {
        makeDataTask(request, completion: .serializing(with: RequestValidatedSerializer(serializer, for: request), handler: completionHandler),
                     uploadProgress: uploadProgress, downloadProgress: downloadProgress)
    }

    func makeDataTask(
        _ request: Request, completion: TaskCompletion.Route, uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil
    ) -> DataTask {
        let task = DataTask(manager: self, kind: .data, request: request, completion: completion)
        attachReporters(task, upload: uploadProgress, download: downloadProgress)
        register(task)
        return task
    }

    // MARK: Upload tasks

    /// Uploads `data` as the request body (`uploadTaskWithRequest:fromData:`).
    public func uploadTask<Serializer: ResponseSerializer>(
        with request: Request, fromData data: Data, serializer: Serializer, progress: ProgressHandler? = nil,
        completionHandler: @escaping @Sendable (DataResponse<Serializer.Output>) -> Void
    ) -> UploadTask {
        var request = request
        request.body = .data(data)
        return upload(request, serializer: serializer, progress: progress, completionHandler: completionHandler)
    }

    /// Uploads a file, streamed from disk with its exact length (`uploadTaskWithRequest:fromFile:`).
    public func uploadTask<Serializer: ResponseSerializer>(
        with request: Request, fromFile fileURL: URL, serializer: Serializer, progress: ProgressHandler? = nil,
        completionHandler: @escaping @Sendable (DataResponse<Serializer.Output>) -> Void
    ) -> UploadTask {
        var request = request
        request.body = .file(fileURL)
        return upload(request, serializer: serializer, progress: progress, completionHandler: completionHandler)
    }

    /// Uploads the request's own body — typically a stream, or a multipart body
    /// (`uploadTaskWithStreamedRequest:`).
    public func uploadTask<Serializer: ResponseSerializer>(
        withStreamedRequest request: Request, serializer: Serializer, progress: ProgressHandler? = nil,
        completionHandler: @escaping @Sendable (DataResponse<Serializer.Output>) -> Void
    ) -> UploadTask {
        upload(request, serializer: serializer, progress: progress, completionHandler: completionHandler)
    }

    /// The three upload factories without a serializer: the body comes back unvalidated.
    public func uploadTask(
        with request: Request, fromData data: Data, progress: ProgressHandler? = nil,
        completionHandler: @escaping @Sendable (DataResponse<Data>) -> Void
    ) -> UploadTask {
        uploadTask(with: request, fromData: data, serializer: RawDataSerializer(), progress: progress, completionHandler: completionHandler)
    }

    public func uploadTask(
        with request: Request, fromFile fileURL: URL, progress: ProgressHandler? = nil,
        completionHandler: @escaping @Sendable (DataResponse<Data>) -> Void
    ) -> UploadTask {
        uploadTask(with: request, fromFile: fileURL, serializer: RawDataSerializer(), progress: progress, completionHandler: completionHandler)
    }

    public func uploadTask(
        withStreamedRequest request: Request, progress: ProgressHandler? = nil,
        completionHandler: @escaping @Sendable (DataResponse<Data>) -> Void
    ) -> UploadTask {
        uploadTask(withStreamedRequest: request, serializer: RawDataSerializer(), progress: progress, completionHandler: completionHandler)
    }

    private func upload<Serializer: ResponseSerializer>(
        _ request: Request, serializer: Serializer, progress: ProgressHandler?,
        completionHandler: (@Sendable (DataResponse<Serializer.Output>) -> Void)?
    ) -> UploadTask {
        makeUploadTask(
            request, completion: .serializing(with: RequestValidatedSerializer(serializer, for: request), handler: completionHandler),
            progress: progress)
    }

    func makeUploadTask(_ request: Request, completion: TaskCompletion.Route, progress: ProgressHandler?) -> UploadTask {
        let task = UploadTask(manager: self, kind: .upload, request: request, completion: completion)
        attachReporters(task, upload: progress, download: nil)
        register(task)
        return task
    }

    // MARK: Download tasks

    /// Streams the body to a temporary file, then moves it where `destination` says
    /// (`downloadTaskWithRequest:progress:destination:completionHandler:`). Without a
    /// destination the file stays at its temporary location (reported in the completion).
    ///
    /// A body whose content coding Courier does not undo (``Response/undecodedContentCodings``:
    /// `br`, `zstd`, an unknown coding, or any coding when decompression is off) is saved
    /// exactly as received and the task succeeds, like a download with `curl` (no
    /// `--compressed`): nothing is altered or lost, and the codings are named on the response
    /// the destination closure, the finish hook and the completion see (RFC 9110 §8.4).
    public func downloadTask(
        with request: Request, options: DownloadOptions = [.createIntermediateDirectories, .removePreviousFile],
        progress: ProgressHandler? = nil, destination: (@Sendable (URL, Response) -> URL)? = nil,
        completionHandler: @escaping @Sendable (DownloadResponse) -> Void
    ) -> DownloadTask {
        makeDownloadTask(request, temporaryPath: nil, options: options, progress: progress, destination: destination,
                         completionHandler: completionHandler)
    }

    /// Continues a download from resume data (`downloadTaskWithResumeData:`): asks for the
    /// rest with `Range` and `If-Range` (RFC 9110 §14.2, §13.1.5). If the server's file changed
    /// (a 200 instead of a 206), the download starts over. Resume data that does not match its
    /// partial file fails the task with ``CourierError/Code/invalidResumeData`` when resumed.
    public func downloadTask(
        withResumeData resumeData: Data, options: DownloadOptions = [.createIntermediateDirectories, .removePreviousFile],
        progress: ProgressHandler? = nil, destination: (@Sendable (URL, Response) -> URL)? = nil,
        completionHandler: @escaping @Sendable (DownloadResponse) -> Void
    ) -> DownloadTask {
        let resume = ResumeData.decode(resumeData)
        let valid = resume.map { resume in (FileSize.of(resume.temporaryFilePath) ?? -1) >= resume.bytesReceived } ?? false
        // A placeholder for unreadable resume data (the task fails with invalidResumeData when
        // resumed); the literal is a valid URL.
        var request = Request(url: HTTPURL.invalidPlaceholder)
        if let resume, let url = try? HTTPURL(resume.url), let method = HTTPMethod(resume.method) {
            request = Request(url: url, method: method, timeoutInterval: resume.timeoutInterval)
            for pair in resume.headers where pair.count == 2 {
                if let field = try? HTTPField(name: pair[0], value: pair[1]) { request.headers.append(field) }
            }
            request.headers.remove(name: "Range")
            request.headers.remove(name: "If-Range")
            request.headers.remove(name: "Accept-Encoding")
            // `try!`: constant names and a value made of digits are valid fields (RFC 9110 §5.5).
            request.headers.append(try! HTTPField(name: "Range", value: "bytes=\(resume.bytesReceived)-"))
            if let ifRange = try? HTTPField(name: "If-Range", value: resume.validator) { request.headers.append(ifRange) }
            // The offset counts bytes of the identity representation: ask for no content coding.
            request.headers.append(try! HTTPField(name: "Accept-Encoding", value: "identity"))
        }
        let preflight = valid ? nil : CourierError(.invalidResumeData, detail: "the resume data is unreadable or its partial file is gone")
        return makeDownloadTask(request, temporaryPath: resume?.temporaryFilePath, options: options, progress: progress,
                                destination: destination, completionHandler: completionHandler,
                                resumeOffset: valid ? resume?.bytesReceived ?? 0 : 0, preflightError: preflight)
    }

    private func makeDownloadTask(
        _ request: Request, temporaryPath: String?, options: DownloadOptions, progress: ProgressHandler?,
        destination: (@Sendable (URL, Response) -> URL)?, completionHandler: @escaping @Sendable (DownloadResponse) -> Void,
        resumeOffset: Int64 = 0, preflightError: CourierError? = nil
    ) -> DownloadTask {
        let path = temporaryPath
            ?? configuration.temporaryDirectory.appendingPathComponent("courier-download-\(UUID().uuidString).tmp").path
        let plan = DownloadPlan(destination: destination, options: options, temporaryPath: path)
        let task = DownloadTask(
            manager: self, kind: .download, request: request, completion: .download(handler: completionHandler), download: plan,
            resumeOffset: resumeOffset, preflightError: preflightError)
        attachReporters(task, upload: nil, download: progress)
        register(task)
        return task
    }

    // MARK: Building blocks

    /// Progress reporters, delivering to the handlers and the monitors (the hooks among them),
    /// for the directions someone may listen to: a request body (its handler, or the body hook,
    /// which may be set at any time, or a monitor), a download handler, a download task (its hook
    /// or a monitor likewise). Without a reporter (a
    /// data task without a download handler, the common case) the task only counts, and makes
    /// no ``TaskProgress`` until asked (``ProgressSlot``).
    func attachReporters(_ task: SessionTask, upload: ProgressHandler?, download: ProgressHandler?) {
        let interval = configuration.progressInterval
        // The observation checks capture Bools, not the handlers: a handler may capture its task,
        // and only the delivery closure (dropped after the last update) may hold it.
        let hasBody = task.originalRequest.body != nil
        let (uploadHandled, downloadHandled) = (upload != nil, download != nil)
        if hasBody {
            task.uploadReporter = ProgressReporter(
                progress: task.uploadProgress, queue: completionQueue, interval: interval,
                isObserved: { [weak self] in uploadHandled || self?.wantsProgress(\.taskDidSendBodyData) == true }
            ) { [weak self, weak task] snapshot, delta in
                upload?(snapshot)
                guard let self, let task, delta > 0 else { return }
                report(.sentBody, onCompletionQueue: true) {
                    .sentBody(task, delta, snapshot.completedUnitCount, snapshot.totalUnitCount)
                }
            }
        }
        let isDownload = task.kind == .download
        guard isDownload || downloadHandled else { return }
        task.downloadReporter = ProgressReporter(
            progress: task.downloadProgress, queue: completionQueue, interval: interval,
            isObserved: { [weak self] in downloadHandled || isDownload && self?.wantsProgress(\.downloadTaskDidWriteData) == true }
        ) { [weak self, weak task] snapshot, delta in
            download?(snapshot)
            guard isDownload, let self, let task, delta > 0 else { return }
            report(.wroteData, onCompletionQueue: true) {
                .wroteData(task, delta, snapshot.completedUnitCount, snapshot.totalUnitCount)
            }
        }
    }

    /// Whether a progress event (body sent, download written) has anyone to go to: its hook, or
    /// the caller's monitors.
    private func wantsProgress(_ hook: KeyPath<SessionHooks, (@Sendable (SessionTask, Int64, Int64, Int64) -> Void)?> & Sendable) -> Bool {
        hasEventMonitors || self.hook(hook) != nil
    }
}

extension HTTPURL {
    /// The URL of a download task made from resume data that cannot be read (the task fails
    /// with invalidResumeData when resumed, before any connection). `try!`: a constant valid URL.
    fileprivate static let invalidPlaceholder = try! HTTPURL("http://invalid.invalid/")
}
