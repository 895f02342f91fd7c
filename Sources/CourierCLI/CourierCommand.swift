import ArgumentParser

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
}
