#if canImport(Glibc)
import Glibc
#endif

/// The entry of the default command: curl's command line, read by ``CurlArgumentReader`` (not by
/// swift-argument-parser, which reads neither `-XPOST` nor `-sSfL` the curl way), then run.
enum TransferMain {
    /// Whether a command line is a transfer: anything but `courier bench …`.
    static func handles(_ arguments: [String]) -> Bool { arguments.first != "bench" }

    static func run(_ arguments: [String]) async -> Int32 {
        // A closed pipe is a write error (23), as for curl, not a signal.
        signal(SIGPIPE, SIG_IGN)
        var arguments = arguments
        if arguments.first == "transfer" { arguments.removeFirst() }
        var options: CurlOptions
        do { options = try CurlArgumentReader.read(arguments) } catch {
            StandardError.write("courier: \(error.message)\ncourier: try 'courier --help' for more information\n")
            return error.exitCode
        }
        if !options.silent {
            for warning in options.warnings { StandardError.write("Warning: \(warning)\n") }
        }
        if options.showHelp {
            OutputFile(.standardOutput).write(CurlHelp.text)
            return 0
        }
        if options.showVersion {
            OutputFile(.standardOutput).write(CourierVersion.string + "\n")
            return 0
        }
        guard !options.urls.isEmpty else {
            StandardError.write("courier: no URL specified\ncourier: try 'courier --help' for more information\n")
            return CurlExit.usage
        }
        // Asked once, before the first transfer, as curl does.
        if let user = options.user { options.user = PasswordPrompt.completing(user) }
        return await TransferRunner(options: options).run()
    }
}
