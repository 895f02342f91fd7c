import ArgumentParser
import Courier

/// `courier bench [options] URL`: a load generator in the manner of wrk and wrk2.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Load-test an HTTP/1.1 server (wrk's and wrk2's options)."
    )

    @Argument(help: "The URL to load.")
    var url: String

    func run() async throws {
        throw ValidationError("the bench command is being written")
    }
}
