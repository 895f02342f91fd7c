import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// `courier`: a curl-compatible HTTP/1.1 client (the default) and `courier bench`, a load
/// generator in the manner of wrk and wrk2.
@main
struct CourierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "Transfer a URL, or load-test a server (courier bench).",
        version: CourierVersion.string,
        subcommands: [TransferCommand.self, BenchCommand.self],
        defaultSubcommand: TransferCommand.self
    )

    /// Parses and runs, with curl's exit status for a usage error (2, where swift-argument-parser
    /// would use 64). A command's own failure picks its own status (`ExitCode`).
    static func main() async {
        // Every command line but `courier bench …` is a transfer, read the curl way.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if TransferMain.handles(arguments) { Glibc.exit(await TransferMain.run(arguments)) }
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = fullMessage(for: error)
                let line = message.hasSuffix("\n") ? message : message + "\n"
                // One write to fd 2 (the C `stderr` global is shared mutable state to Swift 6).
                _ = line.utf8.withContiguousStorageIfAvailable { write(2, $0.baseAddress, $0.count) }
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }
}
