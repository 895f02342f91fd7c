import Courier
#if canImport(Glibc)
import Glibc
#endif

/// One URL's transfer: the request built from the options, its events turned into output
/// (heads, body, `-v` lines), and what `-w` and the exit status report afterwards.
struct SingleTransfer {
    let options: CurlOptions
    /// Which URL argument this transfer came from (it picks the `-o`/`-O` that applies).
    let index: Int
    /// This transfer's place among all of them (`-D` appends after the first).
    let ordinal: Int
    let urlText: String
    /// The glob values of this URL (`#1`… in `-o`).
    let globValues: [String]

    private(set) var exitCode: Int32 = 0
    private var errorMessage: String?
    private var output: OutputFile?
    private var headerDump: OutputFile?
    private var finalResponse: Response?
    private var metrics: TaskMetrics?
    private var requestURL: HTTPURL?
    /// The URL's `Host` value when the request goes over `--unix-socket` (whose `http+unix` URL
    /// would say `localhost`): sent as curl sends it.
    private var unixSocketHost: String?
    private var effectiveURL: String?
    private var bodyBytes: Int64 = 0
    private var uploadBytes: Int64 = 0
    private var resumeOffset: Int64 = 0
    private var suppressBody = false
    /// `-f` met an error status: curl stops there, and counts no body.
    private var failedOnStatus = false
    private var rangeIgnored = false
    private var ownFailure: CurlExit?
    /// The command cancelled the task itself (an `-f` failure, an ignored range, a write error).
    private var aborted = false

    init(options: CurlOptions, index: Int, ordinal: Int, urlText: String, globValues: [String] = []) {
        self.options = options
        self.index = index
        self.ordinal = ordinal
        self.urlText = urlText
        self.globValues = globValues
    }

    // MARK: The URL

