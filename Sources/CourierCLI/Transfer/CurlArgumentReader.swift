/// Reads a command line the way curl does (curl(1), "OPTIONS"): short flags combine (`-sSfL`),
/// a short option's value may be attached (`-XPOST`, `-o-`) or follow, long options take their
/// value after a space or an `=` (`--data=x`), options and URLs mix in any order, `--` ends the
/// options. swift-argument-parser reads neither attached values nor curl's clusters, so this
/// small reader does instead.
struct CurlArgumentReader {
    /// A usage error: curl's exit status 2 (26 for a config file that cannot be read) and its
    /// message.
    struct UsageError: Error, CustomStringConvertible {
        let message: String
        var exitCode = CurlExit.usage
        var description: String { message }
    }

    /// How deep config files may name config files.
    static let configNesting = 10

    /// Short letters and the long option each stands for.
    static let shortOptions: [Character: String] = [
        "X": "request", "H": "header", "A": "user-agent", "e": "referer", "I": "head", "G": "get",
        "d": "data", "F": "form", "T": "upload-file", "o": "output", "O": "remote-name", "i": "include",
        "D": "dump-header", "w": "write-out", "L": "location", "f": "fail", "s": "silent", "S": "show-error",
        "v": "verbose", "u": "user", "b": "cookie", "c": "cookie-jar", "k": "insecure", "E": "cert",
        "x": "proxy", "C": "continue-at", "g": "globoff", "m": "max-time", "h": "help", "V": "version", "#": "progress-bar",
        "K": "config",
    ]

    /// Long options that take a value.
    static let valued: Set<String> = [
        "request", "header", "user-agent", "referer", "data", "data-ascii", "data-raw", "data-binary",
        "data-urlencode", "json", "form", "form-string", "upload-file", "output", "output-dir", "dump-header",
        "write-out", "max-redirs", "user", "cookie", "cookie-jar", "cacert", "capath", "cert", "key",
        "pinnedpubkey", "pass", "proxy", "noproxy", "unix-socket", "continue-at", "retry", "retry-delay",
        "retry-max-time", "connect-timeout", "max-time", "limit-rate", "har", "url", "config",
    ]

    /// Long options that are on/off (`--no-NAME` turns one off).
    static let booleans: Set<String> = [
        "head", "get", "remote-name", "create-dirs", "include", "location", "fail", "fail-with-body", "silent",
        "show-error", "verbose", "compressed", "digest", "basic", "insecure", "retry-all-errors", "help",
        "version", "progress-bar", "remote-name-all", "progress-meter", "globoff", "retry-connrefused",
    ]

    static func read(_ arguments: [String]) throws(UsageError) -> CurlOptions {
        var options = CurlOptions()
        var index = 0
        var onlyURLs = false
        func value(for name: String, attached: String?) throws(UsageError) -> String {
            if let attached { return attached }
            index += 1
            guard index < arguments.count else { throw UsageError(message: "option --\(name): requires parameter") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            if onlyURLs || argument == "-" || !argument.hasPrefix("-") {
                options.urls.append(argument)
            } else if argument == "--" {
                onlyURLs = true
            } else if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                var attached: String?
                if let equals = name.firstIndex(of: "="), valued.contains(String(name[..<equals])) {
                    attached = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                if valued.contains(name) {
                    try applyValued(name, value: try value(for: name, attached: attached), to: &options, nesting: 0)
                } else if booleans.contains(name) {
                    try apply(name, value: nil, to: &options)
                } else if name.hasPrefix("no-"), booleans.contains(String(name.dropFirst(3))) {
                    try disable(String(name.dropFirst(3)), in: &options)
                } else {
                    let shown = name.split(separator: "=", maxSplits: 1).first.map(String.init) ?? name
                    throw UsageError(message: "option --\(shown): is unknown")
                }
            } else {
                // A cluster of short flags; a valued one takes the rest of the cluster, or the
                // next argument.
                var letters = Substring(argument.dropFirst())
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    guard let name = shortOptions[letter] else { throw UsageError(message: "option -\(letter): is unknown") }
                    if valued.contains(name) {
                        try applyValued(
                            name, value: try value(for: name, attached: letters.isEmpty ? nil : String(letters)), to: &options, nesting: 0)
                        break
                    }
                    try apply(name, value: nil, to: &options)
                }
            }
            index += 1
        }
        return options
    }

