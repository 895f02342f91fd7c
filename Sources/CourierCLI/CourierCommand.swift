#if canImport(Glibc)
import Glibc
#endif

/// `courier`: a curl-compatible HTTP/1.1 client (the default) and `courier bench`, a load
/// generator in the manner of wrk and wrk2. Each reads its own arguments: the curl way
/// (``TransferMain``, ``CurlArgumentReader``) and wrk's (``BenchMain``, ``BenchArgumentReader``).
@main
enum CourierCommand {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if TransferMain.handles(arguments) { exit(await TransferMain.run(arguments)) }
        exit(BenchMain.run(Array(arguments.dropFirst())))
    }
}