    /// The URL curl would request: a missing scheme means http, `-G` data goes in the query,
    /// `--unix-socket` sends it over that socket.
    mutating func parseURL() throws(CurlExit) -> HTTPURL {
        var text = urlText
        if let range = text.firstRange(of: "://") {
            let scheme = text[..<range.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else {
                throw CurlExit(CurlExit.unsupportedProtocol, "Protocol \"\(scheme)\" not supported (phase serialize)")
            }
        } else {
            text = "http://" + text
        }
        if options.get, let query = try RequestBodyBuilder(options: options).payload().query, !query.isEmpty {
            // Before any fragment.
            let fragment = text.firstIndex(of: "#")
            var base = fragment.map { String(text[..<$0]) } ?? text
            let rest = fragment.map { String(text[$0...]) } ?? ""
            base += (base.contains("?") ? "&" : "?") + query
            text = base + rest
        }
        var url: HTTPURL
        do { url = try HTTPURL(text) } catch {
            throw CurlExit(CurlExit.malformedURL, "URL rejected (phase serialize): \(error)")
        }
        if let socket = options.unixSocket {
            do { (url, unixSocketHost) = try UnixSocketURL.rewrite(url, socket: socket) } catch {
                let code = if case .scheme = error { CurlExit.unsupportedProtocol } else { CurlExit.malformedURL }
                throw CurlExit(code, "\(error.message) (phase serialize)")
            }
        }
        requestURL = url
        effectiveURL = UnixSocketURL.displayed(url, host: unixSocketHost)
        return url
    }

    // MARK: The transfer

    mutating func run(
        url: HTTPURL, session: SessionManager, setup: SessionSetup, monitor: TransferMonitor,
        events: inout AsyncStream<TransferEvent>.AsyncIterator
    ) async throws(CurlExit) {
        let payload = try RequestBodyBuilder(options: options).payload()
        uploadBytes = payload.length ?? 0
        try openOutputs(for: url)
        var request = try makeRequest(url: url, payload: payload, setup: setup)
        if resumeOffset > 0 { try? request.setValue("bytes=\(resumeOffset)-", forHTTPHeaderField: "Range") }

        let task = session.dataTask(with: request) { _ in }
        let progress = ProgressMeter(options: options, toStandardOutput: output?.target == .standardOutput)
        var limiter = options.limitRate.map { RateLimiter(bytesPerSecond: $0) }
        task.resume()
        var completion: TaskCompletion?
        var direct: DirectBody?
        /// What a body written from the monitor's queue counted, once its response is over.
        func collect(_ body: DirectBody) {
            bodyBytes += body.bytes
            if body.failed { aborted = true }
            direct = nil
        }
        loop: while let event = await events.next() {
            switch event {
            case .attempt(let attempt, _):
                if attempt > 1 { verbose("* Attempt \(attempt) (retry)\n") }
            case .redirect(let response, let next):
                head(response)
                let shown = next.httpURL.map { UnixSocketURL.displayed($0, host: unixSocketHost) } ?? next.url.absoluteString
                verbose("* Issue another request to this URL: '\(shown)'\n")
            case .sentHead(let sent, let connection):
                // As curl: the connection, then the request as written.
                verbose(connectionLines(connection))
                verbose(HeadText.prefixed(HeadText.request(sent), with: "> "))
            case .response(let response):
                finalResponse = response
                progress.start(response, decoding: options.compressed)
                head(response)
                suppressBody = request.method == .HEAD
                failedOnStatus = response.statusCode >= 400 && options.fail && !options.failWithBody
                if failedOnStatus { suppressBody = true }
                if resumeOffset > 0 && response.statusCode == 200 {
                    rangeIgnored = true
                    suppressBody = true
                }
                // curl stops a transfer that has failed already rather than read its body.
                if failedOnStatus || rangeIgnored, response.statusCode >= 200, !aborted {
                    aborted = true
                    task.cancel()
                }
                // A body that only goes to a file (no meter drawn, no rate to keep) is written from
                // the monitor's queue: one thread hand-over less per piece. Not stdout: a pipe's
                // reader may stall, and only the stream's accounting pauses the task for it.
                if let body = direct { collect(body) }
                let plain = !suppressBody && !aborted && limiter == nil && !progress.enabled
                direct = plain && output?.target != .standardOutput ? output.map { DirectBody(output: $0) } : nil
                monitor.route(direct, for: task)
            case .data(let data):
                if !failedOnStatus { bodyBytes += Int64(data.count) }
                if !suppressBody, let output {
                    data.withUnsafeBytes { output.write($0) }
                    // A write error (a closed pipe, a full disk) ends the transfer: curl's 23.
                    if output.failure != nil, !aborted {
                        aborted = true
                        task.cancel()
                    }
                }
                monitor.consumed(data.count)
                progress.update(data.count)
                if let wait = limiter?.delay(after: data.count) {
                    // `--limit-rate`: stop reading the socket until the average is back under it.
                    task.suspend()
                    try? await Task.sleep(for: wait)
                    task.resume()
                }
            case .retry(let delay, let error):
                if let delay, !options.silent {
                    StandardError.write("Warning: Problem: \(CurlExit(error).message). Will retry in \(WriteOut.sixDecimals(delay)) seconds.\n")
                }
            case .metrics(let collected):
                metrics = collected
                verboseMetrics(collected)
            case .completed(let done):
                completion = done
                if let body = direct { collect(body) }
                break loop
            }
        }
        progress.finish()
        if let response = completion?.response, finalResponse == nil { finalResponse = response }
        if let url = finalResponse?.httpURL { effectiveURL = UnixSocketURL.displayed(url, host: unixSocketHost) }
        // A transfer the command stopped itself: `finish()` names why (22, 23 or 33).
        if aborted, completion?.error?.isCancelled ?? true { return }
        if let error = completion?.error {
            let exit = CurlExit(error)
            // The peer went away before the request was all written: curl's send failure (55),
            // not an empty reply (52), which means the request was sent and nothing came back.
            if exit.code == CurlExit.gotNothing, request.body != nil, let last = metrics?.transactionMetrics.last, last.requestEnd == nil {
                throw CurlExit(CurlExit.sendError, "Failure when sending data to the peer (phase send): the connection closed while the request body was being written")
            }
            throw exit
        }
    }

    private func makeRequest(url: HTTPURL, payload: RequestBodyBuilder.Payload, setup: SessionSetup) throws(CurlExit) -> Request {
        var method = HTTPMethod.GET
        if options.head { method = .HEAD } else if options.uploadFile != nil { method = .PUT } else if payload.body != nil { method = .POST }
        if let custom = options.method {
            guard let parsed = HTTPMethod(custom) else { throw CurlExit(CurlExit.badFunctionArgument, "Invalid method (phase serialize): \(custom)") }
            method = parsed
        }
        var target = url
        if options.uploadFile != nil, options.uploadFile != "-", url.requestTarget.hasSuffix("/") || url.requestTarget == "/",
           let name = options.uploadFile?.split(separator: "/").last {
            // curl appends the file's name to a URL that ends in a slash.
            if let appended = try? HTTPURL(url.absoluteString + RequestBodyBuilder.percentEncode(Array(name.utf8))) { target = appended }
        }
        var request = Request(url: target, method: method, body: payload.body, timeoutInterval: 0,
                              totalTimeoutInterval: options.maximumTime)
        request.redirects = setup.redirects
        if options.retry > 0 { request.interceptor = CurlRetry(options: options, policy: setup.retryPolicy) }
        // `-H @file`: one header per line of the file.
        var headers: [String] = []
        for header in options.headers {
            guard header.hasPrefix("@") else { headers.append(header); continue }
            let bytes = try RequestBodyBuilder.read(String(header.dropFirst()))
            for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
                var text = Substring(line)
                if text.last == "\r" { text = text.dropLast() }
                if !text.isEmpty { headers.append(String(text)) }
            }
        }
        do {
            if let host = unixSocketHost { try request.setValue(host, forHTTPHeaderField: "Host") }
            try request.setValue(options.userAgent ?? Self.userAgent, forHTTPHeaderField: "User-Agent")
            try request.setValue(payload.accept ?? "*/*", forHTTPHeaderField: "Accept")
            if let referer = options.referer { try request.setValue(referer, forHTTPHeaderField: "Referer") }
            if let type = payload.contentType { try request.setValue(type, forHTTPHeaderField: "Content-Type") }
            let literalCookies = options.cookies.filter { $0.contains("=") }
            if !literalCookies.isEmpty { try request.setValue(literalCookies.joined(separator: "; "), forHTTPHeaderField: "Cookie") }
            if let user = options.user, !options.digest { try request.setBasicAuthorization(TransferRunner.credential(user)) }
            for header in headers { try apply(header, to: &request) }
            // `-H "Host:"` cannot take Host away: HTTP/1.1 requires it (RFC 9112 §3.2), and the
            // library sends the URL's. Over a Unix socket that is the given URL's host too, not
            // the `http+unix` URL's `localhost`.
            if let host = unixSocketHost, request.value(forHTTPHeaderField: "Host") == nil {
                try request.setValue(host, forHTTPHeaderField: "Host")
            }
        } catch {
            throw CurlExit(CurlExit.badFunctionArgument, "Invalid header (phase serialize): \(error)")
        }
        if options.userAgent == "" { try? request.setValue(nil, forHTTPHeaderField: "User-Agent") }
        return request
    }

