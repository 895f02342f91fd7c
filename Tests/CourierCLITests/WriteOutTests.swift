import Courier
import CourierTestSupport
import Testing

/// -w: curl's variables, %{json}, %{stderr}/%{stdout}, escapes, @file, Courier's extras.
@Suite struct WriteOutTests {
    @Test func jsonHasCurlsVariablesTyped() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-s", "-o", "/dev/null", "-w", "%{json}", server.baseURL + "/hello"])
        #expect(run.status == 0)
        let json = try CLI.json(run.out)
        #expect(json["http_code"]?.intValue == 200)
        #expect(json["size_download"]?.intValue == 5)
        #expect(json["size_upload"]?.intValue == 0)
        #expect(json["num_redirects"]?.intValue == 0)
        #expect(json["num_connects"]?.intValue == 1)
        #expect(json["url_effective"]?.stringValue == server.baseURL + "/hello")
        #expect(json["remote_ip"]?.stringValue == "127.0.0.1")
        #expect(json["remote_port"]?.intValue == server.port)
        #expect(json["content_type"]?.stringValue == "text/plain")
        #expect(json["exitcode"]?.intValue == 0)
        #expect(json["errormsg"]?.isNull == true)
        #expect(json["connection_reused"]?.intValue == 0)
        #expect(json["tls_session_resumed"]?.intValue == 0)
        #expect(json["dns_cache_hit"]?.intValue == 0)
        #expect((json["speed_download"]?.int64Value ?? -1) >= 0)
        let times = ["time_namelookup", "time_connect", "time_pretransfer", "time_starttransfer", "time_total"].map { json[$0]?.doubleValue ?? -1 }
        #expect(times.allSatisfy { $0 >= 0 })
        #expect(times == times.sorted())
        #expect(json["time_appconnect"]?.doubleValue == 0)
    }

    @Test func jsonOfAFailureNamesTheError() throws {
        let server = try CLI.server()
        let url = server.baseURL + "/hello"
        server.shutdown()
        let run = try CourierRun.run(["-s", "-w", "%{json}", url])
        #expect(run.status == 7)
        let json = try CLI.json(run.out)
        #expect(json["exitcode"]?.intValue == 7)
        #expect(json["http_code"]?.intValue == 0)
        #expect(json["errormsg"]?.stringValue?.contains("connect") == true)
    }

    @Test func streamsEscapesAndPercent() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-o", "/dev/null", "-w", "%{http_code}\\t100%%\\n%{stderr}%{content_type}\\n%{stdout}end", server.baseURL + "/hello"])
        #expect(run.status == 0)
        #expect(run.out == "200\t100%\nend")
        #expect(run.err == "text/plain\n")
    }

    @Test func formatFromAFile() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let directory = try CLI.scratchDirectory()
        try CLI.write("code=%{response_code} size=%{size_download}\n", to: directory + "/format")
        let run = try CourierRun.run(["-o", "/dev/null", "-w", "@" + directory + "/format", server.baseURL + "/hello"])
        #expect(run.out == "code=200 size=5\n")
    }

    @Test func aResponseHeaderByName() throws {
        let server = try CLI.server()
        defer { server.shutdown() }
        let run = try CourierRun.run(["-o", "/dev/null", "-w", "%header{content-type}|%header{x-none}|", server.baseURL + "/hello"])
        #expect(run.out == "text/plain||")
    }
}
