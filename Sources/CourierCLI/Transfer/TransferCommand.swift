import ArgumentParser
import Courier

/// `courier [options] URL...`: one or more transfers, with curl's flags. `courier`'s `main`
/// hands every command line but `bench`'s to ``TransferMain`` before swift-argument-parser sees
/// it; this command is what the parser would run for `courier transfer …`, and it does the same.
struct TransferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "Transfer URLs with curl's flags (the default command; see courier --help).",
        shouldDisplay: false
    )

    @Argument(parsing: .captureForPassthrough, help: "curl's options and the URLs to transfer.")
    var arguments: [String] = []

    func run() async throws {
        let status = await TransferMain.run(arguments)
        if status != 0 { throw ExitCode(status) }
    }
}