    /// A valued option; `--config` reads its file where it stands, as curl does, so that later
    /// options override what the file set.
    static func applyValued(_ name: String, value: String, to options: inout CurlOptions, nesting: Int) throws(UsageError) {
        guard name == "config" else { return try apply(name, value: value, to: &options) }
        guard nesting < configNesting else {
            throw UsageError(message: "option --config: config files nest more than \(configNesting) deep at '\(value)'")
        }
        let bytes: [UInt8]
        do { bytes = try RequestBodyBuilder.read(value) } catch {
            throw UsageError(message: "cannot read config from '\(value)'", exitCode: CurlExit.readError)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UsageError(message: "config file '\(value)' is not UTF-8 text", exitCode: CurlExit.readError)
        }
        for line in CurlConfigFile.parse(text) {
            let name: String
            if line.option.hasPrefix("--") {
                name = String(line.option.dropFirst(2))
            } else if line.option.hasPrefix("-") {
                // One short option a line (`-o file`, `-s`).
                guard line.option.count == 2, let letter = line.option.last, let long = shortOptions[letter] else {
                    options.warnings.append("\(value):\(line.number): warning: '\(line.option)' is unknown")
                    continue
                }
                name = long
            } else {
                name = line.option
            }
            if valued.contains(name) {
                guard let parameter = line.value else {
                    throw UsageError(message: "\(value):\(line.number): option \(line.option): requires parameter")
                }
                try applyValued(name, value: parameter, to: &options, nesting: nesting + 1)
            } else if booleans.contains(name) {
                // A value after an on/off option is ignored, as curl ignores it.
                try apply(name, value: nil, to: &options)
            } else if name.hasPrefix("no-"), booleans.contains(String(name.dropFirst(3))) {
                try disable(String(name.dropFirst(3)), in: &options)
            } else {
                // curl warns and goes on.
                options.warnings.append("\(value):\(line.number): warning: '\(line.option)' is unknown")
            }
        }
    }

