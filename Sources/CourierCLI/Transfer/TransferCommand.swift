import ArgumentParser
import Courier

/// `courier [options] URL...`: one or more transfers, with curl's flags.
struct TransferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "Transfer URLs with curl's flags (the default command).",
        shouldDisplay: false
    )

    @Argument(help: "The URLs to transfer.")
    var urls: [String] = []

    func run() async throws {
        throw ValidationError("the transfer command is being written")
    }
}
