/// Everything one `courier` command line asks for, as curl's flags name it (curl(1)). Filled by
/// ``CurlArgumentReader``; read by ``TransferRunner``.
struct CurlOptions: Sendable {
    /// A part of a request body given with `-d` and its kin, in command-line order.
    enum DataPart: Sendable, Equatable {
        /// `-d`/`--data`/`--data-ascii`: `@file` reads a file with CR and LF removed.
        case ascii(String)
        /// `--data-raw`: taken as is, no `@`.
        case raw(String)
        /// `--data-binary`: `@file` reads a file as is.
        case binary(String)
        /// `--data-urlencode`: `content`, `=content`, `name=content`, `@file`, `name@file`.
        case urlencode(String)
        /// `--json`: like `--data-binary`, with JSON's Content-Type and Accept.
        case json(String)
    }

    // The request.
    var urls: [String] = []
    /// `-g`/`--globoff`: `{}` and `[]` in URLs are literal.
    var globOff = false
    var method: String?
    var headers: [String] = []
    var userAgent: String?
    var referer: String?
    var head = false
    var get = false
    var data: [DataPart] = []
    /// `-F` fields; `literal` for `--form-string` (no `@file`, `<file` or `;type=`).
    var form: [(field: String, literal: Bool)] = []
    var uploadFile: String?

    // The output.
    var outputs: [String] = []
    var remoteNameCount = 0
    var outputDirectory: String?
    var createDirectories = false
    var includeHeaders = false
    var dumpHeader: String?
    var writeOut: String?

    // Redirects, errors and verbosity.
    var followRedirects = false
    var maximumRedirects = 50
    var fail = false
    var failWithBody = false
    var silent = false
    /// Warnings to print before the transfer (unknown options in a config file), unless silent.
    var warnings: [String] = []
    var showError = false
    var verbose = false
    var progressBar = false

    // Encoding, authentication, cookies.
    var compressed = false
    var user: String?
    var digest = false
    var cookies: [String] = []
    var cookieJar: String?

    // TLS.
    var insecure = false
    var caCertificate: String?
    var caPath: String?
    var certificate: String?
    var key: String?
    /// The private key's password: `--pass`, or what follows the first unescaped `:` of `--cert`.
    var keyPassword: String?
    var pinnedPublicKey: String?

    // Proxies and sockets.
    var proxy: String?
    var noProxy: String?
    var unixSocket: String?

    // Recovery and limits.
    var continueAt: String?
    var retry = 0
    var retryDelay: Double?
    var retryMaximumTime: Double?
    var retryAllErrors = false
    var retryConnectionRefused = false
    var connectTimeout: Double?
    var maximumTime: Double?
    var limitRate: Int64?
    var har: String?

    // What to print instead of a transfer.
    var showHelp = false
    var showVersion = false

    /// Whether errors are printed: curl prints them unless `-s`, and `-S` brings them back.
    var printsErrors: Bool { !silent || showError }
}
