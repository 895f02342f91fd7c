/// `courier bench --help`: wrk's options grouped as ``BenchOption/groups`` lists them, with the
/// wrk and wrk2 lines the examples replace.
enum BenchHelp {
    static let usage = "courier bench [<options>] <url>"

    static let overview = """
        OVERVIEW: Load-test an HTTP/1.1 server (wrk's and wrk2's options).

        Closed loop by default (as wrk): each connection sends its next request when
        the previous one ends. With -R (as wrk2), requests are due at fixed intervals
        on each connection and latency counts from when each was due, so a stall is
        charged to the requests queued behind it (coordinated omission corrected).

        Examples (and the wrk/wrk2 lines they replace):
          courier bench -c 32 -d 10s URL              wrk -c 32 -d 10s URL
          courier bench -c 64 -R 20000 -d 30s URL     wrk2 -c 64 -R 20000 -d 30s URL
          courier bench -n 100000 --json URL > run.json
          courier bench -R 5000 -d 1m --hdr-log a.hlog URL  (HdrHistogram log)

        """

    /// The whole text, lines of at most 80 columns.
    static var text: String {
        var out = overview + "\nUSAGE: \(usage)\n\nARGUMENTS:\n"
        out += entry("<url>", "The URL to load (http or https).")
        for group in BenchOption.groups {
            out += "\n\(group.title):\n"
            for option in group.options {
                var names = option.short.map { "-\($0), --\(option.long)" } ?? "--\(option.long)"
                if let value = option.valueName { names += " <\(value)>" }
                out += entry(names, option.help + (option.defaultValue.map { " (default: \($0))" } ?? ""))
            }
        }
        out += "\nOPTIONS:\n" + entry("--version", "Show the version.") + entry("-h, --help", "Show help information.")
        return out + "\n"
    }

    /// `label` in a 24-column margin (on a line of its own when longer), then `help` wrapped.
    static func entry(_ label: String, _ help: String) -> String {
        let margin = 26
        var out = "  " + label
        if out.count > margin - 2 {
            out += "\n" + String(repeating: " ", count: margin)
        } else {
            out += String(repeating: " ", count: margin - out.count)
        }
        var column = margin
        var first = true
        for word in help.split(separator: " ") {
            if !first && column + 1 + word.count > 80 {
                out += "\n" + String(repeating: " ", count: margin)
                column = margin
                first = true
            }
            if !first {
                out += " "
                column += 1
            }
            out += word
            column += word.count
            first = false
        }
        return out + "\n"
    }
}
