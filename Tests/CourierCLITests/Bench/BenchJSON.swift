import Courier

/// `courier bench --json`, as the tests read it.
struct BenchJSON: Decodable {
    struct Histogram: Decodable {
        let count: Int
        let p50_ns: Int
        let p99_ns: Int
        let max_ns: Int
    }

    let mode: String
    let batch_window_ns: Int?
    let connections: Int
    let seconds: Double
    let requests: Int
    let responses: Int
    let failures: Int
    let bytes_received: Int
    let connections_opened: Int
    let latency: Histogram
    let phases: [String: Histogram]
    let status: [String: Int]
    let errors: [String: Int]

    static func parse(_ run: CourierRun) throws -> BenchJSON {
        try JSONDecoder().decode(BenchJSON.self, from: Data(run.stdout))
    }
}
