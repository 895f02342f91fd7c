// A plain driver for profilers (perf, valgrind --tool=callgrind): parses one corpus case over and
// over with one parser and prints the time per response. No benchmark harness in the way.
//
//   .build/release/ParserProfile <typical|40headers|500chunks|gzip> <courier|llhttp|courier-received|llhttp-received|inflate> [responses]
//   .build/release/ParserProfile sizes      (each case's response size in bytes, for results-table.py)
import Foundation
import ParserCorpus

let arguments = CommandLine.arguments
if arguments.count == 2 && arguments[1] == "sizes" {
    for testCase in Corpus.all {
        print("\(testCase.name)\t\(testCase.bytes.count)\t\(testCase.headerCount)\t\(testCase.bodyLength)")
    }
    exit(0)
}
guard arguments.count >= 3 else {
    print("usage: ParserProfile <typical|40headers|500chunks|gzip> <courier|llhttp|courier-received|llhttp-received|inflate> [responses]")
    exit(2)
}
let cases: [String: Case] = [
    "typical": Corpus.typical, "40headers": Corpus.fortyHeaders,
    "500chunks": Corpus.fiveHundredChunks, "gzip": Corpus.gzip,
]
guard let testCase = cases[arguments[1]] else { print("unknown case \(arguments[1])"); exit(2) }
let responses = arguments.count > 3 ? Int(arguments[3]) ?? 1_000_000 : 1_000_000

Validation.run()
let run: (Range<Int>) -> Int
switch arguments[2] {
case "courier": run = CourierDriver(testCase).run
case "llhttp": run = LLHTTPDriver(testCase).run
case "courier-received": run = CourierDriver(testCase, receive: true).run
case "llhttp-received": run = LLHTTPDriver(testCase, receive: true).run
case "inflate": run = CourierInflatingDriver(testCase).run
default: print("unknown parser \(arguments[2])"); exit(2)
}
_ = run(0..<min(responses, 1000))  // warm-up
let start = ContinuousClock.now
let sink = run(0..<responses)
let elapsed = ContinuousClock.now - start
let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
print(String(format: "%@ %@: %.1f ns/response, %.0f responses/s (check %d)",
             arguments[1], arguments[2], ns / Double(responses), Double(responses) / ns * 1e9, sink))