    /// `-H "Name: value"` replaces, `-H "Name:"` removes, `-H "Name;"` sends an empty value.
    private func apply(_ header: String, to request: inout Request) throws(CourierError) {
        if let colon = header.firstIndex(of: ":") {
            let name = String(header[..<colon])
            let value = String(header[header.index(after: colon)...].trimmingSpaces)
            if value.isEmpty {
                try request.setValue(nil, forHTTPHeaderField: name)
            } else if request.value(forHTTPHeaderField: name) != nil, !Self.replaced.contains(name.lowercased()) {
                var fields = request.headers
                do { try fields.append(name: name, value: value) } catch {
                    throw CourierError(.invalidHeader, underlying: error, detail: "header \(name)")
                }
                request.headers = fields
            } else {
                try request.setValue(value, forHTTPHeaderField: name)
            }
        } else if header.hasSuffix(";") {
            try request.setValue("", forHTTPHeaderField: String(header.dropLast()))
        } else {
            throw CourierError(.invalidHeader, detail: "\(header) is not Name: value")
        }
    }

    /// `courier/VERSION`, as curl sends `curl/VERSION`.
    static let userAgent = "courier/" + (CourierVersion.string.split(separator: " ").dropFirst().first.map(String.init) ?? "0")

    /// Fields curl generates itself, which `-H` replaces rather than repeats.
    private static let replaced: Set<String> = ["user-agent", "accept", "referer", "content-type", "cookie", "authorization", "host", "range"]

    // MARK: Output

    private mutating func openOutputs(for url: HTTPURL) throws(CurlExit) {
        var path: String?
        if index < options.outputs.count {
            path = URLGlob.outputName(options.outputs[index], values: globValues)
        } else if index - options.outputs.count < options.remoteNameCount {
            let segment = url.requestTarget.split(separator: "?").first?.split(separator: "/").last.map(String.init) ?? ""
            guard !segment.isEmpty else { throw CurlExit(CurlExit.writeError, "Remote file name has no length (phase file)") }
            path = segment
        }
        if let name = path, name != "-" {
            var full = name
            if let directory = options.outputDirectory, !name.hasPrefix("/") { full = directory + "/" + name }
            if options.createDirectories { Self.makeDirectories(for: full) }
            if options.continueAt == "-", let size = LocalFile.size(ofRegularFile: full) { resumeOffset = size }
            else if let offset = options.continueAt.flatMap({ Int64($0) }) { resumeOffset = offset }
            output = OutputFile(.file(path: full, append: resumeOffset > 0))
        } else {
            output = OutputFile(.standardOutput)
        }
        if let dump = options.dumpHeader {
            headerDump = dump == "-" ? OutputFile(.standardOutput) : OutputFile(.file(path: dump, append: ordinal > 0))
        }
    }

