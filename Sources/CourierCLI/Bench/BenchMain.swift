/// `courier bench [options] URL`: a load generator in the manner of wrk and wrk2. Returns the
/// exit status: 0, 1 when the run could not start (one line on stderr), 2 for a usage error.
enum BenchMain {
    static func run(_ arguments: [String]) -> Int32 {
        let options: BenchOptions
        do {
            switch try BenchArgumentReader.read(arguments) {
            case .run(let read): options = read
            case .help:
                Output.out(BenchHelp.text)
                return 0
            case .version:
                Output.out(CourierVersion.string + "\n")
                return 0
            }
        } catch {
            Output.err(error.description)
            return 2
        }
        let plan: BenchPlan
        let result: BenchResult
        do {
            plan = try BenchPlan(options)
            result = try BenchDriver.run(plan)
        } catch {
            Output.err(error.description + "\n")
            return 1
        }
        Output.out(options.json ? BenchReport.json(plan: plan, result: result) : BenchReport.text(plan: plan, result: result))
        return 0
    }
}
