import Courier
#if canImport(Glibc)
import Glibc
#endif

/// Runs the transfers one command line asks for, one URL after another on one session (so a
/// later URL reuses an earlier one's connection, as curl's do), and returns curl's exit status:
/// that of the last transfer that failed, or 0.
struct TransferRunner {
    let options: CurlOptions

    func run() async -> Int32 {
        let har = options.har.map { _ in HARRecorder(displayedURL: UnixSocketURL.displayed(_:)) }
        let monitor = TransferMonitor(har: har)
        let cookies = cookieJar()
        let setup = SessionSetup(options: options)
        var sessions: [Bool: SessionManager] = [:]
        var status: Int32 = 0
        var events = monitor.events.makeAsyncIterator()
        var jobs: [(index: Int, url: String, values: [String], failure: CurlExit?)] = []
        for (index, text) in options.urls.enumerated() {
            if options.globOff {
                jobs.append((index, text, [], nil))
                continue
            }
            do {
                for expansion in try URLGlob.expand(text) { jobs.append((index, expansion.url, expansion.values, nil)) }
            } catch {
                jobs.append((index, text, [], CurlExit(CurlExit.malformedURL, "bad URL glob (phase serialize): \(error.description)")))
            }
        }
        for (ordinal, job) in jobs.enumerated() {
            var transfer = SingleTransfer(options: options, index: job.index, ordinal: ordinal, urlText: job.url, globValues: job.values)
            do {
                if let failure = job.failure { throw failure }
                let url = try transfer.parseURL()
                let proxied = setup.usesProxy(for: url)
                let session: SessionManager
                if let existing = sessions[proxied] {
                    session = existing
                } else {
                    let configuration = try setup.configuration(monitor: monitor, cookies: cookies, proxied: proxied)
                    do {
                        session = try SessionManager(configuration: configuration, securityPolicy: try setup.securityPolicy())
                    } catch let error as CurlExit {
                        throw error
                    } catch {
                        throw CurlExit(CurlExit.failedInitialization, "Failed initialization: \(error)")
                    }
                    sessions[proxied] = session
                    installHooks(on: session)
                }
                try await transfer.run(url: url, session: session, setup: setup, monitor: monitor, events: &events)
            } catch {
                transfer.fail(error)
            }
            transfer.finish()
            if transfer.exitCode != 0 { status = transfer.exitCode }
        }
        if let path = options.cookieJar, let cookies {
            // `-c -`: the cookie file on stdout.
            if path == "-" {
                let out = OutputFile(.standardOutput)
                out.write(cookies.netscapeCookieFile())
                if out.failure != nil { status = CurlExit.writeError }
            } else {
                do { try cookies.write(toFile: path) } catch {
                    report(CurlExit(CurlExit.writeError, "Failed to save cookies in \(path): \(error)"))
                    status = CurlExit.writeError
                }
            }
        }
        if let path = options.har, let har {
            do { try har.jsonData(prettyPrinted: true).write(to: URL(fileURLWithPath: path)) } catch {
                report(CurlExit(CurlExit.writeError, "Failed to write the HAR log to \(path): \(error)"))
                status = CurlExit.writeError
            }
        }
        for session in sessions.values { await Self.close(session) }
        return status
    }

    /// Invalidates `session` and returns once it has finished (`sessionDidBecomeInvalid`): its
    /// tasks ended and the client it owns shut down, connections and TLS state freed. The
    /// process then exits with nothing of the library still running on its loops.
    private static func close(_ session: SessionManager) async {
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            session.updateHooks { $0.sessionDidBecomeInvalid = { _ in finished.resume() } }
            session.invalidate(cancelingTasks: true)
        }
    }

    /// `-u` with `--digest`: the session answers the 401's challenge with the credential.
    private func installHooks(on session: SessionManager) {
        guard options.digest, let user = options.user else { return }
        let credential = Self.credential(user)
        session.updateHooks { hooks in
            hooks.taskDidReceiveAuthenticationChallenge = { _, challenge in
                challenge.previousFailureCount == 0 ? .useCredential(credential) : .performDefaultHandling
            }
        }
    }

    static func credential(_ text: String) -> Credential {
        guard let colon = text.firstIndex(of: ":") else { return Credential(user: text, password: "") }
        return Credential(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }

    /// The cookie engine: on with `-b FILE` or `-c`, off otherwise (as curl's).
    private func cookieJar() -> CookieJar? {
        let files = options.cookies.filter { !$0.contains("=") }
        guard !files.isEmpty || options.cookieJar != nil else { return nil }
        let jar = CookieJar()
        for file in files where file != "-" {
            // curl reads what it can and ignores a file that is not there.
            _ = try? jar.load(contentsOfFile: file)
        }
        return jar
    }

    private func report(_ exit: CurlExit) {
        if options.printsErrors { StandardError.write(exit.line) }
    }
}

extension CurlExit {
    static let failedInitialization: Int32 = 2
}