    static func makeDirectories(for path: String) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        let parts = path.split(separator: "/").dropLast()
        for part in parts {
            prefix += part
            _ = mkdir(prefix, 0o755)
            prefix += "/"
        }
    }

    /// A response head to `-i`'s output and `-D`'s file, and `-v`'s `< ` lines.
    private func head(_ response: Response) {
        let text = HeadText.response(response)
        if options.includeHeaders || options.head { output?.write(text) }
        headerDump?.write(text)
        verbose(HeadText.prefixed(text, with: "< "))
    }

    private func verbose(_ text: String) {
        if options.verbose { StandardError.write(text) }
    }

    /// `-v`'s `* ` lines before a request head: the connection it goes out on, as Courier
    /// measured it by then (new or reused, the DNS source, the TLS session).
    private func connectionLines(_ transaction: HTTPClientMetrics) -> String {
        guard options.verbose else { return "" }
        var lines = ""
        let remote = transaction.remoteAddress.map { "\($0.host) port \($0.port ?? 0)" } ?? "(unknown)"
        if transaction.reusedConnection {
            lines += "* Re-using existing connection with \(remote)\n"
        } else {
            let dns: String
            switch transaction.resolution {
            case .cache?: dns = "DNS cache hit"
            case nil: dns = "no lookup"
            case let source?: dns = "DNS \(source)"
            }
            lines += "* Connected to \(remote) (new connection, \(dns))\n"
        }
        if let version = transaction.tlsVersion {
            lines += "* TLS \(version) \(transaction.tlsCipher ?? "") \(transaction.tlsSessionReused ? "session resumed" : "full handshake")\n"
        }
        return lines
    }

    /// `-v`'s `* ` lines after the transfer: the phase timings of each request.
    private func verboseMetrics(_ metrics: TaskMetrics) {
        guard options.verbose else { return }
        for (number, transaction) in metrics.transactionMetrics.enumerated() {
            var lines = ""
            func span(_ start: Deadline?, _ end: Deadline?) -> String {
                guard let start, let end, end >= start else { return "-" }
                return WriteOut.sixDecimals(Double(end.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
            }
            lines += "* Timings (s) request \(number + 1): resolve=\(span(transaction.resolveStart, transaction.resolveEnd))"
                + " connect=\(span(transaction.connectStart, transaction.connectEnd)) tls=\(span(transaction.tlsStart, transaction.tlsEnd))"
                + " send=\(span(transaction.requestStart, transaction.requestEnd)) wait=\(span(transaction.requestEnd, transaction.responseStart))"
                + " receive=\(span(transaction.responseStart, transaction.responseEnd)) total=\(span(transaction.fetchStart, transaction.responseEnd))\n"
            StandardError.write(lines)
        }
        if metrics.retryCount > 0 { StandardError.write("* Retries: \(metrics.retryCount)\n") }
    }

    // MARK: The end

    mutating func fail(_ error: any Error) {
        if let exit = error as? CurlExit { ownFailure = exit } else { ownFailure = CurlExit(CurlExit.weirdServerReply, "\(error)") }
    }

    /// Decides the exit status, prints the error line and `-w`, closes the files.
    mutating func finish() {
        var failure = ownFailure
        if failure == nil, let writeError = output?.failure ?? headerDump?.failure {
            failure = CurlExit(CurlExit.writeError, "Failure writing output to destination (phase file): \(writeError)")
        }
        if failure == nil, rangeIgnored {
            failure = CurlExit(CurlExit.rangeError, "HTTP server doesn't seem to support byte ranges. Cannot resume (phase receive).")
        }
        if failure == nil, let status = finalResponse?.statusCode, status >= 400, options.fail || options.failWithBody {
            failure = CurlExit(CurlExit.httpReturnedError, "The requested URL returned error: \(status) (phase validate)")
        }
        if failure == nil, output?.written == 0 { _ = output?.open() }
        exitCode = failure?.code ?? 0
        errorMessage = failure?.message
        if let failure, options.printsErrors { StandardError.write(failure.line) }
        if let format = options.writeOut { writeOut(format) }
        output?.close()
        headerDump?.close()
    }

    private func writeOut(_ format: String) {
        var text = format
        if format.hasPrefix("@") {
            guard let bytes = try? RequestBodyBuilder.read(String(format.dropFirst())) else { return }
            text = String(decoding: bytes, as: UTF8.self)
        }
        let variables = WriteOutVariables(
            response: finalResponse, metrics: metrics, effectiveURL: effectiveURL ?? urlText, bodyBytes: bodyBytes,
            uploadBytes: uploadBytes, exitCode: exitCode, errorMessage: errorMessage, outputName: outputName)
        let out = OutputFile(.standardOutput)
        for (stream, piece) in WriteOut(variables: variables.all).render(text) {
            switch stream {
            case .standardOutput: out.write(piece)
            case .standardError: StandardError.write(piece)
            }
        }
    }

    private var outputName: String? {
        guard case .file(let path, _)? = output?.target else { return nil }
        return path
    }
}
