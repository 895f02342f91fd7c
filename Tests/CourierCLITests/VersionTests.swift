import Testing

/// `courier --version` and the help screens: the executable starts and answers without a network.
@Suite struct VersionTests {
    @Test func versionPrintsTheNameAndExitsZero() throws {
        let run = try CourierRun.run(["--version"])
        #expect(run.status == 0)
        #expect(run.out.hasPrefix("courier "))
    }

    @Test func anUnknownOptionIsAUsageErrorWithCurlsExitCode2() throws {
        let run = try CourierRun.run(["--no-such-option", "http://127.0.0.1:9/"])
        #expect(run.status == 2)
        #expect(!run.err.isEmpty)
    }
}
