import Benchmark
import ParserCorpus

// Courier's HTTP/1.1 response parser against llhttp, on the same bytes (see Corpus.swift).
//
// Two configurations, never mixed (metric collection for one disturbs the other):
// - time: wall clock and throughput, 1,000 responses per measured iteration (`scalingFactor:
//   .kilo`), so wall clock is reported in ns per response (always ns, for precision) and
//   throughput in thousands of responses/s;
// - malloc: malloc counters only, one response per measured iteration, after warm-up, so the
//   counts are per response in steady state.
// gzip+inflate (Courier only) inflates about 160 KiB per response, so it runs one response per
// iteration in both configurations.

let benchmarks: @Sendable () -> Void = {
    Validation.run()

    let time = Benchmark.Configuration(
        metrics: [.wallClock, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 100_000)
    let timeSlow = Benchmark.Configuration(
        metrics: [.wallClock, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 100_000)
    let malloc = Benchmark.Configuration(
        metrics: [.mallocCountTotal, .mallocCountSmall, .mallocCountLarge, .freeCountTotal, .mallocBytesCount],
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: .seconds(1),
        maxIterations: 10_000)

    // Control: proves the malloc counters count here (one array allocation per iteration), so
    // the zeros below are measurements, not a disabled counter.
    Benchmark("malloc control: one Array allocation", configuration: malloc) { benchmark in
        for i in benchmark.scaledIterations { blackHole([i, i &+ 1]) }
    }

    for testCase in Corpus.all {
        let courier = CourierDriver(testCase)
        Benchmark("time \(testCase.name) Courier", configuration: time) { benchmark in
            blackHole(courier.run(benchmark.scaledIterations))
        }
        let llhttp = LLHTTPDriver(testCase)
        Benchmark("time \(testCase.name) llhttp", configuration: time) { benchmark in
            blackHole(llhttp.run(benchmark.scaledIterations))
        }
        // Received: both copy the response into a read buffer first, as from a socket.
        let courierR = CourierDriver(testCase, receive: true)
        Benchmark("time \(testCase.name) Courier received", configuration: time) { benchmark in
            blackHole(courierR.run(benchmark.scaledIterations))
        }
        let llhttpR = LLHTTPDriver(testCase, receive: true)
        Benchmark("time \(testCase.name) llhttp received", configuration: time) { benchmark in
            blackHole(llhttpR.run(benchmark.scaledIterations))
        }
        let courierRM = CourierDriver(testCase, receive: true)
        Benchmark("malloc \(testCase.name) Courier received", configuration: malloc) { benchmark in
            blackHole(courierRM.run(benchmark.scaledIterations))
        }
        let courierM = CourierDriver(testCase)
        Benchmark("malloc \(testCase.name) Courier", configuration: malloc) { benchmark in
            blackHole(courierM.run(benchmark.scaledIterations))
        }
        let llhttpM = LLHTTPDriver(testCase)
        Benchmark("malloc \(testCase.name) llhttp", configuration: malloc) { benchmark in
            blackHole(llhttpM.run(benchmark.scaledIterations))
        }
    }

    let inflating = CourierInflatingDriver(Corpus.gzip)
    Benchmark("time gzip+inflate Courier-only", configuration: timeSlow) { benchmark in
        blackHole(inflating.run(benchmark.scaledIterations))
    }
    let inflatingM = CourierInflatingDriver(Corpus.gzip)
    Benchmark("malloc gzip+inflate Courier-only", configuration: malloc) { benchmark in
        blackHole(inflatingM.run(benchmark.scaledIterations))
    }
}