    /// curl's `--cert <certificate[:password]>`: the file name up to the first `:` not escaped
    /// with a backslash (`\:` is a colon of the name, `\\` a backslash), and the password after
    /// it, taken as is.
    static func certificateAndPassword(_ text: String) -> (file: String, password: String?) {
        var file = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "\\", next < text.endIndex, text[next] == ":" || text[next] == "\\" {
                file.append(text[next])
                index = text.index(after: next)
            } else if character == ":" {
                return (file, String(text[next...]))
            } else {
                file.append(character)
                index = next
            }
        }
        return (file, nil)
    }

    static func number(_ text: String, for name: String) throws(UsageError) -> Double {
        guard let value = Double(text), value >= 0, value.isFinite else {
            throw UsageError(message: "option --\(name): expected a proper numerical parameter")
        }
        return value
    }

    static func integer(_ text: String, for name: String) throws(UsageError) -> Int {
        guard let value = Int(text) else { throw UsageError(message: "option --\(name): expected a proper numerical parameter") }
        return value
    }

    /// `--limit-rate`: bytes per second with curl's suffixes (k, m, g; powers of 1024).
    static func rate(_ text: String) throws(UsageError) -> Int64 {
        var digits = Substring(text)
        var scale: Int64 = 1
        switch digits.last?.lowercased() {
        case "k": scale = 1024; digits = digits.dropLast()
        case "m": scale = 1024 * 1024; digits = digits.dropLast()
        case "g": scale = 1024 * 1024 * 1024; digits = digits.dropLast()
        default: break
        }
        guard let value = Double(digits), value > 0, value.isFinite else {
            throw UsageError(message: "option --limit-rate: expected a proper numerical parameter")
        }
        return Int64(value * Double(scale))
    }

    static func apply(_ name: String, value: String?, to options: inout CurlOptions) throws(UsageError) {
        let text = value ?? ""
        switch name {
        case "request": options.method = text
        case "header": options.headers.append(text)
        case "user-agent": options.userAgent = text
        case "referer": options.referer = text
        case "head": options.head = true
        case "get": options.get = true
        case "data", "data-ascii": options.data.append(.ascii(text))
        case "data-raw": options.data.append(.raw(text))
        case "data-binary": options.data.append(.binary(text))
        case "data-urlencode": options.data.append(.urlencode(text))
        case "json": options.data.append(.json(text))
        case "form": options.form.append((text, false))
        case "form-string": options.form.append((text, true))
        case "upload-file": options.uploadFile = text
        case "output": options.outputs.append(text)
        case "remote-name": options.remoteNameCount += 1
        case "remote-name-all": options.remoteNameCount = Int.max / 2
        case "output-dir": options.outputDirectory = text
        case "create-dirs": options.createDirectories = true
        case "include": options.includeHeaders = true
        case "dump-header": options.dumpHeader = text
        case "write-out": options.writeOut = text
        case "location": options.followRedirects = true
        case "max-redirs": options.maximumRedirects = try integer(text, for: name)
        case "fail": options.fail = true
        case "fail-with-body": options.failWithBody = true
        case "silent": options.silent = true
        case "show-error": options.showError = true
        case "verbose": options.verbose = true
        case "progress-bar": options.progressBar = true
        case "progress-meter": break
        case "compressed": options.compressed = true
        case "user": options.user = text
        case "digest": options.digest = true
        case "basic": options.digest = false
        case "cookie": options.cookies.append(text)
        case "cookie-jar": options.cookieJar = text
        case "insecure": options.insecure = true
        case "cacert": options.caCertificate = text
        case "capath": options.caPath = text
        case "cert":
            let (file, password) = certificateAndPassword(text)
            options.certificate = file
            // A later `--pass` wins, as an earlier one loses to the password here.
            if let password { options.keyPassword = password }
        case "pass": options.keyPassword = text
        case "key": options.key = text
        case "pinnedpubkey": options.pinnedPublicKey = text
        case "proxy": options.proxy = text
        case "noproxy": options.noProxy = text
        case "unix-socket": options.unixSocket = text
        case "continue-at": options.continueAt = text
        case "retry": options.retry = try integer(text, for: name)
        case "retry-delay": options.retryDelay = try number(text, for: name)
        case "retry-max-time": options.retryMaximumTime = try number(text, for: name)
        case "retry-all-errors": options.retryAllErrors = true
        case "retry-connrefused": options.retryConnectionRefused = true
        case "globoff": options.globOff = true
        case "connect-timeout": options.connectTimeout = try number(text, for: name)
        case "max-time": options.maximumTime = try number(text, for: name)
        case "limit-rate": options.limitRate = try rate(text)
        case "har": options.har = text
        case "url": options.urls.append(text)
        case "help": options.showHelp = true
        case "version": options.showVersion = true
        default: throw UsageError(message: "option --\(name): is unknown")
        }
    }

    static func disable(_ name: String, in options: inout CurlOptions) throws(UsageError) {
        switch name {
        case "silent": options.silent = false
        case "show-error": options.showError = false
        case "verbose": options.verbose = false
        case "location": options.followRedirects = false
        case "fail": options.fail = false
        case "include": options.includeHeaders = false
        case "compressed": options.compressed = false
        case "insecure": options.insecure = false
        case "progress-meter": options.silent = options.silent || false
        case "progress-bar": options.progressBar = false
        case "create-dirs": options.createDirectories = false
        default: break
        }
    }
}
