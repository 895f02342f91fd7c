import Testing
@testable import CourierCLI

/// curl's config file syntax (`-K`), and how the reader applies a file where `-K` stands.
@Suite struct CurlConfigFileTests {
    typealias Line = CurlConfigFile.Line

    @Test func optionsWithAndWithoutDashesAndTheThreeSeparators() {
        let text = "silent\n--verbose\n-o out.txt\nurl = http://a/\nheader: \"X-A: 1\"\nreferer\thttp://r/\n"
        #expect(CurlConfigFile.parse(text) == [
            Line(option: "silent", value: nil, number: 1),
            Line(option: "--verbose", value: nil, number: 2),
            Line(option: "-o", value: "out.txt", number: 3),
            Line(option: "url", value: "http://a/", number: 4),
            Line(option: "header", value: "X-A: 1", number: 5),
            Line(option: "referer", value: "http://r/", number: 6),
        ])
    }

    @Test func commentsBlankLinesAndCRLFAreSkippedButCounted() {
        let text = "# a comment\r\n\r\n   \t\n  # indented comment\n\tsilent\r\nurl=http://a/\r\n"
        #expect(CurlConfigFile.parse(text) == [
            Line(option: "silent", value: nil, number: 5),
            Line(option: "url", value: "http://a/", number: 6),
        ])
    }

    @Test func quotedValuesKeepWhitespaceAndUndoEscapes() {
        let text = #"write-out = "%{http_code}\t\"x\"\\ \r\n\v\q" ignored after"# + "\n" + #"data "unterminated  "#
        #expect(CurlConfigFile.parse(text) == [
            Line(option: "write-out", value: "%{http_code}\t\"x\"\\ \r\n\u{0B}q", number: 1),
            Line(option: "data", value: "unterminated  ", number: 2),
        ])
    }

    @Test func anUnquotedValueEndsAtWhitespaceAndTheRestIsIgnored() {
        #expect(CurlConfigFile.parse("user a:b c d\nurl=http://x:80/p?q=1 trailing") == [
            Line(option: "user", value: "a:b", number: 1),
            Line(option: "url", value: "http://x:80/p?q=1", number: 2),
        ])
    }

    @Test func aColonOrEqualsRightAfterTheNameSeparates() {
        #expect(CurlConfigFile.parse("max-time:5\nretry=3\nurl :http://a/") == [
            Line(option: "max-time", value: "5", number: 1),
            Line(option: "retry", value: "3", number: 2),
            Line(option: "url", value: "http://a/", number: 3),
        ])
    }

    // MARK: The reader

    /// A config file holding `text`, in a scratch directory removed at exit.
    static func write(_ text: String) throws -> String {
        let path = try CLI.scratchDirectory() + "/config"
        try CLI.write(text, to: path)
        return path
    }

    @Test func aConfigFileAppliesWhereMinusKStands() throws {
        let path = try Self.write("silent\nheader = \"X-A: 1\"\n-o from-config\nmax-time 7\nurl = \"http://a/\"\nno-verbose\n")
        // -v before -K is turned off by the file's no-verbose; -o after -K adds to its outputs.
        let options = try CurlArgumentReader.read(["-v", "-K", path, "-m", "9", "-o", "second", "http://b/"])
        #expect(options.silent)
        #expect(!options.verbose)
        #expect(options.headers == ["X-A: 1"])
        #expect(options.outputs == ["from-config", "second"])
        #expect(options.maximumTime == 9)
        #expect(options.urls == ["http://a/", "http://b/"])
        #expect(options.warnings.isEmpty)
    }

    @Test func unknownOptionsWarnWithFileAndLineAndTheRestApplies() throws {
        let path = try Self.write("bogus-option\n--also-bogus=1\n-sS\nsilent extra words\n")
        let options = try CurlArgumentReader.read(["--config=\(path)", "http://a/"])
        #expect(options.silent)
        #expect(options.warnings == [
            "\(path):1: warning: 'bogus-option' is unknown",
            "\(path):2: warning: '--also-bogus' is unknown",
            "\(path):3: warning: '-sS' is unknown",
        ])
    }

    @Test func aValuedOptionWithoutItsValueIsAUsageError() throws {
        let path = try Self.write("silent\noutput\n")
        #expect(throws: CurlArgumentReader.UsageError.self) { try CurlArgumentReader.read(["-K", path]) }
        do {
            _ = try CurlArgumentReader.read(["-K", path])
        } catch {
            #expect(error.message == "\(path):2: option output: requires parameter")
            #expect(error.exitCode == 2)
        }
    }

    @Test func anUnreadableFileIsCurlsReadError() {
        do {
            _ = try CurlArgumentReader.read(["-K", "/nonexistent/courier.config", "http://a/"])
            Issue.record("no error")
        } catch {
            #expect(error.message == "cannot read config from '/nonexistent/courier.config'")
            #expect(error.exitCode == 26)
        }
    }

    @Test func configFilesMayNameConfigFilesButNotForever() throws {
        let inner = try Self.write("url = http://inner/\n")
        let outer = try Self.write("silent\nconfig = \"\(inner)\"\n")
        let options = try CurlArgumentReader.read(["-K", outer])
        #expect(options.urls == ["http://inner/"])
        #expect(options.silent)

        // A file that names itself.
        let loop = try Self.write("")
        try CLI.write("config \(loop)\n", to: loop)
        do {
            _ = try CurlArgumentReader.read(["-K", loop])
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("nest more than 10 deep"))
            #expect(error.exitCode == 2)
        }
    }
}

/// curl's `--cert <certificate[:password]>` and `--pass`.
@Suite struct CertificatePasswordTests {
    @Test(arguments: [
        ("client.pem", "client.pem", nil),
        ("client.pem:secret", "client.pem", "secret"),
        ("client.pem:", "client.pem", ""),
        ("client.pem:a:b\\:c", "client.pem", "a:b\\:c"),
        ("dir\\:x/client.pem:pw", "dir:x/client.pem", "pw"),
        ("back\\\\slash.pem", "back\\slash.pem", nil),
        ("trailing\\", "trailing\\", nil),
    ] as [(String, String, String?)])
    func theFirstUnescapedColonSplits(_ text: String, _ file: String, _ password: String?) {
        let split = CurlArgumentReader.certificateAndPassword(text)
        #expect(split.file == file)
        #expect(split.password == password)
    }

    @Test func theLastPasswordGivenWins() throws {
        let fromCert = try CurlArgumentReader.read(["--pass", "first", "-E", "c.pem:second", "http://a/"])
        #expect(fromCert.certificate == "c.pem")
        #expect(fromCert.keyPassword == "second")
        let fromPass = try CurlArgumentReader.read(["--cert", "c.pem:first", "--pass", "second", "http://a/"])
        #expect(fromPass.keyPassword == "second")
        let none = try CurlArgumentReader.read(["--pass", "kept", "--cert", "c.pem", "http://a/"])
        #expect(none.keyPassword == "kept")
    }
}
